import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(4, 4)
        self.unused = torch.nn.Linear(4, 4)   # defined but never used in forward
    def forward(self, x):
        return self.used(x)
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
m = DDP(M().cuda())
for _ in range(2):
    m(torch.randn(2, 4, device="cuda")).sum().backward()
