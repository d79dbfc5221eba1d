"""The instance: :data:`METRICS` and :class:`MentionAlignmentInstance`; :func:`as_alignment`
(an alignment in canonical form)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError

#: The metrics whose F1 an alignment can maximise.
METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea")


# --------------------------------------------------------------------------------------------
# the instance
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MentionAlignmentInstance:
    """Key and response clusters of mention indices and the allowed pairs (module docstring)."""

    n_key: int
    n_response: int
    key_clusters: tuple[tuple[int, ...], ...]
    response_clusters: tuple[tuple[int, ...], ...]
    rows: np.ndarray
    cols: np.ndarray
    weight: np.ndarray
    stage: np.ndarray

    def __post_init__(self):
        put = object.__setattr__
        put(self, "key_clusters", tuple(tuple(int(m) for m in c) for c in self.key_clusters))
        put(self, "response_clusters",
            tuple(tuple(int(m) for m in c) for c in self.response_clusters))
        rows = np.asarray(self.rows, dtype=np.int64).reshape(-1)
        cols = np.asarray(self.cols, dtype=np.int64).reshape(-1)
        weight = np.asarray(self.weight, dtype=np.float64).reshape(-1)
        stage = np.asarray(self.stage, dtype=np.int64).reshape(-1)
        if not (rows.shape == cols.shape == weight.shape == stage.shape):
            raise InputError("mention alignment: rows, cols, weight and stage need one entry "
                             "per allowed pair")
        for side, n, clusters in (("key", self.n_key, self.key_clusters),
                                  ("response", self.n_response, self.response_clusters)):
            seen = set()
            for c in clusters:
                if not c:
                    raise InputError(f"mention alignment: an empty {side} cluster")
                if len(set(c)) != len(c):
                    raise InputError(f"mention alignment: a {side} cluster repeats a mention")
                if min(c) < 0 or max(c) >= n:
                    raise InputError(f"mention alignment: a {side} mention outside 0..{n - 1}")
                seen.update(c)
            if len(seen) != n:
                raise InputError(f"mention alignment: {n - len(seen)} {side} mention(s) in no "
                                 "cluster")
        if len(rows) and (rows.min() < 0 or rows.max() >= self.n_key or cols.min() < 0
                          or cols.max() >= self.n_response):
            raise InputError("mention alignment: an allowed pair names a mention that is not "
                             "there")
        if len(set(zip(rows.tolist(), cols.tolist(), strict=True))) != len(rows):
            raise InputError("mention alignment: an allowed pair is listed twice")
        if not np.all(np.isfinite(weight)):
            raise InputError("mention alignment: pair weights must be finite")
        for name, a in (("rows", rows), ("cols", cols), ("weight", weight), ("stage", stage)):
            a.flags.writeable = False
            put(self, name, a)

    @property
    def num_pairs(self) -> int:
        return len(self.rows)

    def key_last(self) -> list[int]:
        return _last(self.key_clusters, self.n_key)

    def response_last(self) -> list[int]:
        return _last(self.response_clusters, self.n_response)


def _last(clusters, n: int) -> list[int]:
    out = [-1] * n
    for ci, c in enumerate(clusters):
        for m in c:
            out[m] = ci
    return out


def as_alignment(pairs) -> np.ndarray:
    """An ``(m, 2)`` int array of ``(key, response)`` pairs, sorted."""
    a = np.asarray(sorted((int(k), int(r)) for k, r in pairs), dtype=np.int64).reshape(-1, 2)
    a.flags.writeable = False
    return a


# --------------------------------------------------------------------------------------------
