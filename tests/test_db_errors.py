"""A database that is starting up or shutting down: the reader gets a short reason, never the
driver's text with the server's address; the operator gets that text in the log.

Both states are made for real: a server that stays in recovery (a standby with hot standby off
never accepts connections), and a server in a smart shutdown (it refuses new connections while
one session is still open).
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from kb.feedback.database import failure_reason
from kb.feedback.store import Store, StoreUnavailable
from tests import pg


@contextmanager
def server(*, standby: bool) -> Iterator[tuple[int, Path, object, object]]:
    bin_dir = pg.bin_dir_or_skip()
    run_as = pg._server_user()
    root = Path(tempfile.mkdtemp(prefix="kb-pg-state-"))
    try:
        if run_as is not None:
            os.chown(root, run_as.pw_uid, run_as.pw_gid)
        data = root / "data"
        pg._run(run_as, bin_dir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync")
        if standby:
            (data / "standby.signal").touch()
        port = pg._free_port()
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c hot_standby=off -c fsync=off"
        pg._run(run_as, bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", root / "log", "-w", "-t", "60", "start")
        try:
            yield port, data, run_as, bin_dir
        finally:
            pg._run(run_as, bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "-t", "30", "stop", check=False)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _unavailable(port: int, caplog) -> StoreUnavailable:
    store = Store(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", timeout=3)
    with caplog.at_level(logging.WARNING, logger="kb.feedback"), pytest.raises(StoreUnavailable) as info:
        store.record_feedback("g", True, [], "en", "a comment")
    store.close()
    return info.value


def _no_connection_details(exc: StoreUnavailable, port: int) -> None:
    message = exc.message
    for detail in ("127.0.0.1", str(port), "FATAL", "connection to server", "postgres", "port"):
        assert detail not in message, message
    assert message.startswith("The feedback database is unavailable (") and message.endswith("your answer was not saved.")


def test_a_server_starting_up_gives_the_short_reason_only(caplog):
    with server(standby=True) as (port, *_):
        exc = _unavailable(port, caplog)
    _no_connection_details(exc, port)
    assert "not accepting connections" in exc.message or "starting up" in exc.message
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert f"port {port}" in logged  # the operator still sees where and what


def test_a_server_shutting_down_gives_the_short_reason_only(caplog):
    with server(standby=False) as (port, data, run_as, bin_dir):
        holder = psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=postgres", connect_timeout=5)
        try:
            # Smart shutdown waits for the open session; meanwhile new connections are refused.
            pg._run(run_as, bin_dir / "pg_ctl", "-D", data, "-m", "smart", "-W", "stop")
            exc = _unavailable(port, caplog)
        finally:
            holder.close()
    _no_connection_details(exc, port)
    assert "shutting down" in exc.message
    assert "shutting down" in "\n".join(r.getMessage() for r in caplog.records)


def test_an_unknown_driver_message_is_never_shown():
    class DriverError(Exception):
        pass
    text = 'connection to server at "db-7.internal" (10.1.2.3), port 6543 failed: something new'
    assert failure_reason(DriverError(text)) == "the database reported an error"
