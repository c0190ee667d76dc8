"""Indexes for the read routes and the purge at an operator's scale: a project's stacks in
creation order (``GET /stacks``' default order, newest first, served by a backward scan with
``LIMIT``), every project's (admin / ``global_tenant`` listings), and the deleted stacks by
deletion time (``purge_deleted``).

Revision ID: 0007
Revises: 0006
"""
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_stack_tenant_created', 'stack', ['tenant', 'created_at', 'id'])
    op.create_index('ix_stack_created', 'stack', ['created_at', 'id'])
    op.create_index('ix_stack_deleted_at', 'stack', ['deleted_at'])


def downgrade() -> None:
    op.drop_index('ix_stack_deleted_at', 'stack')
    op.drop_index('ix_stack_created', 'stack')
    op.drop_index('ix_stack_tenant_created', 'stack')
