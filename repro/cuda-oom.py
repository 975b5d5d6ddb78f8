"""CUDA out of memory, three ways, as a training script meets it; --fix makes each fit.

  python repro/cuda-oom.py too-big      # one activation larger than the whole GPU
  python repro/cuda-oom.py self         # this process already holds most of the GPU
  python repro/cuda-oom.py other        # another process holds most of the GPU
  ... --fix                             # the guide's fix: smaller batch / free the GPU first
"""
import subprocess
import sys
import time

import torch

mode = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "too-big"
fix = "--fix" in sys.argv
total = torch.cuda.get_device_properties(0).total_memory
GiB = 2**30


def step(batch: int) -> None:
    # A batch of 1 MiB float32 activations per sample, doubled by one elementwise op.
    x = torch.randn(batch, 256 * 1024, device="cuda")
    y = x * 2
    torch.cuda.synchronize()
    del x, y


if mode == "too-big":
    batch = int(total * 1.2 / (1024 * 1024))  # 1.2x the GPU in one tensor
    step(batch // 64 if fix else batch)
elif mode == "self":
    hold = torch.empty(int(total * 0.8), dtype=torch.uint8, device="cuda")  # e.g. a cache or a model
    if fix:
        del hold
        torch.cuda.empty_cache()
    step(int(total * 0.3 / (1024 * 1024)))
elif mode == "other":
    holder = subprocess.Popen([sys.executable, "-c",
                               "import torch,time; x=torch.empty(int(torch.cuda.get_device_properties(0).total_memory*0.8),"
                               " dtype=torch.uint8, device='cuda'); print('holding', flush=True); time.sleep(600)"],
                              stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    try:
        if fix:
            holder.kill()
            holder.wait()
            time.sleep(1)
        step(int(total * 0.3 / (1024 * 1024)))
    finally:
        holder.kill()
print("OK: the step fit in GPU memory; peak reserved", round(torch.cuda.max_memory_reserved() / GiB, 2), "GiB")
