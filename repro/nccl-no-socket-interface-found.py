"""NCCL_SOCKET_IFNAME names an interface this machine does not have (ib0, exported by a job
script written for another cluster): NCCL finds no interface for its bootstrap, "Bootstrap : no
socket interface found", and the first collective fails with invalid usage. NCCL needs the
interface even for one rank on one GPU, so --world-size 1 shows it on a single GPU. With gloo
(CPU) the same mistake is GLOO_SOCKET_IFNAME=ib0, and gloo says so in its own words.

--fix: the guide's fix, the variable unset, so that NCCL (or gloo) picks an interface itself.

  python repro/nccl-no-socket-interface-found.py --world-size 1       # 1 GPU
  python repro/nccl-no-socket-interface-found.py --backend gloo       # CPU, 2 ranks
"""
import os
import socket
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

MISSING = "ib0"


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    dist.init_process_group(args.backend)
    x = torch.ones(1, device=dev)
    dist.all_reduce(x)
    print(f"OK: rank {dist.get_rank()} sum {x.item()}", flush=True)
    dist.destroy_process_group()


def main() -> int:
    args = launch.parser(__doc__).parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if any(name == MISSING for _, name in socket.if_nameindex()):
        print(f"this machine has an interface named {MISSING}: the mistake cannot be made here", file=sys.stderr)
        return 2
    if args.backend == "nccl" and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    var = "NCCL_SOCKET_IFNAME" if args.backend == "nccl" else "GLOO_SOCKET_IFNAME"
    if args.fix:
        os.environ.pop(var, None)
    env = {"NCCL_DEBUG": "WARN", **({} if args.fix else {var: MISSING})}
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], env=lambda r: env, grace=20, timeout=90)


if __name__ == "__main__":
    sys.exit(main())
