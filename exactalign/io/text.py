"""Reading a whole input file as UTF-8 text, with the failing line named on a decoding error."""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import InputError


def read_text(path) -> tuple[str, str]:
    """``(label, text)`` of ``path`` (``"-"``: standard input, labelled ``<stdin>``), decoded as
    UTF-8 (a leading BOM is dropped). Raises :class:`InputError` naming file and line for bytes
    that are not UTF-8, and ``OSError`` when the file cannot be read."""
    if str(path) == "-":
        label, data = "<stdin>", sys.stdin.buffer.read()
    else:
        label, data = str(path), Path(path).read_bytes()
    try:
        return label, data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start})",
                         path=label, line=line) from None
