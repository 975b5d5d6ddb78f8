import torch

model = torch.nn.Linear(4, 4).cuda()
try:
    model(torch.randn(2, 4))
except Exception as e:
    print(type(e).__name__ + ":", e)
emb = torch.nn.Embedding(10, 4).cuda()
emb(torch.tensor([1, 2]))
