"""model.safetensors is a Git LFS pointer (the repository was cloned without git-lfs), not
the weights; --fix writes the real file, as `git lfs pull` would."""
import os
import sys
import tempfile

import torch
from safetensors.torch import load_file, save_file

d = tempfile.mkdtemp()
path = os.path.join(d, "model.safetensors")
if "--fix" in sys.argv:
    save_file({"weight": torch.randn(4, 4)}, path)
else:
    with open(path, "w") as f:
        f.write("version https://git-lfs.github.com/spec/v1\n"
                "oid sha256:4d6a9e4b0b1f1b9a7f0b3c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5\nsize 4943162336\n")
print("OK:", list(load_file(path)))
