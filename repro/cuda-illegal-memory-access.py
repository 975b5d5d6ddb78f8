"""An illegal memory access from a custom Triton kernel whose index runs far past its buffer
(a wrong stride); --fix uses the right stride and a mask."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def copy(src, dst, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(src + offs * stride, mask=mask)
    tl.store(dst + offs, x, mask=mask)


n = 1 << 20
src = torch.randn(n, device="cuda")
dst = torch.empty_like(src)
stride = 1 if "--fix" in sys.argv else 64  # the bug: a stride meant for another layout (64x past the buffer)
copy[(triton.cdiv(n, 1024),)](src, dst, n, stride, BLOCK=1024)
torch.cuda.synchronize()
print("OK:", torch.equal(src, dst))
