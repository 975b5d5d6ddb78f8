"""Ranks that all_reduce tensors of different sizes: each rank sums the gradient of an embedding
table, but every rank built its vocabulary from its own shard of the data (rank r found
30000 + 500 r tokens), so the tables differ in length.

With NCCL (one GPU per rank) the ranks talk over NCCL's socket transport, as ranks on two nodes
without InfiniBand do (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1, NCCL_IB_DISABLE=1; within one node
NCCL would not notice the sizes), and the receiving rank reports "NET/Socket : ... message
truncated : receiving A bytes instead of B". With gloo (CPU) the ranks get gloo's own error.
--debug runs with TORCH_DISTRIBUTED_DEBUG=DETAIL, the guide's first step: PyTorch then compares
the ranks' collectives before running them and names the mismatch.

--fix: the guide's fix, the same shape on every rank (every table padded to the longest).

  python repro/nccl-collective-mismatch-message-truncated.py --world-size 2             # needs 2 GPUs
  python repro/nccl-collective-mismatch-message-truncated.py --backend gloo [--debug]   # CPU
"""
import datetime
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str((HERE if (HERE / "ranks").is_dir() else HERE.parent) / "ranks"))
import launch  # noqa: E402

SOCKET_ONLY = {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_IB_DISABLE": "1", "NCCL_DEBUG": "WARN"}


def worker(args) -> None:
    import torch
    import torch.distributed as dist

    dev = launch.device(args.backend)
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    vocab = 30000 + 500 * rank  # tokens this rank found in its shard
    if args.fix:
        longest = torch.tensor([vocab], device=dev)
        dist.all_reduce(longest, op=dist.ReduceOp.MAX)
        vocab = int(longest.item())
    grad = torch.ones(vocab, 16, device=dev)  # the embedding table's gradient
    dist.all_reduce(grad)
    print(f"OK: rank {rank} summed a {tuple(grad.shape)} gradient, first value {grad[0, 0].item()}", flush=True)
    dist.destroy_process_group()


def main() -> int:
    p = launch.parser(__doc__)
    p.add_argument("--debug", action="store_true", help="TORCH_DISTRIBUTED_DEBUG=DETAIL")
    args = p.parse_args()
    if args.rank is not None:
        worker(args)
        return 0
    if args.world_size < 2:
        print("a mismatch needs two ranks: use --world-size 2 or more", file=sys.stderr)
        return 2
    if args.backend == "nccl" and (rc := launch.needs_gpus(args.world_size)) is not None:
        return rc
    env = {**(SOCKET_ONLY if args.backend == "nccl" else {}),
           **({"TORCH_DISTRIBUTED_DEBUG": "DETAIL"} if args.debug else {})}
    return launch.launch(Path(__file__), args.world_size, sys.argv[1:], env=lambda r: env, grace=30, timeout=120)


if __name__ == "__main__":
    sys.exit(main())
