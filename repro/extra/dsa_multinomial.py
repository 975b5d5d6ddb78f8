import torch

probs = torch.tensor([[0.5, float("nan"), 0.5]], device="cuda")
s = torch.multinomial(probs, 1)
print(s.item())
