"""Readers: files in, plain instances out, with errors that name the file and line.

Problems never parse files (``DESIGN.md``, principle 7). Importing a reader is cheap; numpy and
the problem modules are imported when an instance is built.
"""

from .pairs import format_pairs, parse_pairs, read_pairs, write_pairs

__all__ = ["format_pairs", "parse_pairs", "read_pairs", "write_pairs"]
