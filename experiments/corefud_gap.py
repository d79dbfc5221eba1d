"""How far the CorefUD scorer's staged mention alignment falls below the metric-optimal one, and
whether that changes system rankings (issue 38).

The CorefUD scorer (ufal/corefud-scorer v1.2, reproduced bit for bit by
:mod:`exactalign.metrics.coref.corefud`) aligns key and response mentions in stages -- zeros by
their dependencies, identical mentions, then an assignment on the match score -- and computes
MUC, B³, CEAFe, CEAFm and LEA on that alignment. The exact counterpart
(:mod:`exactalign.metrics.coref.corefud_exact`) chooses, per metric, the 1:1 alignment of largest
F1 over every pair the matching allows, solved and certified.

Data (pilot-free: the experiment needs no pilot data; it adds real documents when fetched)
------------------------------------------------------------------------------------------
* ``generated`` -- ``corpora`` seeded gold corpora of ``documents`` CorefUD documents each
  (:func:`exactalign.perturb.corefud.random_document`: sentences with empty nodes carrying
  enhanced dependencies, entities of spans with heads and of zeros), and per corpus one
  response per *system*: the gold perturbed by :func:`exactalign.perturb.corefud.perturb` at the
  system's rate (boundary errors, head shifts, split and merged entities, dropped and spurious
  mentions, dropped and spurious zeros, changed zero dependencies, repeated mentions), with
  ``rounds_per_mention`` rounds of errors per gold mention (at least 3). The systems of one
  corpus are ranked against each other.
* ``gum`` -- real documents, only when the registry's extra files ``coref/ud-english-gum`` are
  there (:func:`exactalign.data.extra_root`; ``exactalign data fetch --only
  coref/ud-english-gum``): UD English-GUM's dev (and, in the full run, test) files, 30 documents
  each of 165 to 362 mentions (singletons included), read as gold by
  :func:`exactalign.perturb.corefud.read_documents` (heads from the dependency tree: GUM's
  annotation names none) and written back with :func:`~exactalign.perturb.corefud.to_corefud`;
  the systems are the same seeded perturbations at the same rates (``rounds_per_mention``). The
  corpus is the file (``real.documents``: only its first N documents); only the first zero
  matching of the config is run, as GUM has no empty nodes (the key has no zero a zero
  matching could pair: ``dependent`` and ``linear`` give the same rows). No public system output
  for these files was found, so there are no real systems. Without the files the section says
  it is absent and the synthetic rows are unchanged.
* ``scorer-tests`` -- only when ``EXACTALIGN_COREFUD_SCORER`` names a checkout of the scorer:
  its test suites' key/response pairs (``tests/tests-corefud``; the responses of one key are the
  systems of that key's ranking). They are not part of the project and never shipped.

Options: each matching (``head``, ``partial``, ``exact``) of the config with each zero matching
(``dependent``, ``linear``), singletons ignored (the scorer's default).

Rows. ``level = document``: one per (source, corpus, system, match, zero match, document,
metric): mentions, allowed pairs, the staged alignment's F1 (counted on its pairs,
``staged_f1``; the scorer's own number, ``scorer_f1``, differs only where its one dict for both
directions counts a zero's partner through an overwritten entry: ``quirk``), the exact F1, its
bound and status, ``gap`` (exact minus staged, in F1 points), precision and recall of both,
the MILPs solved (``iterations``) and their nodes, the time of the exact solve. ``level =
corpus``: one per (source, corpus, system, match, zero match, metric): the corpus F1 (counts
summed over documents, as the scorer does) under the staged alignment and under the corpus
optimum (for B³ and LEA one problem over all documents), its status and time. A unit is one
(corpus, system, option set); ``time_staged_s`` on corpus rows is the time of the scorer's
staged scoring of that corpus (every metric it prints), ``time_exact_s`` of all the exact
solves of the unit. A document pair the scorer itself fails on (a zero without DEPS under
dependent matching) is one row with ``skipped``.

Invariants (a violation raises :class:`ExperimentError`): every exact solve is proven optimal
(no time limit is set); the staged alignment's F1 never exceeds the exact one, per document
and per corpus.
"""

from __future__ import annotations

import copy
import functools
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from exactalign.core.errors import InputError
from exactalign.io.corefud import pair_corefud, read_corefud
from exactalign.metrics.coref import corefud, corefud_exact
from exactalign.perturb.corefud import perturb, random_document, read_documents, to_corefud

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "corefud_gap"
DESCRIPTION = ("CorefUD scorer v1.2: its staged mention alignment vs the metric-optimal one "
               "(MUC, B3, CEAFe, CEAFm, LEA; head/partial/exact matching) on seeded CorefUD "
               "corpora and their perturbations: per-document gaps and system rankings.")
DATA_SOURCE = ("seeded CorefUD documents and seeded system perturbations of them "
               "(exactalign.perturb.corefud; no pilot data is read); real UD English-GUM "
               "documents (extra data coref/ud-english-gum) with the same perturbations when "
               "fetched; the CorefUD scorer's own test documents only when "
               "EXACTALIGN_COREFUD_SCORER names a checkout")
#: The real documents (extra data, not part of the pilot folder: exactalign.data.extra_root).
GUM = "coref/ud-english-gum"
DATA_READS = (GUM,)
SEEDING = ("gold corpus c from numpy.random.default_rng([seed, c]); system s of corpus c from "
           "default_rng([seed, c, 1000 + s]); system s of GUM file f from "
           "default_rng([seed, 2000 + f, 1000 + s])")
ENV_VAR = "EXACTALIGN_COREFUD_SCORER"

TOL = 1e-9
METRICS = corefud_exact.EXACT_METRICS
LABELS = {"muc": "MUC", "bcub": "B³", "ceafe": "CEAFe", "ceafm": "CEAFm", "lea": "LEA",
          "conll": "CoNLL"}
FULL = {"seed": 0, "corpora": 12, "documents": 8, "sentences": [3, 6], "entities": [4, 9],
        "system_rates": [0.2, 0.3, 0.4, 0.5], "rounds_per_mention": 0.25,
        "matches": ["head", "partial", "exact"], "zero_matches": ["dependent", "linear"],
        "real": {"files": ["en_gum-ud-dev.conllu", "en_gum-ud-test.conllu"], "documents": None}}
QUICK = {**FULL, "corpora": 3, "documents": 4, "system_rates": [0.25, 0.4, 0.55],
         "zero_matches": ["dependent"],
         "real": {"files": ["en_gum-ud-dev.conllu"], "documents": 5}}

COLUMNS = (
    "source", "corpus", "system", "rate", "match", "zero_match", "level", "document", "metric",
    "key_mentions", "response_mentions", "allowed_pairs", "staged_pairs",
    "scorer_f1", "staged_f1", "exact_f1", "gap", "exact_bound", "status", "quirk",
    "staged_precision", "staged_recall", "exact_precision", "exact_recall",
    "iterations", "nodes", "time_staged_s", "time_exact_s", "skipped", "seed", "fallback",
    "error",
)
FIGURES = ("corefud_gap.png",)


# ------------------------------------------------------------------------------------------
# corpora and systems
# ------------------------------------------------------------------------------------------
def gold_corpus(config: dict, c: int) -> list[dict]:
    rng = np.random.default_rng([config["seed"], c])
    return [random_document(rng, f"c{c}d{i + 1}", sentences=tuple(config["sentences"]),
                            entities=tuple(config["entities"]))
            for i in range(config["documents"])]


def system_corpus(config: dict, c: int, s: int, gold: list[dict]) -> list[dict]:
    rng = np.random.default_rng([config["seed"], c, 1000 + s])
    rate = config["system_rates"][s]
    out = []
    for d in gold:
        n = sum(len(e) for e in d["entities"])
        out.append(perturb(d, rng, rate, rounds=max(3, round(config["rounds_per_mention"] * n))))
    return out


def gum_root() -> Path | None:
    """The directory holding the GUM files (:data:`GUM`), ``None`` when they are absent."""
    from exactalign.data import extra_root

    try:
        return extra_root(GUM)
    except InputError:   # a broken $EXACTALIGN_DATA: no real documents, the rest runs
        return None


def real_gold(path: str, documents: int | None) -> list[dict]:
    """The gold documents of a real file (the first ``documents`` of them; read once per
    process, a fresh copy each call)."""
    return copy.deepcopy(_read_real(path, documents))


@functools.lru_cache(maxsize=2)
def _read_real(path: str, documents: int | None) -> list[dict]:
    docs = read_documents(path)
    return docs if documents is None else docs[:documents]


def scorer_pairs(checkout: str | None) -> list[tuple[str, str, str, str]]:
    """``(corpus, system, key path, response path)`` of the scorer's test suites."""
    if not checkout:
        return []
    suites = Path(checkout) / "tests" / "tests-corefud"
    if not suites.is_dir():
        raise InputError(f"{ENV_VAR}={checkout}: no tests/tests-corefud there (a checkout of "
                         "ufal/corefud-scorer is expected)")
    out = []
    for key in sorted(suites.rglob("*.key")):
        for resp in sorted(key.parent.glob(key.stem + "-*.response")):
            corpus = f"{key.parent.relative_to(suites)}/{key.stem}"
            out.append((corpus, resp.stem, str(key), str(resp)))
    return out


def units(config: dict) -> list[dict]:
    out = []
    for c in range(config["corpora"]):
        for s, rate in enumerate(config["system_rates"]):
            for match in config["matches"]:
                for zm in config["zero_matches"]:
                    out.append(dict(source="generated", corpus=f"c{c}", system=f"s{s}",
                                    rate=float(rate), match=match, zero_match=zm,
                                    seed=config["seed"], c=c, s=s, config=config))
    real = config.get("real") or {}
    root = gum_root() if real.get("files") else None
    if root is not None:
        for f, name in enumerate(real["files"]):
            for s, rate in enumerate(config["system_rates"]):
                for match in config["matches"]:
                    for zm in config["zero_matches"][:1]:   # (GUM has no zeros: module doc)
                        out.append(dict(source="gum", corpus=name.split("-")[-1].split(".")[0],
                                        system=f"s{s}", rate=float(rate), match=match,
                                        zero_match=zm, seed=config["seed"], f=f, s=s,
                                        path=str(root / GUM / name),
                                        documents=real.get("documents"), config=config))
    for corpus, system, key, resp in scorer_pairs(os.environ.get(ENV_VAR)):
        for match in config["matches"]:
            for zm in config["zero_matches"]:
                out.append(dict(source="scorer-tests", corpus=corpus, system=system, rate=None,
                                match=match, zero_match=zm, seed=None, key=key, response=resp))
    return out


# ------------------------------------------------------------------------------------------
# one unit
# ------------------------------------------------------------------------------------------
def _pairs(unit: dict):
    if unit["source"] == "scorer-tests":
        return pair_corefud(read_corefud(unit["key"]), read_corefud(unit["response"]))
    cfg = unit["config"]
    if unit["source"] == "gum":
        gold = real_gold(unit["path"], unit["documents"])
        rng = np.random.default_rng([cfg["seed"], 2000 + unit["f"], 1000 + unit["s"]])
        sys_ = [perturb(d, rng, unit["rate"], rounds=max(3, round(
            cfg["rounds_per_mention"] * sum(len(e) for e in d["entities"])))) for d in gold]
    else:
        gold = gold_corpus(cfg, unit["c"])
        sys_ = system_corpus(cfg, unit["c"], unit["s"], gold)
    with tempfile.TemporaryDirectory(prefix="corefud_gap") as tmp:
        kp, rp = Path(tmp) / "key.conllu", Path(tmp) / "response.conllu"
        kp.write_text(to_corefud(gold), encoding="utf-8")
        rp.write_text(to_corefud(sys_), encoding="utf-8")
        return pair_corefud(read_corefud(kp), read_corefud(rp))


def _plain(v):
    """numpy scalars as Python numbers (the CSV writes Python floats round-trip exact)."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _pr(counts) -> tuple[float, float]:
    pn, pd, rn, rd = counts
    return (pn / pd if pd else 0.0, rn / rd if rd else 0.0)


def run_unit(unit: dict) -> list[dict]:
    """The rows of one (corpus, system, option set)."""
    base = {k: unit.get(k) for k in ("source", "corpus", "system", "rate", "match",
                                     "zero_match", "seed")}
    label = (f"{unit['source']} {unit['corpus']} {unit['system']} {unit['match']} "
             f"{unit['zero_match']}")
    pairs = _pairs(unit)
    kept, rows = [], []
    for k, r in pairs:   # the scorer fails on some documents (zeros without DEPS): skip them
        try:
            corefud.staged_alignment(corefud.prepare(k, r, unit["match"]), unit["match"],
                                     unit["zero_match"])
            kept.append((k, r))
        except InputError as e:
            rows.append(dict(base, level="document", document=k.name, skipped=str(e)))
    if not kept:
        return rows
    t0 = time.perf_counter()
    corefud.score_documents(kept, corefud.METRICS, match=unit["match"],
                            zero_match=unit["zero_match"])
    t_staged = time.perf_counter() - t0
    t0 = time.perf_counter()
    ex = corefud_exact.compare_documents(kept, METRICS, match=unit["match"],
                                         zero_match=unit["zero_match"])
    t_exact = time.perf_counter() - t0
    for d in ex.documents:
        for m, c in d.metrics.items():
            res = c.exact
            if not res.proven_optimal:
                raise ExperimentError(f"{label} {d.name} {m}: exact not proven optimal "
                                      f"({res.status.value})")
            if c.staged_f1 > c.exact_f1 + TOL:
                raise ExperimentError(f"{label} {d.name} {m}: staged F1 {c.staged_f1!r} above "
                                      f"the exact {c.exact_f1!r}")
            sp, sr = _pr(c.staged)
            ep, er = _pr(c.exact_counts)
            rows.append(dict(
                base, level="document", document=d.name, metric=m,
                key_mentions=d.staged.key_mentions, response_mentions=d.staged.response_mentions,
                allowed_pairs=d.problem.instance.num_pairs,
                staged_pairs=len(d.staged.alignment.pairs),
                scorer_f1=100 * corefud_exact.ca.f1_of(c.scorer), staged_f1=100 * c.staged_f1,
                exact_f1=100 * c.exact_f1, gap=100 * c.gap, exact_bound=100 * res.bound,
                status=res.status.value, quirk=c.quirk, staged_precision=100 * sp,
                staged_recall=100 * sr, exact_precision=100 * ep, exact_recall=100 * er,
                iterations=res.details.get("iterations"), nodes=res.nodes,
                time_exact_s=res.wall_time, fallback=fallback_count(res)))
    staged_overall, exact_overall = ex.overall("staged"), ex.overall("exact")
    scorer_overall = ex.overall("scorer")
    for m in ex.metrics:
        res, _ = ex.corpus[m]
        s, e = staged_overall[m], exact_overall[m]
        if not res.proven_optimal:
            raise ExperimentError(f"{label} corpus {m}: exact not proven optimal")
        if s.f1 > e.f1 + TOL:
            raise ExperimentError(f"{label} corpus {m}: staged F1 {s.f1!r} above the exact "
                                  f"{e.f1!r}")
        rows.append(dict(
            base, level="corpus", document="", metric=m,
            key_mentions=sum(d.staged.key_mentions for d in ex.documents),
            response_mentions=sum(d.staged.response_mentions for d in ex.documents),
            allowed_pairs=sum(d.problem.instance.num_pairs for d in ex.documents),
            staged_pairs=sum(len(d.staged.alignment.pairs) for d in ex.documents),
            scorer_f1=100 * scorer_overall[m].f1, staged_f1=100 * s.f1, exact_f1=100 * e.f1,
            gap=100 * (e.f1 - s.f1), exact_bound=100 * res.bound, status=res.status.value,
            quirk=any(d.metrics[m].quirk for d in ex.documents),
            staged_precision=100 * s.precision, staged_recall=100 * s.recall,
            exact_precision=100 * e.precision, exact_recall=100 * e.recall,
            iterations=res.details.get("iterations"), nodes=res.nodes,
            time_staged_s=t_staged, time_exact_s=t_exact, fallback=fallback_count(res)))
    return [{k: _plain(v) for k, v in r.items()} for r in rows]


def _cells(unit: dict) -> dict:
    return {k: unit.get(k) for k in ("source", "corpus", "system", "rate", "match",
                                     "zero_match", "seed")}


def _key(unit: dict) -> str:
    return "|".join(str(unit.get(k)) for k in ("source", "corpus", "system", "rate", "match",
                                               "zero_match", "seed"))


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    results = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                           key=_key, cells=_cells)
    return [{c: _plain(r.get(c)) for c in COLUMNS} for rows in results for r in rows]


# ------------------------------------------------------------------------------------------
# summary, headline and figure (from CSV rows only)
# ------------------------------------------------------------------------------------------
def _doc_rows(rows):
    return [r for r in rows if r["level"] == "document" and not r["skipped"]]


def _below(r) -> bool:
    return float(r["gap"]) > 100 * TOL


def rankings(rows: list[dict]) -> list[dict]:
    """Per (source, corpus, match, zero match, metric) -- and ``conll``, the mean of the MUC,
    B³ and CEAFe F1s -- the system pairs ordered differently by the staged and by the exact
    corpus F1 (a tie on one side and an order on the other counts as a change)."""
    corpus = [r for r in rows if r["level"] == "corpus"]
    groups: dict = {}
    for r in corpus:
        key = (r["source"], r["corpus"], r["match"], r["zero_match"])
        groups.setdefault(key, {}).setdefault(r["system"], {})[r["metric"]] = (
            float(r["staged_f1"]), float(r["exact_f1"]))
    out = []
    for key, systems in groups.items():
        for sysv in systems.values():
            if all(m in sysv for m in ("muc", "bcub", "ceafe")):
                sysv["conll"] = tuple(sum(sysv[m][i] for m in ("muc", "bcub", "ceafe")) / 3
                                      for i in (0, 1))
        names = sorted(systems)
        for m in (*METRICS, "conll"):
            have = [n for n in names if m in systems[n]]
            pairs = changed = 0
            for i, a in enumerate(have):
                for b in have[i + 1:]:
                    sa, ea = systems[a][m]
                    sb, eb = systems[b][m]
                    pairs += 1
                    if _sign(sa - sb) != _sign(ea - eb):
                        changed += 1
            if pairs:
                out.append(dict(source=key[0], corpus=key[1], match=key[2], zero_match=key[3],
                                metric=m, pairs=pairs, changed=changed))
    return out


def _sign(x: float) -> int:
    return 0 if abs(x) <= 1e-9 else (1 if x > 0 else -1)


def summary(rows: list[dict]) -> str:
    """Per source, matching and metric: documents where the staged alignment is below the
    optimum, mean and largest gap there, the corpus F1 change, and the system pairs whose order
    changes; then what is left out and the time."""
    docs = _doc_rows(rows)
    corpus = [r for r in rows if r["level"] == "corpus"]
    ranks = rankings(rows)
    head = ["source", "match", "zeros", "metric", "documents", "staged < exact",
            "mean gap (F1 pts)", "max gap", "corpus F1 gain (mean / max)",
            "system pairs reordered"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] * 4 + ["---:"] * 6) + "|"]
    keys = list(dict.fromkeys((r["source"], r["match"], r["zero_match"]) for r in docs))
    for src, match, zm in keys:
        for m in (*METRICS, "conll"):
            sel = [r for r in docs if (r["source"], r["match"], r["zero_match"], r["metric"])
                   == (src, match, zm, m)]
            cs = [r for r in corpus if (r["source"], r["match"], r["zero_match"], r["metric"])
                  == (src, match, zm, m)]
            rk = [x for x in ranks if (x["source"], x["match"], x["zero_match"], x["metric"])
                  == (src, match, zm, m)]
            reordered = (f"{sum(x['changed'] for x in rk)} / {sum(x['pairs'] for x in rk)}"
                         if rk else "–")
            if m == "conll":
                lines.append("| " + " | ".join([src, match, zm, "CoNLL (mean F1)", "", "", "",
                                                "", "", reordered]) + " |")
                continue
            below = [float(r["gap"]) for r in sel if _below(r)]
            gains = [max(0.0, float(r["gap"])) for r in cs]   # (float noise below 0)
            lines.append("| " + " | ".join([
                src, match, zm, LABELS[m], str(len(sel)),
                f"{len(below)} ({100 * len(below) / len(sel):.1f}%)" if sel else "–",
                f"{np.mean(below):.2f}" if below else "–",
                f"{max(below):.2f}" if below else "–",
                f"{np.mean(gains):.2f} / {max(gains):.2f}" if gains else "–",
                reordered]) + " |")
    skipped = [r for r in rows if r["skipped"]]
    quirks = [r for r in docs if r["quirk"] in (True, "True", "true", 1, "1")]
    lines.append("")
    lines.append(real_line(rows))
    lines.append("Pilot-free: seeded CorefUD documents and seeded system perturbations of them "
                 "(no pilot data is read)"
                 + ("; with the CorefUD scorer's test documents (EXACTALIGN_COREFUD_SCORER)."
                    if any(r["source"] == "scorer-tests" for r in rows) else
                    "; the scorer's own test documents were not added (EXACTALIGN_COREFUD_SCORER "
                    "unset)."))
    lines.append("Gaps are exact − staged F1 in points, per document and metric, the staged "
                 "alignment counted on its own pairs; the corpus F1 sums counts over documents "
                 "(B³ and LEA: the corpus optimum solved as one problem). A ranking compares "
                 "the systems of one corpus (option set, metric); CoNLL is the mean of the "
                 "MUC, B³ and CEAFe F1s, each on its own optimal alignment. "
                 f"{len(quirks)} document-metric rows where the scorer's own count of the "
                 "staged alignment differs (its one dict for both directions; dependent zeros "
                 f"only); {len(skipped)} document pairs the scorer fails on (skipped).")
    t_staged = sum(float(r["time_staged_s"]) for r in corpus if r["metric"] == METRICS[0])
    t_exact = sum(float(r["time_exact_s"]) for r in corpus if r["metric"] == METRICS[0])
    iters = [int(r["iterations"]) for r in docs if r["metric"] in ("bcub", "lea")
             and r["iterations"] not in (None, "")]
    lines.append(f"Time: the scorer's staged scoring of every unit {t_staged:.2f} s, every exact "
                 f"solve (5 metrics, documents and corpora) {t_exact:.2f} s; B³/LEA documents "
                 f"needed {np.mean(iters) if iters else 0:.2f} MILPs on average "
                 f"(max {max(iters, default=0)}).")
    return "\n".join(lines) + "\n"


def real_line(rows: list[dict]) -> str:
    """What the real documents (UD English-GUM) gave -- sizes, the exact solves' times, all
    proven -- or that they were absent."""
    docs = [r for r in _doc_rows(rows) if r["source"] == "gum"]
    if not docs:
        return (f"Real documents (UD English-GUM, extra data `{GUM}`): not present in this run "
                f"(`exactalign data fetch --only {GUM}` adds them); generated documents only.")
    sizes = {(r["corpus"], r["document"]): int(r["key_mentions"]) for r in docs}
    times = [float(r["time_exact_s"]) for r in docs]
    slow = max(docs, key=lambda r: float(r["time_exact_s"]))
    corpus = [r for r in rows if r["level"] == "corpus" and r["source"] == "gum"]
    files = sorted({r["corpus"] for r in docs})
    return (f"Real documents (UD English-GUM {', '.join(files)}, extra data `{GUM}`): "
            f"{len(sizes)} documents of {min(sizes.values())}-{max(sizes.values())} key "
            f"mentions without singletons, each perturbed by the same seeded systems; "
            f"{len(docs)} document x metric exact solves, all proven optimal, median "
            f"{np.median(times):.3f} s, largest {max(times):.3f} s ({slow['metric']}, "
            f"{slow['match']}, {slow['key_mentions']} key mentions); all the exact solves of one "
            f"file and system (its documents' 5 metrics and the corpus optima, B³ and LEA one "
            f"problem over all its documents) up to "
            f"{max(float(r['time_exact_s']) for r in corpus):.2f} s.")


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The generated documents (always there, seeded): document × metric instances pooled over
    option sets; gap in F1 points; rankings: system pairs of a corpus (per option set and
    metric, CoNLL included) ordered differently. The scorer's test documents, when added, are
    named in the finding."""
    docs = [r for r in _doc_rows(rows) if r["source"] == "generated"]
    below = [float(r["gap"]) for r in docs if _below(r)]
    ranks = [x for x in rankings(rows) if x["source"] == "generated"]
    changed = sum(x["changed"] for x in ranks)
    pairs = sum(x["pairs"] for x in ranks)
    by_mode = []
    for match in dict.fromkeys(r["match"] for r in docs):
        sel = [r for r in docs if r["match"] == match]
        n = sum(_below(r) for r in sel)
        by_mode.append(f"{match} {100 * n / len(sel):.1f}%")
    finding = ("On seeded CorefUD documents and perturbations (pilot-free), the staged "
               "alignment is below the metric-optimal one in "
               + ", ".join(by_mode) + " of document-metric instances"
               + (f" (largest gap {max(below):.1f} F1 points)" if below else "")
               + f"; {changed} of {pairs} system pairs change order")
    tests = [r for r in _doc_rows(rows) if r["source"] == "scorer-tests"]
    if tests:
        tb = [float(r["gap"]) for r in tests if _below(r)]
        finding += (f"; on the scorer's own test documents {len(tb)} of {len(tests)}"
                    + (f", by up to {max(tb):.1f} points" if tb else ""))
    real = [r for r in _doc_rows(rows) if r["source"] == "gum"]
    if real:
        rb = [float(r["gap"]) for r in real if _below(r)]
        rk = [x for x in rankings(rows) if x["source"] == "gum"]
        finding += (f"; on real UD English-GUM documents ({len({r['document'] for r in real})}"
                    f" documents of up to {max(int(r['key_mentions']) for r in real)} key "
                    "mentions) "
                    f"{len(rb)} of {len(real)} ({100 * len(rb) / len(real):.1f}%)"
                    + (f", by up to {max(rb):.1f} points" if rb else "")
                    + f", {sum(x['changed'] for x in rk)} of {sum(x['pairs'] for x in rk)} "
                    "system pairs reordered, every exact solve proven")
    else:
        finding += "; real GUM documents not present"
    finding += "."
    return {"heuristic": "CorefUD staged alignment", "unit": "document × metric",
            "instances": len(docs), "below": len(below),
            "gap_mean": float(np.mean(below)) if below else None,
            "gap_max": max(below) if below else 0.0, "gap_unit": "F1 points",
            "rankings_changed": changed, "rankings": pairs, "ranking_unit": "system pairs",
            "finding": finding}


MODE_STYLE = {"head": dict(color=plot.OKABE_ITO["blue"], hatch="", marker="o"),
              "partial": dict(color=plot.OKABE_ITO["orange"], hatch="//", marker="s"),
              "exact": dict(color=plot.OKABE_ITO["bluish green"], hatch="..", marker="^")}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``corefud_gap.png``: (left) per metric and matching, the share of documents where the
    staged alignment is below the optimum; (middle) the mean gap where it is (bar) and the
    largest (dot), in F1 points; (right) the share below against the system's perturbation rate
    (generated documents, all metrics pooled), one line per matching."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = [r for r in completed_rows(csv_path) if r["level"] == "document" and not r["skipped"]]
    modes = [m for m in ("head", "partial", "exact") if any(r["match"] == m for r in rows)]
    fig, axes = plot.panels(plt, 3, ncols=3, height=2.6)
    x = np.arange(len(METRICS))
    w = 0.8 / max(1, len(modes))
    never = []
    for i, mode in enumerate(modes):
        share, mean, top = [], [], []
        for m in METRICS:
            sel = [r for r in rows if r["match"] == mode and r["metric"] == m]
            b = [float(r["gap"]) for r in sel if _below(r)]
            share.append(100 * len(b) / len(sel) if sel else 0.0)
            mean.append(float(np.mean(b)) if b else 0.0)
            top.append(max(b) if b else 0.0)
        st = MODE_STYLE[mode]
        pos = x + (i - (len(modes) - 1) / 2) * w
        axes[0].bar(pos, share, w, color=st["color"], hatch=st["hatch"], edgecolor="white",
                    label=mode + (" (only zero pairs to choose)" if mode == "exact" else ""))
        axes[1].bar(pos, mean, w, color=st["color"], hatch=st["hatch"], edgecolor="white")
        some = [j for j, t in enumerate(top) if t > 0]
        axes[1].plot(pos[some], [top[j] for j in some], "o", color="black", markersize=3.5,
                     label="largest" if i == 0 else None)
        if not any(share):
            never.append(mode)
    for ax in axes[:2]:
        ax.set_xticks(x)
        ax.set_xticklabels([LABELS[m] for m in METRICS], rotation=30, ha="right")
    axes[0].set_ylabel("documents with\nstaged < exact [%]")
    axes[0].set_title("documents below the optimum")
    axes[1].set_ylabel("gap where below\n[F1 points]")
    axes[1].set_title("gap (bar: mean, dot: largest)")
    axes[1].set_ylim(bottom=0, top=max(1.0, axes[1].get_ylim()[1]) * 1.15)
    if never:
        axes[0].text(0.98, 0.97, "never below: " + ", ".join(never), transform=axes[0].transAxes,
                     ha="right", va="top", fontsize="small", color="0.3")
    gen = [r for r in rows if r["source"] == "generated" and r["rate"] not in (None, "")]
    rates = sorted({float(r["rate"]) for r in gen})
    for mode in modes:
        ys = []
        for rate in rates:
            sel = [r for r in gen if r["match"] == mode and float(r["rate"]) == rate]
            ys.append(100 * np.mean([_below(r) for r in sel]) if sel else np.nan)
        axes[2].plot(rates, ys, marker=MODE_STYLE[mode]["marker"],
                     color=MODE_STYLE[mode]["color"], label=mode)
    axes[2].set_xticks(rates)
    axes[2].set_xlabel("system's perturbation rate")
    axes[2].set_ylabel("documents with\nstaged < exact [%]")
    axes[2].set_title("by system (all metrics)")
    axes[2].set_ylim(bottom=0)
    zms = sorted({r["zero_match"] for r in rows})
    plot.legend_below(fig, ax=axes[0], title="matching (--match); zero matching "
                      + " and ".join(zms) + " pooled")
    axes[1].legend(loc="upper right", frameon=False)
    return [plot.save(fig, Path(out_dir) / "corefud_gap.png")]
