"""Scoring a corpus under v1.8's Dice scheme (:func:`evaluate`): every document's instances
solved under each mapping, the per-type table, and -- with ``coref`` -- v1.8's coreference
evaluation; :func:`evaluate_files` reads and scores under either scheme."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ...io.tbf import (
    DEFAULT_ATTRIBUTES,
    TOKEN_FILE_EXT,
    TOKEN_OFFSET_FIELDS,
    Mention,
    TbfFile,
    TokenTable,
)
from ...problems import bipartite
from .coreference import (
    check_threshold,
    coref_evaluate,
    coref_rows,
    document_chains,
    resolve_coref_combination,
)
from .hierarchy import LevelCredit
from .instances import PLAIN, combination_name, document_instances
from .mappings import SPAN_FIRST, method_for, span_first_results
from .muc import MucEvaluation, muc_evaluate
from .reading import document_pairs, read_pair, setup_evaluation, type_filter
from .scores import DocumentScore, NuggetEvaluation, NuggetScore, TypeScore

#: Scoring schemes: v1.8's Dice partial credit, or MUC's COR/PAR (see :func:`muc_evaluate`).
SCHEMES = ("dice", "muc")


def evaluate(gold: TbfFile, system: TbfFile, *, mappings: Iterable[str] = ("kbp",),
             token_tables: Mapping[str, TokenTable | None] | None = None,
             type_whitelist: Iterable[str] | None = None, compat: bool = False,
             strict: bool = False, exact_method: str = "exact",
             solve_options: Mapping | None = None,
             attribute_credits: Mapping[int | str, LevelCredit] | None = None,
             coref: bool = False, coref_combination: str | None = None,
             coref_threshold: float = 1.0) -> NuggetEvaluation:
    """Score ``system`` against ``gold`` under each mapping.

    ``token_tables`` (token mode): document id -> its table, or ``None`` when missing (a
    warning; ids unchecked); token ids of scored mentions must be in their table.
    ``type_whitelist``: canonical types to keep (v1.8's ``-wl``). ``compat``: the per-type
    table as v1.8 prints it (see the module docstring). ``exact_method``: ``exact``
    (assignment) or ``ilp`` (then ``solve_options`` -- backend, time_limit, seed -- apply).
    ``strict``: warnings become :class:`InputError`. ``attribute_credits``: attribute (index
    or name) -> :class:`LevelCredit`, hierarchical partial credit instead of equality for those
    attributes (see :func:`document_instances`); the per-type table then sums weighted TP.

    ``coref=True`` adds v1.8's coreference evaluation (its ``-c``) to every mapping's
    :attr:`NuggetScore.coref` (see :func:`coref_evaluate`): the mentions are put on rows through
    that mapping's alignment of ``coref_combination`` (default: the first attribute alone, v1.8's
    ``mention_type``; ``plain`` for spans only, v1.8's ``-m``) kept where the pair's weight is
    at least ``coref_threshold`` (v1.8's ``-ct``, default 1: identical spans)."""
    mappings = list(dict.fromkeys(mappings))
    methods = {m: method_for(m, exact_method) for m in mappings}
    opts = dict(solve_options or {})
    attributes, combos, names, warnings = setup_evaluation(gold, system)
    credits = _credit_indices(attribute_credits, attributes)
    if coref:
        coref_combination = resolve_coref_combination(coref_combination, names)
        check_threshold(coref_threshold)
    per_doc: dict[str, list[DocumentScore]] = {m: [] for m in mappings}
    chains: list[tuple[list[frozenset[str]], list[frozenset[str]]]] = []
    mentions: list[tuple[list[Mention], list[Mention]]] = []
    if type_whitelist is not None:
        type_whitelist = list(type_whitelist)
    filtered = type_filter(type_whitelist) is not None
    docs = []  # (doc id, gold mentions, system mentions, instance per combination)
    for doc_id, g, s in document_pairs(gold, system, warnings, token_tables=token_tables,
                                       type_whitelist=type_whitelist, strict=strict):
        if coref:
            chains.append(document_chains(gold, system, doc_id, g, s, filtered=filtered))
            mentions.append((g, s))
        docs.append((doc_id, g, s, dict(zip(names, document_instances(g, s, combos, credits),
                                            strict=True))))
    for m in mappings:
        if m in SPAN_FIRST:
            results = [span_first_results(m, inst) for _, _, _, inst in docs]
        else:  # per combination, every document's instance in one call (see solve_many)
            solved = {n: bipartite.solve_many([inst[n] for _, _, _, inst in docs], methods[m],
                                              **opts) for n in names}
            results = [{n: solved[n][k] for n in names} for k in range(len(docs))]
        for (doc_id, g, s, instances), res in zip(docs, results, strict=True):
            per_doc[m].append(DocumentScore(doc_id, len(g), len(s),
                                            len({x.mention_id for x in s}), res, instances,
                                            tuple(x.type for x in g), tuple(x.type for x in s),
                                            tuple(x.mention_id for x in g),
                                            tuple(x.mention_id for x in s)))
    type_combo = _type_combination(combos, attributes, compat)
    scores = {m: NuggetScore(m, names, per_doc[m], _per_type(per_doc[m], type_combo, compat),
                             type_combo, compat) for m in mappings}
    if coref:
        for sc in scores.values():
            rows = [coref_rows(d.doc_id, g, s, g_chains, s_chains,
                               *d.pair_weights(coref_combination), coref_threshold)
                    for d, (g, s), (g_chains, s_chains) in zip(sc.documents, mentions, chains,
                                                               strict=True)]
            sc.coref = coref_evaluate(rows, coref_combination, coref_threshold)
    return NuggetEvaluation(gold.path, system.path, gold.mode, attributes, names, compat, scores,
                            warnings, credits)


def _credit_indices(credits, attributes: Sequence[str]) -> dict[int, LevelCredit]:
    out = {}
    for key, credit in (credits or {}).items():
        if isinstance(key, str):
            if key not in attributes:
                raise ValueError(f"unknown attribute {key!r} for partial credit; the "
                                 f"attributes are {', '.join(attributes)}")
            key = attributes.index(key)
        if not 0 <= key < len(attributes):
            raise ValueError(f"attribute index {key} out of range")
        out[int(key)] = credit
    return out


def _type_combination(combos, attributes, compat: bool) -> str:
    """The combination whose alignment the per-type table uses: v1.8 (compat) keeps the last
    combination whose first attribute is the type (attribute 0); corrected, the type alone."""
    with_type = [c for c in combos if c and c[0] == 0]
    if not with_type:
        return PLAIN
    return combination_name(with_type[-1] if compat else (0,), attributes)


def _per_type(docs: list[DocumentScore], combination: str, compat: bool) -> dict[str, TypeScore]:
    tp: dict[str, float] = {}
    n_gold: dict[str, int] = {}
    n_sys: dict[str, int] = {}
    for d in docs:
        g_types, s_types = d.gold_types, d.system_types
        al, w = d.pair_weights(combination)
        for (gi, _), x in zip(al.tolist(), w.tolist(), strict=True):
            tp[g_types[gi]] = tp.get(g_types[gi], 0.0) + x
        for t in g_types:
            n_gold[t] = n_gold.get(t, 0) + 1
        for t in s_types:
            n_sys[t] = n_sys.get(t, 0) + 1
    types = set(n_gold) if compat else set(n_gold) | set(n_sys)
    return {t: TypeScore(t, tp.get(t, 0.0), n_gold.get(t, 0), n_sys.get(t, 0))
            for t in sorted(types)}


def evaluate_files(gold_path, system_path, *, token_dir=None, token_ext: str = TOKEN_FILE_EXT,
                   offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
                   attributes: Sequence[str] = DEFAULT_ATTRIBUTES, type_whitelist=None,
                   scheme: str = "dice", **kwargs) -> NuggetEvaluation | MucEvaluation:
    """Read and score: token mode when ``token_dir`` is given (as v1.8's ``-t``), character
    mode otherwise. ``type_whitelist``: a file (v1.8's ``-wl``) or an iterable of types.
    ``scheme``: ``dice`` (v1.8, other keywords go to :func:`evaluate`) or ``muc`` (other
    keywords go to :func:`muc_evaluate`). A ``token_dir`` that is not a directory is an error
    (v1.8 silently falls back to the current directory)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    gold, system, tables, type_whitelist = read_pair(
        gold_path, system_path, token_dir=token_dir, token_ext=token_ext,
        offset_fields=offset_fields, attributes=attributes, type_whitelist=type_whitelist,
        strict=kwargs.get("strict", False))
    score = evaluate if scheme == "dice" else muc_evaluate
    return score(gold, system, token_tables=tables, type_whitelist=type_whitelist, **kwargs)
