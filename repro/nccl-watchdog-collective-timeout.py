"""One rank reaches an all_reduce 15 s late, under a process-group timeout of 5 s: the collective
times out on the ranks that wait for it. With NCCL, ProcessGroupNCCL's watchdog aborts the
communicator and the process ("Watchdog caught collective operation timeout"); with gloo, the
waiting rank's receive times out.

The late rank is the last one. With NCCL its slow step is GPU work queued before the collective
(torch.cuda._sleep spins the GPU for 15 s, the stand-in PyTorch's own tests use for a slow
rank); the watchdog's clock starts when the collective is queued, so even a single rank
(--world-size 1, one GPU) times out behind its own step. With gloo (CPU) the slow step is 15 s
of host work, which only makes the *other* ranks wait: --world-size 2 or more.

--fix: the guide's fix for a step that is expected to be slow (a large checkpoint save, an
evaluation on one rank): a timeout longer than the step (60 s).

  python repro/nccl-watchdog-collective-timeout.py --world-size 1            # 1 GPU
  python repro/nccl-watchdog-collective-timeout.py --world-size 2            # needs 2 GPUs
  python repro/nccl-watchdog-collective-timeout.py --backend gloo            # CPU, 2 ranks
"""
import datetime
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

SLOW_STEP_S, TIMEOUT_S, FIXED_TIMEOUT_S = 15, 5, 60


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    timeout = datetime.timedelta(seconds=FIXED_TIMEOUT_S if args.fix else TIMEOUT_S)
    dist.init_process_group(args.backend, timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    x = torch.ones(1, device=dev)
    dist.all_reduce(x)  # the first step: every rank on time (and the communicator is made)
    if rank == world - 1:
        print(f"rank {rank}: a {SLOW_STEP_S} s step before the next all_reduce", flush=True)
        if args.backend == "nccl":
            torch.cuda.synchronize()
            t0, probe = time.time(), 200_000_000
            torch.cuda._sleep(probe)
            torch.cuda.synchronize()
            torch.cuda._sleep(int(probe * SLOW_STEP_S / (time.time() - t0)))  # queued; returns at once
        else:
            time.sleep(SLOW_STEP_S)
    dist.all_reduce(x)
    print(f"OK: rank {rank} sum {x.item()}", flush=True)  # .item() waits for the GPU
    dist.destroy_process_group()


def main() -> int:
    args = launch.parser(__doc__).parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if args.backend == "nccl" and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    if args.backend == "gloo" and args.world_size < 2:
        print("with gloo the slow step delays the other ranks only: use --world-size 2 or more", file=sys.stderr)
        return 2
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], grace=30, timeout=120)


if __name__ == "__main__":
    sys.exit(main())
