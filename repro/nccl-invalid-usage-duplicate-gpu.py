"""Two ranks on one GPU: every rank calls .cuda() without setting its device; --fix runs one
rank per visible GPU and sets the device from LOCAL_RANK."""
import subprocess
import sys
import tempfile

import torch

fix = "--fix" in sys.argv
worker = ("import os, torch, torch.distributed as d\n"
          + ("torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n" if fix else "")
          + "d.init_process_group('nccl')\n"
          "x = torch.ones(1).cuda()\n"
          "d.all_reduce(x)\n"
          "print('OK: rank', d.get_rank(), 'sum', x.item(), flush=True)\n"
          "d.destroy_process_group()\n")
n = torch.cuda.device_count() if fix else 2
script = tempfile.NamedTemporaryFile("w", suffix="_train.py", delete=False)
script.write(worker)
script.close()
cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(n), "--standalone", script.name]
sys.exit(subprocess.run(cmd, timeout=180).returncode)
