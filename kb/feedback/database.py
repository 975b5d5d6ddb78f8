"""Connecting to the feedback database: URLs, engines, and failures in words.

Every failure is turned into a short reason fit to show a reader; the store raises it
as StoreUnavailable.
"""
from __future__ import annotations

import hashlib
import math
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Date, Engine, cast, create_engine, event, func, literal_column
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.elements import ColumnElement

from kb.feedback.migrate import MigrationFailed
from kb.feedback.tables import unmatched, unmatched_clients


class _SetupError(SQLAlchemyError):
    """A database this module cannot set up; its message is already the reason to show."""


def make_directory(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        detail = (exc.strerror or type(exc).__name__).lower()
        raise _SetupError(f"the data directory cannot be created: {detail}") from exc


def normalised_url(text: str) -> URL:
    url = make_url(text)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")  # psycopg 3 is what we ship
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise _SetupError(f"unsupported database '{url.get_backend_name()}'; use sqlite or postgresql")
    return url


def sqlite_file(url: URL) -> Path | None:
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def create_db_engine(url: URL, timeout: float) -> Engine:
    if url.get_backend_name() == "postgresql":
        return create_engine(
            url,
            pool_pre_ping=True,  # a restarted server leaves dead pooled connections
            connect_args={"connect_timeout": max(1, math.ceil(timeout))},
        )
    if sqlite_file(url) is None:
        # One shared connection, or every pooled connection sees its own empty database.
        return create_engine(url, poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = create_engine(url, connect_args={"timeout": timeout})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers (the stats page) run while a writer commits; NORMAL sync is
    # durable across application crashes, which is what feedback needs.
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def client_key(address: str) -> str:
    """What is stored of a client address: a keyed hash, to count and compare addresses, never to
    show one. The key is fixed, so an IPv4 address could be found again by hashing all 2^32 of
    them: this keeps addresses out of sight on the Authors page and in a backup, no more."""
    return hashlib.sha256(b"kb-feedback-client\x00" + address.strip().encode("utf-8", "replace")).hexdigest()


def remember_client(dialect_name: str, signature_hash: str, client: str) -> Any:
    """Note that `client` sent this signature; a second time changes nothing."""
    insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    return insert(unmatched_clients).values(signature_hash=signature_hash, client=client).on_conflict_do_nothing()


def upsert_unmatched(dialect_name: str, values: dict[str, Any]) -> Any:
    # One statement, so concurrent writers never lose an increment.
    insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    statement = insert(unmatched).values(**values)
    return statement.on_conflict_do_update(
        index_elements=[unmatched.c.signature_hash],
        set_={"count": unmatched.c["count"] + 1, "last_seen": statement.excluded.last_seen},
    )


def utc_day(dialect_name: str, column: ColumnElement[datetime]) -> ColumnElement[Any]:
    if dialect_name == "postgresql":
        # A literal, not a bound parameter: GROUP BY must repeat the exact SELECT expression.
        return cast(func.timezone(literal_column("'UTC'"), column), Date)
    return func.date(column)  # SQLite: the column already holds UTC text


def as_date(value: date | str) -> date:
    return date.fromisoformat(value) if isinstance(value, str) else value


def sqlite_url(path: Path) -> str:
    return URL.create("sqlite+pysqlite", database=str(path)).render_as_string()


def file_identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def remove_orphan_sidecars(path: Path) -> None:
    # A WAL left behind by a deleted database would be replayed into the new file.
    if path.exists():
        return
    for suffix in ("-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


# (what the driver says, in lower case) -> the reason a reader is shown. Only these words ever
# reach the page: a driver's own text names the host, the port, the user or the SQL.
_KNOWN_FAILURES = (
    ("locked", "database is locked"),
    ("readonly", "the database is read-only"),
    ("read-only", "the database is read-only"),
    ("unable to open database file", "the database file cannot be opened"),
    ("disk i/o error", "disk I/O error"),
    ("database or disk is full", "the disk is full"),
    ("malformed", "the database file is damaged"),
    ("not a database", "the database file is damaged"),
    ("starting up", "the database server is starting up"),
    ("not yet accepting connections", "the database server is starting up"),
    ("not accepting connections", "the database server is not accepting connections"),
    ("shutting down", "the database server is shutting down"),
    ("terminating connection", "the database server closed the connection"),
    ("server closed the connection", "the database server closed the connection"),
    ("connection refused", "the database server is not reachable"),
    ("no route to host", "the database server is not reachable"),
    ("could not translate host name", "the database server's name cannot be resolved"),
    ("name or service not known", "the database server's name cannot be resolved"),
    ("could not connect", "the database server is not reachable"),
    ("timeout expired", "the database server did not answer in time"),
    ("timed out", "the database server did not answer in time"),
    ("too many clients", "the database server has too many connections"),
    ("password authentication failed", "the database login was refused"),
    ("authentication failed", "the database login was refused"),
    ("no pg_hba.conf entry", "the database login was refused"),
    ("does not exist", "the database or its user does not exist"),
    ("permission denied", "no permission to use the database"),
    ("could not parse sqlalchemy url", "the database URL is not valid"),
)


def failure_reason(exc: BaseException) -> str:
    """A short, human reason; never SQL, parameters, host names, ports or driver messages."""
    if isinstance(exc, (_SetupError, MigrationFailed)):
        return str(exc)
    original = getattr(exc, "orig", None) or exc
    if isinstance(original, ImportError):
        return "the database driver is not installed"
    if isinstance(original, PermissionError):
        return "no permission to write the database directory"
    lowered = str(original).lower()
    for needle, reason in _KNOWN_FAILURES:
        if needle in lowered:
            return reason
    if isinstance(original, OSError) and original.strerror:
        return original.strerror.lower()
    return "the database reported an error"
