"""The model is on the GPU, the batch is still on the CPU; --fix moves the batch."""
import sys

import torch

model = torch.nn.Linear(16, 4).cuda()
batch = torch.randn(8, 16)
if "--fix" in sys.argv:
    batch = batch.to(next(model.parameters()).device)
print("OK:", model(batch).shape)
