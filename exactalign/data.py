"""Where the pilot data lives.

Resolution order: ``$EXACTALIGN_DATA`` (must be an existing directory), else ``../shared/pilot``
next to the checkout, else none -- callers then fall back to the project's own synthetic
generators and must say so in their output. The pilot files are never copied into the project.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .core.errors import InputError

ENV_VAR = "EXACTALIGN_DATA"
CHECKOUT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class DataDir:
    path: Path | None
    source: str  # "$EXACTALIGN_DATA", "../shared/pilot" or "synthetic"

    @property
    def available(self) -> bool:
        return self.path is not None

    def describe(self) -> str:
        if self.path is None:
            return ("no pilot data found ($EXACTALIGN_DATA unset, no ../shared/pilot next to the "
                    "checkout): using synthetic instances from exactalign's own generator")
        return f"pilot data from {self.path} (via {self.source})"

    def require(self, *parts: str) -> Path:
        """Path of a file or folder in the data directory, or a clear error."""
        if self.path is None:
            raise InputError("this needs the pilot data: set $EXACTALIGN_DATA or place "
                             "../shared/pilot next to the checkout")
        p = self.path.joinpath(*parts)
        if not p.exists():
            raise InputError(f"{p} does not exist in the pilot data directory ({self.source})")
        return p


def resolve_data_dir(env: dict | None = None) -> DataDir:
    env = os.environ if env is None else env
    value = env.get(ENV_VAR)
    if value:
        p = Path(value).expanduser()
        if not p.is_dir():
            raise InputError(f"${ENV_VAR} is set to {value!r}, which is not a directory")
        return DataDir(p.resolve(), f"${ENV_VAR}")
    shared = CHECKOUT.parent / "shared" / "pilot"
    if shared.is_dir():
        return DataDir(shared, "../shared/pilot")
    return DataDir(None, "synthetic")
