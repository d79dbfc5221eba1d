"""How many worker processes a ``jobs`` option means (the commands' ``--jobs N``)."""

from __future__ import annotations


def worker_count(jobs: int) -> int:
    """``jobs`` workers, -1 for one per CPU (joblib's count: the cores this process may use);
    at least one."""
    if jobs == -1:
        import joblib

        return joblib.cpu_count()
    return max(1, int(jobs))
