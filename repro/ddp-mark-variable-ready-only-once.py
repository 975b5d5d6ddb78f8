"""DDP with reentrant activation checkpointing around a layer used twice in one forward;
--fix uses the non-reentrant checkpoint. One process, one GPU, NCCL."""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29612")
dist.init_process_group("nccl", rank=0, world_size=1)
reentrant = "--fix" not in sys.argv


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = torch.nn.Linear(8, 8)

    def forward(self, x):
        x = checkpoint(self.shared, x, use_reentrant=reentrant)
        return checkpoint(self.shared, x, use_reentrant=reentrant)  # the same weights again


model = DDP(Net().cuda(), device_ids=[0], find_unused_parameters=True)
model(torch.randn(4, 8, device="cuda", requires_grad=True)).sum().backward()
print("OK: backward done")
dist.destroy_process_group()
