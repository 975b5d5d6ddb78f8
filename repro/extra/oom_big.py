import torch

print(torch.__version__, torch.cuda.get_device_name(0))
x = torch.empty(int(200 * 2**30), dtype=torch.uint8, device="cuda")
