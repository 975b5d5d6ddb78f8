import os
import subprocess
import sys

import torch

holder = subprocess.Popen([sys.executable, "-c",
    "import torch,time,os; x=torch.empty(100*2**30,dtype=torch.uint8,device='cuda'); print('holder pid', os.getpid(), flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE, text=True)
print(holder.stdout.readline().strip(), "| this process getpid()", os.getpid(), flush=True)
try:
    y = torch.empty(60 * 2**30, dtype=torch.uint8, device="cuda")
finally:
    holder.kill()
