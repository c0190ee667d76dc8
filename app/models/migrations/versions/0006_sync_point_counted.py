"""``sync_point.counted``: whether a finished node was subtracted from its stack's
``pending_nodes`` (PostgreSQL subtracts it after the node's own transaction, see
``app.convergence.store.syncpoints.count_finished``).

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('sync_point') as batch:
        batch.add_column(sa.Column('counted', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    # nodes that ended before this revision were counted in their own transaction
    op.execute("UPDATE sync_point SET counted = true WHERE state = 'DONE'")


def downgrade() -> None:
    with op.batch_alter_table('sync_point') as batch:
        batch.drop_column('counted')
