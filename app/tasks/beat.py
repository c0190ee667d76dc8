"""Celery beat's app (``celery -A app.tasks.beat beat``): the workers' configuration
(:func:`app.tasks.make_celery`: the same schedule, routes, queues, broker transport and operator
settings) without their tasks. Beat sends its schedule's tasks by name, so it imports no engine
code: its start costs Celery and the configuration only.
"""
from __future__ import annotations

from app.tasks import make_celery

celery_app = make_celery(include=())
