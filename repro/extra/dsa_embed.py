import torch

emb = torch.nn.Embedding(100, 16).cuda()          # vocab of 100
ids = torch.tensor([[5, 7, 150]], device="cuda")  # token id 150 is outside the vocabulary
out = emb(ids)
print(out.sum().item())
