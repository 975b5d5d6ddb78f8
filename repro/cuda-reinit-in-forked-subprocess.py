"""CUDA is used in the parent, then a forked worker uses it too; --fix starts workers with spawn."""
import sys

import torch
import torch.multiprocessing as mp


def work(rank: int) -> None:
    print("worker", rank, torch.ones(1, device="cuda").item())


if __name__ == "__main__":
    torch.zeros(1, device="cuda")  # the parent initialises CUDA (a model, a warm-up)
    ctx = mp.get_context("spawn" if "--fix" in sys.argv else "fork")
    p = ctx.Process(target=work, args=(0,))
    p.start()
    p.join()
    sys.exit(p.exitcode)
