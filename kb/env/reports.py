"""Parse the environment reports people paste into GitHub issues.

A paste often holds several reports one after another (collect_env, pip list, nvidia-smi,
nvcc, uname) plus a traceback, wrapped in Markdown fences and <details> blocks. Each report
kind has a small parser that returns {} when the text is not of its kind; `parse_report`
runs them all and merges what they found into one `EnvRecord`.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kb.env.parsers import (
    parse_collect_env,
    parse_lsb_release,
    parse_nvcc,
    parse_nvidia_smi,
    parse_nvidia_smi_csv,
    parse_nvidia_smi_list,
    parse_pip_freeze,
    parse_pip_list,
    parse_python_version,
    parse_uname,
)
from kb.env.record import (  # noqa: F401  (re-exported: callers name report kinds through this module)
    KIND_LSB_RELEASE,
    KIND_NVCC,
    KIND_NVIDIA_SMI,
    KIND_NVIDIA_SMI_CSV,
    KIND_NVIDIA_SMI_LIST,
    KIND_PIP_FREEZE,
    KIND_PIP_LIST,
    KIND_PYTHON,
    KIND_TORCH_COLLECT_ENV,
    KIND_UNAME,
    KIND_VLLM_COLLECT_ENV,
    EnvRecord,
    Found,
    normalise_package,
)

# --- merging ---------------------------------------------------------------------------------

# Earlier parsers win a conflict on a single value: collect_env states most facts precisely.
PARSERS: tuple[Callable[[str], Found], ...] = (
    parse_collect_env,
    parse_nvidia_smi_csv,
    parse_pip_list,
    parse_pip_freeze,
    parse_nvidia_smi,
    parse_nvidia_smi_list,
    parse_nvcc,
    parse_python_version,
    parse_lsb_release,
    parse_uname,
)
# GPU lists are taken whole from the best source rather than merged, so the same card named
# by two reports is not counted twice: the CSV states capabilities, collect_env full names,
# the nvidia-smi table truncated ones.
_GPU_PRIORITY = (KIND_NVIDIA_SMI_CSV, KIND_VLLM_COLLECT_ENV, KIND_TORCH_COLLECT_ENV, KIND_NVIDIA_SMI_LIST, KIND_NVIDIA_SMI)
_SCALARS = ("torch_version", "torch_cuda", "cuda_runtime", "nvcc_version", "driver_version",
            "driver_cuda", "python_version", "os", "kernel")


def _cuda_from_local_label(torch_version: str | None) -> str | None:
    """torch '2.5.1+cu124' -> '12.4': wheels name their CUDA build in the local label."""
    match = re.search(r"\+cu(\d{2,3})$", torch_version or "")
    if not match:
        return None
    digits = match.group(1)  # the last digit is the minor: cu92 -> 9.2, cu124 -> 12.4
    return f"{digits[:-1]}.{digits[-1]}"


def merge(results: list[Found]) -> EnvRecord:
    """One EnvRecord from the non-empty results of several parsers, in priority order."""
    values: dict[str, Any] = {}
    for key in _SCALARS:
        values[key] = next((r[key] for r in results if r.get(key)), None)
    packages: dict[str, str] = {}
    for result in results:
        for name, version in result.get("packages", {}).items():
            if not packages.get(name):  # a later report may give the version an earlier one lacked
                packages[name] = version
    by_kind = {r["kind"]: r for r in results}
    gpus = next((tuple(by_kind[k]["gpus"]) for k in _GPU_PRIORITY if by_kind.get(k, {}).get("gpus")), ())
    if not values["torch_version"] and packages.get("torch"):
        values["torch_version"] = packages["torch"]
    if not values["torch_cuda"]:
        values["torch_cuda"] = _cuda_from_local_label(values["torch_version"])
    sources = tuple(dict.fromkeys(r["kind"] for r in results))
    return EnvRecord(packages=packages, gpus=gpus, sources=sources, **values)


def parse_report(text: str) -> EnvRecord:
    """Every environment fact the pasted `text` states, whatever reports it holds."""
    return merge([found for found in (parser(text) for parser in PARSERS) if found])
