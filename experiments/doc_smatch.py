"""Document-level Smatch: how far docSmatch's sentence-restricted hill-climbing falls below the
proven optimum over its own (restricted) candidate space and below the unrestricted Smatch
optimum, what the sentence restriction itself costs, and whether system rankings change.

Documents (DocAMR-style, :func:`exactalign.io.docamr.join_sentences`: a ``document`` top with
``:sntK`` edges, variables renamed ``s<k>.<var>``, coreference-like merges of a sentence's
entity mention into an earlier sentence's node of the same concept):

* ``lpp-v3.0`` -- the Little Prince bank v3.0 chapter by chapter (27 chapters of 12 to 166
  sentences); a chapter longer than ``max_sentences`` is split into the fewest parts of at most
  that many sentences, as even as possible (parts ``ch10.1``, ``ch10.2``, ...; ``parts`` keeps
  only the first parts of each chapter, ``chapters`` only some chapters). Systems: the seeded
  perturbation profiles ``systems`` of :data:`exactalign.perturb.amr.PROFILES` (``lexical``:
  wrong concepts, senses, roles and constants; ``structural``: missed subgraphs and
  reentrancies, wrong attachments), applied sentence by sentence;
* ``lp-jamr-camr`` -- the real JAMR and CAMR parses of the Little Prince v1.6 test sentences
  1460-1562 (consecutive) against their gold, documents of ``parser_window`` consecutive
  sentences;
* ``lp-bart-t5`` -- the real BART- and T5-based parses of 200 Little Prince sentences, sorted
  into text order (their ids skip: a document's sentences are in order but not adjacent; the
  row's ``sentence_span`` shows the ids), documents of ``parser_window`` sentences.

The gold document and every system document are merged independently (a system may merge
differently than gold): each non-top node that is an entity mention (:func:`is_mention`: a
concept without a sense suffix, not a connective or special concept, the target of a core role
or ``:poss``) and whose concept an earlier sentence has is merged into the earliest such node
with probability ``merge``. ``merges_gold``/``merges_test``: the nodes merged away.

Scale: docSmatch's hill-climbing is pure Python (as docSmatch's own); on the whole 166-sentence
chapter 26 (about 870 variables a side) it took 143 s (the unrestricted optimum 45 s before
column generation), so ``FULL`` splits chapters at ``max_sentences`` = 60 (41 documents of 12-60
sentences, at most about 440 variables a side): 142 document pairs in 2.5 minutes with
``--jobs 2`` (CPU: the hill-climbing 237 s, the unrestricted optima 43 s, at most 1.0 s a
pair). ``QUICK``:
the first 10 sentences of three chapters and two 10-sentence windows of each parser pair, a
few seconds.

Without pilot data the documents are windows of ``synthetic_sentences`` synthetic AMR-like
sentences (:func:`exactalign.synthetic.random_amr_sentences`), the source named ``synthetic``,
with the same perturbation systems and no parser rows.

Per (document, system) one row: sizes (variables, triples, merges), candidate pairs with and
without docSmatch's restriction (the useful variable pairs of each instance), docSmatch's
hill-climbing (``restarts`` random restarts, seeded; the hill-climber of
:mod:`exactalign.problems.latent.hillclimb` on the restricted instance, which reproduces
docSmatch's climb call for call), the exact optimum over the restricted candidates and over
all pairs (``exactalign.metrics.smatch.score_pairs``, each with ``time_limit`` seconds: status,
matched triples, F1, bound, time). Duplicate triples count once (``duplicates="set"``) in all
three, so they are comparable.

Derived columns (F1 points, 100 x F1 difference, per document): ``gap_restricted_f1`` --
hill-climbing below the best restricted mapping known (the restricted optimum when proven);
``gap_unrestricted_f1`` -- below the best mapping known at all; ``restriction_cost_f1`` --
best unrestricted F1 known minus best restricted F1 known (the restriction's cost when both are
proven; ``proven`` says whether they are). A solve stopped by its time limit keeps its status
(``time_limit``) and bound: it is never reported as optimal.

Invariants (:class:`ExperimentError`): the hill-climbing never above a restricted or
unrestricted bound; the restricted incumbent never above the unrestricted bound; when proven,
hill-climbing <= restricted optimum <= unrestricted optimum.
"""

from __future__ import annotations

import functools
import math
import re
import time
import zlib
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_parser_runs, little_prince_chapters
from exactalign.io.amr import graph_from_tree
from exactalign.io.docamr import join_sentences
from exactalign.metrics import smatch
from exactalign.perturb.amr import PROFILES, AmrInventory, perturb_graphs

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "doc_smatch"
DESCRIPTION = ("Document-level Smatch: docSmatch's sentence-restricted hill-climbing vs the "
               "restricted and the unrestricted proven optimum on DocAMR-style documents "
               "(Little Prince chapters with perturbed systems and coreference merges; "
               "JAMR/CAMR and BART/T5 parses); the restriction's cost; system rankings.")
DATA_SOURCE = ("pilot data: the Little Prince AMR bank v3.0 (amr/gold-banks) chapter by "
               "chapter with two seeded perturbation systems, and the real JAMR/CAMR and "
               "BART/T5 parses of Little Prince sentences (amr/lpp-test-jamr-camr, "
               "amr/lpp-two-parsers); without it, documents of synthetic AMR-like sentences "
               "(exactalign.synthetic.random_amr_sentences) with the same perturbation systems "
               "and no parser rows")
DATA_READS = ("amr/gold-banks", "amr/lpp-test-jamr-camr", "amr/lpp-two-parsers")
SEEDING = ("perturbations: exactalign.perturb.amr.perturb_graphs with seed "
           "config['seed'] * 1000 + k for the k-th system, sentence index = position in the "
           "source; merges: random.Random(crc32 of 'seed/source/document/gold' or "
           "'.../system') per document (the gold and each system merge independently); "
           "hill-climbing: random.Random(crc32 of 'seed/source/document/system/hillclimb'); "
           "synthetic sentences: random_amr_sentences(seed=[config['seed'], 37])")

FULL = {
    "seed": 0,
    "systems": ["lexical", "structural"],
    "merge": 0.5,
    "chapters": None,          # all 27
    "max_sentences": 60,
    "parts": None,             # every part
    "parser_runs": ["lp-jamr-camr", "lp-bart-t5"],
    "parser_window": 10,
    "parser_docs": None,       # every window
    "restarts": 4,
    "time_limit": 300.0,
    "hillclimb_time_limit": 900.0,
    "synthetic_docs": 10,
    "synthetic_sentences": 30,
}

QUICK = {**FULL, "chapters": [1, 13, 27], "max_sentences": 10, "parts": 1, "parser_window": 10,
         "parser_docs": 2, "time_limit": 60.0, "hillclimb_time_limit": 60.0,
         "synthetic_docs": 3, "synthetic_sentences": 5}

COLUMNS = ("source", "document", "system", "kind", "sentences", "sentence_span",
           "merges_gold", "merges_test", "variables_test", "variables_gold", "triples_test",
           "triples_gold", "pairs_restricted", "pairs_unrestricted",
           "hc_matched", "hc_f1", "hc_status", "hc_time_s",
           "restricted_matched", "restricted_f1", "restricted_status", "restricted_bound",
           "restricted_time_s",
           "unrestricted_matched", "unrestricted_f1", "unrestricted_status",
           "unrestricted_bound", "unrestricted_time_s",
           "proven", "gap_restricted_f1", "gap_unrestricted_f1", "restriction_cost_f1",
           "fallback", "error")

FIGURES = ("doc_gaps.png",)

#: The source name of the synthetic fallback documents.
SYNTHETIC = "synthetic"
#: Concepts that are never an entity mention a coreference merge could join.
NON_MENTIONS = frozenset({"and", "or", "either", "neither", "name", "amr-unknown",
                          "amr-choice", "multi-sentence", "slash", "-"})
_SENSE = re.compile(r"-\d\d$")
_MENTION_ROLES = re.compile(r"^:(ARG\d|poss)$")


def is_mention(graph, var: str) -> bool:
    """Whether ``var`` of a sentence graph (:class:`penman.Graph`) may be merged with an
    earlier sentence's node: an entity mention -- its concept has no sense suffix (not a
    predicate), is not in :data:`NON_MENTIONS` nor a ``-entity`` / ``-quantity`` frame, and
    ``var`` fills a core role or ``:poss`` of some node."""
    concept = next((c for v, _, c in graph.instances() if v == var), None)
    if (concept is None or _SENSE.search(concept) or concept in NON_MENTIONS
            or concept.endswith(("-entity", "-quantity"))):
        return False
    return any(t == var and _MENTION_ROLES.match(r) for _, r, t in graph.edges())


def crc_seed(*parts) -> int:
    """A seed from ``parts``: the CRC-32 of their ``/``-joined text."""
    return zlib.crc32("/".join(map(str, parts)).encode())


def smatch_graph(graph):
    """The smatch triples (:class:`~exactalign.io.amr.AmrGraph`) of a penman graph, through
    PENMAN's layout as a file would hold it."""
    import penman

    return graph_from_tree(penman.configure(graph))


def _parts(n: int, cap: int) -> list[tuple[int, int]]:
    """``[start, end)`` of the fewest parts of at most ``cap`` of ``n`` items, as even as
    possible."""
    k = max(1, math.ceil(n / cap))
    bounds = [round(i * n / k) for i in range(k + 1)]
    return list(zip(bounds, bounds[1:], strict=False))


def _ids(graphs) -> str:
    a, b = (g.metadata.get("id", "") for g in (graphs[0], graphs[-1]))
    return f"{a}..{b}" if a and b else ""


# --------------------------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------------------------
def documents(config: dict) -> list[dict]:
    """``{"source", "document", "kind", "systems": {name: sentence graphs}, "gold": sentence
    graphs, "span"}`` per document, before joining (penman graphs)."""
    data = resolve_data_dir()
    out = []
    if not data.available:
        from exactalign import synthetic

        n, k = config["synthetic_docs"], config["synthetic_sentences"]
        bank = synthetic.random_amr_sentences(n * k, seed=[config["seed"], 37])
        docs = [(f"doc{d + 1}", bank[d * k:(d + 1) * k], d * k) for d in range(n)]
        return _perturbed(config, SYNTHETIC, docs, AmrInventory.from_graphs(bank))
    amr = data.require("amr")
    chapters = little_prince_chapters(amr)
    wanted = config["chapters"] or range(1, len(chapters) + 1)
    docs, offsets = [], np.cumsum([0] + [len(c) for c in chapters])
    for c in wanted:
        sents = chapters[c - 1]
        parts = _parts(len(sents), config["max_sentences"])
        for p, (a, b) in enumerate(parts[:config["parts"]] if config["parts"] else parts):
            name = f"ch{c}" if len(parts) == 1 else f"ch{c}.{p + 1}"
            docs.append((name, sents[a:b], int(offsets[c - 1]) + a))
    inv = AmrInventory.from_graphs(g for ch in chapters for g in ch)
    out += _perturbed(config, "lpp-v3.0", docs, inv)
    for run in amr_parser_runs(amr, config["parser_runs"]):
        w = config["parser_window"]
        starts = list(range(0, len(run.gold) - w + 1, w))[:config["parser_docs"]]
        for s in starts:
            out.append({"source": run.name, "document": f"w{s // w + 1}", "kind": "parser",
                        "gold": run.gold[s:s + w], "span": _ids(run.gold[s:s + w]),
                        "systems": {k: v[s:s + w] for k, v in run.systems.items()}})
    return out


def _perturbed(config: dict, source: str, docs, inv: AmrInventory) -> list[dict]:
    """Documents ``(name, sentence graphs, index of the first sentence)`` with each
    perturbation system's sentences (sentence index = position in the source, so a sentence's
    errors do not depend on the document it falls in)."""
    out = []
    for name, sents, first in docs:
        systems = {}
        for k, system in enumerate(config["systems"]):
            ps = perturb_graphs(sents, PROFILES[system], inv, seed=config["seed"] * 1000 + k,
                                first_index=first)
            systems[system] = [p.graph for p in ps]
        out.append({"source": source, "document": name, "kind": "perturbed", "gold": sents,
                    "span": _ids(sents) or f"{first + 1}..{first + len(sents)}",
                    "systems": systems})
    return out


def units(config: dict) -> list[dict]:
    """One unit per (document, system): the joined test and gold documents (smatch triples)
    with their identifying cells."""
    out = []
    for doc in documents(config):
        key = (config["seed"], doc["source"], doc["document"])
        gold_doc = join_sentences(doc["gold"], merge=config["merge"],
                                  seed=crc_seed(*key, "gold"), mergeable=is_mention)
        gold = smatch_graph(gold_doc)
        n_gold = sum(len(g.variables()) for g in doc["gold"]) + 1
        for system, sents in doc["systems"].items():
            test_doc = join_sentences(sents, merge=config["merge"],
                                      seed=crc_seed(*key, "system"), mergeable=is_mention)
            test = smatch_graph(test_doc)
            out.append({"source": doc["source"], "document": doc["document"],
                        "system": system, "kind": doc["kind"], "sentences": len(sents),
                        "sentence_span": doc["span"],
                        "merges_gold": n_gold - len(gold.variables),
                        "merges_test": sum(len(g.variables()) for g in sents) + 1
                        - len(test.variables),
                        "test": test, "gold": gold, "hc_seed": crc_seed(*key, system,
                                                                     "hillclimb")})
    return out


def _unit_key(u: dict) -> str:
    return f"{u['source']}/{u['document']}/{u['system']}"


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def _f1(matched, test: int, gold: int) -> float:
    return smatch.smatch_scores(matched, test, gold).f1


def candidate_pairs(test, gold) -> tuple[int, int]:
    """The useful variable pairs (some triple pair needs them) with and without docSmatch's
    sentence restriction (triples counted once, as :func:`score_pairs` does)."""
    allowed = smatch.allowed_pairs(test, gold)  # on the graphs as read, as score_pairs does
    t, g = smatch.distinct(test)[0], smatch.distinct(gold)[0]
    return (smatch.instance_of(t, g, allowed=allowed).num_pairs,
            smatch.instance_of(t, g).num_pairs)


def check_row(row: dict) -> None:
    """The invariants of one row (module docstring); :class:`ExperimentError` when violated."""
    name = _unit_key(row)
    hc, rx, ux = row["hc_matched"], row["restricted_matched"], row["unrestricted_matched"]
    rb, ub = row["restricted_bound"], row["unrestricted_bound"]
    eps = 1e-6
    if hc > rb + eps or hc > ub + eps:
        raise ExperimentError(f"{name}: hill-climbing ({hc}) above a bound ({rb}, {ub})")
    if rx > ub + eps or rx > rb + eps or ux > ub + eps:
        raise ExperimentError(f"{name}: an incumbent above its bound")
    if row["restricted_status"] == "optimal" and hc > rx + eps:
        raise ExperimentError(f"{name}: hill-climbing above the restricted optimum")
    if row["proven"] and rx > ux + eps:
        raise ExperimentError(f"{name}: the restricted optimum above the unrestricted one")


def run_unit(unit: dict, config: dict) -> dict:
    """The row of one (document, system) (module docstring)."""
    test, gold = unit["test"], unit["gold"]
    pair = [(test, gold)]
    hc = smatch.score_pairs(pair, method="hillclimb", restrict="sentence",
                            restarts=config["restarts"], seed=unit["hc_seed"],
                            time_limit=config["hillclimb_time_limit"])
    rx = smatch.score_pairs(pair, method="exact", restrict="sentence",
                            time_limit=config["time_limit"])
    ux = smatch.score_pairs(pair, method="exact", time_limit=config["time_limit"])
    h, r, u = hc.pairs[0].hillclimb, rx.pairs[0].exact, ux.pairs[0].exact
    nt, ng = hc.pairs[0].test_triples, hc.pairs[0].gold_triples
    pr, pu = candidate_pairs(test, gold)
    best_r = max(r.objective, h.objective)
    best_u = max(u.objective, best_r)
    row = {k: unit[k] for k in ("source", "document", "system", "kind", "sentences",
                                "sentence_span", "merges_gold", "merges_test")}
    row.update(
        variables_test=len(test.variables), variables_gold=len(gold.variables),
        triples_test=nt, triples_gold=ng, pairs_restricted=pr, pairs_unrestricted=pu,
        hc_matched=h.objective, hc_f1=_f1(h.objective, nt, ng), hc_status=h.status.value,
        hc_time_s=hc.wall_time["hillclimb"],
        restricted_matched=r.objective, restricted_f1=_f1(r.objective, nt, ng),
        restricted_status=r.status.value, restricted_bound=r.bound,
        restricted_time_s=rx.wall_time["exact"],
        unrestricted_matched=u.objective, unrestricted_f1=_f1(u.objective, nt, ng),
        unrestricted_status=u.status.value, unrestricted_bound=u.bound,
        unrestricted_time_s=ux.wall_time["exact"],
        proven=r.proven_optimal and u.proven_optimal,
        gap_restricted_f1=100 * (_f1(best_r, nt, ng) - _f1(h.objective, nt, ng)),
        gap_unrestricted_f1=100 * (_f1(best_u, nt, ng) - _f1(h.objective, nt, ng)),
        restriction_cost_f1=100 * (_f1(best_u, nt, ng) - _f1(best_r, nt, ng)),
        fallback=fallback_count(r, u))
    check_row(row)
    return row


def _unit_row(unit: dict, config: dict, quiet: bool) -> dict:
    t0 = time.perf_counter()
    row = {c: None for c in COLUMNS}
    row.update(run_unit(unit, config))
    if not quiet:
        print(f"  {NAME}: {_unit_key(unit)} ({row['variables_gold']} variables) "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return row


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """One row per (document, system), in document order; units spread over ``jobs``
    processes (timings then share the machine)."""
    return parallel_map(functools.partial(_unit_row, config=config, quiet=quiet),
                        units(config), jobs=jobs, desc=NAME, quiet=quiet, key=_unit_key,
                        cells=lambda u: {k: u[k] for k in ("source", "document", "system",
                                                           "kind", "sentences")})


# --------------------------------------------------------------------------------------------
# summary, headline and figures (from the CSV alone)
# --------------------------------------------------------------------------------------------
def _corpus_f1(rows: list[dict], col: str) -> float:
    return _f1(sum(r[col] for r in rows), sum(r["triples_test"] for r in rows),
               sum(r["triples_gold"] for r in rows))


def _total_time(r: dict) -> float:
    return r["hc_time_s"] + r["restricted_time_s"] + r["unrestricted_time_s"]


def _groups(rows: list[dict]) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault((r["source"], r["system"]), []).append(r)
    return out


METHODS = (("hc_matched", "hill-climbing"), ("restricted_matched", "restricted optimum"),
           ("unrestricted_matched", "unrestricted optimum"))


def rankings(rows: list[dict]) -> list[dict]:
    """Per source and pair of its systems: the corpus F1 of each under each method, whether
    the order under hill-climbing differs from either optimum's, and the documents whose
    order flips between hill-climbing and the unrestricted optimum."""
    groups = _groups(rows)
    out = []
    for source in dict.fromkeys(r["source"] for r in rows):
        systems = [s for (src, s) in groups if src == source]
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                ra, rb = groups[(source, a)], groups[(source, b)]
                f = {col: (_corpus_f1(ra, col), _corpus_f1(rb, col)) for col, _ in METHODS}
                sign = {col: np.sign(x - y) for col, (x, y) in f.items()}
                by_doc_b = {r["document"]: r for r in rb}
                flips = docs = 0
                for r in ra:
                    o = by_doc_b.get(r["document"])
                    if o is None:
                        continue
                    docs += 1
                    flips += (np.sign(r["hc_f1"] - o["hc_f1"])
                              != np.sign(r["unrestricted_f1"] - o["unrestricted_f1"]))
                out.append({"source": source, "a": a, "b": b, "f1": f,
                            "changed": sign["hc_matched"] != sign["unrestricted_matched"],
                            "changed_restricted": sign["hc_matched"]
                            != sign["restricted_matched"],
                            "doc_flips": int(flips), "docs": docs})
    return out


def summary(rows: list[dict]) -> str:
    """Per (source, system): documents, sizes, hill-climbing below the restricted and the
    unrestricted optimum (share, mean/max F1 points), the restriction's cost, corpus F1 under
    each method, proofs and times; then the system rankings and the unproven documents."""
    lines = ["| source | system | docs | variables mean (max) | pairs restricted / all | "
             "below restricted opt | gap pts mean (max) | below unrestricted opt | "
             "gap pts mean (max) | restriction cost pts mean (max) | corpus F1 hill-climb / "
             "restricted / unrestricted | proven | time s hc / restr / unrestr (max) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (source, system), sel in _groups(rows).items():
        n = len(sel)
        v = [r["variables_test"] + r["variables_gold"] for r in sel]
        gr = np.array([r["gap_restricted_f1"] for r in sel])
        gu = np.array([r["gap_unrestricted_f1"] for r in sel])
        rc = np.array([r["restriction_cost_f1"] for r in sel])
        pr = sum(r["pairs_restricted"] for r in sel) / max(1, sum(r["pairs_unrestricted"]
                                                                  for r in sel))
        lines.append(
            f"| {source} | {system} | {n} | {np.mean(v):.0f} ({max(v)}) | {100 * pr:.1f}% | "
            f"{int((gr > 1e-9).sum())}/{n} | {gr.mean():.3f} ({gr.max():.2f}) | "
            f"{int((gu > 1e-9).sum())}/{n} | {gu.mean():.3f} ({gu.max():.2f}) | "
            f"{rc.mean():.3f} ({rc.max():.2f}) | "
            + " / ".join(f"{_corpus_f1(sel, c):.4f}" for c, _ in METHODS)
            + f" | {sum(bool(r['proven']) for r in sel)}/{n} | "
            + " / ".join(f"{np.mean([r[c] for r in sel]):.1f}" for c in
                         ("hc_time_s", "restricted_time_s", "unrestricted_time_s"))
            + f" ({max(_total_time(r) for r in sel):.1f}) |")
    lines.append("")
    if any(r["source"] == SYNTHETIC for r in rows):
        lines.append("No pilot data: the documents are windows of synthetic AMR-like "
                     "sentences (exactalign.synthetic.random_amr_sentences); no parser rows.")
        lines.append("")
    lines.append("System rankings (corpus F1, micro over the documents):")
    lines.append("")
    for rk in rankings(rows):
        cells = "; ".join(f"{label} {rk['a']} {x:.4f} vs {rk['b']} {y:.4f}"
                          for (col, label), (x, y) in zip(METHODS, rk["f1"].values(),
                                                          strict=True))
        verdict = ("**order changes** (hill-climbing vs unrestricted optimum)" if rk["changed"]
                   else "same order")
        lines.append(f"- {rk['source']}: {cells} -- {verdict}; per document the order flips "
                     f"on {rk['doc_flips']} of {rk['docs']}.")
    unproven = [r for r in rows if not r["proven"]]
    lines.append("")
    if unproven:
        lines.append("Not proven within the time limit (status; bound - incumbent, triples):")
        lines.append("")
        for r in unproven:
            lines.append(f"- {r['source']}/{r['document']}/{r['system']}: restricted "
                         f"{r['restricted_status']} "
                         f"({r['restricted_bound'] - r['restricted_matched']:g}), unrestricted "
                         f"{r['unrestricted_status']} "
                         f"({r['unrestricted_bound'] - r['unrestricted_matched']:g})")
    else:
        lines.append("Every restricted and unrestricted optimum proven within the time limit.")
    lines += ["", "Gaps per document in F1 points against the best mapping known (the optimum "
              "where proven); below: documents where docSmatch's hill-climbing (restricted, "
              "-r 4) ends below it. Restriction cost: unrestricted minus restricted optimum. "
              "Pairs: useful variable pairs docSmatch's restriction keeps, summed."]
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """docSmatch's hill-climbing against the unrestricted optimum, one instance per (document,
    system); the restricted optimum, the restriction's cost and rankings in the finding."""
    n = len(rows)
    gu = np.array([r["gap_unrestricted_f1"] for r in rows])
    gr = np.array([r["gap_restricted_f1"] for r in rows])
    rc = np.array([r["restriction_cost_f1"] for r in rows])
    below = gu > 1e-9
    rk = rankings(rows)
    deficit = {key: 100 * (_corpus_f1(sel, "unrestricted_matched")
                           - _corpus_f1(sel, "hc_matched"))
               for key, sel in _groups(rows).items()}
    worst = max(deficit, key=deficit.get)
    unproven = sum(1 for r in rows if not r["proven"])
    docs = ("synthetic AMR-like documents" if any(r["source"] == SYNTHETIC for r in rows)
            else "document pairs")
    finding = (f"docSmatch's hill-climbing ends below the restricted optimum on "
               f"{100 * (gr > 1e-9).mean():.0f}% of {n} {docs} (up to {gr.max():.2f} F1 "
               f"points) and below the unrestricted optimum on {100 * below.mean():.0f}% "
               f"(mean {gu[below].mean() if below.any() else 0:.2f}, up to {gu.max():.2f}); "
               f"the sentence restriction alone costs {rc.mean():.2f} points per document "
               f"(up to {rc.max():.2f}); corpus F1 below the unrestricted optimum by up to "
               f"{deficit[worst]:.2f} points ({worst[0]} {worst[1]}); system order changes in "
               f"{sum(r['changed'] for r in rk)} of {len(rk)} system pairs")
    finding += (f"; {unproven} not proven within the time limit." if unproven
                else "; every optimum proven.")
    return {"heuristic": "docSmatch hill-climbing -r 4 (sentence-restricted)",
            "unit": "documents × systems", "instances": n, "below": int(below.sum()),
            "gap_mean": float(gu[below].mean()) if below.any() else None,
            "gap_max": float(gu.max()) if n else 0.0, "gap_unit": "F1 points",
            "rankings_changed": sum(r["changed"] for r in rk), "rankings": len(rk),
            "ranking_unit": "system pairs (corpus F1)", "finding": finding}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``doc_gaps.png``: left, per document, the F1 points docSmatch's hill-climbing loses to
    the restricted optimum (search) and the restricted optimum loses to the unrestricted one
    (restriction), against the document's size (hollow: not proven within the time limit);
    right, per source, the corpus F1 difference of its two systems under the three methods (a
    sign change between methods is a ranking change)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, 3.2), layout="constrained",
                                 gridspec_kw={"width_ratios": [1.25, 1]})
    for what, col, style in (("search: hill-climbing to restricted optimum",
                              "gap_restricted_f1", plot.STYLE["greedy"]),
                             ("restriction: restricted to unrestricted optimum",
                              "restriction_cost_f1", plot.STYLE["exact"])):
        for proven, face in ((True, style["color"]), (False, "none")):
            sel = [r for r in rows if bool(r["proven"]) == proven]
            if not sel:
                continue
            ax.plot([r["variables_test"] + r["variables_gold"] for r in sel],
                    [r[col] for r in sel], linestyle="none", marker=style["marker"],
                    color=style["color"], markerfacecolor=face, alpha=0.75, markersize=4,
                    label=what if proven or not any(r["proven"] for r in rows) else None)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    sizes = [r["variables_test"] + r["variables_gold"] for r in rows]
    ticks = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
             if min(sizes, default=1) / 2 <= t <= 2 * max(sizes, default=1)]
    ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
    ax.set_xlabel("variables per document pair (test + gold)")
    ax.set_ylabel("F1 points lost per document")
    top = max([r[c] for r in rows for c in ("gap_restricted_f1", "restriction_cost_f1")],
              default=0)
    ax.set_ylim(0, max(0.1, top) * 1.4)  # room for the legend above the points
    ax.legend(loc="upper left", fontsize=7)
    if any(not r["proven"] for r in rows):
        ax.text(0.99, 0.99, "hollow: not proven in time", transform=ax.transAxes,
                ha="right", va="top", fontsize=7, color="0.35")
    ax.set_title("per document", fontsize=8)
    # rankings: the corpus F1 difference of each source's system pair under each method; a
    # sign change between methods is a ranking change
    rk = rankings(rows)
    styles = (plot.STYLE["greedy"], plot.series_style(4), plot.STYLE["exact"])
    for y, r in enumerate(rk):
        ds = [100 * (a - b) for a, b in r["f1"].values()]
        bx.plot([min(ds), max(ds)], [y, y], color="0.7", linewidth=1, zorder=1)
        for (_, label), d, st in zip(METHODS, ds, styles, strict=True):
            bx.plot([d], [y], linestyle="none", marker=st["marker"], color=st["color"],
                    markersize=6, alpha=0.9, label=label if y == 0 else None, zorder=2)
    bx.axvline(0, color="0.3", linewidth=0.8)
    bx.set_yticks(range(len(rk)), [f"{r['source']}\n{r['a']} − {r['b']}" for r in rk],
                  fontsize=7)
    bx.set_ylim(len(rk) - 0.5, -0.5)
    bx.set_xlabel("first minus second system, corpus F1 points\n(below 0: the second ranks "
                  "first)")
    bx.set_title("system rankings", fontsize=8)
    plot.legend_below(fig, ax=bx, fontsize=7)
    return [plot.save(fig, Path(out_dir) / "doc_gaps.png")]
