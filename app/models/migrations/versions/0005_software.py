"""Software configs and deployments: ``software_config`` and ``software_deployment``, as Heat's
tables of the same names.

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'software_config',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('group', sa.String(255), nullable=True),
        sa.Column('config', sa.JSON(), nullable=True),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    )
    op.create_index('ix_software_config_tenant', 'software_config', ['tenant'])
    op.create_table(
        'software_deployment',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('config_id', sa.String(36), sa.ForeignKey('software_config.id'),
                  nullable=False),
        sa.Column('server_id', sa.String(36), nullable=False),
        sa.Column('input_values', sa.JSON(), nullable=True),
        sa.Column('output_values', sa.JSON(), nullable=True),
        sa.Column('action', sa.String(255), nullable=True),
        sa.Column('status', sa.String(255), nullable=True),
        sa.Column('status_reason', sa.Text(), nullable=True),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('stack_user_project_id', sa.String(64), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    )
    op.create_index('ix_software_deployment_config_id', 'software_deployment', ['config_id'])
    op.create_index('ix_software_deployment_server_id', 'software_deployment', ['server_id'])
    op.create_index('ix_software_deployment_tenant', 'software_deployment', ['tenant'])


def downgrade() -> None:
    op.drop_table('software_deployment')
    op.drop_table('software_config')
