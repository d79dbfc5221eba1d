"""The text of the 1992 MUC-4 files, as the readers of templates, score reports and judgement
histories take it: bytes read as Latin-1, ``-`` for standard input, errors naming the file."""

from __future__ import annotations

import sys
from pathlib import Path

from ...core.errors import InputError
from ..text import check_no_nul

#: The name of standard input in messages.
STDIN = "<stdin>"


def label(path: str | Path) -> Path:
    """How errors name ``path``: ``<stdin>`` for ``-`` (standard input)."""
    return Path(STDIN if str(path) in ("-", STDIN) else path)


def read_latin1(path: Path) -> str:
    """The 1992 files' text: bytes read as Latin-1, as the 1992 scorer (Emacs Lisp on 8-bit
    text) read them -- every byte is a character, nothing is replaced, so no warning is due. A
    leading UTF-8 byte order mark is dropped; a UTF-16 file is an :class:`InputError`. ``-``
    (or ``<stdin>``) reads standard input."""
    try:
        data = (sys.stdin.buffer.read() if str(path) in ("-", STDIN)
                else Path(path).read_bytes())
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=path) from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("UTF-16 text (it starts with a UTF-16 byte order mark): the 1992 files "
                         "are 8-bit text; save it as Latin-1 or UTF-8", path=path, line=1)
    check_no_nul(data, label(path))
    return data.removeprefix(b"\xef\xbb\xbf").decode("latin-1")
