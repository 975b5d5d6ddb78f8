from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def index():
    from kb.index import load_index
    return load_index()


@pytest.fixture(scope="session")
def loaded():
    from kb.load import load_guides
    return load_guides()


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")
