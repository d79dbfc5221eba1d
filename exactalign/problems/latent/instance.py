"""The problem: :class:`LatentInstance`, the left and right triples (the package docstring of
:mod:`exactalign.problems.latent`), pure Python; its compiled numpy form is built on first use
(:func:`~.arrays.compile_arrays`), and :func:`compiled_view` makes an instance of compiled arrays
alone."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ...core.errors import InputError

if TYPE_CHECKING:
    import numpy as np


def _compiled_field(name: str, doc: str) -> property:
    """A read-only view of one array of :attr:`LatentInstance._compiled`."""
    return property(lambda self: self._compiled[name], doc=f"{doc} (compiled array)")


class LatentSide:
    """One side of a :class:`LatentInstance`, checked once: ``n`` variables, ``unary`` triples
    ``(key, v)``, ``binary`` triples ``(key, v1, v2)`` and optional ``concepts`` (a label per
    variable), as tuples. ``side`` (``"left"`` or ``"right"``) only names it in errors.
    Immutable."""

    __slots__ = ("n", "unary", "binary", "concepts")

    def __init__(self, n: int, unary, binary, concepts: tuple | None = None, *,
                 side: str = "left"):
        if n < 0:
            raise InputError(f"{side}: {n} variables")
        unary = tuple(tuple(t) for t in unary)
        binary = tuple(tuple(t) for t in binary)
        for t in unary:
            if not 0 <= t[1] < n:
                raise InputError(f"{side} unary triple {t!r} names variable {t[1]} of {n}")
        for t in binary:
            if not (0 <= t[1] < n and 0 <= t[2] < n):
                raise InputError(f"{side} binary triple {t!r} names a variable outside "
                                 f"0..{n - 1}")
        if concepts is not None and len(concepts) != n:
            raise InputError(f"{side}: {len(concepts)} concepts for {n} variables")
        for name, value in (("n", n), ("unary", unary), ("binary", binary),
                            ("concepts", concepts)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"LatentSide is immutable: cannot assign {name!r}")


class LatentInstance:
    """Left and right triples (see the package docstring).

    ``left_unary``: ``(key, v)`` per unary triple; ``left_binary``: ``(key, v1, v2)`` per binary
    triple; likewise on the right. ``left_concepts`` / ``right_concepts``: an optional label per
    variable (AMR: its concept as written) used only by the hill-climber's smart initial mapping,
    which pairs variables with *identical* labels. ``allowed``: an optional set of the
    ``(left, right)`` variable pairs a mapping may use (:meth:`allows`). Triples are kept in the
    given order: the
    hill-climber's tie-breaking depends on it (as smatch's does). Immutable; compared by
    identity. (A plain class, not a dataclass: see :class:`~exactalign.core.result.Result`.)"""

    def __init__(self, n_left: int, n_right: int, left_unary, left_binary, right_unary,
                 right_binary, left_concepts: tuple | None = None,
                 right_concepts: tuple | None = None, allowed: frozenset | None = None):
        self._fill(LatentSide(n_left, left_unary, left_binary, left_concepts, side="left"),
                   LatentSide(n_right, right_unary, right_binary, right_concepts,
                              side="right"), allowed)

    @classmethod
    def from_sides(cls, left: LatentSide, right: LatentSide,
                   allowed: frozenset | None = None) -> LatentInstance:
        """The instance of two sides checked when they were made (:class:`LatentSide`): a side
        scored again and again (a gold graph in a training loop) is checked once, not at every
        instance."""
        inst = object.__new__(cls)
        inst._fill(left, right, allowed)
        return inst

    def _fill(self, left: LatentSide, right: LatentSide, allowed) -> None:
        d = self.__dict__
        d["n_left"], d["n_right"] = left.n, right.n
        d["left_unary"], d["left_binary"] = left.unary, left.binary
        d["right_unary"], d["right_binary"] = right.unary, right.binary
        d["left_concepts"], d["right_concepts"] = left.concepts, right.concepts
        d["allowed"] = None if allowed is None else frozenset(allowed)

    def allows(self, v: int, w: int) -> bool:
        """Whether left variable ``v`` may map to right variable ``w``: always, unless the
        instance restricts its candidate pairs (``allowed``: a set of ``(left, right)``, e.g.
        docSmatch's sentence buckets); a triple pair then counts only when every variable pair
        it needs is allowed."""
        return self.allowed is None or (v, w) in self.allowed

    def __setattr__(self, name, value):
        raise AttributeError(f"LatentInstance is immutable: cannot assign {name!r}")

    @property
    def num_left_triples(self) -> int:
        return len(self.left_unary) + len(self.left_binary)

    @property
    def num_right_triples(self) -> int:
        return len(self.right_unary) + len(self.right_binary)

    # -- compiled form ------------------------------------------------------------------------
    @cached_property
    def _compiled(self) -> dict:
        """The compiled arrays (numpy; imported here, not at start-up)."""
        from .arrays import compile_arrays

        return compile_arrays(self)

    pair_left = _compiled_field("pair_left", "left variable of each useful pair")
    pair_right = _compiled_field("pair_right", "right variable of each useful pair")
    unary = _compiled_field("unary", "triple pairs needing each useful pair alone")
    bin_p = _compiled_field("bin_p", "first pair of each pair of pairs")
    bin_q = _compiled_field("bin_q", "second pair of each pair of pairs")
    bin_w = _compiled_field("bin_w", "triple pairs needing each pair of pairs")

    @property
    def num_pairs(self) -> int:
        return len(self.pair_left)

    def pair_index(self, mapping) -> np.ndarray:
        """Index of each ``(left, right)`` row of ``mapping`` among the useful pairs, -1 if none."""
        import numpy as np

        m = np.asarray(mapping, dtype=np.int64).reshape(-1, 2)
        nr = max(self.n_right, 1)
        keys = self.pair_left * nr + self.pair_right
        q = m[:, 0] * nr + m[:, 1]
        if not len(keys):
            return np.full(len(q), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
        return np.where(keys[pos] == q, pos, -1)

    def __repr__(self) -> str:
        return (f"LatentInstance({self.n_left}x{self.n_right} variables, triples "
                f"{self.num_left_triples}/{self.num_right_triples}, pairs={self.num_pairs}, "
                f"pairs_of_pairs={len(self.bin_w)})")


def compiled_view(n_left: int, n_right: int, arrays: dict) -> LatentInstance:
    """An instance holding only compiled arrays (no triples): batches and components."""
    from ...core.arrays import frozen  # numpy: only on the exact path

    view = object.__new__(LatentInstance)
    for name, value in (("n_left", n_left), ("n_right", n_right), ("left_concepts", None),
                        ("allowed", None),
                        ("right_concepts", None), ("left_unary", ()), ("left_binary", ()),
                        ("right_unary", ()), ("right_binary", ())):
        object.__setattr__(view, name, value)
    view.__dict__["_compiled"] = {k: frozen(v) for k, v in arrays.items()}
    return view
