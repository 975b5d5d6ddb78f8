import torch
import torch.distributed as dist

torch.cuda.set_device(0)                   # every rank picks GPU 0
dist.init_process_group("nccl")
t = torch.ones(1, device="cuda")
dist.all_reduce(t)
print(t.item())
