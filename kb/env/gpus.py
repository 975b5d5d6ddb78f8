"""GPU product names to CUDA compute capability.

Source: NVIDIA's published list (developer.nvidia.com/cuda-gpus). Reports name GPUs in
many spellings ("Tesla V100-SXM2-32GB", "NVIDIA GeForce RTX 5090", nvidia-smi's truncated
"NVIDIA RTX PRO 6000 Blac..."), so names are matched by patterns, not looked up verbatim.
"""
from __future__ import annotations

import re

# (pattern, compute capability). Patterns are regular expressions over the normalised name
# (upper case, '-' and '_' read as spaces, vendor prefixes kept). Word boundaries keep
# "A10" from matching "A100" and "H200" from matching "GH200"; when several patterns match,
# the longest matched text wins, so the more specific spelling decides.
GPU_TABLE: tuple[tuple[str, str], ...] = (
    # Blackwell, consumer and workstation (SM120) and DGX Spark (SM121).
    (r"RTX PRO \d{4}D?", "12.0"),  # every RTX PRO part is Blackwell: 6000 (all editions), 5000, 4500, 4000, 2000
    (r"RTX 50[5-9]0(?: TI)?", "12.0"),  # RTX 5090 / 5080 / 5070 Ti / 5070 / 5060 (Ti), desktop and laptop
    (r"GB10", "12.1"),
    (r"DGX SPARK", "12.1"),
    # Blackwell, data centre.
    (r"G?B200", "10.0"),
    (r"B100", "10.0"),
    (r"G?B300", "10.3"),
    (r"JETSON (?:AGX )?THOR|JETSON T[45]000", "11.0"),
    # Hopper.
    (r"G?H100", "9.0"),
    (r"G?H200", "9.0"),
    (r"H800", "9.0"),
    (r"H20", "9.0"),
    # Ada Lovelace.
    (r"L40S?", "8.9"),
    (r"L4", "8.9"),
    (r"L20", "8.9"),
    (r"RTX 40[5-9]0(?: TI| SUPER| D)?", "8.9"),
    (r"RTX \d{4} ADA", "8.9"),  # RTX 6000 / 5880 / 5000 / 4500 / 4000 / 2000 Ada Generation
    # Ampere.
    (r"A100", "8.0"),
    (r"A800", "8.0"),
    (r"A30", "8.0"),
    (r"A10G?", "8.6"),
    (r"A40", "8.6"),
    (r"A16", "8.6"),
    (r"A2", "8.6"),
    (r"RTX A[2-6]\d{3}", "8.6"),  # RTX A6000 / A5000 / A4500 / A4000 / A2000
    (r"A[456]000", "8.6"),
    (r"RTX 30[5-9]0(?: TI)?", "8.6"),
    (r"(?:JETSON )?(?:AGX |NX )?ORIN", "8.7"),
    # Turing.
    (r"T4", "7.5"),
    (r"QUADRO RTX [4-8]000", "7.5"),
    (r"RTX 20[6-8]0(?: TI| SUPER)?", "7.5"),
    (r"GTX 16[5-6]0(?: TI| SUPER)?", "7.5"),
    (r"TITAN RTX", "7.5"),
    (r"(?:QUADRO )?T(?:400|600|1000|2000)", "7.5"),
    # Volta.
    (r"V100S?", "7.0"),
    (r"TITAN V", "7.0"),
    # Pascal.
    (r"P100", "6.0"),
    (r"P40", "6.1"),
    (r"P4", "6.1"),
    (r"GTX 10[5-8]0(?: TI)?", "6.1"),
    (r"QUADRO P\d{3,4}", "6.1"),
    (r"TITAN XP", "6.1"),
    # Kepler, still met in old reports.
    (r"K80", "3.7"),
)

_COMPILED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"(?<![A-Z0-9])(?:{pattern})(?![A-Z0-9])"), cc) for pattern, cc in GPU_TABLE
)


def normalise_name(name: str) -> str:
    """Upper case, without nvidia-smi's truncation mark, with '-'/'_' read as spaces."""
    text = name.strip().replace("…", "").replace("...", "")
    text = re.sub(r"[-_]+", " ", text.upper())
    return re.sub(r"\s+", " ", text).strip()


def find_gpu(text: str) -> tuple[int, int, str] | None:
    """Where in `text` (already normalised) a GPU is named, and its compute capability: the
    longest name found, so the more specific spelling decides."""
    best: tuple[int, int, str] | None = None
    for pattern, cc in _COMPILED:
        for match in pattern.finditer(text):
            if best is None or match.end() - match.start() > best[1] - best[0]:
                best = (match.start(), match.end(), cc)
    return best


def compute_capability(name: str) -> str | None:
    """The compute capability ('major.minor') of the GPU called `name`, or None if unknown."""
    found = find_gpu(normalise_name(name))
    return found[2] if found else None
