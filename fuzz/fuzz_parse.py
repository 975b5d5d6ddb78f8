#!/usr/bin/env python3
"""Coverage-guided fuzzing of the paste parser and the matcher (atheris).

Any bytes, decoded as a paste would be, must parse and match without raising, and the
result must be consistent: line numbers follow the paste, every line index and span the matcher
reports lies inside the paste, the same text gives the same result. Anything else is a
finding: atheris stops and writes the input to crash-<hash> in the working directory.

    .venv/bin/python -m pip install atheris          # dev-only, not in requirements
    mkdir -p /tmp/fuzz-corpus && cp tests/data/pastes/*.log tests/data/fuzz/* /tmp/fuzz-corpus/
    timeout 600 .venv/bin/python fuzz/fuzz_parse.py /tmp/fuzz-corpus -max_len=4096 -rss_limit_mb=4096

The same checks run in the suite over every file kept in tests/data/fuzz/ (tests/test_properties.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import atheris  # noqa: E402

# The invariants are the suite's (tests/test_properties.py): the fuzzer and the tests check the same things.
with atheris.instrument_imports(include=["kb"]):
    from tests.test_properties import check_paste, decode_fuzz_input, index

index()  # built once, before fuzzing starts


def TestOneInput(data: bytes) -> None:
    check_paste(*decode_fuzz_input(data))


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
