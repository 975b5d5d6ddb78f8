"""For an environment check with no machine-readable condition: the values of the report that its
command prints, so that the person sees them next to the check (nothing is tested).

A check such as "Which driver does each node run?" (`nvidia-smi --query-gpu=driver_version`)
has no spec to compare with, but the report often states the answer already.
"""
from __future__ import annotations

from kb.env.conditions import CheckOutcome, cuda_version
from kb.env.record import EnvRecord


def _values(command: str, env: EnvRecord) -> list[str]:
    c = command.lower()
    out: list[str] = []
    if "driver_version" in c or ("nvidia-smi" in c and "--query" not in c and "topo" not in c):
        if env.driver_version:
            out.append(f"driver {env.driver_version}")
    torch = env.torch_version or env.package("torch")
    if "torch.__version__" in c and torch:
        out.append(f"torch {torch}")
    if "torch.version.cuda" in c:
        value, origin = cuda_version(env)
        if value:
            out.append(f"CUDA {value} ({origin})")
    if "compute_cap" in c or "get_device_capability" in c:
        known = dict.fromkeys(f"{cc} ({name})" for name, cc in env.gpus if cc)
        if known:
            out.append("compute capability " + "; ".join(known))
    return out


def reported(command: str | None, env: EnvRecord) -> CheckOutcome | None:
    """What the report already says that `command` would print; None when it says none of it."""
    values = _values(command or "", env)
    if not values:
        return None
    found = ", ".join(values)
    return CheckOutcome("reported", found, f"Your report says: {found}.", f"你的报告显示：{found}。")
