"""The Celery-backed Dispatcher installed in API and worker processes."""
from __future__ import annotations


class CeleryDispatcher:
    """Enqueues engine work as Celery tasks. Stack timeouts are enforced by the beat task
    ``stoker.check_timeouts`` instead of hour-long countdowns (which the Redis transport would
    redeliver every visibility timeout)."""

    def check_resource(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                       countdown: float = 0.0) -> None:
        from app.tasks import check_resource
        check_resource.apply_async((stack_id, traversal_id, resource_id, is_update),
                                   countdown=countdown or None)

    def stack_timeout(self, stack_id: str, traversal_id: str, countdown: float) -> None:
        if countdown <= 60:
            from app.tasks import stack_timeout
            stack_timeout.apply_async((stack_id, traversal_id), countdown=countdown)
