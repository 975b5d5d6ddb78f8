"""A two-node torchrun job (each "node" one torchrun agent with one worker, both on this host)
in which the last node was given the wrong --master_port (one more than node 0's: a typo in its
launch line). Node 0's agent serves the rendezvous store and waits for the other agents: "Timed out
after N seconds waiting for clients. 1/2 clients joined"; the last node's agent keeps trying to
connect to a port where nothing listens: "The client socket has timed out after Nms while
trying to connect to (127.0.0.1, port)". The store is TCP and knows nothing of the backend, so
the CPU (gloo) shows exactly what a GPU job prints. The rendezvous timeout is 20 s
(--rdzv-conf timeout=20) instead of torchrun's 900 s.

--fix: the guide's fix, every node pointed at the address and port rank 0 listens on; the
workers then meet and all_reduce.

  python repro/c10d-store-client-socket-timeout.py --backend gloo [--fix]     # CPU, 2 nodes
  python repro/c10d-store-client-socket-timeout.py --world-size 2             # needs 2 GPUs
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

WORKER = """
import os, torch, torch.distributed as dist
backend = os.environ["REPRO_BACKEND"]
if backend == "nccl":
    torch.cuda.set_device(int(os.environ["RANK"]))
dist.init_process_group(backend)
x = torch.ones(1, device="cuda" if backend == "nccl" else "cpu")
dist.all_reduce(x)
print(f"OK: rank {dist.get_rank()} sum {x.item()}", flush=True)
dist.destroy_process_group()
"""


def main() -> int:
    args = launch.parser(__doc__).parse_args()
    if args.world_size < 2:
        print("a rendezvous between nodes needs two: use --world-size 2 or more", file=sys.stderr)
        return 2
    if args.backend == "nccl" and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    script = Path(tempfile.mkdtemp()) / "train.py"
    script.write_text(WORKER)
    port = launch.free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "REPRO_BACKEND": args.backend}
    nodes = []
    for node in range(args.world_size):
        wrong = node == args.world_size - 1 and not args.fix
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", str(args.world_size),
               "--node_rank", str(node), "--nproc_per_node", "1", "--master_addr", "127.0.0.1",
               "--master_port", str(port + 1 if wrong else port), "--rdzv-conf", "timeout=20", str(script)]
        nodes.append(subprocess.Popen(cmd, env=env))
    codes = []
    for p in nodes:
        try:
            codes.append(p.wait(timeout=120))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
    print("[launcher] exit codes: " + ", ".join(f"node {n}: {c}" for n, c in enumerate(codes)), flush=True)
    return next((1 if c < 0 else c for c in codes if c != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
