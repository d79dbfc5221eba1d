"""Independent connected components of a bipartite candidate graph, found with
``scipy.sparse.csgraph.connected_components`` and grouped with vectorised numpy (no per-node
Python loops), so each can be solved on its own. Components are numbered in the order of their
smallest node, references ``0 .. n_left - 1`` before predictions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _groups(labels: np.ndarray, count: int):
    """Members of each label, as (order, ptr): members of k are order[ptr[k]:ptr[k+1]]."""
    order = np.argsort(labels, kind="stable")
    ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(labels, minlength=count), out=ptr[1:])
    return order, ptr


def _local(order: np.ndarray, ptr: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Position of each element within its own component."""
    local = np.empty(len(order), dtype=np.int64)
    local[order] = np.arange(len(order)) - ptr[labels[order]]
    return local


@dataclass(frozen=True, eq=False)
class BipartiteComponents:
    """Components of a bipartite graph with ``n_left`` + ``n_right`` nodes and edges
    ``(rows[e], cols[e])``. Isolated nodes are components without edges."""

    count: int
    left_label: np.ndarray
    right_label: np.ndarray
    edge_label: np.ndarray
    left_local: np.ndarray
    right_local: np.ndarray
    _left: tuple
    _right: tuple
    _edges: tuple

    def sizes(self):
        """Arrays (n_left, n_right, n_edges) per component."""
        return (np.diff(self._left[1]), np.diff(self._right[1]), np.diff(self._edges[1]))

    def members(self, k: int):
        """Global (left ids, right ids, edge ids) of component ``k``, each ascending."""
        (lo, lp), (ro, rp), (eo, ep) = self._left, self._right, self._edges
        return lo[lp[k]:lp[k + 1]], ro[rp[k]:rp[k + 1]], eo[ep[k]:ep[k + 1]]


def bipartite_components(n_left: int, n_right: int, rows: np.ndarray,
                         cols: np.ndarray) -> BipartiteComponents:
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    n = n_left + n_right
    count, labels = graph_labels(n, rows, cols + n_left)
    ll, rl = labels[:n_left], labels[n_left:]
    el = ll[rows] if len(rows) else np.zeros(0, dtype=np.int64)
    left, right, edges = _groups(ll, count), _groups(rl, count), _groups(el, count)
    return BipartiteComponents(
        count=int(count), left_label=ll, right_label=rl, edge_label=el,
        left_local=_local(*left, ll), right_local=_local(*right, rl),
        _left=left, _right=right, _edges=edges,
    )


def graph_labels(n: int, u: np.ndarray, v: np.ndarray) -> tuple[int, np.ndarray]:
    """``(count, label per node)`` of the undirected graph on nodes ``0 .. n - 1`` with edges
    ``(u[e], v[e])``, as ``scipy.sparse.csgraph.connected_components`` numbers them."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    g = sp.coo_array((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    count, labels = connected_components(g, directed=False)
    return int(count), labels.astype(np.int64)
