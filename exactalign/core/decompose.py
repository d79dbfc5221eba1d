"""Independent connected components of a bipartite candidate graph, found and grouped with
vectorised numpy/scipy (no per-node Python loops), so each can be solved on its own.

Labels are those of ``scipy.sparse.csgraph.connected_components`` (components numbered in
the order of their smallest node, references ``0 .. n_left - 1`` before predictions). A small
graph whose components a vectorised minimum-label propagation with hooking and pointer
jumping settles within :data:`PROPAGATION_ROUNDS` rounds -- the star-shaped components of
most documents take two or three -- gets those labels without importing scipy (a third of a
second of a one-document command); any other graph, and every graph once scipy's graph module
is loaded anyway, goes to scipy. Either way the labels are the same."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

#: Graphs of at most this many nodes try :func:`_propagated_labels` before scipy (at this size
#: it takes 13-19 ms, random graphs and shuffled paths; importing scipy's graph module 0.28 s).
PROPAGATION_MAX_NODES = 65_536
#: Rounds :func:`_propagated_labels` runs before it hands the graph to scipy.
PROPAGATION_ROUNDS = 32


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


def _propagated_labels(n: int, u: np.ndarray, v: np.ndarray,
                       rounds: int) -> tuple[int, np.ndarray] | None:
    """``(count, labels)`` of the undirected graph on nodes ``0 .. n - 1`` with edges
    ``(u[e], v[e])``, numbered as scipy numbers them; ``None`` when ``rounds`` rounds of
    minimum-label propagation have not reached a fixed point.

    Every node starts with its own index. Each round, every edge's smaller label goes to both
    its ends and to both their labels (hooking), then each node takes its label's label
    (pointer jumping). A label never exceeds its node's index and is a node of the same
    component, so both steps keep that; together they settle in a few rounds growing with the
    logarithm of the size (a shuffled path of 20,000 nodes: 12-13 rounds; plain propagation
    needs thousands). Labels only decrease and only ever hold an index of the node's own
    component, so at a fixed point (every edge joins equal labels) each component carries one
    label, which is its smallest node's index (that node never sees a smaller one).
    Renumbering those by rank gives the components in the order of their smallest node:
    scipy's order (its traversal starts a new component at each unlabelled node, in index
    order)."""
    lab = np.arange(n, dtype=np.int64)
    for done in range(rounds + 1):
        lu, lv = lab[u], lab[v]
        if bool((lu == lv).all()):
            roots = lab == np.arange(n)
            return int(roots.sum()), (np.cumsum(roots) - 1)[lab]
        if done == rounds:
            return None
        m = np.minimum(lu, lv)
        np.minimum.at(lab, lu, m)  # hooking: the labels themselves take the minimum too
        np.minimum.at(lab, lv, m)
        np.minimum.at(lab, u, m)
        np.minimum.at(lab, v, m)
        lab = lab[lab]  # pointer jumping: a label's own label is in the same component
    return None  # pragma: no cover - the loop always returns


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
    ``(u[e], v[e])``, numbered as ``scipy.sparse.csgraph.connected_components`` numbers them:
    by :func:`_propagated_labels` when the graph is small and shallow and scipy's graph module
    is not loaded yet (module docstring), else by scipy."""
    found = None
    if n <= PROPAGATION_MAX_NODES and "scipy.sparse.csgraph" not in sys.modules:
        found = _propagated_labels(n, u, v, PROPAGATION_ROUNDS)
    count, labels = found if found is not None else _scipy_labels(n, u, v)
    return count, labels.astype(np.int64)


def _scipy_labels(n: int, u: np.ndarray, v: np.ndarray) -> tuple[int, np.ndarray]:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    g = sp.coo_array((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
    count, labels = connected_components(g, directed=False)
    return int(count), labels
