"""NOT RUN YET (needs 2 GPUs). Two ranks on two GPUs whose /dev/shm is a 4 MiB tmpfs, smaller
than NCCL's shared-memory segments (Docker gives a container 64 MB unless --shm-size or
--ipc=host says otherwise; jobs of more GPUs need more): NCCL's shared-memory transport cannot
create its segment under /dev/shm ("Error while creating shared memory segment /dev/shm/nccl-*"),
and the first collective fails with "unhandled system error". NCCL_P2P_DISABLE=1 makes NCCL use
that transport between the two GPUs, as it does between GPUs without peer-to-peer access.
The small /dev/shm is mounted in a mount namespace of the job's own, so the machine's stays as
it is; that needs root.

--fix: the guide's fix, a larger /dev/shm (1 GiB, as --shm-size=1g gives).

  python repro/not-run/nccl-unhandled-system-error-shm.py --world-size 2 [--fix]
"""
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    dist.init_process_group(args.backend)
    x = torch.ones(1 << 20, device=dev)
    dist.all_reduce(x)
    print(f"OK: rank {dist.get_rank()} sum {x[0].item()}", flush=True)
    dist.destroy_process_group()


def small_dev_shm(size: str) -> None:
    """A private mount namespace for this process and its ranks, with /dev/shm a tmpfs of `size`.
    Before torch is imported: unshare(CLONE_NEWNS) refuses a process with threads."""
    os.unshare(os.CLONE_NEWNS)
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", "/dev/shm"], check=True)


def main() -> int:
    args = launch.parser(__doc__, backends=("nccl",)).parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if os.geteuid() != 0:
        print("a mount namespace needs root; nothing was reproduced", file=sys.stderr)
        return 2
    small_dev_shm("1g" if args.fix else "4m")
    if (rc := launch.needs_gpus(max(args.world_size, 2), " (the shared-memory transport runs between GPUs)")) is not None:
        return rc
    env = {"NCCL_DEBUG": "WARN", "NCCL_P2P_DISABLE": "1"}
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], env=lambda r: env, grace=20, timeout=120)


if __name__ == "__main__":
    sys.exit(main())
