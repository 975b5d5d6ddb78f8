import torch

keep = []
for i in range(40):
    keep.append(torch.empty(8 * 2**30, dtype=torch.uint8, device="cuda"))
    print("allocated", (i + 1) * 8, "GiB", flush=True)
