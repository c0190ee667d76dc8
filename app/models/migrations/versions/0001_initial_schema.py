"""Initial schema: raw templates, stacks, resources, events, sync points, heartbeats.

Revision ID: 0001
Revises: 
Create Date: 2026-11-29 10:05:19.790685
"""
import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    
    op.create_table('raw_template',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('template', sa.JSON(), nullable=False),
    sa.Column('files', sa.JSON(), nullable=False),
    sa.Column('environment', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('sync_input',
    sa.Column('entity_id', sa.Integer(), nullable=False),
    sa.Column('traversal_id', sa.String(length=36), nullable=False),
    sa.Column('is_update', sa.Boolean(), nullable=False),
    sa.Column('pred_key', sa.String(length=300), nullable=False),
    sa.Column('data', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('entity_id', 'traversal_id', 'is_update', 'pred_key')
    )
    op.create_table('sync_point',
    sa.Column('entity_id', sa.Integer(), nullable=False),
    sa.Column('traversal_id', sa.String(length=36), nullable=False),
    sa.Column('is_update', sa.Boolean(), nullable=False),
    sa.Column('stack_id', sa.String(length=36), nullable=False),
    sa.Column('expected', sa.Integer(), nullable=False),
    sa.Column('done', sa.Integer(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.PrimaryKeyConstraint('entity_id', 'traversal_id', 'is_update')
    )
    with op.batch_alter_table('sync_point', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sync_point_stack_id'), ['stack_id'], unique=False)

    op.create_table('worker_heartbeat',
    sa.Column('engine_id', sa.String(length=255), nullable=False),
    sa.Column('last_seen', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('engine_id')
    )
    op.create_table('stack',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('tenant', sa.String(length=255), nullable=False),
    sa.Column('username', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('raw_template_id', sa.Integer(), nullable=False),
    sa.Column('parameters', sa.JSON(), nullable=False),
    sa.Column('parameters_show', sa.JSON(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('status_reason', sa.Text(), nullable=False),
    sa.Column('disable_rollback', sa.Boolean(), nullable=False),
    sa.Column('timeout_mins', sa.Integer(), nullable=True),
    sa.Column('tags', sa.JSON(), nullable=True),
    sa.Column('parent_id', sa.String(length=36), nullable=True),
    sa.Column('nested_depth', sa.Integer(), nullable=False),
    sa.Column('current_traversal', sa.String(length=36), nullable=False),
    sa.Column('pending_nodes', sa.Integer(), nullable=False),
    sa.Column('traversal_started_at', sa.DateTime(), nullable=True),
    sa.Column('failed', sa.Boolean(), nullable=False),
    sa.Column('outputs', sa.JSON(), nullable=True),
    sa.Column('nested_info', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['raw_template_id'], ['raw_template.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('stack', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_stack_parent_id'), ['parent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_stack_tenant'), ['tenant'], unique=False)
        batch_op.create_index('uq_stack_live_name', ['tenant', 'name'], unique=True, sqlite_where=sa.text('deleted_at IS NULL'), postgresql_where=sa.text('deleted_at IS NULL'))

    op.create_table('event',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('stack_id', sa.String(length=36), nullable=False),
    sa.Column('resource_name', sa.String(length=255), nullable=False),
    sa.Column('physical_resource_id', sa.String(length=255), nullable=True),
    sa.Column('resource_type', sa.String(length=255), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('status_reason', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['stack_id'], ['stack.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid')
    )
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.create_index('ix_event_stack', ['stack_id', 'id'], unique=False)

    op.create_table('resource',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('stack_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('type', sa.String(length=255), nullable=False),
    sa.Column('action', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('status_reason', sa.Text(), nullable=False),
    sa.Column('physical_resource_id', sa.String(length=255), nullable=True),
    sa.Column('requires', sa.JSON(), nullable=False),
    sa.Column('deletion_policy', sa.String(length=16), nullable=False),
    sa.Column('properties_data', sa.JSON(), nullable=True),
    sa.Column('rsrc_data', sa.JSON(), nullable=False),
    sa.Column('handle', sa.JSON(), nullable=True),
    sa.Column('attr_data', sa.JSON(), nullable=True),
    sa.Column('poll_attempt', sa.Integer(), nullable=False),
    sa.Column('engine_id', sa.String(length=255), nullable=True),
    sa.Column('atomic_key', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['stack_id'], ['stack.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('stack_id', 'name', name='uq_resource_stack_name'),
    sa.UniqueConstraint('uuid')
    )



def downgrade() -> None:
    
    op.drop_table('resource')
    with op.batch_alter_table('event', schema=None) as batch_op:
        batch_op.drop_index('ix_event_stack')

    op.drop_table('event')
    with op.batch_alter_table('stack', schema=None) as batch_op:
        batch_op.drop_index('uq_stack_live_name', sqlite_where=sa.text('deleted_at IS NULL'), postgresql_where=sa.text('deleted_at IS NULL'))
        batch_op.drop_index(batch_op.f('ix_stack_tenant'))
        batch_op.drop_index(batch_op.f('ix_stack_parent_id'))

    op.drop_table('stack')
    op.drop_table('worker_heartbeat')
    with op.batch_alter_table('sync_point', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sync_point_stack_id'))

    op.drop_table('sync_point')
    op.drop_table('sync_input')
    op.drop_table('raw_template')

