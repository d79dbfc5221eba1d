"""Files written atomically: a run that fails or is interrupted never leaves a half-written
file in place of the previous one. Used by the command line's ``-o FILE`` and by the
experiments' result files."""

from __future__ import annotations

import contextlib
import os
import stat
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
    removed and ``path`` is left as it was.

    A symbolic link is written through: the temporary file goes next to the file it points to
    (a chain of links is followed), which is replaced, and the link stays a link. An existing
    file keeps its permission bits (a file of mode 0600 stays private); a new one gets 0666
    less the umask, as :func:`open` would give it. ``path`` must be a regular file or not
    exist: a FIFO, a device or a directory is no file to replace, and raises :class:`OSError`
    (the command line writes FIFOs and devices directly, :func:`exactalign.cli.main`)."""
    path = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        bits = 0o666 & ~_UMASK
    else:
        if not stat.S_ISREG(st.st_mode):  # never replace a FIFO, a device (/dev/null) ...
            raise IsADirectoryError(21, "not a regular file: not replaced", str(path)) \
                if stat.S_ISDIR(st.st_mode) else \
                OSError(22, "not a regular file: not replaced", str(path))
        bits = stat.S_IMODE(st.st_mode) & 0o777
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, bits)  # mkstemp's 0600 would leave results unreadable to others
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
