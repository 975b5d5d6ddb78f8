"""Start the ranks of a multi-rank reproduction as separate processes, the way srun or a
hand-written launcher does: one process per rank, each told RANK, LOCAL_RANK, WORLD_SIZE,
MASTER_ADDR and MASTER_PORT, all on this host.

Not torchrun: its agent ends every rank the moment one fails, so the error the surviving ranks
print (a closed connection, a refused connect) would be cut off. Here, once a rank fails, the
others get `grace` seconds to print theirs before they are killed, as a rank on another node
would keep running. NVLink multicast stays off in every rank (see KINDS.md of the GPU machines).
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Multicast objects can take the host's GPUs out of service for others; never let a rank use them.
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NO_MULTICAST)


def parser(doc: str, world_size: int = 2, backends: tuple[str, ...] = ("nccl", "gloo")) -> argparse.ArgumentParser:
    """The arguments every multi-rank script takes; --rank is set by `launch` for a rank's own process."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--world-size", type=int, default=world_size, help=f"number of ranks (default {world_size})")
    p.add_argument("--backend", choices=backends, default=backends[0],
                   help="nccl: one GPU per rank; gloo: CPU only" if "gloo" in backends else None)
    p.add_argument("--fix", action="store_true", help="apply the guide's fix")
    p.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    return p


def device(backend: str):
    """This rank's device: its own GPU (LOCAL_RANK) for NCCL, the CPU for gloo."""
    import torch

    if backend != "nccl":
        return torch.device("cpu")
    index = int(os.environ["LOCAL_RANK"]) % torch.cuda.device_count()  # shared only where a script says so
    torch.cuda.set_device(index)
    return torch.device("cuda", index)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gpu_count() -> int:
    import torch  # here, not at the top: the CPU (gloo) runs need no GPU and the parent no CUDA

    return torch.cuda.device_count()


def needs_gpus(world_size: int, why: str = "") -> int | None:
    """None when there is a GPU for every rank; else say so and give the exit status 2."""
    have = gpu_count()
    if have >= world_size:
        return None
    print(f"this run needs {world_size} GPUs (one per rank, as NCCL requires){why}; this machine has {have}. "
          "Nothing was reproduced.", file=sys.stderr, flush=True)
    return 2


def launch(script: Path, world_size: int, argv: list[str], env: Callable[[int], dict[str, str]] = lambda r: {},
           preexec: Callable[[int], Callable[[], None] | None] = lambda r: None,
           grace: float = 20, timeout: float = 200) -> int:
    """Run `script --rank R argv...` for every rank; the exit status is that of the first rank
    to fail (0 when all succeed). A rank still running `grace` seconds after the first failure,
    or at `timeout`, is killed, and that is said."""
    port = str(free_port())
    procs = []
    for r in range(world_size):
        rank_env = {**os.environ, "PYTHONUNBUFFERED": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port,
                    "RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": str(world_size), **env(r), **NO_MULTICAST}
        procs.append(subprocess.Popen([sys.executable, str(script), "--rank", str(r), *argv],
                                      env=rank_env, preexec_fn=preexec(r)))
    start, failed_at, first_bad = time.monotonic(), None, 0
    while [p.poll() for p in procs].count(None):  # poll every rank, not only up to the first running one
        now = time.monotonic()
        for p in procs:
            if p.returncode not in (None, 0) and failed_at is None:
                failed_at, first_bad = now, p.returncode
        if now - start > timeout or (failed_at is not None and now - failed_at > grace):
            break
        time.sleep(0.2)
    killed = [r for r, p in enumerate(procs) if p.poll() is None]
    for r in killed:
        procs[r].kill()
        procs[r].wait()
        print(f"[launcher] rank {r} still running; killed", flush=True)
    print("[launcher] exit codes: " + ", ".join(f"rank {r}: {p.returncode}" for r, p in enumerate(procs)), flush=True)
    if first_bad == 0:  # every failure came at once, or the run hit its timeout
        first_bad = next((p.returncode for p in procs if p.returncode != 0), 0)
    return 0 if first_bad == 0 else (first_bad if first_bad > 0 else 1)
