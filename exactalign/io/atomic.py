"""Files written atomically: a run that fails or is interrupted never leaves a half-written
file in place of the previous one. Used by the command line's ``-o FILE`` and by the
experiments' result files."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = None):
    """Open a temporary file next to ``path`` for writing; when the ``with`` block ends without
    an exception the file is flushed, synced and moved onto ``path`` with :func:`os.replace`
    (atomic on POSIX and Windows). On an exception (or an interrupt) the temporary file is
    removed and ``path`` is left as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp's 0600 would leave results unreadable to others
        binary = "b" in mode
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
