"""A cache per guide file: each file's prepared entry (read, validated, compiled, tokenised,
encoded: kb.engine.index._light), kept by its path, size, modification time and inode.

When one guide is edited, the index cache's key changes (kb/engine/cache.py) and the index is
assembled again; with this cache only the edited file is read and prepared again, the
others come back as they were. The checks across files and the assembly run over all of
them, so the index is the one a load from YAML builds.

One pickle under the cache folder, each entry pickled on its own: an unchanged entry is
written back as the bytes it was read as. Like the index cache it is trusted: this program
writes it into the project's own folder and reads it only from there.
"""
from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

MAGIC = b"kb-guide-file-cache\n"


def file_sig(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


class GuideFileCache:
    """Prepared entries by guide file, valid for one code version and one base folder."""

    def __init__(self, path: Path, version: str):
        self.path, self.version = Path(path), version
        self._entries: dict[str, tuple[tuple[int, int, int], bytes]] = {}
        self.prepared: list[str] = []  # the files read and prepared again by the last load
        self.changed = False  # whether save() has anything new to write
        try:
            with self.path.open("rb") as f:
                if f.read(len(MAGIC)) == MAGIC:
                    head, entries = pickle.load(f)
                    if head == version:
                        self._entries = entries
        except Exception:  # noqa: BLE001 - missing, truncated or from another version: prepared again
            self._entries = {}

    def get(self, path: str, sig) -> object | None:
        entry = self._entries.get(path)
        if entry is None or sig is None or entry[0] != sig:
            return None
        try:
            return pickle.loads(entry[1])
        except Exception:  # noqa: BLE001 - a damaged entry: prepared again
            return None

    def replace(self, fresh: dict[str, tuple[tuple[int, int, int], object]], keep: set[str]) -> None:
        """Entries for `keep` (the files read this time); `fresh` ones are new or changed."""
        self.prepared = sorted(fresh)
        entries = {p: e for p, e in self._entries.items() if p in keep and p not in fresh}
        self.changed = bool(fresh) or len(entries) != len(self._entries)
        for p, (sig, result) in fresh.items():
            if sig is not None:
                entries[p] = (sig, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        self._entries = entries

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(MAGIC)
                    pickle.dump((self.version, self._entries), f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
                self.changed = False
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass  # a read-only checkout still works, only without this cache
