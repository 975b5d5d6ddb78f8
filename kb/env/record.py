"""What an environment report states, and the helpers every report parser shares."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Gpu = tuple[str, str | None]  # (name as reported, compute capability or None)
Found = dict[str, Any]  # what one parser found: EnvRecord field names, plus "kind"

KIND_VLLM_COLLECT_ENV = "vllm-collect-env"
KIND_TORCH_COLLECT_ENV = "torch-collect-env"
KIND_PIP_LIST = "pip-list"
KIND_PIP_FREEZE = "pip-freeze"
KIND_NVIDIA_SMI = "nvidia-smi"
KIND_NVIDIA_SMI_CSV = "nvidia-smi-csv"
KIND_NVIDIA_SMI_LIST = "nvidia-smi-list"
KIND_NVCC = "nvcc"
KIND_PYTHON = "python-version"
KIND_UNAME = "uname"
KIND_LSB_RELEASE = "lsb-release"

# Kinds that list every installed package, so a package missing from them is absent.
COMPLETE_PACKAGE_LISTS = frozenset({KIND_PIP_LIST, KIND_PIP_FREEZE})

_NOT_COLLECTED = {"", "n/a", "none", "could not collect", "not available", "no relevant packages"}


@dataclass(frozen=True)
class EnvRecord:
    """What a pasted environment report says; None where it says nothing."""

    # PEP 503 name -> version ('' when listed without one). Left out of the hash so that a
    # record can still key a cache although a dict is not hashable.
    packages: dict[str, str] = field(default_factory=dict, hash=False)
    torch_version: str | None = None
    torch_cuda: str | None = None  # torch.version.cuda: the CUDA PyTorch was built with
    cuda_runtime: str | None = None  # collect_env's "CUDA runtime version" (the toolkit nvcc finds)
    nvcc_version: str | None = None
    driver_version: str | None = None
    driver_cuda: str | None = None  # nvidia-smi's "CUDA Version": the newest CUDA the driver supports
    gpus: tuple[Gpu, ...] = ()
    python_version: str | None = None
    os: str | None = None
    kernel: str | None = None
    sources: tuple[str, ...] = ()

    def package(self, name: str) -> str | None:
        """The version of package `name` (any spelling), '' if listed without one, None if not listed."""
        return self.packages.get(normalise_package(name))

    def lists_all_packages(self) -> bool:
        """True when the report holds a full package listing, so absence is meaningful."""
        return any(kind in COMPLETE_PACKAGE_LISTS for kind in self.sources)


def normalise_package(name: str) -> str:
    """PEP 503 normalised name: lower case, runs of '-', '_', '.' become '-'."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


# --- cleaning ---------------------------------------------------------------------------

_NOISE_LINE = re.compile(r"^\s*(?:`{3,}|~{3,})\s*[\w+-]*\s*$|^\s*</?(?:details|summary)\b[^>]*>.*$", re.I)
_INLINE_TAG = re.compile(r"</?(?:summary|details|code|pre|br)\b[^>]*>", re.I)


def clean_lines(text: str) -> list[str]:
    """Lines of a paste with Windows line ends, quote marks, fences and <details> wrappers removed.

    Leading white space goes too: pastes are indented by quoting, list nesting or copy from
    a rendered page, and no report kind here depends on indentation.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    lines: list[str] = []
    for raw in text.split("\n"):
        line = re.sub(r"^\s*(?:>\s?)+", "", raw)  # e-mail style quoting in replies
        if _NOISE_LINE.match(line):
            continue
        lines.append(_INLINE_TAG.sub("", line).strip())
    return lines


def field_value(text: str) -> str | None:
    """A reported value, or None for the placeholders collect_env prints when it has none."""
    text = text.strip()
    return None if text.lower() in _NOT_COLLECTED else text


def first_version(text: str | None) -> str | None:
    """The leading version-looking token of `text` ('3.12.3 (main, ...)' -> '3.12.3')."""
    if not text:
        return None
    match = re.match(r"v?(\d+(?:\.\d+)*[\w.+!-]*)", text.strip())
    return match.group(1).rstrip(".,;") if match else None


# --- collect_env (vLLM and PyTorch) ------------------------------------------------------
