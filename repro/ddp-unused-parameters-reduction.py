"""DDP around a model with a branch that is not used every step; --fix passes
find_unused_parameters=True. One process, one GPU, NCCL, as a single-GPU DDP run does."""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29611")
dist.init_process_group("nccl", rank=0, world_size=1)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(8, 8)
        self.aux = torch.nn.Linear(8, 8)  # only used on some steps

    def forward(self, x, use_aux=False):
        return self.aux(self.used(x)) if use_aux else self.used(x)


model = DDP(Net().cuda(), device_ids=[0], find_unused_parameters="--fix" in sys.argv)
for _ in range(3):
    model(torch.randn(4, 8, device="cuda")).sum().backward()
print("OK: three steps")
dist.destroy_process_group()
