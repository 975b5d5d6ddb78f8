import torch
import triton
import triton.language as tl


@triton.jit
def bad_load(p, off):
    x = tl.load(p + off)
    tl.store(p, x)
t = torch.zeros(16, device="cuda")
bad_load[(1,)](t, 1 << 40)
torch.cuda.synchronize()
