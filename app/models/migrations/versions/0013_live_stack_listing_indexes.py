"""Indexes of the default stack listing: live top-level stacks by creation time, of every
project and of one, as partial indexes whose predicate is the listing's own filter.

Revision ID: 0013
Revises: 0012
"""
import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

_LIVE_TOP = sa.text("deleted_at IS NULL AND parent_id IS NULL")


def upgrade() -> None:
    op.create_index('ix_stack_live_top_created', 'stack', ['created_at', 'id'],
                    sqlite_where=_LIVE_TOP, postgresql_where=_LIVE_TOP)
    op.create_index('ix_stack_live_top_tenant_created', 'stack', ['tenant', 'created_at', 'id'],
                    sqlite_where=_LIVE_TOP, postgresql_where=_LIVE_TOP)


def downgrade() -> None:
    op.drop_index('ix_stack_live_top_tenant_created', 'stack')
    op.drop_index('ix_stack_live_top_created', 'stack')
