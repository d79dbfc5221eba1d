"""Readers: files in, plain instances out, with errors that name the file and line.

Problems never parse files. Importing a reader is cheap; numpy and
the problem modules are imported when an instance is built. The pair-list functions below are
loaded on first use (PEP 562), so that importing one reader does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["format_pairs", "parse_pairs", "read_pairs", "write_pairs"]

if TYPE_CHECKING:
    from .pairs import format_pairs, parse_pairs, read_pairs, write_pairs


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import pairs

    value = getattr(pairs, name)
    globals()[name] = value
    return value
