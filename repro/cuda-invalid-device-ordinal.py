"""A script written for a 2-GPU box run on a machine with one GPU; --fix takes the device
from what is visible."""
import sys

import torch

device = torch.device("cuda", 0 if "--fix" in sys.argv else 1)
x = torch.ones(4, device=device)
print("OK:", x.sum().item(), "on", device, "of", torch.cuda.device_count(), "GPU(s)")
