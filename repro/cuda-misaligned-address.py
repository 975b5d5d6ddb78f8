"""A misaligned address from a CUDA extension that reads float4 from a pointer one float off
its 16-byte boundary (a tensor view that starts at element 1); --fix passes an aligned copy."""
import sys

import cupy as cp
import torch

kernel = cp.RawKernel(r"""
extern "C" __global__ void sum4(const float* x, float* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        out[i] = v.x + v.y + v.z + v.w;
    }
}
""", "sum4")

base = torch.randn(4097, device="cuda")
x = base[1:]  # a view starting 4 bytes into the allocation
if "--fix" in sys.argv:
    x = x.contiguous().clone()  # a fresh, 16-byte aligned buffer
out = torch.empty(1024, device="cuda")
kernel((4,), (256,), (cp.uint64(x.data_ptr()), cp.uint64(out.data_ptr()), cp.int32(1024)))
torch.cuda.synchronize()
print("OK:", out[:2].tolist())
