"""The guards a stack carries: ``stack.termination_protection`` (a delete is refused while it
is set on the stack or an ancestor) and ``stack.stack_policy`` (CloudFormation's stack policy
document, checked before an update changes anything; NULL: every update is allowed); and
``resource.deletion_policy`` wide enough for ``RetainExceptOnCreate``.

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('stack') as batch:
        batch.add_column(sa.Column('termination_protection', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('stack_policy', sa.JSON(), nullable=True))
    with op.batch_alter_table('resource') as batch:
        batch.alter_column('deletion_policy', existing_type=sa.String(length=16),
                           type_=sa.String(length=32), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('resource') as batch:
        batch.alter_column('deletion_policy', existing_type=sa.String(length=32),
                           type_=sa.String(length=16), existing_nullable=False)
    with op.batch_alter_table('stack') as batch:
        batch.drop_column('stack_policy')
        batch.drop_column('termination_protection')
