"""Which reference each item of a batch is scored against: the ``indices`` argument of the
in-process scorers (:class:`~exactalign.metrics.smatch.SmatchScorer`,
:class:`~exactalign.metrics.coref.CorefScorer`,
:class:`~exactalign.declared.metric.PreparedMetric`)."""

from __future__ import annotations

from .errors import InputError


def batch_indices(count: int, n: int, indices=None, item: str = "prediction",
                  ref: str = "reference") -> list[int]:
    """The reference index of each of ``count`` items against ``n`` references: ``indices``
    checked (one per item, each in ``0 .. n - 1``), or, when it is None, every reference in
    order (then there must be as many items as references). A bad one is one
    :class:`~exactalign.core.errors.InputError` naming the item.

        >>> batch_indices(2, 3, [2, 0])
        [2, 0]
        >>> batch_indices(1, 1)
        [0]
        >>> batch_indices(1, 2, [2], "response", "key")
        Traceback (most recent call last):
        ...
        exactalign.core.errors.InputError: response 0: key index 2 is not in 0..1
    """
    if indices is None:
        if count != n:
            raise InputError(f"{count} {item}s for {n} {ref}s (give indices= to score a batch)")
        return list(range(n))
    indices = list(indices)
    if len(indices) != count:
        raise InputError(f"{len(indices)} indices for {count} {item}s")
    for k, i in enumerate(indices):
        if not (isinstance(i, int) and 0 <= i < n):
            raise InputError(f"{item} {k}: {ref} index {i!r} is not in 0..{n - 1}")
    return indices
