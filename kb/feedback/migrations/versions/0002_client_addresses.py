"""Who answered and who sent an unmatched error, as keys of their addresses.

Revision ID: 0002
Revises: 0001
Create Date: 2027-01-10

feedback.client (nullable: rows from before keep NULL and each counts as one answer), one
answer per address and guide (a unique index; NULLs never collide), and unmatched_clients,
the distinct addresses per unmatched signature. The addresses themselves are never stored.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("feedback", sa.Column("client", sa.String(64), nullable=True))
    op.create_index("uq_feedback_guide_client", "feedback", ["guide_id", "client"], unique=True)
    op.create_table(
        "unmatched_clients",
        sa.Column("signature_hash", sa.String(64), primary_key=True),
        sa.Column("client", sa.String(64), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("unmatched_clients")
    op.drop_index("uq_feedback_guide_client", "feedback")
    with op.batch_alter_table("feedback") as batch:
        batch.drop_column("client")
