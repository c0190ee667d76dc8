"""Stack updates: the previous template (for rollback) and each node's successors.

``stack.prev_raw_template_id`` is the template an UPDATE rolls back to (Heat's
``stack.prev_raw_template_id``); ``sync_point.succ`` lists the ``[entity_id, is_update]`` nodes a
node reports to when its traversal's graph mixes forward and reverse nodes (an UPDATE).

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('stack', sa.Column('prev_raw_template_id', sa.Integer(), nullable=True))
    op.add_column('sync_point', sa.Column('succ', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('sync_point') as batch:
        batch.drop_column('succ')
    with op.batch_alter_table('stack') as batch:
        batch.drop_column('prev_raw_template_id')
