"""A torchrun worker killed with SIGKILL, as the kernel's OOM killer does when host memory
runs out; torchrun reports exitcode -9. (No --fix: the fix is less host memory per worker.)"""
import subprocess
import sys
import tempfile

worker = "import os, signal; print('loading a dataset into host memory', flush=True); os.kill(os.getpid(), signal.SIGKILL)"
script = tempfile.NamedTemporaryFile("w", suffix="_train.py", delete=False)
script.write(worker)
script.close()
cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "1", "--standalone", script.name]
sys.exit(subprocess.run(cmd, timeout=120).returncode)
