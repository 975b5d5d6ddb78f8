"""Rank 0 runs in a network of its own (a network namespace with only loopback, as a container
with its own network has), the other ranks in the host's; they meet through a file store on
the shared disk. Rank 0 advertises the only address it has, 127.0.0.1, and the others connect
to that address in *their* network, where nothing listens: "connect to 127.0.0.1<port>
returned Connection refused", the case of an address the peers cannot reach (a Docker bridge or
loopback address chosen by NCCL) that the guide describes.

With NCCL the refused connect is NCCL's bootstrap (NCCL_DEBUG=WARN prints the WARN line;
NCCL_SOCKET_RETRY_CNT=10 makes NCCL give up after about 6 s instead of about a minute). The
ranks fail there, before NCCL looks at which GPU each rank has, so this part runs with fewer
GPUs than ranks (the ranks then share a GPU). With gloo (CPU) gloo's own connect is refused.
It needs root (a network namespace).

--fix: the guide's fix, ranks on a network where they reach each other: every rank in the host's
network, as `docker run --network=host` gives. With NCCL that needs one GPU per rank.

  python repro/nccl-socket-connection-refused.py --world-size 2          # 1 GPU for the error
  python repro/nccl-socket-connection-refused.py --world-size 2 --fix    # needs 2 GPUs
  python repro/nccl-socket-connection-refused.py --backend gloo [--fix]  # CPU
"""
import datetime
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402


def own_network() -> None:
    """Move this process into a new network namespace and bring its loopback up."""
    import fcntl
    import socket
    import struct

    os.unshare(os.CLONE_NEWNET)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        # SIOCSIFFLAGS on "lo": IFF_UP | IFF_LOOPBACK | IFF_RUNNING (struct ifreq is 40 bytes)
        fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", 0x1 | 0x8 | 0x40))


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    # A file:// store, unlike env://, does not read RANK and WORLD_SIZE: they must be passed (without
    # them the first run, on 2026-12-08, stopped at "file:// rendezvous: rank parameter missing").
    dist.init_process_group(args.backend, init_method=f"file://{args.store}",
                            rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]),
                            timeout=datetime.timedelta(seconds=15))
    x = torch.ones(1, device=dev)
    dist.all_reduce(x)
    print(f"OK: rank {dist.get_rank()} sum {x.item()}", flush=True)
    dist.destroy_process_group()


def main() -> int:
    p = launch.parser(__doc__)
    p.add_argument("--store", help=__import__("argparse").SUPPRESS)
    args = p.parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if args.world_size < 2:
        print("a peer to connect to needs two ranks: use --world-size 2 or more", file=sys.stderr)
        return 2
    if args.backend == "nccl" and args.fix and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    if os.geteuid() != 0:
        print("a network namespace needs root; nothing was reproduced", file=sys.stderr)
        return 2
    store = Path(tempfile.mkdtemp()) / "store"
    env = {"NCCL_DEBUG": "WARN", "NCCL_SOCKET_RETRY_CNT": "10"}
    apart = not args.fix
    return launch.launch(
        Path(__file__), args.world_size, [*sys.argv[1:], "--store", str(store)],
        env=lambda r: {**env, **({"GLOO_SOCKET_IFNAME": "lo"} if apart and r == 0 else {})},
        preexec=lambda r: own_network if apart and r == 0 else None, grace=10, timeout=90)


if __name__ == "__main__":
    sys.exit(main())
