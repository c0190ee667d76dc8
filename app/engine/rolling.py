"""Batched group changes (rolling updates, batch creates): pure arithmetic, as Heat's
``heat/scaling/rolling_update.py``, ``ResourceGroup._get_batches`` and
``heat/scaling/template.py`` (``member_definitions``).

A batched change is a list of batches ``(capacity, num_new)``: for each, the group's nested
stack is updated to ``capacity`` members of which up to ``num_new`` more receive the new
definition (new members count first), with ``pause_time`` seconds between batches.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

Definition = dict[str, Any]


def needs_update(targ_capacity: int, curr_capacity: int, num_up_to_date: int) -> bool:
    """Whether another batch is needed (Heat's ``rolling_update.needs_update``)."""
    return not (num_up_to_date >= curr_capacity == targ_capacity)


def next_batch(targ_capacity: int, curr_capacity: int, num_up_to_date: int, batch_size: int,
               min_in_service: int) -> tuple[int, int]:
    """The next batch: ``(new capacity, members that may get the new definition)``, as Heat's
    ``rolling_update.next_batch``.

    :raises ValueError: ``num_up_to_date > curr_capacity``."""
    if num_up_to_date > curr_capacity:
        raise ValueError("more members up to date than exist")
    effective_min = min(min_in_service, targ_capacity, curr_capacity)
    effective_batch = min(batch_size, max(targ_capacity - num_up_to_date, 0))
    new_capacity = effective_batch + max(min(curr_capacity, targ_capacity - effective_batch),
                                         effective_min)
    return new_capacity, effective_batch


def batches(targ_capacity: int, curr_capacity: int, batch_size: int,
            min_in_service: int) -> list[tuple[int, int]]:
    """Every batch from ``curr_capacity`` members (none up to date) to ``targ_capacity``
    members all up to date, as Heat's ``ResourceGroup._get_batches``. O(targ / batch_size).

    ``batches(4, 4, 2, 0) == [(4, 2), (4, 2)]``; ``batches(3, 0, 1, 0)`` (a batch create)
    ``== [(1, 1), (2, 1), (3, 1)]``."""
    out: list[tuple[int, int]] = []
    updated = 0
    while needs_update(targ_capacity, curr_capacity, updated):
        new_cap, total_new = next_batch(targ_capacity, curr_capacity, updated, batch_size,
                                        min_in_service)
        out.append((new_cap, total_new))
        updated += total_new - max(new_cap - max(curr_capacity, targ_capacity), 0)
        curr_capacity = new_cap
    return out


def check_pauses(num_batches: int, pause_time: float, timeout_secs: float) -> None:
    """Heat's ``_update_timeout`` check: the pauses alone must fit in the stack's timeout.

    :raises ValueError: "The current update policy will result in stack update timeout."."""
    if pause_time * max(num_batches - 1, 0) >= timeout_secs:
        raise ValueError("The current update policy will result in stack update timeout.")


def member_definitions(old: list[tuple[str, Definition]], new: Callable[[str], Definition],
                       num_resources: int, num_new: int,
                       new_name: Callable[[], str]) -> Iterator[tuple[str, Definition]]:
    """The members of the group's next template, as Heat's ``scaling.template.member_definitions``.

    ``old``: the existing members ``(name, definition)`` in the order they are to be replaced or
    removed (the first is replaced first, and removed first when the group shrinks);
    ``new(name)``: the new definition of member ``name``; ``num_resources``: the size of the
    result; ``num_new``: how many members get the new definition (members to create first,
    then old members whose definition differs, in ``old``'s order); ``new_name()``: the name of
    the next member to create."""
    kept = old[-num_resources:] if num_resources else []
    num_replace = num_new - (num_resources - len(kept))
    for i in range(num_resources):
        if i < len(kept):
            name, definition = kept[i]
            wanted = new(name)
            if definition != wanted and num_replace > 0:
                num_replace -= 1
                yield name, wanted
            else:
                yield name, definition
        else:
            name = new_name()
            yield name, new(name)


def instance_batches(targ_capacity: int, curr_capacity: int, batch_size: int,
                     min_in_service: int) -> list[tuple[int, int]]:
    """The batches of an (autoscaling) instance group's rolling update, as Heat's
    ``InstanceGroup._get_batches``: every batch's new members count as up to date.

    ``instance_batches(3, 3, 2, 0) == [(3, 2), (3, 1)]``."""
    out: list[tuple[int, int]] = []
    updated = 0
    while needs_update(targ_capacity, curr_capacity, updated):
        batch = next_batch(targ_capacity, curr_capacity, updated, batch_size, min_in_service)
        out.append(batch)
        curr_capacity, num_updates = batch
        updated += num_updates
    return out
