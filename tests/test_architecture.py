"""The layout shows the architecture: kb's packages depend one way, kb never imports the
front end, and no module grows past a size a reader can hold in mind."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each package may import only itself and those listed before it.
LAYERS = ["config", "text", "guides", "env", "engine", "lookup", "feedback", "authoring", "evaluation", "diagnosis", "watch",
          "serve", "cli"]
MAX_LINES = 330


def _imports(path: Path) -> set[str]:
    """Modules `path` imports, at any depth, except under `if TYPE_CHECKING:` (annotations only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "kb" and len(parts) > 1 else None


KB_FILES = sorted((ROOT / "kb").rglob("*.py"))


@pytest.mark.parametrize("path", KB_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_kb_imports_point_one_way(path: Path):
    rel = path.relative_to(ROOT / "kb").parts
    own = rel[0].removesuffix(".py")
    if own not in LAYERS:  # kb/__init__.py, kb/__main__.py
        return
    for mod in _imports(path):
        assert mod.split(".")[0] not in ("streamlit", "components"), f"{path}: kb must not import {mod}"
        target = _layer(mod)
        if target is None or target not in LAYERS:
            continue
        assert LAYERS.index(target) <= LAYERS.index(own), f"{path} imports {mod}: {own} may not depend on {target}"


FRONT_FILES = [*sorted((ROOT / "components").rglob("*.py")), ROOT / "app.py"]


@pytest.mark.parametrize("path", FRONT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_front_end_reaches_the_engine_only_through_its_front_door(path: Path):
    """The page reads a Diagnosis (kb.diagnosis), never the engine's own objects."""
    for mod in _imports(path):
        assert not (mod == "kb.engine" or mod.startswith("kb.engine.")), f"{path.relative_to(ROOT)} imports {mod}; use kb.diagnosis"


def test_schema_imports_nothing_of_ours():
    for path in (ROOT / "schema").rglob("*.py"):
        for mod in _imports(path):
            assert mod.split(".")[0] not in ("kb", "components", "streamlit"), f"{path} imports {mod}"


def test_no_import_cycle_between_modules():
    graph: dict[str, set[str]] = {}
    for path in KB_FILES:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[name] = {m for m in _imports(path) if m.startswith("kb.")}
    seen: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in graph.get(node, ()):
            if seen.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(nxt):], nxt]) if nxt in stack else nxt)
            if nxt not in seen:
                visit(nxt, [*stack, nxt])
        seen[node] = 2

    for node in graph:
        if node not in seen:
            visit(node, [node])


@pytest.mark.parametrize("path", [*KB_FILES, *sorted((ROOT / "components").rglob("*.py")), ROOT / "app.py"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small(path: Path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines; split it by concern"
