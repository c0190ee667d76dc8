"""What the runtime keeps in the database: the node store (``nodes``: one interface, one by one
on SQLite, group commit on PostgreSQL, its statements in ``node_writes``), resource rows and
their compare-and-swap locks and heartbeats (``locks``), sync points (``syncpoints``), events,
the data steps read (definitions, attribute data, stack data and lookups). Steps and the
applier write through these modules; nothing here imports a step.
"""
