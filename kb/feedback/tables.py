"""The feedback database's tables and the rows read from them.

The tables are the current schema; migrations (kb/feedback/migrations) take an existing
database to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

from sqlalchemy import Boolean, Column, DateTime, Index, Integer, MetaData, String, Table, Text
from sqlalchemy.types import TypeDecorator

MAX_COMMENT = 2000
MAX_SIGNATURE = 4000
MAX_ID = 200
MAX_LANG = 16
CLIENT_KEY = 64  # sha256 hex of a client address (kb.feedback.votes.client_key): never the address


@dataclass(frozen=True)
class UnmatchedRow:
    signature_hash: str
    signature: str
    count: int
    first_seen: datetime
    last_seen: datetime
    lang: str
    addresses: int = 0  # distinct client addresses that sent it (since they were counted)


@dataclass(frozen=True)
class GuideHelpfulness:
    guide_id: str
    answers: int
    helpful: int
    rate: float  # helpful / answers, 0.0-1.0
    recent_comments: tuple[str, ...]  # newest first, at most RECENT_COMMENTS
    addresses: int = 0  # distinct client addresses that answered (an answer stored without one counts as one)


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
    # Who answered, as a key (NULL: stored before addresses were kept, or by a caller without one).
    Column("client", String(CLIENT_KEY), nullable=True),
    # One answer per address and guide: a second one from the same address changes the first.
    # NULLs are distinct in both SQLite and PostgreSQL, so old rows never collide.
    Index("uq_feedback_guide_client", "guide_id", "client", unique=True),
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

# Which addresses sent which unmatched signature: the Authors page ranks the queue by how many
# different addresses sent an error, not by how often one of them did.
unmatched_clients = Table(
    "unmatched_clients",
    metadata,
    Column("signature_hash", String(64), primary_key=True),
    Column("client", String(CLIENT_KEY), primary_key=True),
)
