"""kb.feedback.store on SQLite and PostgreSQL: round trips, concurrency, and every way the database can fail."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest
import sqlalchemy as sa

from kb.feedback.store import DailyFeedback, Store, StoreUnavailable
from tests.conftest import all_rows

REPO = Path(__file__).resolve().parents[1]
SIGNATURE = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:<n>, unhandled system error"


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store(db_url, enabled=True) as s:
        yield s


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    return tmp_path / "db" / "kb.sqlite3"


def sqlite_url(path: Path) -> str:
    return f"sqlite+pysqlite:///{path}"


def _assert_clear(exc: StoreUnavailable, *words: str) -> None:
    """A sentence for a reader: names the cause and the consequence, no SQL, no driver noise."""
    message = str(exc)
    assert message == exc.message
    assert message.startswith("The feedback database is unavailable (")
    assert message.endswith(".")
    assert "\n" not in message and len(message) < 300
    for noise in ("[SQL", "sqlalchemy", "OperationalError", "Traceback", "background on this error"):
        assert noise not in message
    for word in words:
        assert word in message
    assert exc.__cause__ is not None, "the original error stays attached for logs"


# --- round trips ------------------------------------------------------------------------


def test_feedback_round_trip(store: Store) -> None:
    before = datetime.now(UTC)
    store.record_feedback("nccl-timeout", True, ["check-ifname", "set-timeout"], "en", "worked, thanks")
    store.record_feedback("nccl-timeout", False, [], "zh", None)
    store.record_feedback("nccl-timeout", True, ["check-ifname"], "en", "  second  ")
    store.record_feedback("cuda-oom", False, ["reduce-batch"], "en", "")
    after = datetime.now(UTC)

    rows = store.feedback_for("nccl-timeout")
    assert [r.helpful for r in rows] == [True, False, True]  # newest first
    assert rows[0].ticked == ("check-ifname",) and rows[0].comment == "second" and rows[0].lang == "en"
    assert rows[1].ticked == () and rows[1].comment is None and rows[1].lang == "zh"
    assert rows[2].ticked == ("check-ifname", "set-timeout") and rows[2].comment == "worked, thanks"
    for row in rows:
        assert row.created_at.tzinfo is not None and row.created_at.utcoffset() == timedelta(0)
        assert before - timedelta(seconds=1) <= row.created_at <= after + timedelta(seconds=1)
    assert store.feedback_for("cuda-oom")[0].comment is None  # blank comments are not comments
    assert store.feedback_for("no-such-guide") == []
    assert len(store.feedback_for("nccl-timeout", limit=2)) == 2


def test_helpfulness(store: Store) -> None:
    for i in range(5):
        store.record_feedback("nccl-timeout", i % 2 == 0, [], "en", f"comment {i}")
    store.record_feedback("nccl-timeout", False, [], "en", None)  # newest, but no comment
    store.record_feedback("cuda-oom", True, [], "en", None)

    by_guide = {h.guide_id: h for h in store.helpfulness()}
    nccl = by_guide["nccl-timeout"]
    assert (nccl.answers, nccl.helpful) == (6, 3)
    assert nccl.rate == pytest.approx(0.5)
    assert nccl.recent_comments == ("comment 4", "comment 3", "comment 2")
    oom = by_guide["cuda-oom"]
    assert (oom.answers, oom.helpful, oom.rate, oom.recent_comments) == (1, 1, 1.0, ())
    assert [h.guide_id for h in store.helpfulness()] == ["nccl-timeout", "cuda-oom"]  # most answered first


def test_feedback_over_time(store: Store) -> None:
    assert store.feedback_over_time() == []
    for answer in (True, True, False):
        store.record_feedback("nccl-timeout", answer, [], "en", None)
    days = store.feedback_over_time()
    assert all(isinstance(d, DailyFeedback) for d in days)
    assert sum(d.helpful for d in days) == 2 and sum(d.not_helpful for d in days) == 1
    assert days[-1].day in {datetime.now(UTC).date(), (datetime.now(UTC) - timedelta(minutes=1)).date()}
    day, helpful, not_helpful = days[-1]  # plain (date, helpful, not_helpful) tuples too
    assert isinstance(helpful, int) and isinstance(not_helpful, int)


def test_unmatched_counts_repeats(store: Store) -> None:
    for _ in range(3):
        store.record_unmatched(SIGNATURE, "en")
    store.record_unmatched("ValueError: something else", "zh")

    top = store.top_unmatched()
    assert [(r.signature, r.count) for r in top] == [(SIGNATURE, 3), ("ValueError: something else", 1)]
    first = top[0]
    assert first.signature_hash == hashlib.sha256(SIGNATURE.encode()).hexdigest()
    assert first.first_seen <= first.last_seen and first.lang == "en"
    assert first.first_seen.tzinfo is not None
    assert len(store.top_unmatched(limit=1)) == 1
    store.record_unmatched("   ", "en")  # nothing to record
    assert len(store.top_unmatched()) == 2


def test_lengths_are_capped_and_text_is_cleaned(store: Store, db_url: str) -> None:
    store.record_feedback("g", True, ["a,b", "c"], "en", "x" * 5000)
    store.record_unmatched("E: " + "y" * 9000, "en")
    store.record_unmatched("NUL\x00in the middle \ud800 and a lone surrogate", "en")  # PostgreSQL refuses NUL
    row = store.feedback_for("g")[0]
    assert len(row.comment or "") == 2000 and row.ticked == ("ab", "c")
    assert {len(r.signature) for r in store.top_unmatched()} == {4000, len("NULin the middle ? and a lone surrogate")}


def test_secrets_are_redacted_inside_the_store(store: Store, db_url: str) -> None:
    token = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ12345678"
    store.record_feedback("g", False, [], "en", f"my token {token}, mail alice@example.com, host 10.2.3.4")
    store.record_unmatched(f"OSError: 401 for /home/alice/x with token={token}", "en")
    store.record_unmatched("OSError: 401 for /home/bob/x with token=hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa98765432", "en")
    store.record_unmatched("OSError: 403 with password=another-secret-value", "en")
    stored = repr(all_rows(db_url, "feedback")) + repr(all_rows(db_url, "unmatched"))
    for raw in (token, "alice", "10.2.3.4", "bob", "hf_ZyXwVuTsRqPoNmLkJiHgFeDcBa98765432", "another-secret-value"):
        assert raw not in stored
    # The first two pastes redact to the same text, so they count as one signature.
    assert [(r.signature, r.count) for r in store.top_unmatched()] == [
        ("OSError: 401 for /home/<user>/x with token=<hf-token>", 2),
        ("OSError: 403 with password=<secret>", 1),
    ]


# --- concurrency -----------------------------------------------------------------------


@pytest.mark.parametrize("shared", [True, False], ids=["shared-store", "store-per-thread"])
def test_concurrent_writers_lose_nothing(db_url: str, shared: bool) -> None:
    writers, each = 20, 10
    common = Store(db_url, enabled=True)
    barrier = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(n: int) -> None:
        own = common if shared else Store(db_url, enabled=True)
        try:
            barrier.wait(timeout=30)
            for i in range(each):
                own.record_feedback("nccl-timeout", i % 2 == 0, [f"item-{n}"], "en", f"writer {n} answer {i}")
                own.record_unmatched(SIGNATURE, "en")
        except BaseException as exc:  # reported below; a thread's exception is otherwise lost
            errors.append(exc)
        finally:
            if not shared:
                own.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    (summary,) = common.helpfulness()
    assert (summary.answers, summary.helpful) == (writers * each, writers * each // 2)
    assert [(r.signature, r.count) for r in common.top_unmatched()] == [(SIGNATURE, writers * each)]
    assert len(common.feedback_for("nccl-timeout", limit=1000)) == writers * each
    common.close()


# --- configuration ------------------------------------------------------------------------


def test_default_location_is_data_dir_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.delenv("KB_DB_PATH", raising=False)
    monkeypatch.delenv("KB_RECORDING", raising=False)
    monkeypatch.chdir(tmp_path)
    with Store() as store:
        assert not (tmp_path / "data").exists(), "constructing a Store touches nothing"
        store.record_unmatched(SIGNATURE, "en")
    db = tmp_path / "data" / "kb.sqlite3"
    assert db.is_file()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_env_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_DATABASE_URL", raising=False)
    monkeypatch.setenv("KB_DB_PATH", str(tmp_path / "elsewhere" / "fb.db"))
    with Store() as store:
        store.record_unmatched(SIGNATURE, "en")
    assert (tmp_path / "elsewhere" / "fb.db").is_file()

    url = sqlite_url(tmp_path / "by-url.db")
    monkeypatch.setenv("KB_DATABASE_URL", url)
    with Store() as store:
        store.record_unmatched(SIGNATURE, "en")
        assert store.url == url
    assert (tmp_path / "by-url.db").is_file()


def test_password_is_hidden_in_url() -> None:
    store = Store("postgresql+psycopg://kb:hunter2@db.example:5432/kb")
    assert "hunter2" not in store.url and "***" in store.url


def test_recording_disabled_stores_nothing(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_RECORDING", "0")
    with Store(db_url) as store:
        assert store.enabled is False
        store.record_feedback("g", True, [], "en", "comment")
        store.record_unmatched(SIGNATURE, "en")
    if db_url.startswith("sqlite"):
        assert not Path(sa.make_url(db_url).database or "").exists(), "disabled means not even a file"
    monkeypatch.delenv("KB_RECORDING")
    with Store(db_url) as reader:
        assert reader.enabled is True
        assert reader.top_unmatched() == [] and reader.helpfulness() == []


# --- failures ------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ["database file", "file and sidecars", "whole directory"])
def test_sqlite_file_deleted_after_use_is_recreated(sqlite_file: Path, what: str) -> None:
    # A reader expects the app to keep working, so the store starts a fresh file
    # rather than failing (or, worse, writing into the unlinked inode and losing rows).
    with Store(sqlite_url(sqlite_file)) as store:
        store.record_feedback("g", True, [], "en", "before")
        store.record_unmatched(SIGNATURE, "en")
        if what == "whole directory":
            shutil.rmtree(sqlite_file.parent)
        else:
            suffixes = ("", "-wal", "-shm") if what == "file and sidecars" else ("",)
            for suffix in suffixes:
                Path(f"{sqlite_file}{suffix}").unlink(missing_ok=True)

        store.record_feedback("g", False, [], "en", "after")
        store.record_unmatched(SIGNATURE, "en")
        assert [r.comment for r in store.feedback_for("g")] == ["after"]
        assert [r.count for r in store.top_unmatched()] == [1]
    assert sqlite_file.is_file()
    assert [row.comment for row in all_rows(sqlite_url(sqlite_file), "feedback")] == ["after"]


def test_sqlite_locked_raises_within_timeout(sqlite_file: Path) -> None:
    url = sqlite_url(sqlite_file)
    with Store(url, timeout=0.2) as store:
        store.record_unmatched(SIGNATURE, "en")  # file exists, in WAL mode
        holder = sqlite3.connect(sqlite_file, isolation_level=None, timeout=0)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            writes: list[Callable[[Store], None]] = [
                lambda s: s.record_feedback("g", True, [], "en", "locked out"),
                lambda s: s.record_unmatched(SIGNATURE, "en"),
            ]
            for write in writes:
                for writer in (store, Store(url, timeout=0.2)):  # a warm and a cold store
                    started = time.monotonic()
                    with pytest.raises(StoreUnavailable) as info:
                        write(writer)
                    assert time.monotonic() - started < 10, "bounded by the busy timeout"
                    _assert_clear(info.value, "database is locked")
                    writer.close()
            assert "your answer was not saved" in _message(lambda: store.record_feedback("g", True, [], "en", None))
            # WAL: the statistics page still reads while a writer holds the lock.
            assert [r.count for r in store.top_unmatched()] == [1]
        finally:
            holder.rollback()
            holder.close()
        store.record_unmatched(SIGNATURE, "en")  # and writing works again once it is released
        assert [r.count for r in store.top_unmatched()] == [2]


def _message(action: Callable[[], object]) -> str:
    with pytest.raises(StoreUnavailable) as info:
        action()
    return info.value.message


_READ_ONLY_PROBE = """
import json, sys
from kb.feedback.store import Store, StoreUnavailable
results = []
for url in sys.argv[1:]:
    try:
        Store(url, timeout=0.5).record_feedback("g", True, [], "en", "comment")
        results.append(None)
    except StoreUnavailable as exc:
        results.append(exc.message)
print(json.dumps(results))
"""


def test_read_only_directory_raises(tmp_path: Path) -> None:
    # tmp_path is private to root; the directories must be reachable by a less privileged child.
    base = Path(tempfile.mkdtemp(prefix="kb-ro-"))
    try:
        fresh, existing = base / "fresh", base / "existing"
        fresh.mkdir()
        existing.mkdir()
        with Store(sqlite_url(existing / "kb.sqlite3")) as store:
            store.record_feedback("g", True, [], "en", "written while writable")
        for folder in (fresh, existing):
            for item in folder.iterdir():
                item.chmod(0o444)
            folder.chmod(0o555)
        base.chmod(0o755)
        urls = [sqlite_url(fresh / "kb.sqlite3"), sqlite_url(existing / "kb.sqlite3")]
        for message in _record_without_write_permission(urls):
            assert message is not None, "writing into a read-only directory must not pass silently"
            assert message.startswith("The feedback database is unavailable (")
            assert message.endswith("your answer was not saved.")
            assert "[SQL" not in message
    finally:
        for folder in (base, *base.iterdir()):
            folder.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def _record_without_write_permission(urls: list[str]) -> list[str | None]:
    """Run the probe where permissions bite: in-process normally, without DAC override as root."""
    if os.geteuid() != 0:
        results: list[str | None] = []
        for url in urls:
            try:
                Store(url, timeout=0.5).record_feedback("g", True, [], "en", "comment")
                results.append(None)
            except StoreUnavailable as exc:
                results.append(exc.message)
        return results
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root and setpriv (util-linux) is missing, so permissions cannot be enforced")
    # Root ignores file modes; dropping these capabilities makes it an ordinary owner.
    command = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--",
               sys.executable, "-c", _READ_ONLY_PROBE, *urls]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return cast(list[str | None], json.loads(done.stdout.strip().splitlines()[-1]))


def test_directory_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should be")
    store = Store(sqlite_url(blocker / "kb.sqlite3"))
    with pytest.raises(StoreUnavailable) as info:
        store.record_unmatched(SIGNATURE, "en")
    _assert_clear(info.value, "this error was not recorded")


def test_postgresql_server_down_raises() -> None:
    with socket.socket() as sock:  # a port on which nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store = Store(f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", timeout=2)
    for action, consequence in (
        (lambda: store.record_feedback("g", True, [], "en", None), "your answer was not saved"),
        (lambda: store.record_unmatched(SIGNATURE, "en"), "this error was not recorded"),
        (store.helpfulness, "cannot be shown right now"),
    ):
        with pytest.raises(StoreUnavailable) as info:
            action()
        _assert_clear(info.value, "the database server is not reachable", consequence)


@pytest.mark.parametrize("url", ["mysql://kb@localhost/kb", "not a url at all"])
def test_unusable_url_is_reported_on_use_not_at_construction(url: str) -> None:
    store = Store(url)  # the app must start even when misconfigured
    with pytest.raises(StoreUnavailable) as info:
        store.top_unmatched()
    _assert_clear(info.value)


def test_postgresql_restart_is_survived(pg_admin_url: str) -> None:
    # A connection the server dropped (restart, idle timeout) must not fail the next request.
    with Store(pg_admin_url) as store:
        store.top_unmatched()
        admin = sa.create_engine(pg_admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND datname = current_database()"
            ))
        admin.dispose()
        store.top_unmatched()
