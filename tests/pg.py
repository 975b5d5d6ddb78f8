"""A throwaway PostgreSQL server for tests.

Not a conftest: the test files that need it wrap `postgres_server()` in their own
session-scoped fixture. The server lives in a temporary directory (data, socket,
log), listens on a free localhost port with trust authentication and fsync off,
and is stopped and deleted when the context exits.

Root cannot run PostgreSQL, so as root the server runs as the `postgres` user,
which is given the temporary directory.
"""
from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SEARCHED_BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
_START_ATTEMPTS = 3  # a port found free can be taken before the server binds it


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def find_bin_dir() -> Path:
    """The directory holding initdb and pg_ctl: env PG_BIN, the Debian layout, or PATH."""
    candidates = [os.environ.get("PG_BIN", ""), *SEARCHED_BIN_DIRS]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for candidate in filter(None, candidates):
        folder = Path(candidate)
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise PostgresUnavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) not found in $PG_BIN, "
        f"{', '.join(SEARCHED_BIN_DIRS)} or PATH; install them with "
        "`apt-get install postgresql-15` (or point PG_BIN at them)"
    )


def bin_dir_or_skip() -> Path:
    """find_bin_dir() for a test: without the binaries the test is skipped, or fails when CI
    is set (CI installs them, so their absence there is a broken install, not a skip)."""
    import pytest
    try:
        return find_bin_dir()
    except PostgresUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required when CI is set: {exc}", pytrace=False)
        pytest.skip(str(exc))


@contextmanager
def postgres_server(bin_dir: Path | None = None) -> Iterator[str]:
    """Run a fresh server; yield `postgresql+psycopg://postgres@127.0.0.1:PORT/postgres`."""
    bin_dir = bin_dir or find_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="kb-pg-"))
    run_as = _server_user()
    try:
        if run_as is not None:
            os.chown(root, run_as.pw_uid, run_as.pw_gid)
        data = root / "data"
        _run(run_as, bin_dir / "initdb", "-D", data, "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--no-locale", "--no-sync")
        port = _start(run_as, bin_dir, root, data)
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        finally:
            _run(run_as, bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop", check=False)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _start(run_as: pwd.struct_passwd | None, bin_dir: Path, root: Path, data: Path) -> int:
    log = root / "server.log"
    for attempt in range(1, _START_ATTEMPTS + 1):
        port = _free_port()
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        result = _run(run_as, bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "-t", "60",
                      "start", check=False)
        if result.returncode == 0:
            return port
        if attempt == _START_ATTEMPTS:
            server_log = log.read_text(errors="replace") if log.exists() else "(no log)"
            raise RuntimeError(f"pg_ctl start failed:\n{result.stdout}{result.stderr}\n{server_log}")
    raise AssertionError("unreachable")


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("running as root but there is no `postgres` user to run the server as") from None


def _run(run_as: pwd.struct_passwd | None, *command: object, check: bool = True) -> subprocess.CompletedProcess[str]:
    args = [str(part) for part in command]
    if run_as is not None:
        args = ["runuser", "-u", run_as.pw_name, "--", *args]
    result = subprocess.run(args, capture_output=True, text=True, cwd="/", timeout=120)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
