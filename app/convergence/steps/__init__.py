"""What a node does for its action: create, update (in place or by replacement), delete and
cleanup of a replaced resource, adopt, suspend/resume/check/snapshot actions, signals, software
deployments, waits and breakpoints (hooks), and the ends of CHECK and stopped traversals. A step
returns an outcome (:mod:`app.convergence.results`) that :mod:`app.convergence.outcome` applies.
"""
