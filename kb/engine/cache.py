"""The built index, cached on disk, so that a process starts in a fraction of a second.

`load_index_cached()` returns what `load_index()` returns. The cache is a pickle of the
built Index under `.kb-cache/` (ignored by git), keyed by every guide file's path, size,
modification time and inode, by the loader's settings and by the code that builds the
index (its source and its libraries' versions). When any guide is added, removed or
changed, or the code changes, the key changes and the index is rebuilt from YAML and
written again. A cache that cannot be read (truncated, corrupt, from another version) is
ignored and rebuilt. Guides stay encoded in the cache and are decoded on first use (see
kb.engine.index.GuideStore).

The cache is written by this program into the project's own folder and read back only
from there: like the code beside it, it is trusted (a pickle runs code when loaded).
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

from kb import ROOT, config
from kb.engine.filecache import GuideFileCache
from kb.engine.index import Index, load_index
from kb.guides.load import GUIDES_DIR

CACHE_DIR = ROOT / ".kb-cache"
MAGIC = b"kb-index-cache\n"
# The code whose change can change what is built: the engine (patterns, references for the
# likely tier, the parse they come from), guide loading and the schema.
_CODE = ["kb/engine/*.py", "kb/guides/load.py", "schema/*.py"]
_LIBS = ["pydantic", "pydantic_core", "pyahocorasick", "google-re2", "PyYAML", "rapidfuzz"]
_code_version: str | None = None


def code_version() -> str:
    global _code_version
    if _code_version is None:
        from importlib import metadata
        h = hashlib.sha256(sys.version.encode())
        for pattern in _CODE:
            for path in sorted(ROOT.glob(pattern)):
                h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
        for lib in _LIBS:
            try:
                h.update(f"{lib}={metadata.version(lib)}".encode())
            except metadata.PackageNotFoundError:
                h.update(f"{lib}=?".encode())
        _code_version = h.hexdigest()
    return _code_version


def cache_key(root: Path) -> str:
    """Changes when any guide file under root is added, removed or changed, or the code changes."""
    h = hashlib.sha256(code_version().encode())
    h.update(str(root.resolve()).encode())
    h.update(config.raw("KB_MAX_GUIDE_BYTES").encode())
    for p in _yaml_files(root):
        try:
            st = os.stat(p)
        except OSError:
            continue
        h.update(f"\0{p}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}".encode())
    return h.hexdigest()


def _yaml_files(root: Path) -> list[str]:
    """Every file guide_files(root) reads (and perhaps a few more), quickly: no Path objects."""
    if root.is_file():
        return [str(root)]
    out = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        out.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".yaml"))
    return out


def cache_path(root: Path, cache_dir: Path) -> Path:
    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return cache_dir / f"index-{name}.pickle"


def files_cache(root: Path, cache_dir: Path) -> GuideFileCache:
    """The per-file cache of prepared guides for root (kb.engine.filecache): valid for this
    code, these loader settings and this base folder (problems name files relative to it)."""
    base = root if root.is_dir() else root.parent
    version = f"{code_version()}\0{config.raw('KB_MAX_GUIDE_BYTES')}\0{base.resolve()}"
    return GuideFileCache(cache_path(root, cache_dir).with_suffix(".files"), version)


def _read(path: Path, key: str) -> Index | None:
    try:
        with path.open("rb") as f:
            if f.read(len(MAGIC)) != MAGIC or f.read(len(key)).decode("ascii", "replace") != key:
                return None
            index = pickle.load(f)
    except Exception:  # noqa: BLE001 - missing, truncated or corrupt: rebuilt
        return None
    return index if isinstance(index, Index) else None


def _write(path: Path, key: str, index: Index) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + key.encode("ascii"))
                pickle.dump(index, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # atomic: a reader sees the old cache or the new one
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass  # a read-only checkout still works, only without a cache


def load_index_cached(root: Path | str | None = None, cache_dir: Path | str | None = None) -> Index:
    """load_index(root), from the on-disk cache when it is current."""
    root = Path(root) if root else GUIDES_DIR
    cache_dir = Path(cache_dir or config.get("KB_CACHE_DIR") or CACHE_DIR)
    key = cache_key(root)
    path = cache_path(root, cache_dir)
    index = _read(path, key)
    if index is None:
        index, _ = rebuild(root, cache_dir, key)
    return index


def rebuild(root: Path, cache_dir: Path, key: str | None = None) -> tuple[Index, GuideFileCache]:
    """The index built again and both caches written: only the guide files that changed since
    the last build are read and prepared again (their list: the GuideFileCache's .prepared)."""
    key = key or cache_key(root)
    files = files_cache(root, cache_dir)
    index = load_index(root, files)
    files.save()
    _write(cache_path(root, cache_dir), key, index)
    return index, files
