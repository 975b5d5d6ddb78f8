"""torchrun on a port another job already listens on; --fix lets torchrun pick a free one
(--standalone)."""
import socket
import subprocess
import sys
import tempfile

busy = socket.socket()
busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
busy.bind(("127.0.0.1", 29500))
busy.listen()  # another training job's rendezvous store
worker = "import torch.distributed as d; d.init_process_group('gloo'); print('OK: rank', d.get_rank()); d.destroy_process_group()"
args = ["--standalone"] if "--fix" in sys.argv else ["--master_addr", "127.0.0.1", "--master_port", "29500"]
script = tempfile.NamedTemporaryFile("w", suffix="_train.py", delete=False)
script.write(worker)
script.close()
cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "1", *args, script.name]
sys.exit(subprocess.run(cmd, timeout=120).returncode)
