import torch
import torch.nn.functional as F

logits = torch.randn(4, 3, device="cuda")
target = torch.tensor([0, 1, 2, 3], device="cuda")  # 3 classes, label 3 is out of range
loss = F.cross_entropy(logits, target)
print(loss.item())
