"""Schema changes go through Alembic migrations, applied on a Store's first use.

The database of an existing deployment was made by the first releases with create_all; its
DDL is copied below as those releases emitted it, so that these tests keep testing that
database whatever kb/feedback/tables.py becomes.
"""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from kb.feedback.migrate import head
from kb.feedback.store import Store, StoreUnavailable
from kb.feedback.tables import metadata
from tests.conftest import ROOT, all_rows

# The tables as create_all made them before there were migrations (SQLAlchemy 2.1, both dialects).
FIRST_SCHEMA = {
    "sqlite": """
CREATE TABLE feedback (id INTEGER NOT NULL, guide_id VARCHAR(200) NOT NULL, answer BOOLEAN NOT NULL,
    ticked TEXT NOT NULL, lang VARCHAR(16) NOT NULL, comment VARCHAR(2000), created_at DATETIME NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_feedback_guide_id ON feedback (guide_id);
CREATE INDEX ix_feedback_created_at ON feedback (created_at);
CREATE TABLE unmatched (signature_hash VARCHAR(64) NOT NULL, signature VARCHAR(4000) NOT NULL, count INTEGER NOT NULL,
    first_seen DATETIME NOT NULL, last_seen DATETIME NOT NULL, lang VARCHAR(16) NOT NULL, PRIMARY KEY (signature_hash));
""",
    "postgresql": """
CREATE TABLE feedback (id SERIAL NOT NULL, guide_id VARCHAR(200) NOT NULL, answer BOOLEAN NOT NULL,
    ticked TEXT NOT NULL, lang VARCHAR(16) NOT NULL, comment VARCHAR(2000), created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (id));
CREATE INDEX ix_feedback_guide_id ON feedback (guide_id);
CREATE INDEX ix_feedback_created_at ON feedback (created_at);
CREATE TABLE unmatched (signature_hash VARCHAR(64) NOT NULL, signature VARCHAR(4000) NOT NULL, count INTEGER NOT NULL,
    first_seen TIMESTAMP WITH TIME ZONE NOT NULL, last_seen TIMESTAMP WITH TIME ZONE NOT NULL, lang VARCHAR(16) NOT NULL,
    PRIMARY KEY (signature_hash));
""",
}
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _old_database(url: str, n_feedback: int = 40, n_unmatched: int = 7) -> None:
    """A database of the first schema, with rows, written with plain SQL."""
    engine = sa.create_engine(url)
    dialect = engine.dialect.name
    with engine.begin() as conn:
        for statement in filter(str.strip, FIRST_SCHEMA[dialect].split(";")):
            conn.exec_driver_sql(statement)
        stamp = (lambda t: t.replace(tzinfo=None).isoformat(" ")) if dialect == "sqlite" else (lambda t: t)
        for i in range(n_feedback):
            conn.execute(sa.text("INSERT INTO feedback (guide_id, answer, ticked, lang, comment, created_at) "
                                 "VALUES (:g, :a, :t, :l, :c, :at)"),
                         {"g": f"guide-{i % 4}", "a": i % 3 != 0, "t": "a,b" if i % 2 else "", "l": "en" if i % 5 else "zh",
                          "c": None if i % 4 == 0 else f"comment {i}", "at": stamp(T0 + timedelta(hours=i))})
        for i in range(n_unmatched):
            conn.execute(sa.text("INSERT INTO unmatched VALUES (:h, :s, :n, :f, :l2, :lang)"),
                         {"h": f"{i:064x}", "s": f"ValueError: old signature {i}", "n": i + 1,
                          "f": stamp(T0), "l2": stamp(T0 + timedelta(days=i)), "lang": "en"})
    engine.dispose()


def _schema_difference(url: str) -> list:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()


def _revision(url: str) -> str | None:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def test_upgrade_keeps_every_row_of_a_database_made_by_the_first_schema(db_url: str):
    _old_database(db_url)
    before = {t: sorted(map(tuple, all_rows(db_url, t))) for t in ("feedback", "unmatched")}
    assert _revision(db_url) is None  # no migrations had run: create_all made it
    with Store(db_url, enabled=True) as store:
        assert sum(h.answers for h in store.helpfulness()) == 40
        assert [r.count for r in store.top_unmatched(100)] == [7, 6, 5, 4, 3, 2, 1]
        rows = store.feedback_for("guide-1", limit=100)
        assert len(rows) == 10 and rows[0].comment == "comment 37" and rows[0].created_at == T0 + timedelta(hours=37)
        store.record_feedback("guide-9", True, [], "en", "after the upgrade")  # new ids continue after the old ones
        store.record_unmatched("KeyError: new", "en")
    assert _revision(db_url) == head()
    # Later migrations add columns (feedback.client): compare the first schema's columns, in its order.
    width = {t: len(before[t][0]) for t in before}
    after = {t: sorted(tuple(r)[:width[t]] for r in all_rows(db_url, t)) for t in ("feedback", "unmatched")}
    for table in before:
        assert set(before[table]) <= set(after[table]) and len(after[table]) == len(before[table]) + 1
    assert _schema_difference(db_url) == []


def test_migrations_build_exactly_the_current_tables(db_url: str):
    # Fails as soon as kb/feedback/tables.py changes without a migration that makes the change.
    with Store(db_url, enabled=True) as store:
        store.top_unmatched()
    assert _revision(db_url) == head()
    assert _schema_difference(db_url) == []


_FIRST_USE = """
import sys
from kb.feedback.store import Store
store = Store(sys.argv[1], enabled=True, timeout=30)
store.record_feedback("guide", True, [], "en", "from process " + sys.argv[2])
store.record_unmatched("ValueError: concurrent first use", "en")
"""


def test_replicas_starting_together_migrate_once(db_url: str):
    """Several processes use an empty database at the same moment: all succeed, nothing is lost."""
    n = 6
    procs = [subprocess.Popen([sys.executable, "-c", _FIRST_USE, db_url, str(i)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(n)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-2000:] for _, err in results]
    assert len(all_rows(db_url, "feedback")) == n
    assert [r.count for r in Store(db_url).top_unmatched()] == [n]
    assert _revision(db_url) == head()


def test_a_database_migrated_by_a_newer_release_is_refused_with_a_reason(db_url: str):
    with Store(db_url, enabled=True) as store:
        store.top_unmatched()
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = 'ffff-from-the-future'"))
    engine.dispose()
    with pytest.raises(StoreUnavailable) as info:
        Store(db_url).record_feedback("g", True, [], "en", None)
    assert "newer than this version of the app" in info.value.message
    assert json.dumps(info.value.message)  # one plain sentence
