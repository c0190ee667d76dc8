"""Cross-stack exports: ``stack_export`` (an output exported under a name unique in its
tenant, with its value) and ``stack_import`` (which stacks import which export).

Revision ID: 0012
Revises: 0011
"""
import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'stack_export',
        sa.Column('id', sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column('tenant', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('output_key', sa.String(255), nullable=False),
        sa.Column('value', sa.JSON(), nullable=True),
    )
    op.create_index('uq_stack_export_name', 'stack_export', ['tenant', 'name'], unique=True)
    op.create_index('ix_stack_export_stack', 'stack_export', ['stack_id'])
    op.create_table(
        'stack_import',
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('export_name', sa.String(255), primary_key=True),
        sa.Column('tenant', sa.String(255), nullable=False),
    )
    op.create_index('ix_stack_import_name', 'stack_import', ['tenant', 'export_name'])


def downgrade() -> None:
    op.drop_table('stack_import')
    op.drop_table('stack_export')
