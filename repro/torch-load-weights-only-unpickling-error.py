"""A checkpoint that stores more than tensors (a NumPy scalar and a config object), saved
with torch.save and loaded with torch >= 2.6, where weights_only=True is the default;
--fix allowlists exactly what the file holds with torch.serialization.safe_globals."""
import dataclasses
import sys
import tempfile

import numpy as np
import torch


@dataclasses.dataclass
class TrainConfig:
    lr: float = 1e-4


path = tempfile.mktemp(suffix=".pt")
torch.save({"model": torch.nn.Linear(2, 2).state_dict(), "best_loss": np.float64(0.25), "config": TrainConfig()}, path)
if "--fix" in sys.argv:
    allowed = [TrainConfig, np.float64, np.dtype, np.dtypes.Float64DType, np._core.multiarray.scalar]
    with torch.serialization.safe_globals(allowed):
        ckpt = torch.load(path)
else:
    ckpt = torch.load(path)
print("OK: loaded", sorted(ckpt))
