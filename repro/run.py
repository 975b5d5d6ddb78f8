"""Run every reproduction here, then again with --fix, and keep what they printed.

  python repro/run.py OUT.json [NAME ...]

Each script produces its error the way a user would meet it (its output is kept verbatim as
the guide's raw error, source `repro:<guide id>`); run with --fix it applies the guide's fix.
Runs that share the GPU's memory (the OOM ones) go one at a time; the others four at a time.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Scripts with several scenarios: each argument list is one run.
MODES = {"cuda-oom": [["too-big"], ["self"], ["other"]], "cuda-device-side-assert-triggered": [[], ["embedding"]],
         # Multi-rank scripts: the runs one GPU and the CPUs allow (NCCL with one rank, or ranks that
         # fail before NCCL checks their GPUs; gloo on the CPU). Their other modes need a GPU per rank.
         "nccl-watchdog-collective-timeout": [["--world-size", "1"], ["--backend", "gloo"]],
         "nccl-collective-mismatch-message-truncated": [["--backend", "gloo"], ["--backend", "gloo", "--debug"]],
         "nccl-remote-error": [["--backend", "gloo"]],
         "nccl-socket-connection-refused": [["--world-size", "2"], ["--backend", "gloo"]],
         "nccl-no-socket-interface-found": [["--world-size", "1"], ["--backend", "gloo"]],
         "nccl-unhandled-system-error": [["--world-size", "1"]],
         "c10d-store-client-socket-timeout": [["--backend", "gloo"]]}
EXCLUSIVE = {"cuda-oom"}  # they fill the GPU: never beside another run


def run(name: str, args: list[str], timeout: int = 240) -> dict:
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, str(HERE / f"{name}.py"), *args], capture_output=True, text=True,
                           timeout=timeout, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        out, rc = out + "\n[timed out]", None
    return {"script": name, "args": args, "rc": rc, "seconds": round(time.time() - t0, 1), "output": out[-20000:]}


def cpu_model() -> str | None:
    try:
        return next(ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or None


def versions() -> dict:
    import torch
    info = {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "gpus": torch.cuda.device_count(), "cpus": os.cpu_count(), "cpu": cpu_model()}
    try:
        info["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    except Exception as exc:  # noqa: BLE001 - a CPU-only build has none
        info["nccl"] = f"unavailable ({type(exc).__name__})"
    for mod in ("transformers", "triton", "safetensors", "tokenizers", "cupy"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception as exc:  # noqa: BLE001 - a version we cannot read is recorded as such
            info[mod] = f"unavailable ({type(exc).__name__})"
    try:
        info["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                        capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        info["driver"] = None
    return info


def main() -> int:
    out_path = Path(sys.argv[1])
    names = sys.argv[2:] or sorted(p.stem for p in HERE.glob("*.py") if p.stem not in ("run",))
    jobs = [(n, a) for n in names for a in MODES.get(n, [[]])]
    jobs += [(n, [*a, "--fix"]) for n, a in jobs]
    shared = [j for j in jobs if j[0] not in EXCLUSIVE]
    results = []
    with ThreadPoolExecutor(4) as pool:
        results += list(pool.map(lambda j: run(*j), shared))
    results += [run(*j) for j in jobs if j[0] in EXCLUSIVE]
    out_path.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "versions": versions(), "runs": results},
                                   indent=1, ensure_ascii=False))
    for r in results:
        print(f"{r['rc']!s:>5} {r['seconds']:6.1f}s {r['script']} {' '.join(r['args'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
