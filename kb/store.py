"""Where the app keeps readers' feedback and the errors no guide matched.

SQLite by default (a file under data/), PostgreSQL when `KB_DATABASE_URL` says so.
Two promises to the rest of the app:

- Nothing is stored unredacted: every text field goes through `kb.redact.redact()`
  here, right before the insert, so no caller can forget it.
- No raw database exception escapes: whatever goes wrong (file deleted, directory
  read-only, database locked, server down) is raised as `StoreUnavailable` with a
  sentence the page can show as it is. Constructing a Store never touches the
  database, so a broken database cannot stop the app from starting.
"""
from __future__ import annotations

import hashlib
import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    cast,
    create_engine,
    event,
    func,
    literal_column,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import TypeDecorator

from kb.redact import redact

__all__ = [
    "DailyFeedback",
    "FeedbackRow",
    "GuideHelpfulness",
    "Store",
    "StoreUnavailable",
    "UnmatchedRow",
]

DEFAULT_DB_PATH = "data/kb.sqlite3"
MAX_COMMENT = 2000
MAX_SIGNATURE = 4000
MAX_ID = 200
MAX_LANG = 16
RECENT_COMMENTS = 3


class StoreUnavailable(RuntimeError):
    """The database cannot be used right now; `message` is fit to show to a reader."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class UnmatchedRow:
    signature_hash: str
    signature: str
    count: int
    first_seen: datetime
    last_seen: datetime
    lang: str


@dataclass(frozen=True)
class GuideHelpfulness:
    guide_id: str
    answers: int
    helpful: int
    rate: float  # helpful / answers, 0.0-1.0
    recent_comments: tuple[str, ...]  # newest first, at most RECENT_COMMENTS


@dataclass(frozen=True)
class FeedbackRow:
    id: int
    guide_id: str
    helpful: bool
    ticked: tuple[str, ...]
    lang: str
    comment: str | None
    created_at: datetime


class DailyFeedback(NamedTuple):
    day: date  # UTC calendar day
    helpful: int
    not_helpful: int


class _UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, whatever the backend does with time zones.

    SQLite has no time zone type and hands back naive values; PostgreSQL hands back
    values in the session's zone. Both are normalised to UTC here.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        value = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
        # SQLite's date() must see plain UTC text to bucket days correctly.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = MetaData()

feedback = Table(
    "feedback",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("guide_id", String(MAX_ID), nullable=False, index=True),
    Column("answer", Boolean, nullable=False),  # True: the guide helped
    Column("ticked", Text, nullable=False),  # comma-separated checklist item ids
    Column("lang", String(MAX_LANG), nullable=False),
    Column("comment", String(MAX_COMMENT), nullable=True),
    Column("created_at", _UTCDateTime(), nullable=False, index=True),
)

unmatched = Table(
    "unmatched",
    metadata,
    Column("signature_hash", String(64), primary_key=True),  # sha256 hex of `signature`
    Column("signature", String(MAX_SIGNATURE), nullable=False),
    Column("count", Integer, nullable=False),
    Column("first_seen", _UTCDateTime(), nullable=False),
    Column("last_seen", _UTCDateTime(), nullable=False),
    Column("lang", String(MAX_LANG), nullable=False),
)

# Stores in one process that share a database create its tables one at a time:
# concurrent CREATE TABLE fails on both SQLite and PostgreSQL.
_schema_locks: dict[str, threading.Lock] = {}
_schema_locks_guard = threading.Lock()

_CONSEQUENCE = {
    "feedback": "your answer was not saved",
    "unmatched": "this error was not recorded",
    "read": "the feedback statistics cannot be shown right now",
}


class Store:
    """Feedback and unmatched-error storage. Thread-safe; share one per process.

    `url`: a SQLAlchemy URL; defaults to env KB_DATABASE_URL, else a SQLite file at
    env KB_DB_PATH or data/kb.sqlite3 (relative to the working directory at
    construction). `timeout`: seconds to wait for a locked SQLite database or to
    connect to a server. `enabled`: defaults to env KB_RECORDING != 0; when false,
    record_* do nothing.
    """

    def __init__(self, url: str | None = None, *, timeout: float = 5.0, enabled: bool | None = None) -> None:
        self.timeout = timeout
        self.enabled = _recording_enabled() if enabled is None else enabled
        self._url_text = url or os.environ.get("KB_DATABASE_URL") or _sqlite_url(
            Path(os.environ.get("KB_DB_PATH") or DEFAULT_DB_PATH).absolute()
        )
        self._engine: Engine | None = None
        self._db_path: Path | None = None  # set for file-based SQLite only
        self._file_identity: tuple[int, int] | None = None
        self._lock = threading.Lock()

    # --- writing ---------------------------------------------------------------------

    def record_feedback(
        self, guide_id: str, helpful: bool, ticked: list[str], lang: str, comment: str | None
    ) -> None:
        """Store one answer to "did this guide help?"; the comment is redacted first."""
        if not self.enabled:
            return
        row = {
            "guide_id": _short(guide_id, MAX_ID),
            "answer": bool(helpful),
            # Ids never contain commas; dropping any keeps the column splittable.
            "ticked": ",".join(t for t in (_short(i, MAX_ID).replace(",", "") for i in ticked) if t),
            "lang": _short(lang, MAX_LANG),
            "comment": _comment(comment),
            "created_at": datetime.now(UTC),
        }
        with self._guard("feedback") as engine, engine.begin() as conn:
            conn.execute(feedback.insert().values(**row))

    def record_unmatched(self, signature: str, lang: str) -> None:
        """Count one occurrence of an error signature no guide matched.

        The signature is redacted again (the engine normalises, but this is the last
        gate before disk) and keyed by the sha256 of the stored text, so two pastes
        that differ only in a secret count as one.
        """
        if not self.enabled:
            return
        text = _clean(redact(_clean(signature))).strip()[:MAX_SIGNATURE]
        if not text:
            return
        now = datetime.now(UTC)
        values = {
            "signature_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "signature": text,
            "count": 1,
            "first_seen": now,
            "last_seen": now,
            "lang": _short(lang, MAX_LANG),
        }
        with self._guard("unmatched") as engine, engine.begin() as conn:
            conn.execute(_upsert_unmatched(engine.dialect.name, values))

    # --- reading ---------------------------------------------------------------------

    def top_unmatched(self, limit: int = 20) -> list[UnmatchedRow]:
        """The most frequent unmatched signatures, most frequent first."""
        query = (
            select(unmatched)
            .order_by(unmatched.c["count"].desc(), unmatched.c.last_seen.desc())
            .limit(max(0, int(limit)))
        )
        with self._guard("read") as engine, engine.connect() as conn:
            return [UnmatchedRow(**row._asdict()) for row in conn.execute(query)]

    def helpfulness(self) -> list[GuideHelpfulness]:
        """Per guide: answers, helpful answers, their rate, the latest comments; most answered first."""
        helpful_sum = func.sum(case((feedback.c.answer, 1), else_=0))
        totals = (
            select(feedback.c.guide_id, func.count().label("answers"), helpful_sum.label("helpful"))
            .group_by(feedback.c.guide_id)
            .order_by(func.count().desc(), feedback.c.guide_id)
        )
        newest = func.row_number().over(
            partition_by=feedback.c.guide_id,
            order_by=(feedback.c.created_at.desc(), feedback.c.id.desc()),
        )
        ranked = (
            select(feedback.c.guide_id, feedback.c.comment, newest.label("rank"))
            .where(feedback.c.comment.is_not(None))
            .subquery()
        )
        recent = (
            select(ranked.c.guide_id, ranked.c.comment)
            .where(ranked.c["rank"] <= RECENT_COMMENTS)
            .order_by(ranked.c.guide_id, ranked.c["rank"])
        )
        with self._guard("read") as engine, engine.connect() as conn:
            comments: dict[str, list[str]] = {}
            for guide_id, comment in conn.execute(recent):
                comments.setdefault(guide_id, []).append(comment)
            return [
                GuideHelpfulness(
                    guide_id=guide_id,
                    answers=int(answers),
                    helpful=int(helpful or 0),
                    rate=int(helpful or 0) / int(answers),
                    recent_comments=tuple(comments.get(guide_id, ())),
                )
                for guide_id, answers, helpful in conn.execute(totals)
            ]

    def feedback_over_time(self) -> list[DailyFeedback]:
        """Helpful / not helpful answers per UTC day, oldest day first; days without answers are absent."""
        with self._guard("read") as engine, engine.connect() as conn:
            day = _utc_day(engine.dialect.name, feedback.c.created_at).label("day")
            query = (
                select(
                    day,
                    func.sum(case((feedback.c.answer, 1), else_=0)),
                    func.sum(case((feedback.c.answer, 0), else_=1)),
                )
                .group_by(day)
                .order_by(day)
            )
            return [
                DailyFeedback(_as_date(d), int(yes or 0), int(no or 0)) for d, yes, no in conn.execute(query)
            ]

    def feedback_for(self, guide_id: str, limit: int = 100) -> list[FeedbackRow]:
        """The latest answers about one guide, newest first."""
        query = (
            select(feedback)
            .where(feedback.c.guide_id == guide_id)
            .order_by(feedback.c.created_at.desc(), feedback.c.id.desc())
            .limit(max(0, int(limit)))
        )
        with self._guard("read") as engine, engine.connect() as conn:
            return [
                FeedbackRow(
                    id=row.id,
                    guide_id=row.guide_id,
                    helpful=bool(row.answer),
                    ticked=tuple(t for t in row.ticked.split(",") if t),
                    lang=row.lang,
                    comment=row.comment,
                    created_at=row.created_at,
                )
                for row in conn.execute(query)
            ]

    # --- lifecycle -------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The database URL with any password hidden, for an admin page or a log."""
        try:
            return make_url(self._url_text).render_as_string(hide_password=True)
        except SQLAlchemyError:
            return "<unparsable database URL>"

    def close(self) -> None:
        """Close pooled connections; the Store reconnects if used again."""
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- internals -------------------------------------------------------------------

    @contextmanager
    def _guard(self, action: str) -> Iterator[Engine]:
        """Yield a ready engine; turn any database failure into StoreUnavailable."""
        try:
            yield self._ready_engine()
        except (SQLAlchemyError, OSError, ImportError) as exc:
            raise StoreUnavailable(
                f"The feedback database is unavailable ({_reason(exc)}); {_CONSEQUENCE[action]}."
            ) from exc

    def _ready_engine(self) -> Engine:
        with self._lock:
            if self._engine is not None:
                if self._db_path is None or not self._sqlite_file_replaced(self._db_path):
                    return self._engine
                # The file was deleted or swapped under us. Pooled connections would
                # keep writing into the unlinked inode and lose every row silently,
                # so start over with a fresh file.
                self._engine.dispose()
                self._engine = None
                _remove_orphan_sidecars(self._db_path)
            url = _normalised_url(self._url_text)
            path = _sqlite_file(url)
            if path is not None:
                _make_directory(path.parent)
            engine = _create_engine(url, self.timeout)
            try:
                _create_schema(engine)
                self._file_identity = _file_identity(path) if path is not None else None
            except BaseException:
                engine.dispose()
                raise
            self._engine, self._db_path = engine, path
            return engine

    def _sqlite_file_replaced(self, path: Path) -> bool:
        try:
            return _file_identity(path) != self._file_identity
        except FileNotFoundError:
            return True


class _SetupError(SQLAlchemyError):
    """A database this module cannot set up; its message is already the reason to show."""


def _make_directory(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        detail = (exc.strerror or type(exc).__name__).lower()
        raise _SetupError(f"the data directory cannot be created: {detail}") from exc


def _normalised_url(text: str) -> URL:
    url = make_url(text)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")  # psycopg 3 is what we ship
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise _SetupError(f"unsupported database '{url.get_backend_name()}'; use sqlite or postgresql")
    return url


def _sqlite_file(url: URL) -> Path | None:
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def _create_engine(url: URL, timeout: float) -> Engine:
    if url.get_backend_name() == "postgresql":
        return create_engine(
            url,
            pool_pre_ping=True,  # a restarted server leaves dead pooled connections
            connect_args={"connect_timeout": max(1, math.ceil(timeout))},
        )
    if _sqlite_file(url) is None:
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


def _create_schema(engine: Engine) -> None:
    key = engine.url.render_as_string(hide_password=False)
    with _schema_locks_guard:
        lock = _schema_locks.setdefault(key, threading.Lock())
    with lock:
        try:
            metadata.create_all(engine)
        except SQLAlchemyError:
            # Another process may have created the tables between our check and
            # our CREATE; the second attempt then finds them and does nothing.
            metadata.create_all(engine)


def _upsert_unmatched(dialect_name: str, values: dict[str, Any]) -> Any:
    # One statement, so concurrent writers never lose an increment.
    insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    statement = insert(unmatched).values(**values)
    return statement.on_conflict_do_update(
        index_elements=[unmatched.c.signature_hash],
        set_={"count": unmatched.c["count"] + 1, "last_seen": statement.excluded.last_seen},
    )


def _utc_day(dialect_name: str, column: ColumnElement[datetime]) -> ColumnElement[Any]:
    if dialect_name == "postgresql":
        # A literal, not a bound parameter: GROUP BY must repeat the exact SELECT expression.
        return cast(func.timezone(literal_column("'UTC'"), column), Date)
    return func.date(column)  # SQLite: the column already holds UTC text


def _as_date(value: date | str) -> date:
    return date.fromisoformat(value) if isinstance(value, str) else value


def _recording_enabled() -> bool:
    return os.environ.get("KB_RECORDING", "1").strip().lower() not in {"0", "false", "no", "off"}


def _sqlite_url(path: Path) -> str:
    return URL.create("sqlite+pysqlite", database=str(path)).render_as_string()


def _file_identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def _remove_orphan_sidecars(path: Path) -> None:
    # A WAL left behind by a deleted database would be replayed into the new file.
    if path.exists():
        return
    for suffix in ("-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _clean(text: str) -> str:
    """Text every backend accepts: no NUL (PostgreSQL refuses it), no lone surrogates."""
    return text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def _short(text: str, limit: int) -> str:
    # Ids and language codes come from the app, but redacting them too means no
    # text column reaches disk unredacted.
    return _clean(redact(_clean(str(text)))).strip()[:limit]


def _comment(comment: str | None) -> str | None:
    if comment is None:
        return None
    # Redact before truncating: a cut could leave half a token no pattern recognises.
    text = _clean(redact(_clean(comment))).strip()[:MAX_COMMENT]
    return text or None


def _reason(exc: BaseException) -> str:
    """A short, human reason; never SQL, parameters or a stack of driver messages."""
    if isinstance(exc, _SetupError):
        return str(exc)
    original = getattr(exc, "orig", None) or exc
    if isinstance(original, ImportError):
        return "the database driver is not installed"
    if isinstance(original, PermissionError):
        return "no permission to write the database directory"
    lines = str(original).strip().splitlines()
    first = lines[0].strip() if lines else type(original).__name__
    lowered = first.lower()
    known = (
        ("locked", "database is locked"),
        ("readonly", "the database is read-only"),
        ("read-only", "the database is read-only"),
        ("unable to open database file", "the database file cannot be opened"),
        ("disk i/o error", "disk I/O error"),
        ("connection refused", "the database server is not reachable"),
        ("could not connect", "the database server is not reachable"),
        ("timeout expired", "the database server did not answer in time"),
        ("password authentication failed", "the database login was refused"),
        ("could not parse sqlalchemy url", "the database URL is not valid"),
    )
    for needle, reason in known:
        if needle in lowered:
            return reason
    if isinstance(original, OSError) and original.strerror:
        return original.strerror.lower()
    return first[:200]
