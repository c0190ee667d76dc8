"""What the runtime keeps in the database: resource rows and their compare-and-swap locks and
heartbeats (``locks``), sync points (``syncpoints``), events, the data steps read (definitions,
attribute data, stack data and lookups), and the batching of writes (``group_commit``: a group
commit on PostgreSQL, one statement at a time on SQLite). Steps and the applier write through
these modules; nothing here imports a step.
"""
