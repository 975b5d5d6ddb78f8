"""Figures in the README files, written by the code that measures them.

A table of figures in a Markdown file sits between two markers:

    <!-- generated:NAME:start -->
    …
    <!-- generated:NAME:end -->

and holds exactly what the function registered as NAME renders. Each function renders from
one measured source, which it names under its table: a run of the code itself when the
figures are deterministic (`kb eval` on the cases), or a result file a benchmark command
wrote (bench/results/*.json, committed) when they depend on the machine. `python -m kb
generate` rewrites every block; `--check` and tests/test_readme.py fail when a block is
stale, or names no registered function.

To add a table: register its function with `@block("name", "what it comes from")` in a
module of the package whose code it needs (kb.evaluation's blocks live in
kb/evaluation/readme_tables.py), make sure `python -m kb generate` imports that module
(kb.cli does), and put the two markers where the table goes.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from kb import ROOT, config

FILES = (ROOT / "README.md", ROOT / "bench" / "README.md")
RESULTS = ROOT / "bench" / "results"
_BLOCK = re.compile(r"(<!-- generated:(?P<name>[a-z0-9-]+):start -->\n)(?P<body>.*?)(<!-- generated:(?P=name):end -->)", re.S)
_MARKER = re.compile(r"<!-- generated:(?P<name>[^:>]*):(?P<end>start|end) -->")


class BlockError(ValueError):
    """A block no function renders, or markers that do not pair up."""


@dataclass(frozen=True)
class Block:
    name: str
    source: str  # what the figures come from, as a reader can rerun it
    render: Callable[[], str]  # Markdown, without the markers


BLOCKS: dict[str, Block] = {}


def block(name: str, source: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register `fn` as the renderer of the blocks called `name`."""
    def register(fn: Callable[[], str]) -> Callable[[], str]:
        BLOCKS[name] = Block(name, source, fn)
        return fn
    return register


def result_file(name: str) -> dict:
    """A benchmark's result file (bench/results.py wrote it), or why there is none."""
    path = RESULTS / name
    if not path.exists():
        raise BlockError(f"bench/results/{name} is missing; the README says which command writes it")
    return json.loads(path.read_text(encoding="utf-8"))


def provenance(data: dict) -> str:
    """One line under a table from a result file: how, where and on what it was measured."""
    m = data.get("machine", {})
    tree = f"commit {data['commit']}" + (" with uncommitted changes" if data.get("dirty") else "")
    return (f"Measured with `{data['command']}` on {tree}, {data['date']}, {m.get('cpus', '?')} CPUs ({m.get('cpu', '?')}), "
            f"load average {m.get('load_avg_1m', '?')} at the end.")


def names_in(text: str) -> list[str]:
    """The names of the blocks in `text`, in order; markers must pair up."""
    opened: list[str] = []
    found: list[str] = []
    for m in _MARKER.finditer(text):
        if m.group("end") == "start":
            if opened:
                raise BlockError(f"block {m.group('name')!r} starts inside block {opened[-1]!r}")
            opened.append(m.group("name"))
        elif not opened or opened.pop() != m.group("name"):
            raise BlockError(f"block {m.group('name')!r} ends where it did not start")
        else:
            found.append(m.group("name"))
    if opened:
        raise BlockError(f"block {opened[-1]!r} never ends")
    return found


def render(name: str) -> str:
    if name not in BLOCKS:
        raise BlockError(f"no renderer for block {name!r}; registered: {', '.join(sorted(BLOCKS)) or 'none'}")
    return BLOCKS[name].render().strip("\n") + "\n"


def rewrite(text: str) -> str:
    """`text` with every block rendered afresh (each renderer runs once)."""
    names_in(text)
    rendered: dict[str, str] = {}

    def fill(m: re.Match) -> str:
        name = m.group("name")
        if name not in rendered:
            rendered[name] = render(name)
        return m.group(1) + rendered[name] + m.group(4)

    return _BLOCK.sub(fill, text)


def block_body(text: str, name: str) -> str | None:
    m = next((m for m in _BLOCK.finditer(text) if m.group("name") == name), None)
    return m.group("body") if m else None


# ------------------------------------------------------------------ tables ---

def table(head: list[str], rows: list[list[str]], align: str = "") -> str:
    """A Markdown table; `align` has one letter per column, "l" or "r" (default: first l, rest r)."""
    align = align or "l" + "r" * (len(head) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    return "\n".join("| " + " | ".join(r) + " |" for r in [head, rule, *rows]) + "\n"


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


@block("config", "kb/config.py")
def _config_table() -> str:
    return config.table()
