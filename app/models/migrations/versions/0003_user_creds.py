"""Stack trusts: ``user_creds`` holds each root stack's Keystone trust id, encrypted (keystone
mode), as Heat's ``user_creds.trust_id``.

Revision ID: 0004
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'user_creds',
        sa.Column('stack_id', sa.String(36), primary_key=True),
        sa.Column('trust_id', sa.Text(), nullable=False),
        sa.Column('trustor_user_id', sa.String(255), nullable=False),
        sa.Column('tenant', sa.String(255), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table('user_creds')
