"""Text and JSON files written atomically (:func:`atomic_open`): an interrupted run never leaves a
half-written file and never destroys the previous one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from exactalign.io.atomic import atomic_open


def write_text(path: str | Path, text: str) -> None:
    """``Path(path).write_text(text)``, atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w") as fh:
        fh.write(text)


def write_json(path: str | Path, obj: Any) -> None:
    """``obj`` as indented JSON plus a newline, atomically (:func:`atomic_open`)."""
    with atomic_open(path, "w") as fh:
        json.dump(obj, fh, indent=2, sort_keys=False)
        fh.write("\n")
