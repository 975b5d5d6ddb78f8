"""`kb watch LOG`: follow a growing log as `tail -f` does, and diagnose each error block once it is whole.

The file is read from its start (a CI job's log may already hold the error), then followed. It
may not exist yet; when it is truncated (its size falls below what was read) it is read again
from its start, and when it is replaced (log rotation: another file under the name) the rest
of the old one is read, then the new one from its start.

Lines gather into a block. After a quiet moment (no new line for QUIET seconds) the block is
diagnosed (kb.diagnosis): when it holds an error — a root error, or a guide that answers or
helps read it, such as a traceback with its error line, an NCCL WARN block or a worker that
died — the diagnosis is printed and the block starts afresh. A traceback that stops before its
error line (kb.engine.completeness, through the diagnosis) is waited for, up to MAX_WAIT
seconds of quiet. Lines with no error in them are kept only as context for the next block.

Exit status: 0 after the first answer with --exit-on-answer, or when stopped (Ctrl-C,
SIGTERM); 2 when LOG cannot be read (a directory, no permission).
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kb.diagnosis import Diagnosis, Index, as_json, as_text, diagnose
from kb.text import say

POLL = 0.1  # seconds between looks at the file
QUIET = 0.5  # seconds without a new line after which a block is judged
MAX_WAIT = 10.0  # seconds of quiet after which a cut traceback is diagnosed as it is
CONTEXT_LINES = 50  # lines without an error kept before the next block (the command line, versions)
MAX_BLOCK_LINES = 20_000  # a block is judged at this size even if lines keep coming
READ_SIZE = 1 << 20
RESET = None  # in Follower.lines(): the file started again (truncated or replaced); line numbers restart


class Follower:
    """New lines of a file, as `tail -F` sees them: through truncation and rotation."""

    def __init__(self, path: Path, say_status) -> None:
        self.path, self.status = path, say_status
        self.handle: BinaryIO | None = None
        self.identity: tuple[int, int] | None = None
        self.position = 0
        self.partial = b""
        self.missing_said = False

    def _open(self) -> bool:
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            if not self.missing_said:
                self.status("watch_missing")
                self.missing_said = True
            return False
        st = os.fstat(handle.fileno())
        self.handle, self.identity, self.position, self.partial = handle, (st.st_dev, st.st_ino), 0, b""
        return True

    def _read(self) -> list[bytes]:
        assert self.handle is not None  # read only once open
        out: list[bytes] = []
        while True:
            data = self.handle.read(READ_SIZE)
            if not data:
                return out
            self.position += len(data)
            *whole, self.partial = (self.partial + data).split(b"\n")
            out += whole

    def lines(self) -> list[bytes | None]:
        """The lines completed since the last call (without their line ends), with RESET where
        the file started again."""
        if self.handle is None and not self._open():
            return []
        out: list[bytes | None] = [*self._read()]
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return out  # rotated away and not yet replaced: keep reading the old file
        if (st.st_dev, st.st_ino) != self.identity:
            out += self._read() + self.flush()  # what was written to the old file before it went
            assert self.handle is not None
            self.handle.close()
            self.handle = None
            self.status("watch_rotated")
            return [*out, RESET, *(self._read() if self._open() else [])]
        if st.st_size < self.position:
            assert self.handle is not None
            self.handle.seek(0)
            self.position, self.partial = 0, b""
            self.status("watch_truncated")
            out += [RESET, *self._read()]
        return out

    def flush(self) -> list[bytes]:
        """A last line that has no line end yet, once the writer has gone quiet."""
        rest, self.partial = self.partial, b""
        return [rest] if rest else []


@dataclass
class Block:
    lines: list[str]
    first_no: int  # the file's line number of lines[0]


def worth_saying(d: Diagnosis) -> bool:
    """An error is there: a root error, or a guide that answers or helps read the log."""
    return d.root is not None or any(r.tier != "similar" for r in d.results)


class Watcher:
    """Blocks of lines judged once the writer goes quiet, and said when they hold an error."""

    def __init__(self, path: str, index: Index, exit_on_answer: bool, lang: str, as_json_lines: bool) -> None:
        self.path, self.index, self.exit_on_answer, self.lang, self.as_json_lines = path, index, exit_on_answer, lang, as_json_lines
        self.block = Block([], 1)
        self.dirty = False  # lines came since the block was last judged
        self.last_line_at = 0.0
        self.wait = QUIET

    def status(self, key: str, **values: object) -> None:
        print(say(key, self.lang, path=self.path, **values), file=sys.stderr, flush=True)

    def add(self, lines: Sequence[bytes | None], now: float) -> bool:
        """Take the follower's lines; True when the watch is over (an answer, with --exit-on-answer)."""
        for item in lines:
            if item is RESET:  # what came before belongs to the old file: judged now, as it is
                if self.dirty and self.judge(now, force=True):
                    return True
                self.block, self.dirty = Block([], 1), False
            else:
                self.block.lines.append(item.decode("utf-8", "replace").rstrip("\r"))
                self.dirty, self.last_line_at, self.wait = True, now, QUIET
        return False

    def due(self, now: float) -> bool:
        return self.dirty and (now - self.last_line_at >= self.wait or len(self.block.lines) >= MAX_BLOCK_LINES)

    def judge(self, now: float, force: bool = False) -> bool:
        lines = self.block.lines
        d = diagnose(self.index, "\n".join(lines) + "\n", lang=self.lang)
        cut = [values for code, values in d.cut if code == "traceback_cut"]
        if cut and not force and now - self.last_line_at < MAX_WAIT and len(lines) < MAX_BLOCK_LINES:
            if self.wait != MAX_WAIT:  # said once: the rest of the traceback is awaited
                self.status("watch_waiting", line=self.block.first_no + cut[0]["line"] - 1)
            self.wait = MAX_WAIT
            return False
        self.dirty, self.wait = False, QUIET
        if worth_saying(d):
            _show(d, self.path, self.block, self.lang, self.as_json_lines)
            self.block = Block([], self.block.first_no + len(lines))
            if self.exit_on_answer and d.answer is not None:
                self.status("watch_answered", guide=d.answer.id)
                return True
        else:
            keep = lines[-CONTEXT_LINES:]
            self.block = Block(keep, self.block.first_no + len(lines) - len(keep))
        return False


def watch(path: str, index: Index, exit_on_answer: bool = False, lang: str = "en", as_json_lines: bool = False) -> int:
    log = Path(path)
    if log.is_dir():
        print(say("watch_is_dir", lang, path=path), file=sys.stderr)
        return 2
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    watcher = Watcher(path, index, exit_on_answer, lang, as_json_lines)
    follower = Follower(log, watcher.status)
    watcher.status("watch_following")
    try:
        while not stop["now"]:
            try:
                new = follower.lines()
            except PermissionError:
                print(say("watch_unreadable", lang, path=path), file=sys.stderr)
                return 2
            now = time.monotonic()
            if watcher.add(new, now):
                return 0
            if watcher.dirty and now - watcher.last_line_at >= QUIET:
                watcher.add(follower.flush(), watcher.last_line_at)  # the writer went quiet inside a line
            if watcher.due(now) and watcher.judge(now):
                return 0
            time.sleep(POLL)
    except KeyboardInterrupt:
        pass
    return 0


def _show(d: Diagnosis, path: str, block: Block, lang: str, as_json_lines: bool) -> None:
    line = block.first_no + (d.root["line"] - 1 if d.root is not None else 0)
    if as_json_lines:
        print(json.dumps({"path": path, "line": line, **as_json(d, lang), "answered": d.answered}, ensure_ascii=False),
              flush=True)
    else:
        print(say("watch_block", lang, line=line, path=path), flush=True)
        sys.stdout.write(as_text(d, lang))
        sys.stdout.flush()
