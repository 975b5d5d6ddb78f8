"""Where the app keeps readers' feedback and the errors no guide matched: SQLite by default (a
file under data/), PostgreSQL when `KB_DATABASE_URL` says so. Two promises to the rest of the app:

- Nothing is stored unredacted: every text field goes through `redact()` here, right before the insert.
- No raw database exception escapes: whatever goes wrong (file deleted, read-only, locked, server down)
  is a `StoreUnavailable` with a sentence the page can show; a Store is built without touching the
  database, so a broken database cannot stop the app from starting.
"""
from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, case, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from kb import config
from kb.feedback.database import (
    as_date,
    client_key,
    create_db_engine,
    failure_reason,
    file_identity,
    make_directory,
    normalised_url,
    remember_client,
    remove_orphan_sidecars,
    sqlite_file,
    sqlite_url,
    upsert_unmatched,
    utc_day,
)
from kb.feedback.migrate import upgrade
from kb.feedback.redact import redact
from kb.feedback.tables import (
    MAX_COMMENT,
    MAX_ID,
    MAX_LANG,
    MAX_SIGNATURE,
    DailyFeedback,
    FeedbackRow,
    GuideHelpfulness,
    UnmatchedRow,
    feedback,
    unmatched,
    unmatched_clients,
)

__all__ = ["DailyFeedback", "FeedbackRow", "GuideHelpfulness", "Store", "StoreUnavailable", "UnmatchedRow"]

log = logging.getLogger("kb.feedback")

RECENT_COMMENTS = 3


class StoreUnavailable(RuntimeError):
    """The database cannot be used right now; `message` is fit to show to a reader."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
        self._url_text = url or config.get("KB_DATABASE_URL") or sqlite_url(Path(config.get("KB_DB_PATH")).absolute())
        self._engine: Engine | None = None
        self._db_path: Path | None = None  # set for file-based SQLite only
        self.file_identity: tuple[int, int] | None = None
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

    def record_unmatched(self, signature: str, lang: str, client: str | None = None) -> None:
        """Count one occurrence of an error signature no guide matched.

        The signature is redacted again (the engine normalises, but this is the last
        gate before disk) and keyed by the sha256 of the stored text, so two pastes
        that differ only in a secret count as one. `client`: the sender's address, kept
        only as client_key() to count distinct senders.
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
            conn.execute(upsert_unmatched(engine.dialect.name, values))
            if client:
                conn.execute(remember_client(engine.dialect.name, values["signature_hash"], client_key(client)))

    # --- reading ---------------------------------------------------------------------

    def top_unmatched(self, limit: int = 20) -> list[UnmatchedRow]:
        """The unmatched signatures sent by the most different addresses first, then the most frequent:
        one visitor sending an error many times does not put it first."""
        senders = (
            select(func.count())
            .where(unmatched_clients.c.signature_hash == unmatched.c.signature_hash)
            .scalar_subquery()
            .label("addresses")
        )
        query = (
            select(unmatched, senders)
            .order_by(senders.desc(), unmatched.c["count"].desc(), unmatched.c.last_seen.desc())
            .limit(max(0, int(limit)))
        )
        with self._guard("read") as engine, engine.connect() as conn:
            return [UnmatchedRow(**row._asdict()) for row in conn.execute(query)]

    def helpfulness(self) -> list[GuideHelpfulness]:
        """Per guide: answers, helpful answers, their rate, the latest comments; answered by the most
        different addresses first (an answer stored without an address counts as one)."""
        helpful_sum = func.sum(case((feedback.c.answer, 1), else_=0))
        addresses = func.count(feedback.c.client.distinct()) + func.sum(case((feedback.c.client.is_(None), 1), else_=0))
        totals = (
            select(feedback.c.guide_id, func.count().label("answers"), helpful_sum.label("helpful"),
                   addresses.label("addresses"))
            .group_by(feedback.c.guide_id)
            .order_by(addresses.desc(), func.count().desc(), feedback.c.guide_id)
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
                    addresses=int(senders or 0),
                )
                for guide_id, answers, helpful, senders in conn.execute(totals)
            ]

    def feedback_over_time(self) -> list[DailyFeedback]:
        """Helpful / not helpful answers per UTC day, oldest day first; days without answers are absent."""
        with self._guard("read") as engine, engine.connect() as conn:
            day = utc_day(engine.dialect.name, feedback.c.created_at).label("day")
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
                DailyFeedback(as_date(d), int(yes or 0), int(no or 0)) for d, yes, no in conn.execute(query)
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
        """Yield a ready engine; turn any database failure into StoreUnavailable (the short reason
        for the reader; the driver's words, with host and port, only in the log)."""
        try:
            yield self._ready_engine()
        except (SQLAlchemyError, OSError, ImportError) as exc:
            reason = failure_reason(exc)
            log.warning("feedback database unavailable (%s) during %s: %s", reason, action, exc)
            raise StoreUnavailable(f"The feedback database is unavailable ({reason}); {_CONSEQUENCE[action]}.") from exc

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
                remove_orphan_sidecars(self._db_path)
            url = normalised_url(self._url_text)
            path = sqlite_file(url)
            if path is not None:
                make_directory(path.parent)
            engine = create_db_engine(url, self.timeout)
            try:
                upgrade(engine)  # Alembic migrations, not create_all: an existing database keeps its rows
                self.file_identity = file_identity(path) if path is not None else None
            except BaseException:
                engine.dispose()
                raise
            self._engine, self._db_path = engine, path
            return engine

    def _sqlite_file_replaced(self, path: Path) -> bool:
        try:
            return file_identity(path) != self.file_identity
        except FileNotFoundError:
            return True


def _recording_enabled() -> bool:
    return bool(config.get("KB_RECORDING"))


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
