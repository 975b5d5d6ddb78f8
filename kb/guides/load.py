"""Load guide files safely and report every problem with its file, line and field.

Only YAML's safe constructors are used (C-accelerated when available). Aliases are
refused outright: guides never need them and they are how a "billion laughs"
file expands to gigabytes once validated.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kb import ROOT, config
from schema.models import Guide

_Base: Any  # libyaml's loader where PyYAML has it (yaml has no type information here)
try:
    _Base = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Base = yaml.SafeLoader

MAX_PROBLEMS = 50  # reported per file
GUIDES_DIR = ROOT / "guides"


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
    def construct_object(self, node, deep=False):
        # A scalar Python cannot hold (an integer of 5,000 digits, the 45th of month 13) is the
        # file's problem, reported at its line, never an exception out of the loader.
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(None, None, f"cannot read this value: {exc}", node.start_mark) from None


def _no_duplicates(loader: _Loader, node: yaml.MappingNode, deep: bool = False):
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (list, dict, set)):
            raise yaml.constructor.ConstructorError(None, None, "a mapping key must be a plain value", key_node.start_mark)
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


_rs: Any  # yaml_rs, where it is installed
_RS_NO_ALIAS: Any
try:
    import yaml_rs as _rs
    _RS_NO_ALIAS = _rs.AliasLimits(max_alias_expansions_per_anchor=0)
except ImportError:  # pragma: no cover - the exact route alone is correct, only slower
    _rs = None
    _RS_NO_ALIAS = None


def _load_rs(text: str) -> dict | None:
    """The guide's data through yaml-rs (Rust, about 7x faster than libyaml here), when it
    can be trusted to build what the exact route builds: no alias (refused by a zero
    limit), no merge key, no tag it does not know (it refuses those), no duplicate key
    (it refuses those too). Anything it refuses, and any file that then fails validation,
    goes through the exact route, which decides and words every problem with its line."""
    if _rs is None or "<<" in text:
        return None
    try:
        data = _rs.loads(text, parse_datetime=True, alias_limits=_RS_NO_ALIAS)
    except Exception:  # noqa: BLE001 - the exact route reports it
        return None
    return data if isinstance(data, dict) else None


def read_guide(path: Path, root: Path | None = None) -> tuple[Guide | None, list[Problem]]:
    """One guide file: the validated guide, or the problems that stop it loading."""
    shown = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    try:
        size = path.stat().st_size
        limit = int(config.get("KB_MAX_GUIDE_BYTES"))
        if size > limit:
            return None, [Problem(shown, None, None, f"file is {size:,} bytes; the limit is {limit:,}")]
        with path.open("rb") as f:  # never more than the limit, whatever the size said
            raw = f.read(limit + 1)
        if len(raw) > limit:
            return None, [Problem(shown, None, None, f"file is over {limit:,} bytes, the limit")]
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(shown, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
    except OSError as exc:
        return None, [Problem(shown, None, None, f"cannot read: {exc.strerror}")]
    data = _load_rs(text)
    if data is not None:
        try:
            return Guide.model_validate(data), []
        except (ValidationError, ValueError, TypeError):
            pass
    # The exact route: PyYAML's safe loader keeps the node tree, so every problem gets its line.
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
        if "tag:yaml.org,2002:merge" in msg:
            msg = "YAML merge keys (<<) are not allowed"
        elif "could not determine a constructor" in msg:
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
        errors = exc.errors()
        for err in errors[:MAX_PROBLEMS]:  # a file of 70,000 unknown keys is one problem, not 70,000
            loc = tuple(p for p in err["loc"])
            field = ".".join(str(p) for p in loc) or None
            problems.append(Problem(shown, _line_of(node, loc), field, err["msg"]))
        if len(errors) > MAX_PROBLEMS:
            problems.append(Problem(shown, None, None, f"… and {len(errors) - MAX_PROBLEMS:,} more problems"))
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


def _shown(path: Path, base: Path) -> str:
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


def _read_one(path: Path, base: Path, transform=None):
    try:
        guide, probs = read_guide(path, base)
    except Exception as exc:  # noqa: BLE001 - one bad file never stops the others loading
        guide, probs = None, [Problem(_shown(path, base), None, None, f"cannot be loaded: {type(exc).__name__}: {str(exc)[:200]}")]
    if guide is not None and transform is not None:
        guide = transform(guide)
    return guide, probs


def _read_chunk(args):
    paths, base, transform = args
    return [_read_one(p, base, transform) for p in paths]


# Above this many files they are read by a pool of processes (one per core, at most 4):
# parsing YAML is CPU-bound. KB_LOAD_WORKERS=1 reads them in this process.
PARALLEL_MIN_FILES = 400


def _workers(n_files: int) -> int:
    wanted = config.get("KB_LOAD_WORKERS")
    if wanted is not None:
        return max(1, int(wanted))
    if n_files < PARALLEL_MIN_FILES:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)))


def read_many(files: list[Path], base: Path, transform=None) -> list[tuple[object, list[Problem]]]:
    """read_guide for each file, in order; `transform` (a module-level function) maps each
    valid guide to what is returned in its place, in the worker that read it."""
    import gc
    workers = _workers(len(files))
    was_enabled = gc.isenabled()
    gc.disable()  # many long-lived objects at once: collecting on the way only costs time
    try:
        if workers <= 1:
            return [_read_one(p, base, transform) for p in files]
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor
        # fork is cheap, but only safe while this process runs a single thread.
        ctx = multiprocessing.get_context("fork" if threading.active_count() == 1 else "spawn")
        size = max(8, len(files) // (workers * 8))
        chunks = [(files[i:i + size], base, transform) for i in range(0, len(files), size)]
        with ProcessPoolExecutor(workers, mp_context=ctx) as ex:
            return [r for part in ex.map(_read_chunk, chunks) for r in part]
    finally:
        if was_enabled:
            gc.enable()


def check_guides(root: Path, base: Path, files: list[Path], results) -> tuple[list, dict[str, Path], list[Problem]]:
    """The checks across files (id and file name, duplicate ids, folders, related ids) over
    read results; each kept item only needs .id, .component and .related."""
    guides: list = []
    paths: dict[str, Path] = {}
    problems: list[Problem] = []
    candidates: dict[str, list[tuple[Path, object]]] = {}
    for path, (guide, probs) in zip(files, results, strict=True):
        problems.extend(probs)
        if guide is None:
            continue
        shown = _shown(path, base)
        if guide.id != path.stem:
            problems.append(Problem(shown, 1, "id", f"id {guide.id!r} differs from the file name {path.stem!r}"))
            continue
        if root.is_dir() and path.parent != root and path.parent.name != guide.component:
            problems.append(Problem(shown, 1, "component", f"component {guide.component!r} differs from the folder {path.parent.name!r}"))
        candidates.setdefault(guide.id, []).append((path, guide))
    duplicated: set[str] = set()
    for gid, found in candidates.items():
        if len(found) > 1:
            # Which copy wins must never depend on the order files are read in: neither is served.
            duplicated.add(gid)
            names = [_shown(p, base) for p, _ in found]
            for name in names:
                others = ", ".join(n for n in names if n != name)
                problems.append(Problem(name, 1, "id", f"duplicate id {gid!r}, also in {others}; "
                                        "no guide is served under this id until one file is renamed or removed"))
            continue
        path, guide = found[0]
        paths[gid] = path
        guides.append(guide)
    known = set(paths) | duplicated
    for g in guides:
        for rel in g.related:
            if rel not in known:
                problems.append(Problem(str(paths[g.id].relative_to(base)), None, "related", f"unknown guide id {rel!r}"))
    return guides, paths, problems


def load_guides(root: Path | str | None = None) -> Loaded:
    """Every guide under root; a broken file is reported and skipped, the others load."""
    root = Path(root) if root else GUIDES_DIR
    base = root if root.is_dir() else root.parent
    files = guide_files(root)
    return Loaded(*check_guides(root, base, files, read_many(files, base)))
