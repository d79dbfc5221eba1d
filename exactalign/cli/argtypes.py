"""Argument types the commands share (argparse ``type=`` callables), kept free of heavy imports
so that ``--help`` stays fast."""

from __future__ import annotations

import argparse


def jobs(text: str) -> int:
    """``--jobs N``: worker processes, -1 for one per CPU, else at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"must be -1 (one per CPU) or at least 1, not {value}")
    return value
