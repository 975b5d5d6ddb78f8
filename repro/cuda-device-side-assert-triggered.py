"""Device-side asserts, as a training script and a serving engine meet them; --fix removes the cause.

  python repro/cuda-device-side-assert-triggered.py            # a label outside [0, num_classes)
  python repro/cuda-device-side-assert-triggered.py embedding  # a token id past the vocabulary
"""
import sys

import torch
import torch.nn.functional as F

fix = "--fix" in sys.argv
if "embedding" in sys.argv:
    # The tokenizer knows more tokens than the model's embedding table has rows.
    emb = torch.nn.Embedding(32000, 64).cuda()
    ids = torch.tensor([[1, 17, 31999, 32005]], device="cuda")
    if fix:
        emb = torch.nn.Embedding(32006, 64).cuda()  # resize the embeddings to the tokenizer
    print("OK:", emb(ids).sum().item())  # the first value read back waits for the kernel
else:
    labels = torch.tensor([0, 1, 2, 3, 4, 5, 6, 10], device="cuda")  # the dataset has classes 0..10
    num_classes = int(labels.max().item()) + 1 if fix else 10  # the head was built for 10
    logits = torch.randn(8, num_classes, device="cuda")
    print("OK: loss", F.cross_entropy(logits, labels).item())
