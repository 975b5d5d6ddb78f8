import torch

print("device_count", torch.cuda.device_count())
x = torch.zeros(1, device="cuda:1")
