"""Change sets: ``change_set``, an update planned ahead of one stack (app.models.change_sets).

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'change_set',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('tenant', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('change_set_type', sa.String(16), nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('status_reason', sa.Text(), nullable=False),
        sa.Column('execution_status', sa.String(32), nullable=False),
        sa.Column('request', sa.JSON(), nullable=True),
        sa.Column('changes', sa.JSON(), nullable=True),
        sa.Column('fingerprint', sa.String(64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.UniqueConstraint('stack_id', 'name', name='uq_change_set_stack_name'),
    )
    op.create_index('ix_change_set_stack_id', 'change_set', ['stack_id'])


def downgrade() -> None:
    op.drop_table('change_set')
