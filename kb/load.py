"""Load guide files safely and report every problem with its file, line and field.

Only YAML's safe constructors are used (C-accelerated when available). Aliases are
refused outright: guides never need them and they are how a "billion laughs"
file expands to gigabytes once validated.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from schema.models import Guide

try:
    _Base = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Base = yaml.SafeLoader

MAX_FILE_BYTES = int(os.environ.get("KB_MAX_GUIDE_BYTES", 1_000_000))
GUIDES_DIR = Path(__file__).resolve().parent.parent / "guides"


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.path + (f":{self.line}" if self.line else "")
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


class _Loader(_Base):
    pass


def _no_duplicates(loader: _Loader, node: yaml.MappingNode, deep: bool = False):
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def _line_of(node: yaml.Node | None, loc: tuple) -> int | None:
    """Follow a pydantic error location through the YAML node tree to a line number."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            nxt = node.value[part]
        else:
            nxt = None
        if nxt is None:
            break
        node, line = nxt, nxt.start_mark.line + 1
    return line


def _has_alias(text: str) -> yaml.Mark | None:
    for event in yaml.parse(text, Loader=_Base):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return event.start_mark
    return None


def read_guide(path: Path, root: Path | None = None) -> tuple[Guide | None, list[Problem]]:
    """One guide file: the validated guide, or the problems that stop it loading."""
    shown = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [Problem(shown, None, None, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")]
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(shown, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
    except OSError as exc:
        return None, [Problem(shown, None, None, f"cannot read: {exc.strerror}")]
    try:
        mark = _has_alias(text)
        if mark is not None:
            return None, [Problem(shown, mark.line + 1, None, "YAML anchors and aliases are not allowed in guides")]
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        msg = " ".join(str(x) for x in (getattr(exc, "context", None), getattr(exc, "problem", None)) if x) or str(exc)
        if "could not determine a constructor" in msg:
            msg = "YAML tags that build objects are not allowed (" + msg + ")"
        return None, [Problem(shown, mark.line + 1 if mark else None, None, msg)]
    except RecursionError:
        return None, [Problem(shown, None, None, "nesting is too deep")]
    if not isinstance(data, dict):
        return None, [Problem(shown, 1, None, "a guide file must be a YAML mapping")]
    try:
        guide = Guide.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"])
            field = ".".join(str(p) for p in loc) or None
            problems.append(Problem(shown, _line_of(node, loc), field, err["msg"]))
        return None, problems
    return guide, []


def guide_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*.yaml") if p.is_file())


@dataclass
class Loaded:
    guides: list[Guide]
    paths: dict[str, Path]
    problems: list[Problem]


def load_guides(root: Path | str | None = None) -> Loaded:
    """Every guide under root; a broken file is reported and skipped, the others load."""
    root = Path(root) if root else GUIDES_DIR
    base = root if root.is_dir() else root.parent
    guides: list[Guide] = []
    paths: dict[str, Path] = {}
    problems: list[Problem] = []
    for path in guide_files(root):
        guide, probs = read_guide(path, base)
        problems.extend(probs)
        if guide is None:
            continue
        shown = str(path.relative_to(base)) if path.is_relative_to(base) else str(path)
        if guide.id != path.stem:
            problems.append(Problem(shown, 1, "id", f"id {guide.id!r} differs from the file name {path.stem!r}"))
            continue
        if guide.id in paths:
            problems.append(Problem(shown, 1, "id", f"duplicate id {guide.id!r} (also in {paths[guide.id]})"))
            continue
        if root.is_dir() and path.parent != root and path.parent.name != guide.component:
            problems.append(Problem(shown, 1, "component", f"component {guide.component!r} differs from the folder {path.parent.name!r}"))
        paths[guide.id] = path
        guides.append(guide)
    known = set(paths)
    for g in guides:
        for rel in g.related:
            if rel not in known:
                problems.append(Problem(str(paths[g.id].relative_to(base)), None, "related", f"unknown guide id {rel!r}"))
    return Loaded(guides, paths, problems)
