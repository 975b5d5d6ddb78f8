"""Votes: a thumbs click recorded at once, then changed, taken back or given a comment, all on
the same row, so that one person's answer counts once whatever they do next.

With the client's address (components/feedback.py reads it, believing X-Forwarded-For only
from a trusted proxy), one address has one answer per guide: a vote from a second tab or
browser of the same address changes that answer. And each address may add only so many
answers, comments and unmatched-queue entries an hour (KB_VOTE_LIMIT, KB_COMMENT_LIMIT,
KB_UNMATCHED_LIMIT), counted by kb.limits as `kb serve` counts its requests. The counts live
in this store's memory: behind deploy/'s nginx, one client stays on one replica.

A subclass of Store rather than more methods in store.py: the same guarantees (redaction
before the write, StoreUnavailable for every failure), and store.py stays within its size.
"""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Executable, select
from sqlalchemy.exc import IntegrityError

from kb import config
from kb.feedback.database import client_key
from kb.feedback.store import Store, StoreUnavailable, _comment, _short
from kb.feedback.tables import MAX_ID, MAX_LANG, feedback
from kb.limits import Windows

HOUR = 3600.0
_LIMITS = {"vote": "KB_VOTE_LIMIT", "comment": "KB_COMMENT_LIMIT", "unmatched": "KB_UNMATCHED_LIMIT"}


class RateLimited(StoreUnavailable):
    """This address has reached its limit for `what` ("vote", "comment", "unmatched") this hour."""

    def __init__(self, what: str, wait: float) -> None:
        self.what, self.minutes = what, max(1, round(wait / 60))
        super().__init__(f"Too many from your address this hour; try again in {self.minutes} min.")


class VotingStore(Store):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.windows = Windows(HOUR)

    def check_limit(self, what: str, client: str | None) -> None:
        """Count one `what` for `client`; RateLimited when the address has had its share this hour."""
        if client is None:
            return
        wait = self.windows.allow(f"{what}\x00{client}", int(config.get(_LIMITS[what])))
        if wait is not None:
            raise RateLimited(what, wait)

    def record_vote(self, guide_id: str, helpful: bool, ticked: list[str], lang: str,
                    client: str | None = None) -> int | None:
        """Store a thumbs click as an answer without a comment; return its row id (None when
        recording is off), which change_vote and add_comment take. With `client`, an address
        that already answered about this guide changes that answer (its id is returned)."""
        if not self.enabled:
            return None
        gid = _short(guide_id, MAX_ID)
        key = client_key(client) if client else None
        row = {
            "guide_id": gid,
            "answer": bool(helpful),
            # Ids never contain commas; dropping any keeps the column splittable (as record_feedback).
            "ticked": ",".join(t for t in (_short(i, MAX_ID).replace(",", "") for i in ticked) if t),
            "lang": _short(lang, MAX_LANG),
            "comment": None,
            "created_at": datetime.now(UTC),
            "client": key,
        }
        with self._guard("feedback") as engine:
            if key is not None:
                found = self._change_existing(engine, gid, key, row)
                if found is not None:
                    return found
            self.check_limit("vote", client)
            try:
                with engine.begin() as conn:
                    return int(conn.execute(feedback.insert().values(**row)).inserted_primary_key[0])
            except IntegrityError:  # the same address, in another tab, a moment earlier
                found = self._change_existing(engine, gid, key, row)
                if found is None:
                    raise
                return found

    def _change_existing(self, engine, gid: str, key: str, row: dict) -> int | None:
        with engine.begin() as conn:
            found = conn.execute(select(feedback.c.id).where(feedback.c.guide_id == gid, feedback.c.client == key)).scalar()
            if found is not None:
                conn.execute(feedback.update().where(feedback.c.id == found)
                             .values(answer=row["answer"], ticked=row["ticked"], lang=row["lang"]))
            return found

    def change_vote(self, row_id: int, helpful: bool | None) -> None:
        """The other thumb was clicked (True / False), or the answer taken back (None: the row goes)."""
        where = feedback.c.id == int(row_id)
        self._write(feedback.delete().where(where) if helpful is None else feedback.update().where(where).values(answer=bool(helpful)))

    def add_comment(self, row_id: int, comment: str | None, client: str | None = None) -> None:
        """Set the comment of the answer record_vote stored; redacted first, as every comment."""
        if self.enabled and comment and comment.strip():
            self.check_limit("comment", client)
        self._write(feedback.update().where(feedback.c.id == int(row_id)).values(comment=_comment(comment)))

    def record_unmatched(self, signature: str, lang: str, client: str | None = None) -> None:
        if self.enabled and signature.strip():
            self.check_limit("unmatched", client)
        super().record_unmatched(signature, lang, client)

    def _write(self, statement: Executable) -> None:
        if not self.enabled:
            return
        with self._guard("feedback") as engine, engine.begin() as conn:
            conn.execute(statement)
