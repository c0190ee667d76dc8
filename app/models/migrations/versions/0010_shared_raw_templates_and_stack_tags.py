"""Raw templates stored once per content (``raw_template.content_hash``, looked up on every
create and update), the indexes that find a template's referring stacks (purge, the release
of a previous template), and ``stack_tag`` (Heat's table) so that ``GET /stacks?tags=...``
filters by an index instead of reading every stack's tags; filled from ``stack.tags``.

Revision ID: 0010
Revises: 0009
"""
import json

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('raw_template') as batch:
        batch.add_column(sa.Column('content_hash', sa.String(64), nullable=True))
    op.create_index('ix_raw_template_content_hash', 'raw_template', ['content_hash'],
                    unique=True)
    op.create_index('ix_stack_raw_template', 'stack', ['raw_template_id'])
    op.create_index('ix_stack_prev_raw_template', 'stack', ['prev_raw_template_id'])
    tags = op.create_table(
        'stack_tag',
        sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id', ondelete='CASCADE'),
                  primary_key=True),
        sa.Column('tag', sa.String(255), primary_key=True),
    )
    op.create_index('ix_stack_tag_tag', 'stack_tag', ['tag', 'stack_id'])
    bind = op.get_bind()
    rows = []
    for stack_id, value in bind.execute(sa.text(
            "SELECT id, tags FROM stack WHERE tags IS NOT NULL")):
        listed = json.loads(value) if isinstance(value, str) else value
        rows += [{'stack_id': stack_id, 'tag': tag} for tag in dict.fromkeys(listed or ())]
    if rows:
        op.bulk_insert(tags, rows)


def downgrade() -> None:
    op.drop_index('ix_stack_tag_tag', 'stack_tag')
    op.drop_table('stack_tag')
    op.drop_index('ix_stack_prev_raw_template', 'stack')
    op.drop_index('ix_stack_raw_template', 'stack')
    op.drop_index('ix_raw_template_content_hash', 'raw_template')
    # in place on SQLite too (3.35+): a batch copy would drop raw_template, which stacks
    # reference
    op.execute('ALTER TABLE raw_template DROP COLUMN content_hash')
