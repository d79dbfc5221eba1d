"""Hypothesis strategies and shared assertions, importable by tests and by users' own suites."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import InputError
from ..data import resolve_data_dir


def pilot_path(*parts: str) -> Path | None:
    """A file or folder of the pilot data directory, or ``None`` when there is no data
    directory (or ``$EXACTALIGN_DATA`` is broken) or it lacks that path -- for tests that skip
    without pilot data."""
    try:
        data = resolve_data_dir()
    except InputError:
        return None
    if not data.available:
        return None
    p = data.path.joinpath(*parts)
    return p if p.exists() else None
