"""One small parser per report kind; each returns {} when the text is not of its kind."""
from __future__ import annotations

import re

from kb.env.gpus import compute_capability
from kb.env.record import (
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
    Found,
    Gpu,
    clean_lines,
    field_value,
    first_version,
    normalise_package,
)

_KEY_VALUE = re.compile(r"^([A-Za-z][\w ./()-]*?)\s*:\s*(.*)$")
_GPU_LINE = re.compile(r"^GPU (\d+): (.+)$")
_PIP3_LINE = re.compile(r"^\[pip\d?\]\s+([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?==(\S+)")
_CONDA_LINE = re.compile(r"^\[conda\]\s+([A-Za-z0-9][\w.-]*)\s+(\d\S*)")
_PLATFORM = re.compile(r"^Linux-(.+?)-(?:x86_64|aarch64|arm64|ppc64le|s390x)-with")
_COLLECT_KEYS = {"pytorch version", "cuda used to build pytorch", "gpu models and configuration", "vllm version"}
# Section banners only vLLM's collect_env prints (PyTorch's has none), so even a pasted head
# without the "vLLM Info" section is known to come from vLLM.
_VLLM_MARKERS = {"vllm info", "vllm build flags:", "system info", "pytorch info", "cuda / gpu info", "python environment"}


def _key_values(lines: list[str]) -> dict[str, tuple[int, str]]:
    """collect_env's 'Key: value' pairs by lower-case key (first occurrence), with line index."""
    pairs: dict[str, tuple[int, str]] = {}
    for index, line in enumerate(lines):
        match = _KEY_VALUE.match(line)
        if match:
            key = re.sub(r"\s+", " ", match.group(1)).lower()
            pairs.setdefault(key, (index, match.group(2)))
    return pairs


def _collect_env_gpus(lines: list[str], pairs: dict[str, tuple[int, str]]) -> list[Gpu]:
    """GPUs under 'GPU models and configuration': inline ('GPU 0: X') or on the following lines."""
    if "gpu models and configuration" not in pairs:
        return []
    index, inline = pairs["gpu models and configuration"]
    candidates = [inline.strip()] if inline.strip() else []
    for line in lines[index + 1:]:
        if not _GPU_LINE.match(line):
            break
        candidates.append(line)
    gpus: list[Gpu] = []
    for item in candidates:
        match = _GPU_LINE.match(item)
        name = match.group(2).strip() if match else field_value(item)
        if name:  # an AMD card appears as a bare name, without 'GPU 0:'
            gpus.append((name, compute_capability(name)))
    return gpus


def _collect_env_packages(lines: list[str]) -> dict[str, str]:
    """'[pip3] name==version' lines, then '[conda] name version ...' for names pip did not give."""
    packages: dict[str, str] = {}
    for line in lines:
        match = _PIP3_LINE.match(line)
        if match:
            packages.setdefault(normalise_package(match.group(1)), match.group(2))
    for line in lines:
        match = _CONDA_LINE.match(line)
        if match:
            packages.setdefault(normalise_package(match.group(1)), match.group(2))
    return packages


def parse_collect_env(text: str) -> Found:
    """`vllm collect-env` / `python collect_env.py` / `python -m torch.utils.collect_env` output."""
    lines = clean_lines(text)
    pairs = _key_values(lines)
    if not _COLLECT_KEYS & pairs.keys():
        return {}

    def get(key: str) -> str | None:
        return field_value(pairs[key][1]) if key in pairs else None

    packages = _collect_env_packages(lines)
    vllm = first_version(get("vllm version"))
    if vllm:
        packages[normalise_package("vllm")] = vllm
    platform = _PLATFORM.match(get("python platform") or "")
    is_vllm = "vllm version" in pairs or any(line.lower() in _VLLM_MARKERS for line in lines)
    return {
        "kind": KIND_VLLM_COLLECT_ENV if is_vllm else KIND_TORCH_COLLECT_ENV,
        "packages": packages,
        "torch_version": first_version(get("pytorch version")),
        "torch_cuda": first_version(get("cuda used to build pytorch")),
        "cuda_runtime": first_version(get("cuda runtime version")),
        "driver_version": first_version(get("nvidia driver version")),
        "python_version": first_version(get("python version")),
        "os": get("os"),
        "kernel": platform.group(1) if platform else None,
        "gpus": _collect_env_gpus(lines, pairs),
    }


# --- pip list / pip freeze -----------------------------------------------------------------

_NAME = r"[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?"
_TABLE_RULE = re.compile(r"^-{3,}(?:\s+-{3,}){1,3}$")
_TABLE_ROW = re.compile(rf"^({_NAME})\s+(\d[\w.+!-]*)(?:\s+\S.*)?$")
_FREEZE_PIN = re.compile(rf"^(?:\+\s+)?({_NAME})(?:\[[^\]]*\])?==([^\s;#]+)")
_FREEZE_URL = re.compile(rf"^({_NAME})(?:\[[^\]]*\])?\s+@\s+(\S+)")


def parse_pip_list(text: str) -> Found:
    """`pip list` (or `uv pip list`): a two- or three-column table under a rule of dashes."""
    lines = clean_lines(text)
    packages: dict[str, str] = {}
    for index, line in enumerate(lines):
        if not _TABLE_RULE.match(line):
            continue
        for row in lines[index + 1:]:
            match = _TABLE_ROW.match(row)
            if not match:
                break
            packages.setdefault(normalise_package(match.group(1)), match.group(2))
    return {"kind": KIND_PIP_LIST, "packages": packages} if packages else {}


def _version_from_url(name: str, url: str) -> str:
    """The version in a wheel or sdist URL's file name, or '' (a local directory has none)."""
    filename = url.split("#")[0].rstrip("/").rsplit("/", 1)[-1]
    if filename.endswith(".whl"):  # {dist}-{version}(-{build})?-{python}-{abi}-{platform}.whl
        parts = filename[:-4].split("-")
        if len(parts) >= 5 and normalise_package(parts[0]) == normalise_package(name):
            return parts[1]
        return ""
    match = re.match(r"(.+?)-(\d[\w.+!]*?)\.(?:tar\.gz|tar\.bz2|zip)$", filename)
    if match and normalise_package(match.group(1)) == normalise_package(name):
        return match.group(2)
    return ""


def parse_pip_freeze(text: str) -> Found:
    """`pip freeze`: 'name==version' and 'name @ url' lines (also uv's '+ name==version')."""
    packages: dict[str, str] = {}
    for line in clean_lines(text):
        pin = _FREEZE_PIN.match(line)
        url = None if pin else _FREEZE_URL.match(line)
        if pin:
            packages.setdefault(normalise_package(pin.group(1)), pin.group(2))
        elif url:
            packages.setdefault(normalise_package(url.group(1)), _version_from_url(url.group(1), url.group(2)))
    # One pinned line is as likely a 'pip install x==1' in prose as a listing.
    return {"kind": KIND_PIP_FREEZE, "packages": packages} if len(packages) >= 2 else {}


# --- nvidia-smi ----------------------------------------------------------------------------

_SMI_HEADER = re.compile(r"NVIDIA-SMI\s+\S+\s+(?:Driver|KMD) Version:\s*([\d.]+)(?:\s+CUDA (?:UMD )?Version:\s*([\d.]+))?")
_SMI_ROW = re.compile(r"^\|\s*(\d+)\s+(.+?)\s+(?:On|Off|WDDM|TCC|MCDM|N/A)\s*\|")
_SMI_LIST = re.compile(r"^GPU (\d+): (.+?) \(UUID: [^)]*\)")


def parse_nvidia_smi(text: str) -> Found:
    """Plain `nvidia-smi`: driver and CUDA version from the header, GPU names from the table.

    The table truncates long names ('NVIDIA RTX PRO 6000 Blac...'); the GPU table copes.
    """
    lines = clean_lines(text)
    header = next((m for m in map(_SMI_HEADER.search, lines) if m), None)
    gpus = [(m.group(2).strip(), compute_capability(m.group(2))) for m in map(_SMI_ROW.match, lines) if m]
    if not header and not gpus:
        return {}
    return {
        "kind": KIND_NVIDIA_SMI,
        "driver_version": header.group(1) if header else None,
        "driver_cuda": header.group(2) if header else None,
        "gpus": gpus,
    }


def _csv_fields(line: str) -> list[str]:
    return [part.strip().strip('"') for part in line.split(",")]


def _csv_header(line: str) -> list[str] | None:
    """The query fields of a `--format=csv` header line, without units, or None."""
    fields = [re.sub(r"\s*\[.*\]$", "", f).lower() for f in _csv_fields(line)]
    if len(fields) < 2 or not all(re.fullmatch(r"[a-z_.]+", f) for f in fields):
        return None
    if not ({"name", "gpu_name"} & set(fields)) or not ({"compute_cap", "driver_version"} & set(fields)):
        return None
    return fields


def parse_nvidia_smi_csv(text: str) -> Found:
    """`nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv`, columns in any order."""
    lines = clean_lines(text)
    for index, line in enumerate(lines):
        header = _csv_header(line)
        if header is None:
            continue
        rows = []
        for row in lines[index + 1:]:
            values = _csv_fields(row)
            if len(values) != len(header):
                break
            rows.append(dict(zip(header, values, strict=True)))
        if rows:
            return _csv_found(rows)
    return {}


def _csv_found(rows: list[dict[str, str]]) -> Found:
    gpus: list[Gpu] = []
    for row in rows:
        name = row.get("name") or row.get("gpu_name") or ""
        cc = row.get("compute_cap", "")
        gpus.append((name, cc if re.fullmatch(r"\d+\.\d+", cc) else compute_capability(name)))
    driver = next((first_version(r.get("driver_version")) for r in rows if r.get("driver_version")), None)
    return {"kind": KIND_NVIDIA_SMI_CSV, "gpus": gpus, "driver_version": driver}


def parse_nvidia_smi_list(text: str) -> Found:
    """`nvidia-smi -L`: 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)'."""
    gpus = [(m.group(2).strip(), compute_capability(m.group(2))) for m in map(_SMI_LIST.match, clean_lines(text)) if m]
    return {"kind": KIND_NVIDIA_SMI_LIST, "gpus": gpus} if gpus else {}


# --- nvcc, python, uname, lsb_release --------------------------------------------------------

_NVCC = re.compile(r"Cuda compilation tools, release (\d+\.\d+), V(\d+(?:\.\d+)+)")
_PYTHON = re.compile(r"^Python (\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?\+?)(?:\s|$)")
_UNAME = re.compile(r"^(Linux|Darwin) \S+ (\d+\.\d+\S*) (#.*)$")


def parse_nvcc(text: str) -> Found:
    """`nvcc --version`: 'Cuda compilation tools, release 12.4, V12.4.131'."""
    match = next((m for m in map(_NVCC.search, clean_lines(text)) if m), None)
    return {"kind": KIND_NVCC, "nvcc_version": match.group(2)} if match else {}


def parse_python_version(text: str) -> Found:
    """`python --version` ('Python 3.11.7'), or the interpreter's start-up banner."""
    match = next((m for m in map(_PYTHON.match, clean_lines(text)) if m), None)
    return {"kind": KIND_PYTHON, "python_version": match.group(1)} if match else {}


def parse_uname(text: str) -> Found:
    """`uname -a`: 'Linux host 6.2.0-34-generic #34~22.04.1-Ubuntu SMP ... x86_64 GNU/Linux'."""
    for line in clean_lines(text):
        match = _UNAME.match(line)
        if match and (match.group(1) == "Darwin" or "GNU/Linux" in line or "SMP" in line):
            return {"kind": KIND_UNAME, "kernel": match.group(2), "os": match.group(1)}
    return {}


def parse_lsb_release(text: str) -> Found:
    """`lsb_release -a`: the 'Description:' line names the distribution."""
    lines = clean_lines(text)
    if not any(line.startswith("Distributor ID:") for line in lines):
        return {}
    description = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Description:")), None)
    return {"kind": KIND_LSB_RELEASE, "os": description} if description else {}
