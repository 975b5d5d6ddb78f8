"""Bring a feedback database to the current schema with Alembic, on a Store's first use.

The migrations live in kb/feedback/migrations/versions. Every replica runs this when it
first touches the database, so concurrent first use must be safe, within one process (20
threads) and across processes (several replicas starting together):

- within a process, one lock per database;
- across processes, the migration runs inside one transaction that first takes a lock the
  others wait for: `pg_advisory_xact_lock` on PostgreSQL, `BEGIN IMMEDIATE` (the write lock)
  on SQLite. Whoever waits then finds the database at the head revision and does nothing.

The common case, a database already at the head, costs one SELECT and takes no lock.
"""
from __future__ import annotations

import functools
import threading
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

__all__ = ["MigrationFailed", "head", "upgrade"]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Any fixed 64-bit number: the advisory lock all replicas agree on ("kbfeedbk" in ASCII).
_LOCK_KEY = 0x6B62666565646264 & 0x7FFFFFFFFFFFFFFF

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


class MigrationFailed(SQLAlchemyError):
    """The schema cannot be brought up to date; the message is the reason to show."""


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def head() -> str:
    """The revision this code expects."""
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None, "no migrations found"
    return revision


def current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Apply every migration the database lacks; safe to call from many threads and processes."""
    key = engine.url.render_as_string(hide_password=False)
    with _locks_guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        with engine.connect() as conn:
            if current(conn) == head():
                return
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            else:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            if current(conn) != head():  # another process may have done it while we waited
                config = _config()
                config.attributes["connection"] = conn
                try:
                    command.upgrade(config, "head")
                except CommandError as exc:
                    # A revision this code does not know: a newer release migrated the database.
                    raise MigrationFailed("the database schema is newer than this version of the app") from exc
            conn.commit()
