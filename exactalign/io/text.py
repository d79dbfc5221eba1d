"""Reading a whole input file as UTF-8 text, with the failing line named on a decoding error or
a NUL byte; the messages every reader shares."""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import InputError

#: The message of JSON nested so deeply that Python's decoder gives up (``RecursionError``):
#: every JSON reader catches that and raises ``InputError(TOO_DEEP, path=...)``.
TOO_DEEP = ("not valid JSON: nested too deeply (arrays or objects inside one another past "
            "Python's recursion limit)")


def read_text(path) -> tuple[str, str]:
    """``(label, text)`` of ``path`` (``"-"``: standard input, labelled ``<stdin>``), decoded as
    UTF-8 (a leading BOM is dropped). Raises :class:`InputError` naming file and line for bytes
    that are not UTF-8 or a NUL byte (:func:`check_no_nul`), and ``OSError`` when the file
    cannot be read."""
    if str(path) == "-":
        label, data = "<stdin>", sys.stdin.buffer.read()
    else:
        label, data = str(path), Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise not_utf8(data, e.start, label) from None
    check_no_nul(data, label)
    return label, text


def check_no_nul(data: bytes, label) -> None:
    """Raise :class:`InputError` naming the line and offset of the first NUL byte of ``data``
    (read from ``label``): no text format exactalign reads has one, and a NUL inside a token
    would otherwise be scored as a character, silently (a binary file, or a corrupted copy)."""
    offset = data.find(b"\x00")
    if offset >= 0:
        raise InputError(f"a NUL byte (0x00) at offset {offset}: not a text file (binary or "
                         "corrupted?)", path=str(label), line=data.count(b"\n", 0, offset) + 1)


def not_utf8(data: bytes, offset: int, label: str) -> InputError:
    """The error for ``data`` (read from ``label``), whose byte at ``offset`` is not UTF-8: it
    names the line, the byte and its offset, and says so when the file starts with a UTF-16
    byte order mark (a file saved as UTF-16 by an editor)."""
    utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
    hint = "; the file starts with a UTF-16 byte order mark: save it as UTF-8" if utf16 else ""
    return InputError(f"not UTF-8 text (byte {data[offset]:#04x} at offset {offset}{hint})",
                      path=label, line=data.count(b"\n", 0, offset) + 1)
