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
    """A read-only view of one array of :attr:`LatentInstance._compiled` (the ternary arrays
    ``tri_*`` are empty when a view was compiled without them)."""
    if name.startswith("tri_"):
        def get(self):
            c = self._compiled
            if name not in c:
                import numpy as np

                from ...core.arrays import frozen  # numpy: only on the compiled path

                return frozen(np.zeros(0, np.float64 if name == "tri_w" else np.int64))
            return c[name]
        return property(get, doc=f"{doc} (compiled array)")
    return property(lambda self: self._compiled[name], doc=f"{doc} (compiled array)")


class LatentSide:
    """One side of a :class:`LatentInstance`, checked once: ``n`` variables, ``unary`` triples
    ``(key, v)``, ``binary`` triples ``(key, v1, v2)``, ``ternary`` clauses ``(key, v1, v2,
    v3)`` (DRS clauses with three variables; none for Smatch) and optional ``concepts`` (a label
    per variable), as tuples. ``side`` (``"left"`` or ``"right"``) only names it in errors.
    Immutable."""

    __slots__ = ("n", "unary", "binary", "concepts", "ternary")

    def __init__(self, n: int, unary, binary, concepts: tuple | None = None, *,
                 side: str = "left", ternary=()):
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
        ternary = tuple(tuple(t) for t in ternary)
        for t in ternary:
            if len(t) != 4 or not all(0 <= v < n for v in t[1:]):
                raise InputError(f"{side} ternary clause {t!r} is not (key, v1, v2, v3) with "
                                 f"variables in 0..{n - 1}")
        if concepts is not None and len(concepts) != n:
            raise InputError(f"{side}: {len(concepts)} concepts for {n} variables")
        for name, value in (("n", n), ("unary", unary), ("binary", binary),
                            ("concepts", concepts), ("ternary", ternary)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"LatentSide is immutable: cannot assign {name!r}")


class LatentInstance:
    """Left and right triples (see the package docstring).

    ``left_unary``: ``(key, v)`` per unary triple; ``left_binary``: ``(key, v1, v2)`` per binary
    triple; likewise on the right. ``left_concepts`` / ``right_concepts``: an optional label per
    variable (AMR: its concept as written) used only by the hill-climber's smart initial mapping,
    which pairs variables with *identical* labels. ``allowed``: an optional set of the
    ``(left, right)`` variable pairs a mapping may use (:meth:`allows`). ``left_ternary`` /
    ``right_ternary``: ``(key, v1, v2, v3)`` per clause of three variables (DRS clauses such as
    ``b2 Agent e1 x1``; none for Smatch; :meth:`from_clauses` sorts mixed clauses by arity).
    Triples are kept in the given order: the
    hill-climber's tie-breaking depends on it (as smatch's does). Immutable; compared by
    identity. (A plain class, not a dataclass: see :class:`~exactalign.core.result.Result`.)"""

    def __init__(self, n_left: int, n_right: int, left_unary, left_binary, right_unary,
                 right_binary, left_concepts: tuple | None = None,
                 right_concepts: tuple | None = None, allowed: frozenset | None = None, *,
                 left_ternary=(), right_ternary=()):
        self._fill(LatentSide(n_left, left_unary, left_binary, left_concepts, side="left",
                              ternary=left_ternary),
                   LatentSide(n_right, right_unary, right_binary, right_concepts,
                              side="right", ternary=right_ternary), allowed)

    @classmethod
    def from_clauses(cls, n_left: int, n_right: int, left, right,
                     allowed=None) -> LatentInstance:
        """The instance of two lists of clauses of mixed arity: ``(key, v)``, ``(key, v1, v2)``
        or ``(key, v1, v2, v3)``, variables numbered ``0..n_left - 1`` (``0..n_right - 1``),
        ``key`` any hashable (a clause matches only a clause of the same arity and key).
        ``allowed``: ``None`` (every pair), or the ``(left, right)`` variable pairs a mapping may
        use -- a set, or a predicate ``allowed(v, w) -> bool`` evaluated here on every pair."""
        if callable(allowed):
            allowed = frozenset((v, w) for v in range(n_left) for w in range(n_right)
                                if allowed(v, w))
        sides = []
        for n, clauses, side in ((n_left, left, "left"), (n_right, right, "right")):
            by: dict = {2: [], 3: [], 4: []}
            for t in clauses:
                t = tuple(t)
                if len(t) not in by:
                    raise InputError(f"{side} clause {t!r}: a key and one to three variables")
                by[len(t)].append(t)
            sides.append(LatentSide(n, by[2], by[3], side=side, ternary=by[4]))
        return cls.from_sides(sides[0], sides[1], allowed)

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
        d["left_ternary"], d["right_ternary"] = left.ternary, right.ternary
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
        return len(self.left_unary) + len(self.left_binary) + len(self.left_ternary)

    @property
    def num_right_triples(self) -> int:
        return len(self.right_unary) + len(self.right_binary) + len(self.right_ternary)

    @property
    def has_ternary(self) -> bool:
        """Whether some clause pair needs three variable pairs (a ternary term): such an
        instance takes :mod:`~.ternary`'s exact path and ``bnb3``'s branch and bound."""
        return len(self.tri_w) > 0

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
    tri_p = _compiled_field("tri_p", "first pair of each triple of pairs")
    tri_q = _compiled_field("tri_q", "second pair of each triple of pairs")
    tri_r = _compiled_field("tri_r", "third pair of each triple of pairs")
    tri_w = _compiled_field("tri_w", "clause pairs needing each triple of pairs")

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
                f"pairs_of_pairs={len(self.bin_w)}"
                + (f", triples_of_pairs={len(self.tri_w)})" if len(self.tri_w) else ")"))


def compiled_view(n_left: int, n_right: int, arrays: dict) -> LatentInstance:
    """An instance holding only compiled arrays (no triples): batches and components."""
    from ...core.arrays import frozen  # numpy: only on the exact path

    view = object.__new__(LatentInstance)
    for name, value in (("n_left", n_left), ("n_right", n_right), ("left_concepts", None),
                        ("allowed", None),
                        ("right_concepts", None), ("left_unary", ()), ("left_binary", ()),
                        ("right_unary", ()), ("right_binary", ()), ("left_ternary", ()),
                        ("right_ternary", ())):
        object.__setattr__(view, name, value)
    view.__dict__["_compiled"] = {k: frozen(v) for k, v in arrays.items()}
    return view
