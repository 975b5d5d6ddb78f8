"""The tables as the first releases made them with create_all.

Revision ID: 0001
Revises:
Create Date: 2026-12-01

A database those releases created has the tables but no alembic_version: this migration
then only stamps it, keeping every row. The columns are written out here, not imported
from kb/feedback/tables.py, so that this migration keeps meaning what it meant when the
tables change.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "feedback" not in existing:
        op.create_table(
            "feedback",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("guide_id", sa.String(200), nullable=False),
            sa.Column("answer", sa.Boolean, nullable=False),
            sa.Column("ticked", sa.Text, nullable=False),
            sa.Column("lang", sa.String(16), nullable=False),
            sa.Column("comment", sa.String(2000), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        )
        op.create_index("ix_feedback_guide_id", "feedback", ["guide_id"])
        op.create_index("ix_feedback_created_at", "feedback", ["created_at"])
    if "unmatched" not in existing:
        op.create_table(
            "unmatched",
            sa.Column("signature_hash", sa.String(64), primary_key=True),
            sa.Column("signature", sa.String(4000), nullable=False),
            sa.Column("count", sa.Integer, nullable=False),
            sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
            sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
            sa.Column("lang", sa.String(16), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("unmatched")
    op.drop_table("feedback")
