"""How far AnCast's anchor-and-broadcast mapping falls below the proven optimum of the objective
its Smatch-format F counts, at sentence and document level, and what that does to its scores.

Datasets (documents; each is a test file and a gold file, written in AnCast's sample format by
:func:`exactalign.io.umr.format_sentence`, so that both scorers read the same text):

* ``conversion`` -- the pilot's English UMR: ÚFAL's automatic conversion against the manual
  annotation (209 sentences, one document, as AnCast reads the file), the files as they are;
* ``ancast-samples`` -- AnCast's own UMR sample pair (2 sentences), the files as they are;
* ``umr3-LANG`` -- UMR 3.0 gold (umr4nlp/umr-data), every language whose files the reader
  accepts, ``documents`` files per language (the first ones in name order that read without
  error, each cut to its first ``max_sentences`` sentences), each against a seeded perturbation
  of itself for every error profile in ``systems`` (:data:`SYSTEMS`: parser-like errors of
  :mod:`exactalign.perturb.amr` at a rate, and each document-level triple dropped at the same
  rate). Found under ``$EXACTALIGN_UMR_DATA`` (a checkout of umr4nlp/umr-data), else in the
  registry's extra files ``umr/umr-data`` (the 39 files these documents come from, fetched by
  ``exactalign data fetch --only umr/umr-data``); absent both, no ``umr3`` rows;
* ``synthetic`` -- only when there is no UMR data at all (no pilot, no UMR 3.0): random
  AMR-like documents with document-level triples (:func:`synthetic_documents`), perturbed as
  the UMR 3.0 gold is.

Per (file, system) one row (a file holds one document, or several where its sentence numbers
restart: the pilot's English gold is six; document-level counts are summed over them):
sentence level (``--scope snt``: the Smatch-format counts under the optimum and under
AnCast's mapping, sentences below the optimum and the per-sentence gap in F1 points,
AnCast's LR score -- its printed ``Sent Micro`` -- under both mappings, as sums),
document level (``--scope doc``: the optimum over every one-to-one mapping, the optimum within
AnCast's candidate space -- a variable maps only within its sentence -- and the count under
AnCast's mapping, or AnCast's failure; AnCast's printed comprehensive score), the document-level
triples, times. ``compare_umr.pl`` (ÚFAL) is not run: its checkout is not fetched here.

Invariants (:class:`ExperimentError`): every optimum proven; AnCast's mapping never above the
optimum, on any sentence or document; the within-sentence optimum never above the unrestricted
one.
"""

from __future__ import annotations

import functools
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from exactalign.data import extra_root, resolve_data_dir
from exactalign.io.umr import (
    check_unique_variables,
    format_document,
    format_sentence,
    read_umr,
)
from exactalign.metrics import umr
from exactalign.significance import paired_bootstrap

from . import plot
from .runner import ExperimentError, parallel_map

NAME = "umr_gap"
DESCRIPTION = ("UMR: AnCast 0.1.1's anchor-and-broadcast mapping vs the proven optimum of its "
               "Smatch-format objective, sentence and document level, on the pilot's English "
               "conversion, AnCast's samples and perturbed UMR 3.0 gold.")
DATA_SOURCE = ("pilot data: umr/ufal-english and umr/ancast-samples; UMR 3.0 gold from "
               "$EXACTALIGN_UMR_DATA or the extra data umr/umr-data (39 files of "
               "umr4nlp/umr-data @2aaf4b6), perturbed")
#: The pilot paths it reads (its meta.json records their digest); the UMR 3.0 files are extra
#: data (UMR3), found with exactalign.data.extra_root.
DATA_READS = ("umr/ufal-english", "umr/ancast-samples")
SEEDING = ("perturbations: exactalign.perturb.amr.perturb_graphs with seed config seed * 1000 "
           "+ system number, graph index = sentence position; document triples dropped by "
           "random.Random(f'{seed}-{language}-{document}-{system}'); significance: "
           "numpy default_rng(config seed)")
ENV = "EXACTALIGN_UMR_DATA"
#: The registry's extra files of UMR 3.0 gold (umr4nlp/umr-data @2aaf4b6).
UMR3 = "umr/umr-data"

#: error profiles (name -> rate of every error class of exactalign.perturb.amr, and of dropping
#: a document-level triple)
SYSTEMS = {"light": 0.05, "medium": 0.15, "heavy": 0.3}

FULL = {"seed": 0, "documents": 6, "max_sentences": 40, "systems": list(SYSTEMS),
        "languages": None, "time_limit": 600}
QUICK = {**FULL, "documents": 1, "max_sentences": 6, "systems": ["light", "heavy"],
         "languages": ["english", "chinese"]}

COLUMNS = ("source", "language", "document", "system", "documents", "sentences",
           "variables_test",
           "variables_gold", "snt_test", "snt_gold", "snt_exact", "snt_ancast", "snt_below",
           "snt_gap_f1_mean", "snt_gap_f1_max", "snt_proven",
           "lr_exact_ps", "lr_exact_pc", "lr_exact_rs", "lr_exact_rc",
           "lr_ancast_ps", "lr_ancast_pc", "lr_ancast_rs", "lr_ancast_rc",
           "doc_triples_test", "doc_triples_gold", "doc_test", "doc_gold", "doc_exact",
           "doc_exact_sentence", "doc_ancast", "doc_proven", "ancast_doc_failure",
           "ancast_comp", "ancast_twice", "exact_snt_s", "ancast_snt_s", "exact_doc_s",
           "exact_doc_sentence_s", "ancast_doc_s", "error")
FIGURES = ("umr_gap.png",)


# --------------------------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------------------------
def umr3_root() -> Path | None:
    """The UMR 3.0 files: ``$EXACTALIGN_UMR_DATA`` (a whole checkout of umr4nlp/umr-data),
    else the registry's extra files ``umr/umr-data`` (the files this experiment reads, fetched
    by ``exactalign data fetch --only umr/umr-data``) in the data directory or the cache, else
    None."""
    env = os.environ.get(ENV)
    if env:
        return Path(env) if Path(env).is_dir() else None
    root = extra_root(UMR3)
    return None if root is None else root / UMR3


def _blocks(doc, sentences=None) -> str:
    """A document's text in AnCast's sample format (``sentences``: replaced trees, alignments
    and document triples per sentence)."""
    import penman

    out = []
    for k, s in enumerate(doc.sentences):
        tree, align, dtrip = sentences[k] if sentences is not None else (s.tree, s.alignment,
                                                                        s.doc)
        out.append(format_sentence(k + 1, " ".join(s.words), penman.format(tree, indent=4),
                                   align, dtrip))
    return format_document(out)


def _cut(doc, n: int):
    return doc._replace(sentences=doc.sentences[:n])


def _perturbed(doc, system: str, config: dict, language: str, name: str) -> str:
    """The text of ``doc`` with :data:`SYSTEMS` ``system``'s errors (module docstring)."""
    import penman

    from exactalign.perturb.amr import AmrErrorRates, AmrInventory, perturb_graphs

    rate = SYSTEMS[system]
    graphs = [penman.layout.interpret(s.tree) for s in doc.sentences]
    inv = AmrInventory.from_graphs(graphs)
    rates = AmrErrorRates(concept=rate, role=rate, drop_edge=rate, add_edge=rate / 3,
                          attribute=rate, drop_subgraph=rate / 3)
    k = list(SYSTEMS).index(system)
    ps = perturb_graphs(graphs, rates, inv, seed=config["seed"] * 1000 + k)
    rng = random.Random(f"{config['seed']}-{language}-{name}-{system}")
    kept: set = set()
    new = []
    for s, p in zip(doc.sentences, ps, strict=True):
        tree = penman.configure(p.graph)
        variables = {v for v, _, _ in p.graph.instances()}
        kept |= variables
        new.append([tree, {v: a for v, a in s.alignment.items() if v in variables}, None])
    everywhere = {v for s in doc.sentences for v in s.variables}
    for entry, s in zip(new, doc.sentences, strict=True):
        entry[2] = tuple(t for t in s.doc if rng.random() >= rate
                         and all(x in kept or x not in everywhere for x in (t[1], t[3])))
    return _blocks(doc, new)


def synthetic_documents(config: dict) -> list:
    """The fallback without any UMR data: ``documents`` documents of ``max_sentences`` random
    AMR-like sentences (:func:`exactalign.synthetic.random_amr_sentences`, variables renamed
    ``s<N>x<k>``), each with document-level triples -- the author's modal stance and a temporal
    relation to the document creation time for each sentence's top, and coreference between
    same-concept entities of consecutive sentences."""
    import penman

    from exactalign.io.umr import parse_umr
    from exactalign.synthetic import random_amr_sentences

    out = []
    for d in range(config["documents"]):
        graphs = random_amr_sentences(config["max_sentences"], seed=[config["seed"], d])
        blocks, prev = [], {}
        for i, g in enumerate(graphs, start=1):
            ren = {v: f"s{i}{v}" for v in g.variables()}
            g2 = penman.Graph([(ren.get(a, a), r, ren.get(b, b)) for a, r, b in g.triples],
                              top=ren[g.top])
            concepts = {v: c for v, _, c in g2.instances()}
            doc = [("modal", "author", "full-affirmative", g2.top),
                   ("temporal", "document-creation-time", "before", g2.top)]
            doc += [("coref", w, "same-entity", v) for v, c in concepts.items()
                    for w, c2 in prev.items() if c == c2 and not c.endswith(tuple("0123456789"))
                    ][:2]
            prev = concepts
            words = " ".join(concepts.values())
            blocks.append(format_sentence(i, words, penman.encode(g2, indent=4), {}, doc))
        out.append(parse_umr(format_document(blocks), f"synthetic-{d}"))
    return out


def documents(config: dict) -> list[dict]:
    """``{"source", "language", "document", "system", "test", "gold"}`` per unit (texts)."""
    out = []
    data = resolve_data_dir()
    root = data.path / "umr" if data.path is not None and (data.path / "umr").is_dir() else None
    if root is not None:
        for source, lang, (t, g) in (
                ("conversion", "english", ("ufal-english/converted_total_1-5.umr",
                                           "ufal-english/gold_total_1-5.umr")),
                ("ancast-samples", "english", ("ancast-samples/umr_test.txt",
                                               "ancast-samples/umr_gold.txt"))):
            if (root / t).is_file() and (root / g).is_file():
                out.append({"source": source, "language": lang, "document": Path(g).stem,
                            "system": "as given", "test": (root / t).read_text("utf-8"),
                            "gold": (root / g).read_text("utf-8")})
    base = umr3_root()
    if base is None:
        if root is None:  # no UMR data at all: the synthetic fallback
            for k, doc in enumerate(synthetic_documents(config)):
                for system in config["systems"]:
                    out.append({"source": "synthetic", "language": "synthetic",
                                "document": f"synthetic-{k}", "system": system,
                                "gold": _blocks(doc),
                                "test": _perturbed(doc, system, config, "synthetic",
                                                   f"synthetic-{k}")})
        return out
    for lang_dir in sorted(p for p in base.iterdir() if (p / "umr_data").is_dir()):
        lang = lang_dir.name
        if config["languages"] and lang not in config["languages"]:
            continue
        taken = 0
        for f in sorted((lang_dir / "umr_data").iterdir()):
            if taken >= config["documents"]:
                break
            try:
                doc = _cut(read_umr(f), config["max_sentences"])
                check_unique_variables(doc)
            except Exception:  # a file the reader refuses (named by `exactalign umr`)
                continue
            if not doc.sentences:
                continue
            taken += 1
            gold = _blocks(doc)
            for system in config["systems"]:
                out.append({"source": f"umr3-{lang}", "language": lang, "document": f.stem,
                            "system": system, "gold": gold,
                            "test": _perturbed(doc, system, config, lang, f.stem)})
    return out


def _key(u: dict) -> str:
    return f"{u['source']}/{u['document']}/{u['system']}"


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def _f(m, t, g) -> float:
    return umr.f_score(m, t, g)[2]


def run_unit(unit: dict, config: dict) -> dict:
    """The row of one (document, system) (module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        tp, gp = Path(tmp) / "test.umr", Path(tmp) / "gold.umr"
        tp.write_text(unit["test"], "utf-8")
        gp.write_text(unit["gold"], "utf-8")
        snt = umr.score_files(tp, gp, method="both", time_limit=config["time_limit"])
        doc = umr.score_files(tp, gp, scope="doc", method="both",
                              time_limit=config["time_limit"])
    name = _key(unit)
    if snt.ancast_failure is not None:
        raise RuntimeError(f"AnCast failed at sentence level: {snt.ancast_failure}")
    gaps = []
    for u in snt.units:
        if u.ancast[0] > u.matched("exact") + 1e-9:
            raise ExperimentError(f"{name}: AnCast's mapping above the optimum on sentence "
                                  f"{u.index + 1}")
        gaps.append(100 * (_f(u.matched("exact"), u.test_size, u.gold_size)
                           - _f(u.ancast[0], u.test_size, u.gold_size)))
    for d in doc.units:  # a file may hold several documents (sentence numbers restarting)
        if d.matched("exact_sentence") > d.matched("exact") + 1e-9:
            raise ExperimentError(f"{name}: the within-sentence optimum above the unrestricted "
                                  "one")
        if d.ancast is not None and d.ancast[0] > d.matched("exact_sentence") + 1e-9:
            raise ExperimentError(f"{name}: AnCast's mapping above the within-sentence optimum")
    n_docs = len(doc.units)
    if (snt.proven() < len(snt.units)
            or doc.proven("exact") + doc.proven("exact_sentence") < 2 * n_docs):
        raise ExperimentError(f"{name}: an optimum not proven within the time limit")
    ancast_doc = (None if any(d.ancast is None for d in doc.units)
                  else sum(d.ancast[0] for d in doc.units))
    tdoc, gdoc = _docs(unit)
    n_doc_t = sum(len(s.doc) for s in tdoc.sentences)
    n_doc_g = sum(len(s.doc) for s in gdoc.sentences)
    row = {c: None for c in COLUMNS}
    row.update({k: unit[k] for k in ("source", "language", "document", "system")})
    lre, lra = snt.lr_counts["exact"], snt.lr_counts["ancast"]
    row.update(
        documents=n_docs, sentences=len(snt.units),
        variables_test=sum(len(x.variables) for x in tdoc.sentences),
        variables_gold=sum(len(x.variables) for x in gdoc.sentences),
        snt_test=snt.totals("exact")[1], snt_gold=snt.totals("exact")[2],
        snt_exact=snt.totals("exact")[0], snt_ancast=snt.totals("ancast")[0],
        snt_below=snt.below(), snt_gap_f1_mean=float(np.mean(gaps)),
        snt_gap_f1_max=float(np.max(gaps)), snt_proven=snt.proven(),
        lr_exact_ps=lre[0], lr_exact_pc=lre[1], lr_exact_rs=lre[2], lr_exact_rc=lre[3],
        lr_ancast_ps=lra[0], lr_ancast_pc=lra[1], lr_ancast_rs=lra[2], lr_ancast_rc=lra[3],
        doc_triples_test=n_doc_t, doc_triples_gold=n_doc_g,
        doc_test=sum(d.test_size for d in doc.units), doc_gold=sum(d.gold_size for d in
                                                                   doc.units),
        doc_exact=sum(d.matched("exact") for d in doc.units),
        doc_exact_sentence=sum(d.matched("exact_sentence") for d in doc.units),
        doc_ancast=ancast_doc, doc_proven=True,
        ancast_doc_failure=doc.ancast_failure or "",
        ancast_comp=doc.ancast_printed.get("comp"),
        ancast_twice=sum(u.ancast_twice for u in snt.units),
        exact_snt_s=snt.wall_time.get("exact"), ancast_snt_s=snt.wall_time.get("ancast"),
        exact_doc_s=doc.wall_time.get("exact"),
        exact_doc_sentence_s=doc.wall_time.get("exact_sentence"),
        ancast_doc_s=doc.wall_time.get("ancast"))
    return row


def _docs(unit: dict):
    from exactalign.io.umr import parse_umr

    return parse_umr(unit["test"], "test"), parse_umr(unit["gold"], "gold")


def _unit_row(unit: dict, config: dict, quiet: bool) -> dict:
    t0 = time.perf_counter()
    row = run_unit(unit, config)
    if not quiet:
        print(f"  {NAME}: {_key(unit)} ({row['sentences']} sentences) "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return row


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """One row per (document, system), in document order."""
    return parallel_map(functools.partial(_unit_row, config=config, quiet=quiet),
                        documents(config), jobs=jobs, desc=NAME, quiet=quiet, key=_key,
                        cells=lambda u: {k: u[k] for k in ("source", "language", "document",
                                                           "system")})


# --------------------------------------------------------------------------------------------
# summary, headline and figures (from the CSV alone)
# --------------------------------------------------------------------------------------------
def _groups(rows) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault((r["source"], r["system"]), []).append(r)
    return out


def _counts(rows, col: str, test: str = "snt_test", gold: str = "snt_gold") -> np.ndarray:
    """Per document ``(matched, test, matched, gold)`` (the significance module's counts)."""
    return np.array([[float(r[col]), float(r[test]), float(r[col]), float(r[gold])]
                     for r in rows])


def _lr_counts(rows, which: str) -> np.ndarray:
    return np.array([[float(r[f"lr_{which}_{k}"]) for k in ("ps", "pc", "rs", "rc")]
                     for r in rows])


def _micro(c: np.ndarray) -> float:
    s = c.sum(0)
    p = s[0] / s[1] if s[1] else 0.0
    r = s[2] / s[3] if s[3] else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def rankings(rows) -> list[dict]:
    """Per source with several systems, every pair of them: their order under AnCast's
    mapping and under the optimum (Smatch-format F; LR under each mapping)."""
    out = []
    groups = _groups(rows)
    for source in dict.fromkeys(r["source"] for r in rows):
        systems = [s for (src, s) in groups if src == source]
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                ra, rb = groups[(source, a)], groups[(source, b)]
                f = {m: (_micro(_counts(ra, f"snt_{m}")), _micro(_counts(rb, f"snt_{m}")))
                     for m in ("exact", "ancast")}
                lr = {m: (_micro(_lr_counts(ra, m)), _micro(_lr_counts(rb, m)))
                      for m in ("exact", "ancast")}
                sign = {m: np.sign(x - y) for m, (x, y) in f.items()}
                lsign = {m: np.sign(x - y) for m, (x, y) in lr.items()}
                out.append({"source": source, "a": a, "b": b, "f1": f, "lr": lr,
                            "changed": bool(sign["exact"] != sign["ancast"]),
                            "changed_lr": bool(lsign["exact"] != lsign["ancast"])})
    return out


def summary(rows: list[dict]) -> str:
    lines = ["| source | system | docs | sentences | below optimum | gap pts mean (max) | "
             "corpus F exact / AnCast (deficit, p) | LR F under optimum / AnCast mapping | "
             "doc F exact / within sentences / AnCast | AnCast doc failures | snt time s exact / "
             "AnCast | doc time s exact / within sentences / AnCast (where it ran) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (source, system), sel in _groups(rows).items():
        n_s = sum(r["sentences"] for r in sel)
        below = sum(r["snt_below"] for r in sel)
        gmean = sum(r["snt_gap_f1_mean"] * r["sentences"] for r in sel) / max(1, n_s)
        gmax = max(r["snt_gap_f1_max"] for r in sel)
        ce, ca = _counts(sel, "snt_exact"), _counts(sel, "snt_ancast")
        fe, fa = _micro(ce), _micro(ca)
        pval = paired_bootstrap(ce, ca, n_resamples=2000, seed=0).p_value if len(sel) > 1 \
            else float("nan")
        le, la = _micro(_lr_counts(sel, "exact")), _micro(_lr_counts(sel, "ancast"))
        de = _micro(_counts(sel, "doc_exact", "doc_test", "doc_gold"))
        ds = _micro(_counts(sel, "doc_exact_sentence", "doc_test", "doc_gold"))
        ok = [r for r in sel if not r["ancast_doc_failure"]]
        da = (f"{_micro(_counts(ok, 'doc_ancast', 'doc_test', 'doc_gold')):.4f}" if ok
              else "-")
        te = sum(r["exact_snt_s"] for r in sel)
        ta = sum(r["ancast_snt_s"] for r in sel)
        tde = sum(r["exact_doc_s"] for r in sel)
        tds = sum(r["exact_doc_sentence_s"] for r in sel)
        tda = sum(r["ancast_doc_s"] for r in ok)
        lines.append(f"| {source} | {system} | {len(sel)} | {n_s} | {below} "
                     f"({100 * below / max(1, n_s):.0f}%) | {gmean:.2f} ({gmax:.2f}) | "
                     f"{fe:.4f} / {fa:.4f} ({100 * (fe - fa):.2f}, p={pval:.3g}) | "
                     f"{le:.4f} / {la:.4f} | {de:.4f} / {ds:.4f} / {da} | "
                     f"{len(sel) - len(ok)}/{len(sel)} | {te:.2f} / {ta:.2f} | "
                     f"{tde:.2f} / {tds:.2f} / {tda:.2f} |")
    lines += ["", "Smatch-format F: AnCast's per-sentence objective (concepts identical with "
              "their :opN values and sense, plus structural triples), micro over sentences; "
              "p: paired bootstrap over documents (2,000 resamples; nan with one document). "
              "LR: AnCast's printed Sent Micro, under each mapping (not the objective "
              "optimised). Doc F: sentence triples plus document-level triples, one mapping "
              "per document; 'within sentences' is AnCast's candidate space.", ""]
    rk = rankings(rows)
    if rk:
        lines.append("System rankings (corpus F under the optimum vs under AnCast's mapping):")
        lines.append("")
        for r in rk:
            lines.append(f"- {r['source']}: {r['a']} vs {r['b']}: exact "
                         f"{r['f1']['exact'][0]:.4f} / {r['f1']['exact'][1]:.4f}, AnCast "
                         f"{r['f1']['ancast'][0]:.4f} / {r['f1']['ancast'][1]:.4f} -- "
                         + ("**order changes**" if r["changed"] else "same order")
                         + ("; LR order changes" if r["changed_lr"] else ""))
    fails = sorted({r["ancast_doc_failure"] for r in rows if r["ancast_doc_failure"]})
    if fails:
        lines += ["", "AnCast's document-level run failed with: " + "; ".join(fails)]
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    n = sum(r["sentences"] for r in rows)
    below = sum(r["snt_below"] for r in rows)
    gmax = max((r["snt_gap_f1_max"] for r in rows), default=0.0)
    rk = rankings(rows)
    conv = [r for r in rows if r["source"] == "conversion"]
    part = ""
    if conv:
        c = conv[0]
        part = (f"; on the English conversion AnCast's Smatch-format F is "
                f"{100 * _f(c['snt_ancast'], c['snt_test'], c['snt_gold']):.2f} vs "
                f"{100 * _f(c['snt_exact'], c['snt_test'], c['snt_gold']):.2f} optimal, its "
                f"printed LR {100 * _micro(_lr_counts(conv, 'ancast')):.2f} becomes "
                f"{100 * _micro(_lr_counts(conv, 'exact')):.2f} under the optimum's mapping")
    failed = sum(1 for r in rows if r["ancast_doc_failure"])
    finding = (f"AnCast's mapping is below the optimum on {below} of {n} sentences "
               f"({100 * below / max(1, n):.0f}%, up to {gmax:.2f} F1 points){part}; "
               f"system order changes in {sum(r['changed'] for r in rk)} of {len(rk)} pairs; "
               f"AnCast's document scope fails on {failed} of {len(rows)} documents.")
    gaps = [r["snt_gap_f1_mean"] for r in rows]
    return {"heuristic": "AnCast 0.1.1 anchor-and-broadcast", "unit": "sentences",
            "instances": n, "below": below,
            "gap_mean": float(np.mean(gaps)) if gaps else None, "gap_max": gmax,
            "gap_unit": "F1 points", "rankings_changed": sum(r["changed"] for r in rk),
            "rankings": len(rk), "ranking_unit": "system pairs (corpus F)",
            "finding": finding}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``umr_gap.png``: per (source, system), the corpus Smatch-format F under AnCast's mapping
    against the optimum's (left), and the share of sentences below the optimum (right)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    groups = _groups(rows)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, 3.0), layout="constrained")
    labels = [f"{s}\n{sy}" for s, sy in groups]
    fe = [100 * _micro(_counts(sel, "snt_exact")) for sel in groups.values()]
    fa = [100 * _micro(_counts(sel, "snt_ancast")) for sel in groups.values()]
    ax.plot(fe, fa, linestyle="none", marker=plot.STYLE["greedy"]["marker"],
            color=plot.STYLE["greedy"]["color"])
    lo, hi = min(fa + fe, default=0) - 2, max(fa + fe, default=100) + 2
    ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=0.8)
    ax.set_xlabel("corpus F under the optimum")
    ax.set_ylabel("corpus F under AnCast's mapping")
    ax.set_title("Smatch-format F, per source and system", fontsize=8)
    share = [100 * sum(r["snt_below"] for r in sel) / max(1, sum(r["sentences"] for r in sel))
             for sel in groups.values()]
    bx.barh(range(len(share)), share, color=plot.STYLE["exact"]["color"])
    bx.set_yticks(range(len(share)), labels, fontsize=6)
    bx.invert_yaxis()
    bx.set_xlabel("% of sentences below the optimum")
    out = out_dir / FIGURES[0]
    plot.save(fig, out)
    return [out]
