"""Drift detections: ``drift_detection``, one row per detection of a stack (its nested stacks
included): status, the stack's drift status, counts and each resource's result.

Revision ID: 0011
Revises: 0010
"""
import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'drift_detection',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('tenant', sa.String(255), nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('status_reason', sa.Text(), nullable=False),
        sa.Column('stack_drift_status', sa.String(32), nullable=True),
        sa.Column('counts', sa.JSON(), nullable=True),
        sa.Column('resources', sa.JSON(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
    )
    op.create_index('ix_drift_detection_stack', 'drift_detection', ['stack_id', 'created_at'])


def downgrade() -> None:
    op.drop_table('drift_detection')
