"""A DataLoader worker killed by a signal (the kernel's OOM killer sends SIGKILL when the
workers' copies of a dataset exhaust host memory); --fix loads in the main process."""
import os
import signal
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Big(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 5 and torch.utils.data.get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does to a worker
        return torch.full((4,), float(i))


workers = 0 if "--fix" in sys.argv else 2
for _batch in DataLoader(Big(), batch_size=4, num_workers=workers):
    pass
print("OK: one epoch with", workers, "workers")
