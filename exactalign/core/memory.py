"""A memory budget for the models exact solves build.

A model too large for the machine must not be handed to a solver that then swaps or is killed:
a problem estimates its model's peak memory before building it and compares it with
:func:`memory_limit`, the ``EXACTALIGN_MEMORY_LIMIT`` environment variable (bytes, or with a
suffix ``K``, ``M``, ``G``, ``T``: ``EXACTALIGN_MEMORY_LIMIT=4G``) or, without it, three quarters
of the machine's physical memory."""

from __future__ import annotations

import os
import re

from .errors import ExactAlignError

ENV = "EXACTALIGN_MEMORY_LIMIT"
#: The share of physical memory a model may take when :data:`ENV` is not set.
DEFAULT_SHARE = 0.75
_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def parse_bytes(text: str) -> int:
    """``"4G"`` -> 4 * 2**30; ``"1500000"`` -> 1500000 (suffixes K, M, G, T; an optional B)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if not m:
        raise ExactAlignError(f"{ENV}={text!r} is not a size (write e.g. 4G, 512M or a number "
                              "of bytes)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def physical_memory() -> int | None:
    """The machine's physical memory in bytes (``None`` where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_limit() -> int | None:
    """Bytes a model may take: :data:`ENV` if set, else :data:`DEFAULT_SHARE` of physical
    memory; ``None`` (no limit) when neither is known."""
    text = os.environ.get(ENV)
    if text:
        return parse_bytes(text)
    total = physical_memory()
    return None if total is None else int(DEFAULT_SHARE * total)


def gib(n: float) -> str:
    """Bytes as a short human size: ``'2.3 GB'``."""
    return f"{n / 2 ** 30:.1f} GB"


def over_limit(estimate: float) -> str | None:
    """Why a model of ``estimate`` bytes must not be built (``None``: it may)."""
    limit = memory_limit()
    if limit is None or estimate <= limit:
        return None
    how = f"{ENV}={os.environ[ENV]}" if os.environ.get(ENV) else \
        f"{DEFAULT_SHARE:.0%} of this machine's memory; set {ENV} to change it"
    return f"its model would need about {gib(estimate)}, over the limit of {gib(limit)} ({how})"
