from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import settings

# Property tests: random locally (each run tries new examples, and remembers failures in
# .hypothesis/), derandomized in CI (CI=true): the examples depend only on the test, so a red CI
# run is the code's doing, never the seed's. Hypothesis prints how to reproduce a local failure.
# ("dev" starts from Hypothesis' defaults: under any CI variable it would otherwise start from its own "ci".)
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", parent=settings.get_profile("default"), derandomize=False)
settings.load_profile("ci" if IN_CI else "dev")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT))
# Debian's chromium, for the browser tests (test_e2e, test_deploy).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(autouse=True)
def _db(tmp_path, monkeypatch):
    """Every test records feedback into its own SQLite file, never into data/ of the checkout."""
    monkeypatch.setenv("KB_DB_PATH", str(tmp_path / "kb.sqlite3"))
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)


@pytest.fixture(scope="session")
def index():
    from kb.engine.index import load_index
    return load_index()


@pytest.fixture(scope="session")
def loaded():
    from kb.guides.load import load_guides
    return load_guides()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def wait_until(ready: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `ready` until it says yes, for at most `timeout` seconds, then fail saying `what` never
    happened. The one place a test sleeps: between polls, bounded by the deadline."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s", pytrace=False)
        time.sleep(0.2)


def settled(page) -> None:
    """Wait until the browser has drawn two frames after a change of size or scroll, so that a
    screenshot shows the new layout (instead of waiting a fixed time)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """A PostgreSQL server for the whole session: skipped without binaries, failed in CI."""
    from tests import pg
    with pg.postgres_server(pg.bin_dir_or_skip()) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, private to one test."""
    if request.param == "sqlite":
        yield f"sqlite+pysqlite:///{tmp_path / 'kb.sqlite3'}"
        return
    admin_url = request.getfixturevalue("pg_admin_url")
    name = f"kb_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        yield admin_url.rsplit("/", 1)[0] + "/" + name
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def all_rows(url: str, table: str) -> list:
    """Every row of a table, read with a connection of its own (what a second replica would see)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.text(f"SELECT * FROM {table}")))
    finally:
        engine.dispose()
