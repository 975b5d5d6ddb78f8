"""Alembic's environment: migrations always run on the connection kb.feedback.migrate hands in.

That connection already holds the lock that makes concurrent first use safe (an advisory
lock on PostgreSQL, the write lock on SQLite) inside its open transaction, so every
migration and the version stamp commit together, or not at all.
"""
from __future__ import annotations

from alembic import context

from kb.feedback.tables import metadata

connection = context.config.attributes["connection"]
# render_as_batch: SQLite alters a table by copying it, which Alembic's batch mode does.
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
