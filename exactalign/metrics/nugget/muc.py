"""The MUC-style scheme (``--scheme muc``): exact span COR, overlap PAR, P = credit / ACT,
R = credit / POS, and the alignment of highest corpus F -- with optional gold mentions a ratio,
maximised exactly by Dinkelbach's method (:func:`muc_evaluate`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ...core.fractional import dinkelbach_oracle
from ...io.tbf import Mention, TbfFile, TbfWarning, TokenTable, canonical
from ...problems import bipartite
from ..aggregation import PRF, micro
from .instances import PLAIN, combination_masks, dice_pairs
from .mappings import MAPPINGS, SPAN_FIRST, method_for
from .reading import document_pairs, setup_evaluation

#: Partial credit of an overlapping pair under the MUC scheme: MUC's 0.5, or the pair's Dice.
PARTIAL_CREDITS = ("half", "dice")


@dataclass(frozen=True, eq=False)
class MucInstance:
    """One document and attribute combination under the MUC scheme: ``credits`` (gold rows,
    system columns) has weight 1 for a pair with the same unit set (COR) and the partial credit
    (0.5 or the pair's Dice, < 1) for any other pair sharing a unit (PAR), on the pairs whose
    attributes agree; ``optional`` marks the optional gold mentions (counted only if aligned)."""

    credits: bipartite.BipartiteInstance
    optional: np.ndarray  # bool per gold mention
    n_system: int

    @property
    def n_required(self) -> int:
        return int(len(self.optional) - self.optional.sum())

    def counts(self, alignment) -> MucCounts:
        """COR, PAR, credit, ACT and POS of ``alignment`` (re-verified by the checker)."""
        al = np.asarray(alignment, dtype=np.int64).reshape(-1, 2)
        credit = bipartite.check(self.credits, al)
        w = self.credits.weights[self.credits.pair_index(al)]
        cor = int((w >= 1.0).sum())
        opt = int(self.optional[al[:, 0]].sum()) if len(al) else 0
        return MucCounts(cor, len(al) - cor, credit, self.n_system, self.n_required + opt, opt)


@dataclass(frozen=True)
class MucCounts:
    """MUC counts: P = credit / ACT, R = credit / POS with credit = COR + partial credits (0.5
    each under MUC), ACT = system mentions, POS = required gold mentions + aligned optional
    ones. F = 2 credit / (ACT + POS)."""

    cor: int
    par: int
    credit: float
    act: int
    pos: int
    optional_aligned: int = 0

    @property
    def prf(self) -> PRF:
        return PRF(self.credit, self.pos, self.credit, self.act)


@dataclass(frozen=True, eq=False)
class MucDocument:
    doc_id: str
    n_gold: int
    n_system: int
    alignments: Mapping[str, np.ndarray]
    counts: Mapping[str, MucCounts]
    instances: Mapping[str, MucInstance] = field(repr=False)

    @property
    def valid(self) -> bool:
        return self.n_gold > 0


@dataclass(eq=False)
class MucScore:
    """The corpus under one mapping and the MUC scheme. ``ratio[c]`` is, for the exact mapping,
    the :class:`~exactalign.core.fractional.RatioResult` of maximising corpus F for combination
    ``c`` (status, bound, iterations); ``None`` for heuristics."""

    mapping: str
    partial: str
    combinations: tuple[str, ...]
    documents: list[MucDocument]
    ratio: dict

    @property
    def valid_documents(self) -> list[MucDocument]:
        return [d for d in self.documents if d.valid]

    def micro(self, combination: str = PLAIN) -> PRF:
        return micro(d.counts[combination].prf for d in self.valid_documents)

    def totals(self, combination: str = PLAIN) -> MucCounts:
        cs = [d.counts[combination] for d in self.valid_documents]
        return MucCounts(sum(c.cor for c in cs), sum(c.par for c in cs),
                         sum(c.credit for c in cs), sum(c.act for c in cs),
                         sum(c.pos for c in cs), sum(c.optional_aligned for c in cs))

    def status(self, combination: str = PLAIN) -> str:
        r = self.ratio.get(combination)
        return "feasible" if r is None else r.status.value


@dataclass(eq=False)
class MucEvaluation:
    gold_path: str
    system_path: str
    mode: str
    attributes: tuple[str, ...]
    combinations: tuple[str, ...]
    partial: str
    scores: dict[str, MucScore]
    warnings: list[TbfWarning]


def muc_instances(gold: Sequence[Mention], system: Sequence[Mention],
                  combos: Sequence[tuple[int, ...]], partial: str = "half",
                  optional: Sequence[bool] | None = None) -> list[MucInstance]:
    """One :class:`MucInstance` per combination (pairs filtered as in
    :func:`document_instances`). Exact span match: the two unit *sets* are equal."""
    if partial not in PARTIAL_CREDITS:
        raise ValueError(f"unknown partial credit {partial!r}; choose one of "
                         + ", ".join(PARTIAL_CREDITS))
    r, c, inter, dice = dice_pairs(gold, system)
    g_n = np.array([len(m.units) for m in gold], dtype=np.float64)
    s_n = np.array([len(m.units) for m in system], dtype=np.float64)
    same = (inter == g_n[r]) & (inter == s_n[c])
    w = np.where(same, 1.0, 0.5 if partial == "half" else dice)
    opt = np.zeros(len(gold), dtype=bool) if optional is None else np.asarray(optional, bool)
    return [MucInstance(bipartite.BipartiteInstance(len(gold), len(system), r[k], c[k], w[k]),
                        opt, len(system))
            for k in combination_masks(gold, system, r, c, combos)]


def muc_evaluate(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
                 partial: str = "half", optional_values: Iterable[str] = (),
                 token_tables: Mapping[str, TokenTable | None] | None = None,
                 type_whitelist: Iterable[str] | None = None, strict: bool = False,
                 max_iter: int = 100) -> MucEvaluation:
    """Score under the MUC-style scheme (Liu et al. 2015, section 3.1; Chinchor 1992).

    Per document and attribute combination, an alignment (1:1) of gold and system mentions on
    the candidate pairs of :func:`muc_instances` gives COR (aligned pairs with equal spans), PAR
    (other aligned pairs), credit = COR + partial credits; P = credit / ACT, R = credit / POS
    (the pilot study's footnote formula has ACT and POS swapped; this is MUC's). A gold mention
    with an attribute (canonically) in ``optional_values`` is optional: it counts in POS only
    when aligned, as MUC's optional keys do. The documents entering the averages are those with
    gold mentions (as v1.8).

    Mappings: a heuristic (``kbp``, ``kbp-gold-order``, ``pilot2015``) runs on the credit
    weights, ignoring optionality, as a greedy scorer would; ``exact`` maximises **corpus micro
    F** = 2 Σ credit / Σ (ACT + POS) over all alignments of all documents -- MUC's "highest F
    over all possible alignments". Without optional mentions the denominator is constant and
    that is a maximum-weight matching per document; with them F is a ratio, maximised by
    Dinkelbach's method (:func:`exactalign.core.fractional.dinkelbach_oracle`): the
    parametric problem max Σ 2·credit − λ (ACT + POS) separates into one matching per document
    with weights ``2 c_e − λ [gold of e optional]`` (pairs of weight <= 0 dropped), each solved
    by the certified assignment path, so the final P(λ) <= 0 proves λ optimal."""
    mappings = list(dict.fromkeys(mappings))
    for m in mappings:
        if m in SPAN_FIRST:
            raise ValueError(f"mapping {m} is not defined for the muc scheme")
        method_for(m, "exact")
    attributes, combos, names, warnings = setup_evaluation(gold, system)
    opt_vals = frozenset(canonical(v) for v in optional_values)
    docs = []
    for doc_id, g, s in document_pairs(gold, system, warnings, token_tables=token_tables,
                                       type_whitelist=type_whitelist, strict=strict):
        optional = [bool(opt_vals & set(m.canonical_attributes)) for m in g]
        docs.append((doc_id, len(g), len(s), dict(zip(
            names, muc_instances(g, s, combos, partial, optional), strict=True))))
    scores = {}
    for m in mappings:
        al: dict[str, list[np.ndarray]] = {}
        ratio: dict = {}
        for c in names:
            insts = [d[3][c] for d in docs]
            if m == "exact":
                res = _muc_exact(insts, [d[1] > 0 for d in docs], max_iter)
                ratio[c], al[c] = res, list(res.x)
            else:
                al[c] = [bipartite.HEURISTICS[MAPPINGS[m]](i.credits) for i in insts]
        documents = [MucDocument(d[0], d[1], d[2], {c: al[c][k] for c in names},
                                 {c: d[3][c].counts(al[c][k]) for c in names}, d[3])
                     for k, d in enumerate(docs)]
        scores[m] = MucScore(m, partial, names, documents, ratio)
    return MucEvaluation(gold.path, system.path, gold.mode, attributes, names, partial, scores,
                         warnings)


def _muc_exact(insts: list[MucInstance], valid: list[bool], max_iter: int):
    """Maximise corpus F over the valid documents' alignments (see :func:`muc_evaluate`);
    returns the RatioResult, whose ``x`` is the list of per-document alignments (empty for
    documents outside the averages)."""
    use = [i for i, v in zip(insts, valid, strict=True) if v]
    const = sum(i.n_system + i.n_required for i in use)
    empty = np.zeros((0, 2), dtype=np.int64)

    def ratio_of(x):
        cs = [i.counts(a) for i, a in zip(use, x, strict=True)]
        return 2.0 * sum(c.credit for c in cs), float(sum(c.act + c.pos for c in cs))

    def param_solve(lam):
        x, value, bound, proven = [], -lam * const, -lam * const, True
        for i in use:
            w = 2.0 * i.credits.weights - lam * i.optional[i.credits.rows]
            keep = w > 0
            sub = bipartite.BipartiteInstance(i.credits.n_ref, i.credits.n_pred,
                                              i.credits.rows[keep], i.credits.cols[keep],
                                              w[keep])
            r = bipartite.solve(sub, "exact")
            x.append(r.alignment)
            value += r.objective
            bound += r.bound
            proven &= r.proven_optimal
        return x, value, bound, proven

    if const == 0:  # no system and no required gold mention: every alignment is empty
        res = dinkelbach_oracle(lambda lam: ([empty] * len(use), 0.0, 0.0, True),
                                lambda x: (0.0, 1.0), x0=None, den_min=1.0)
    else:
        x0 = [bipartite.greedy(i.credits) for i in use]
        res = dinkelbach_oracle(param_solve, ratio_of, x0=x0, den_min=float(const),
                                max_iter=max_iter)
    it = iter(res.x)
    return replace(res, x=[next(it) if v else empty for v in valid])
