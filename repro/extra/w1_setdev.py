import os

import torch

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))   # 2 processes on a 1-GPU machine
print("rank", os.environ["LOCAL_RANK"], "ok")
