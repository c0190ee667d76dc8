"""The runtime side of nested kinds: template resources and nested stacks (``stacks``), their
suspend/resume/check (``actions``), resource groups and autoscaling groups (``groups``,
``group_batches``, ``group_driver``, ``scaling_group``), and the port through which child stacks
are made (``child_stacks``). A nested node waits for its child's traversal; the child's end wakes it.
"""
