"""A rank dies in the middle of training while the others wait in an all_reduce: the surviving
ranks see their connection to it close. The last rank's shard of the data is shorter (uneven
shards, no drop_last); at the step past its end it fails with an IndexError and exits, and the
other ranks are left in that step's all_reduce.

With NCCL (one GPU per rank) the ranks talk over NCCL's socket transport, as ranks on different
nodes without InfiniBand do (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1, NCCL_IB_DISABLE=1; within
one node over NVLink a dead peer shows as a hang, then the watchdog's timeout), so a surviving
rank should get ncclRemoteError ("remote process exited or there was a network error"). With
gloo (CPU) the surviving rank gets gloo's own "Connection closed by peer".

--fix: the guide's fix is the first failing rank's own error; here that is the uneven shards,
so every rank runs the same number of steps (the shortest shard's, agreed with an all_reduce
MIN, as DistributedSampler(drop_last=True) would give).

  python repro/nccl-remote-error.py --world-size 2      # needs 2 GPUs
  python repro/nccl-remote-error.py --backend gloo      # CPU
"""
import datetime
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

SOCKET_ONLY = {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_IB_DISABLE": "1", "NCCL_DEBUG": "WARN"}
STEPS = 6


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    shard = [torch.full((1 << 16,), float(rank), device=dev) for _ in range(STEPS - (rank == world - 1) * 3)]
    steps = STEPS
    if args.fix:
        n = torch.tensor([len(shard)], device=dev)
        dist.all_reduce(n, op=dist.ReduceOp.MIN)
        steps = int(n.item())
    for step in range(steps):
        grad = shard[step] * 2  # the last rank's shard ends early: IndexError
        dist.all_reduce(grad)
        print(f"rank {rank} step {step} done", flush=True)
    if args.backend == "nccl":
        torch.cuda.synchronize()
    print(f"OK: rank {rank} ran {steps} steps", flush=True)
    dist.destroy_process_group()


def main() -> int:
    args = launch.parser(__doc__).parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if args.world_size < 2:
        print("a remote rank needs two ranks: use --world-size 2 or more", file=sys.stderr)
        return 2
    if args.backend == "nccl" and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    env = SOCKET_ONLY if args.backend == "nccl" else {}
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], env=lambda r: env, grace=90, timeout=150)


if __name__ == "__main__":
    sys.exit(main())
