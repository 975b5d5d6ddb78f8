"""NCCL_COMM_ID points at the head node of another cluster (192.0.2.10:29400, an address in no
subnet of this machine), left over from a job script: NCCL must listen for its bootstrap at that
address and cannot (NCCL 2.28.9 on 2026-12-08: "Call to bind failed: Cannot assign requested
address"; the source suggested "No usable listening interface found"), and returns
ncclSystemError, which PyTorch reports as "unhandled system error". One rank on one GPU
(--world-size 1) is enough. NCCL_DEBUG=WARN, the guide's first step, prints the WARN line that
names the failing call.

--fix: the guide's fix, what the WARN line names put right: NCCL_COMM_ID unset, so that the
ranks exchange NCCL's bootstrap address through PyTorch's store.

  python repro/nccl-unhandled-system-error.py --world-size 1     # 1 GPU
  python repro/nccl-unhandled-system-error.py --world-size 2     # needs 2 GPUs
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

ELSEWHERE = "192.0.2.10:29400"  # TEST-NET-1 (RFC 5737): assigned to no machine


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
    args = launch.parser(__doc__, backends=("nccl",)).parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    if args.fix:
        os.environ.pop("NCCL_COMM_ID", None)
    env = {"NCCL_DEBUG": "WARN", **({} if args.fix else {"NCCL_COMM_ID": ELSEWHERE})}
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], env=lambda r: env, grace=20, timeout=90)


if __name__ == "__main__":
    sys.exit(main())
