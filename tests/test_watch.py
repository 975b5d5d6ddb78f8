"""`kb watch` on a log written in steps by the test, truncated and rotated under it. Every wait is
on what the watcher prints (its status lines, its JSON diagnoses), bounded by a deadline."""
from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, read

SEED1 = "vllm-dsv41-sm120-no-common-block-size"
NCCL = next(json.loads(line)["text"] for line in read("cases.jsonl").splitlines() if '"C-nccl-shm-nccltests-rank3"' in line)
RAY = "2023-09-21 09:59:54,619\tWARNING worker.py:2058 -- A worker died or was killed while executing a task by an unexpected system error.\n"
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
# A specific guide's error: it answers ("match"); the illegal memory access only gets a class guide's triage procedure.
NO_KERNEL_IMAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
UNANSWERED = 'Traceback (most recent call last):\n  File "/srv/x.py", line 1, in <module>\nZeroDivisionError: division by zero\n'


class Watch:
    """`kb watch --json LOG` as a process, its output (stdout and stderr) read line by line."""

    def __init__(self, log: Path, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kb", "watch", "--json", *args, str(log)], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.proc.stdout], daemon=True).start()

    def until(self, wanted, timeout: float = 120) -> tuple[str, list[str]]:
        """The first line `wanted` accepts, and the lines printed before it."""
        before, deadline = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"kb watch did not print what was awaited; it printed: {before}")
            if wanted(line):
                return line, before
            before.append(line)

    def diagnosis(self) -> tuple[dict, list[str]]:
        line, before = self.until(lambda x: x.startswith("{"))
        return json.loads(line), before

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(text)


def _first(d: dict) -> str:
    return d["matches"][0]["id"]


def test_follows_a_log_written_in_steps_through_truncation_and_rotation(tmp_path):
    log = tmp_path / "serve.log"
    watch = Watch(log)
    try:
        watch.until(lambda x: "does not exist yet" in x)
        lines = read("pastes/seed1-serve.log").splitlines(keepends=True)
        _append(log, "".join(lines[:10]))  # into the worker's traceback, before its error line
        watch.until(lambda x: "has no error line yet" in x and "line 8" in x)
        _append(log, "".join(lines[10:]))
        d, before = watch.diagnosis()
        assert not any(x.startswith("{") for x in before)  # nothing was said about the cut traceback
        assert (_first(d), d["answered"], d["line"]) == (SEED1, True, 13)

        log.write_text("")  # truncated, as `> serve.log` does
        watch.until(lambda x: "was truncated" in x)
        _append(log, NCCL + "\n")
        d, _ = watch.diagnosis()
        assert (_first(d), d["line"]) == ("nccl-unhandled-system-error-shm", 1)

        with log.open("a", encoding="utf-8") as writer:  # rotated: the writer still holds the old file
            log.rename(tmp_path / "serve.log.1")
            writer.write(RAY)
        log.write_text(IMA)
        seen: list[str] = []
        while len([x for x in seen if x.startswith("{")]) < 2:
            line, before = watch.until(lambda x: x.startswith("{") or "was replaced" in x)
            seen += [*before, line]
        said = [json.loads(x) for x in seen if x.startswith("{")]
        assert [_first(d) for d in said] == ["ray-worker-died-unexpectedly", "cuda-illegal-memory-access"]
        assert any("was replaced (rotated)" in x for x in seen[: seen.index(next(x for x in seen if "illegal" in x))])
    finally:
        assert watch.stop() == 0  # stopped by SIGTERM: not an error


def test_exit_on_answer_waits_for_an_answer(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text(UNANSWERED)  # already in the log when the watch starts: read from its start
    watch = Watch(log, "--exit-on-answer")
    try:
        d, _ = watch.diagnosis()
        assert d["answered"] is False and d["root_error"]["text"] == "ZeroDivisionError: division by zero"
        assert watch.proc.poll() is None  # no answer: still watching
        _append(log, "INFO all good\n" + IMA)
        d, _ = watch.diagnosis()
        # A class guide's triage procedure is said, but it is not an answer: the watch goes on.
        assert d["answered"] is False and _first(d) == "cuda-illegal-memory-access" and d["line"] == 5
        assert d["matches"][0]["tier"] == "triage" and d["root_error"]["triage"] is True
        assert watch.proc.poll() is None
        _append(log, NO_KERNEL_IMAGE)
        d, _ = watch.diagnosis()
        assert d["answered"] is True and _first(d) == "cuda-no-kernel-image" and d["line"] == 6
        watch.until(lambda x: "Answered by cuda-no-kernel-image" in x)
        assert watch.proc.wait(timeout=60) == 0
    finally:
        watch.stop()


def test_a_directory_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kb", "watch", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "is a directory" in proc.stderr and "Traceback" not in proc.stderr
