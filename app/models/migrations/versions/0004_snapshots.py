"""Stack snapshots: ``snapshot`` holds each snapshot's stack data and status, as Heat's
``snapshot`` table.

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'snapshot',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('tenant', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('data', sa.JSON(), nullable=True),
        sa.Column('action', sa.String(32), nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('status_reason', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    )
    op.create_index('ix_snapshot_stack_id', 'snapshot', ['stack_id'])


def downgrade() -> None:
    op.drop_index('ix_snapshot_stack_id', 'snapshot')
    op.drop_table('snapshot')
