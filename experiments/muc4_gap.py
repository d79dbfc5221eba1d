"""MUC-4 templates: how much the template alignment changes the scores, 1992 and modern systems.

Two families of systems, each scored under every alignment of its metric:

* **1992** (``muc4/muc4_1992``): the 17 MUC-4 systems on TST3 and TST4, scored with
  :mod:`exactalign.metrics.muc4` (judgement history of the test set) under ``recorded`` (the
  mapping of the official score report, where it records one), ``muc1992`` (greedy by recall
  score under the content rule), ``exact`` (maximum message F, Dinkelbach, proven) and
  ``exact-corpus`` (maximum corpus F of the ALL TEMPLATES row over all messages' mappings
  together, Dinkelbach, proven). The official ALL-TEMPLATES row is kept beside them
  (``official_*`` columns).
* **gtt** (``muc4/gtt``, ``das2022``, ``iterx``): GTT, DyGIE++, the 1992 GE/NYU/SRI/UMass outputs
  converted by Das et al. (2022) and IterX (four encoders) against ``gtt/test.json``: GTT template
  F1 under ``gtt`` (GTT's exhaustive search), ``greedy`` and ``exact`` (maximum document F1,
  proven); CEAF-RME (φ_subset) under ``iterx`` (IterX's assignment), ``greedy`` and ``exact``;
  GRIT's CEAF-REE (φ_strict) under ``exact`` and ``greedy``.

One row per (family, test set, system, alignment): scores, counts, the number of documents whose
mapping differs from the exact one (``docs_changed``) and the F difference to exact
(``delta_f1``; both against the per-message/per-document ``exact``), the system's rank by F1
within (family, test set, alignment). Counts:
``num_a, num_b, den_a, den_b`` are COR, PAR, POS, ACT for 1992 rows and precision numerator,
recall numerator, precision denominator, recall denominator for the GTT-format rows. Invariants (an
:class:`ExperimentError` if violated): every exact document/message is proven optimal; no other
alignment beats the exact document F, and none beats the ``exact-corpus`` corpus F, which equals
its proven bound (the recorded 1992 mapping excepted: it may use pairs the content rule refuses
under our slot scores); GTT's exhaustive search reaches the exact document F1.
A unit (a 1992 system on a test set, a modern system, GRIT) that raises is one row with its
``error``. The rows record no solver ``Result`` (the alignments come from Dinkelbach oracles and
templates' own scores), hence no ``fallback`` column.
Without pilot data the experiment scores synthetic documents (:func:`synthetic_documents`,
system ``synthetic``) with the GTT F1 and CEAF-RME alignments instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.data.pilot import (
    GTT_TEST,
    MUC4_1992_SYSTEMS,
    MUC4_MODERN,
    gtt_gold,
    muc4_1992_keys,
    muc4_1992_paths,
)
from exactalign.significance import approximate_randomization, paired_bootstrap

from . import plot
from .runner import ExperimentError, parallel_map

NAME = "muc4_gap"
DESCRIPTION = ("MUC-4 template alignment: official 1992 mapping vs muc1992 greedy vs exact "
               "(Dinkelbach, per message and over the corpus) for 17 systems; GTT F1 / CEAF-REE "
               "greedy vs exact for modern ones.")
DATA_SOURCE = ("pilot data muc4/ (1992 keys, responses, score reports, judgement histories; GTT "
               "gold and predictions of GTT, DyGIE++, Das et al. 2022 conversions, IterX, GRIT); "
               "without it, random GTT-format documents from numpy.random.default_rng(seed)")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("muc4",)
SEEDING = ("pilot data: deterministic (HiGHS with threads=1, seed 0); synthetic fallback: "
           "documents from numpy.random.default_rng(config['seed'])")

FULL = {"seed": 0, "sets": ["TST3", "TST4"], "systems_1992": list(MUC4_1992_SYSTEMS),
        "modern": list(MUC4_MODERN), "grit": True}
QUICK = {"seed": 0, "sets": ["TST3"], "systems_1992": ["GE", "NYU", "UMASS"],
         "modern": ["GTT", "DyGIE++"], "grit": True}

COLUMNS = ("family", "test_set", "system", "alignment", "status", "documents", "docs_changed",
           "recall", "precision", "f1", "delta_f1", "rank", "num_a", "num_b", "den_a", "den_b",
           "official_recall", "official_precision", "official_f1", "wall_time_s",
           "p_bootstrap", "p_randomization", "error")

#: Resamples / trials of the paired tests (over messages) of an alignment's F against exact's.
SAMPLES = 5_000
FIGURES = ("muc4_greedy_vs_exact.png",)

TOL = 1e-9


def _rows_1992(root: Path, test_set: str, system: str) -> list[dict]:
    """The rows of one 1992 system on one test set (one instance)."""
    from exactalign.io import muc4 as io
    from exactalign.metrics import muc4

    key_p, _, hist_p, _ = muc4_1992_paths(root, test_set, "GE")
    keys, history = muc4_1992_keys(key_p, hist_p)
    _, resp_p, _, rep_p = muc4_1992_paths(root, test_set, system)
    resps = io.by_message(io.read_templates(resp_p))
    report = io.read_score_report(rep_p)
    rec = muc4.recorded_mapping(report)
    names = (("recorded",) if rec else ()) + ("muc1992", "exact", "exact-corpus")
    res = muc4.score_messages(keys, resps, history, names, recorded=rec)
    exact = res["exact"]
    _check_1992(system, test_set, res)
    off = report.all_templates
    o_r = (off["COR"] + 0.5 * off["PAR"]) / off["POS"]
    o_p = (off["COR"] + 0.5 * off["PAR"]) / off["ACT"]
    rows = []
    ex_counts = _message_counts(exact)
    for name, s in res.items():
        changed = sum(1 for a, b in zip(s.messages, exact.messages, strict=True)
                      if a.alignment != b.alignment)
        t = s.total
        sig = {}
        if name != "exact":  # is this alignment's F different from exact's? paired over messages
            c = _message_counts(s)
            sig = {"p_bootstrap": paired_bootstrap(c, ex_counts, n_resamples=SAMPLES).p_value,
                   "p_randomization": approximate_randomization(c, ex_counts,
                                                                n_trials=SAMPLES).p_value}
        rows.append({"family": "1992", "test_set": test_set, "system": system,
                     "alignment": name, "status": s.status.value,
                     "documents": len(s.messages), "docs_changed": changed,
                     "recall": t.recall, "precision": t.precision, "f1": t.f1,
                     "delta_f1": t.f1 - exact.total.f1, "rank": None,
                     "num_a": t.COR, "num_b": t.PAR, "den_a": t.POS, "den_b": t.ACT,
                     "official_recall": o_r, "official_precision": o_p,
                     "official_f1": 2 * o_r * o_p / (o_r + o_p) if o_r + o_p else 0.0,
                     "wall_time_s": s.wall_time, "error": None, **sig})
    return rows


def _message_counts(score) -> np.ndarray:
    """Per message ``(credit, ACT, credit, POS)``: MUC's F = 2 credit / (POS + ACT) is the F1 of
    these (:mod:`exactalign.significance`)."""
    return np.array([[m.counts.credit, m.counts.ACT, m.counts.credit, m.counts.POS]
                     for m in score.messages], dtype=np.float64).reshape(-1, 4)


def _check_1992(system, test_set, res) -> None:
    exact, corpus = res["exact"], res["exact-corpus"]
    if exact.status is not Status.OPTIMAL:
        raise ExperimentError(f"{system} {test_set}: an exact message is not proven optimal")
    if corpus.status is not Status.OPTIMAL or abs(corpus.bound - corpus.total.f1) > TOL:
        raise ExperimentError(f"{system} {test_set}: the corpus optimum is not proven "
                              f"(F {corpus.total.f1}, bound {corpus.bound})")
    for name, s in res.items():
        if name != "recorded" and s.total.f1 > corpus.total.f1 + TOL:
            raise ExperimentError(f"{system} {test_set}: {name} corpus F {s.total.f1} beats "
                                  f"the corpus optimum {corpus.total.f1}")
        if name == "exact-corpus":
            continue
        for a, b in zip(s.messages, exact.messages, strict=True):
            if a.counts.f1 > b.counts.f1 + TOL and name != "recorded":
                raise ExperimentError(f"{system} {test_set} {a.message}: {name} F "
                                      f"{a.counts.f1} beats exact {b.counts.f1}")


def _rows_gtt(root: Path, system: str) -> list[dict]:
    """The GTT F1 and CEAF-RME rows of one modern system (one instance)."""
    from exactalign.io import gtt
    from exactalign.metrics import templates

    d = root / "muc4"
    gold = gtt_gold(root / GTT_TEST)
    pred = gtt.read_predictions(d / MUC4_MODERN[system])
    res = {m: templates.score_gtt(gold, pred, m) for m in templates.GTT_METHODS}
    _check_gtt(system, res, "gtt")
    rows = _template_rows("gtt-f1", system, res)
    res = {m: templates.ceaf_rme(gold, pred, m) for m in templates.RME_METHODS}
    _check_gtt(system, res, None)
    return rows + _template_rows("ceaf-rme", system, res)


def _rows_grit(root: Path) -> list[dict]:
    """GRIT's CEAF-REE rows (one instance)."""
    from exactalign.io import gtt
    from exactalign.metrics import templates

    d = root / "muc4"
    rg = gtt.read_ree_gold(d / "grit" / "test_ree.json")
    rp = gtt.read_ree_predictions(d / "grit" / "preds_s_t.out")
    res = {m: templates.ceaf_ree(rg, rp, "strict", m) for m in templates.CEAF_METHODS}
    if res["greedy"].overall.f1 > res["exact"].overall.f1 + TOL:
        raise ExperimentError("GRIT CEAF-REE: greedy beats the exact assignment")
    return _template_rows("ceaf-ree", "GRIT", res)


def _check_gtt(system, res, exhaustive: str | None) -> None:
    exact = res["exact"]
    if exact.status is not Status.OPTIMAL:
        raise ExperimentError(f"{system}: an exact document is not proven optimal")
    for name, s in res.items():
        for a, b in zip(s.docs, exact.docs, strict=True):
            if a.f1 > b.f1 + TOL or (name == exhaustive and abs(a.f1 - b.f1) > TOL):
                raise ExperimentError(f"{system} {a.docid}: {name} document F1 {a.f1} vs "
                                      f"exact {b.f1}")


def _template_rows(test_set: str, system: str, res: dict) -> list[dict]:
    exact = res["exact"]
    rows = []
    for name, s in res.items():
        o = s.overall
        changed = sum(1 for a, b in zip(s.docs, exact.docs, strict=True)
                      if a.alignment.tolist() != b.alignment.tolist())
        rows.append({"family": "gtt", "test_set": test_set, "system": system, "alignment": name,
                     "status": s.status.value, "documents": len(s.docs),
                     "docs_changed": changed, "recall": o.recall, "precision": o.precision,
                     "f1": o.f1, "delta_f1": o.f1 - exact.overall.f1, "rank": None,
                     "num_a": o.precision_num, "num_b": o.recall_num, "den_a": o.precision_den,
                     "den_b": o.recall_den, "official_recall": None,
                     "official_precision": None, "official_f1": None,
                     "wall_time_s": s.wall_time, "error": None})
    return rows


def _rank(rows: list[dict]) -> None:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["family"], r["test_set"], r["alignment"]), []).append(r)
    for g in groups.values():
        for k, r in enumerate(sorted(g, key=lambda r: (-r["f1"], r["system"])), 1):
            r["rank"] = k


def synthetic_documents(seed: int, n_docs: int = 200) -> tuple[dict, dict]:
    """Random GTT-format gold and predictions (the fallback without pilot data): 0-4 gold
    templates a document, 0-2 entities a role; a prediction copies each gold template with
    probability 0.7 (entities kept with probability 0.6, their type kept with 0.8) and adds
    0-2 random templates."""
    import numpy as np

    from exactalign.io.gtt import ROLES, Template

    rng = np.random.default_rng(seed)
    types = ["attack", "bombing", "kidnapping"]
    words = [f"m{k}" for k in range(12)]

    def random_template() -> Template:
        slots = tuple(tuple(tuple(rng.choice(words, size=rng.integers(1, 3), replace=False))
                            for _ in range(rng.integers(0, 3))) for _ in ROLES)
        return Template(str(rng.choice(types)), slots)

    def noisy(t: Template) -> Template:
        slots = tuple(tuple(e[:1] for e in ents if rng.random() < 0.6) for ents in t.slots)
        itype = t.incident_type if rng.random() < 0.8 else str(rng.choice(types))
        return Template(itype, slots)

    gold, pred = {}, {}
    for d in range(n_docs):
        docid = f"TST3-MUC4-{d + 1:04d}"
        gold[docid] = [random_template() for _ in range(rng.integers(0, 5))]
        pred[docid] = [noisy(t) for t in gold[docid] if rng.random() < 0.7] + \
            [random_template() for _ in range(rng.integers(0, 3))]
    return gold, pred


def _rows_synthetic(seed: int) -> list[dict]:
    from exactalign.metrics import templates

    gold, pred = synthetic_documents(seed)
    res = {m: templates.score_gtt(gold, pred, m) for m in templates.GTT_METHODS}
    _check_gtt("synthetic", res, "gtt")
    rows = _template_rows("gtt-f1", "synthetic", res)
    res = {m: templates.ceaf_rme(gold, pred, m) for m in templates.RME_METHODS}
    _check_gtt("synthetic", res, None)
    return rows + _template_rows("ceaf-rme", "synthetic", res)


def units(config: dict) -> list[dict]:
    """The instances: each 1992 (test set, system), each modern system, GRIT; or, without pilot
    data, the synthetic documents."""
    data = resolve_data_dir()
    if not (data.available and data.path.joinpath("muc4").is_dir()):
        return [{"family": "gtt", "system": "synthetic", "seed": config["seed"]}]
    root = str(data.path)
    out = [{"family": "1992", "test_set": t, "system": s, "root": root}
           for t in config["sets"] for s in config["systems_1992"]]
    out += [{"family": "gtt", "system": s, "root": root} for s in config["modern"]]
    if config.get("grit"):
        out.append({"family": "gtt", "test_set": "ceaf-ree", "system": "GRIT", "root": root})
    return out


def run_unit(unit: dict) -> list[dict]:
    """The rows of one instance, every column present (``None`` where it does not apply)."""
    return [{c: r.get(c) for c in COLUMNS} for r in _unit_rows(unit)]


def _unit_rows(unit: dict) -> list[dict]:
    if unit["system"] == "synthetic":
        return _rows_synthetic(unit["seed"])
    root = Path(unit["root"])
    if unit["family"] == "1992":
        return _rows_1992(root, unit["test_set"], unit["system"])
    if unit["system"] == "GRIT":
        return _rows_grit(root)
    return _rows_gtt(root, unit["system"])


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rows of every instance in :func:`units` order (one process: ``jobs`` is not used)."""
    per_unit = parallel_map(run_unit, units(config), jobs=1, desc=NAME, quiet=quiet,
                            key=lambda u: (u["family"], u.get("test_set"), u["system"]))
    rows = [r for rs in per_unit for r in rs]
    _rank(rows)
    return rows


def _pivot(rows: list[dict]) -> dict[tuple, dict[str, dict]]:
    out: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        out.setdefault((r["family"], r["test_set"], r["system"]), {})[r["alignment"]] = r
    return out


def _pct(v) -> str:
    return "" if v in (None, "") else f"{100 * v:.2f}"


def summary(rows: list[dict]) -> str:
    """One row per (family, test set, system): F under each alignment, the heuristic's shortfall
    and the documents it maps differently from exact, and the rank under each alignment."""
    lines = ["| family | test set | system | official F | recorded F | heuristic | F | exact F "
             "| ΔF | p | docs changed | rank heur. → exact | corpus-exact F |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (fam, ts, system), by in _pivot(rows).items():
        heur = next(a for a in ("muc1992", "iterx", "greedy") if a in by)
        h, e = by[heur], by["exact"]
        rec = by.get("recorded")
        corpus = by.get("exact-corpus")
        lines.append(f"| {fam} | {ts} | {system} | {_pct(e['official_f1'])} | "
                     f"{_pct(rec['f1']) if rec else ''} | {heur} | {_pct(h['f1'])} | "
                     f"{_pct(e['f1'])} | {100 * h['delta_f1']:+.2f} | {_p(h)} | "
                     f"{h['docs_changed']} | "
                     f"{h['rank']} → {e['rank']} | {_pct(corpus['f1']) if corpus else ''} |")
    return "\n".join(lines) + (
        "\n\nexact F maximises each message's (document's) F, as the 1992 scorer and GTT "
        "choose mappings per message; corpus-exact F (1992 only) maximises the corpus F itself "
        "over all messages' mappings together, the proven ceiling of the reported number. "
        "p (1992 only): the larger of the paired bootstrap and approximate randomization "
        "p-values (over messages, 5,000 samples each) of the heuristic's F against exact's.\n\n"
        + _flips(rows))


def _p(row) -> str:
    ps = [row.get("p_bootstrap"), row.get("p_randomization")]
    if any(p in (None, "") for p in ps):
        return ""
    p = max(ps)
    return f"{p:.4f}" + (" *" if p < 0.05 else "")


def _flips(rows: list[dict]) -> str:
    """Rankings changed by the alignment: per family and test set, the pairs of systems whose
    order under the heuristic differs from their order under exact."""
    out = []
    for (fam, ts), systems in _by_set(rows).items():
        heur = next(a for a in ("muc1992", "iterx", "greedy") if a in next(iter(
            systems.values())))
        names = sorted(systems)
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        flips = [(a, b) for a, b in pairs
                 if (systems[a][heur]["rank"] < systems[b][heur]["rank"])
                 != (systems[a]["exact"]["rank"] < systems[b]["exact"]["rank"])]
        out.append(f"{fam} {ts}: rankings changed by the alignment ({heur} → exact): "
                   f"{len(flips)} of {len(pairs)} system pairs"
                   + (": " + ", ".join(f"{a}/{b}" for a, b in flips) if flips else "") + ".")
    return "\n".join(out) + "\n"


HEURISTIC_ALIGNMENTS = ("muc1992", "iterx", "greedy")


def _flip_pairs(rows: list[dict]) -> dict[tuple, tuple[list, int]]:
    """Per (family, test set): the system pairs ordered differently under the heuristic and
    exact alignments, and the number of pairs."""
    out = {}
    for key, systems in _by_set(rows).items():
        heur = next(a for a in HEURISTIC_ALIGNMENTS if a in next(iter(systems.values())))
        names = sorted(systems)
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        out[key] = ([(a, b) for a, b in pairs
                     if (systems[a][heur]["rank"] < systems[b][heur]["rank"])
                     != (systems[a]["exact"]["rank"] < systems[b]["exact"]["rank"])],
                    len(pairs))
    return out


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: each system run's F under its scorer's heuristic alignment (1992:
    muc1992; GTT/IterX/GRIT: theirs) against the per-message exact alignment (gap in F
    points); rankings: system pairs the exact alignment orders differently."""
    heur = [r for r in rows if r["alignment"] in HEURISTIC_ALIGNMENTS]
    gaps = [-100 * r["delta_f1"] for r in heur if r["delta_f1"] < -TOL]
    old = [r for r in heur if str(r["family"]) == "1992"]
    old_below = [r for r in old if r["delta_f1"] < -TOL]
    sig = sum(1 for r in old if r["p_bootstrap"] is not None
              and max(r["p_bootstrap"], r["p_randomization"]) < 0.05)
    flips = _flip_pairs(rows)
    changed = [f"{a}/{b} ({ts})" for (_, ts), (fl, _) in flips.items() for a, b in fl]
    modern = [-100 * r["delta_f1"] for r in heur if str(r["family"]) != "1992"]
    finding = ""
    if old:
        finding = (f"The 1992 scorer's mapping puts {len(old_below)} of {len(old)} runs below "
                   f"the per-message optimum ({sig} significantly at 0.05, up to "
                   f"{max(-100 * r['delta_f1'] for r in old):.2f} F points)")
    if modern:
        finding += ("; " if finding else "") + (f"modern template scorers lose at most "
                                                f"{max(modern):.2f} points")
    finding += ("; the exact alignment reorders " + ", ".join(changed) if changed else
                "; no ranking changes") + "."
    return {"heuristic": "scorer's greedy mapping", "unit": "system runs",
            "instances": len(heur), "below": len(gaps),
            "gap_mean": float(np.mean(gaps)) if gaps else None,
            "gap_max": max(gaps) if gaps else 0.0, "gap_unit": "F points",
            "rankings_changed": len(changed),
            "rankings": sum(n for _, n in flips.values()), "ranking_unit": "system pairs",
            "finding": finding[0].upper() + finding[1:]}


def _by_set(rows: list[dict]) -> dict[tuple, dict[str, dict]]:
    out: dict[tuple, dict[str, dict]] = {}
    for (fam, ts, system), by in _pivot(rows).items():
        if "exact" in by:
            out.setdefault((fam, ts), {})[system] = by
    return out


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """Left: F under each non-exact alignment against F under exact, one point per system
    run. Right: the heuristic's shortfall ΔF (heuristic − exact, points), one row per test set
    and scoring (1992 TST3/TST4, GTT's metrics), one dot per system, the worst of each row
    named."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, 3.1), layout="constrained",
                                 gridspec_kw={"width_ratios": [1, 1.25]})
    exact = {(r["family"], r["test_set"], r["system"]): r["f1"] for r in rows
             if r["alignment"] == "exact"}
    styles = {"muc1992": ("1992 scorer (muc1992)", plot.STYLE["greedy"]),
              "iterx": ("IterX's", plot.STYLE["ref-order"]),
              "greedy": ("GTT / GRIT greedy", plot.STYLE["pilot2015"]),
              "recorded": ("1992 official report", dict(color=plot.OKABE_ITO["black"],
                                                         marker="x"))}
    for heur, (label, st) in styles.items():
        pts = [(exact[(r["family"], r["test_set"], r["system"])], r["f1"]) for r in rows
               if r["alignment"] == heur and (r["family"], r["test_set"], r["system"]) in exact]
        if pts:
            ax.scatter([100 * p[0] for p in pts], [100 * p[1] for p in pts], s=14,
                       marker=st["marker"], color=st["color"], label=label, alpha=0.8,
                       linewidths=0.8)
    hi = max([100 * r["f1"] for r in rows] + [1])
    ax.plot([0, hi], [0, hi], color="0.5", lw=0.8, zorder=0)
    ax.set_xlabel("F under the exact alignment [%]")
    ax.set_ylabel("F under the other alignment [%]")
    ax.set_title("F per system run")
    ax.legend(loc="upper left")

    heur_rows = [r for r in rows if r["alignment"] in HEURISTIC_ALIGNMENTS]
    groups = list(dict.fromkeys((r["family"], r["test_set"], r["alignment"])
                                for r in heur_rows))
    rng = np.random.default_rng(0)  # vertical jitter of the dots, fixed
    for k, g in enumerate(groups):
        sel = [r for r in heur_rows if (r["family"], r["test_set"], r["alignment"]) == g]
        xs = [100 * r["delta_f1"] for r in sel]
        st = styles[g[2]][1]
        bx.scatter(xs, k + rng.uniform(-0.18, 0.18, len(xs)), s=16, marker=st["marker"],
                   color=st["color"], alpha=0.8, linewidths=0.8)
        worst = min(sel, key=lambda r: r["delta_f1"])
        if worst["delta_f1"] < -TOL:
            bx.annotate(worst["system"], (100 * worst["delta_f1"], k), xytext=(0, 7),
                        textcoords="offset points", ha="center", fontsize=7)
    bx.axvline(0, color="0.5", lw=0.8, zorder=0)
    bx.set_yticks(range(len(groups)),
                  [f"{'MUC-4 1992' if str(f) == '1992' else f.upper()} {ts}\n({a})"
                   for f, ts, a in groups])
    bx.set_ylim(len(groups) - 0.5, -0.6)
    bx.grid(False, axis="y")
    bx.set_xlabel("ΔF = heuristic − exact [F points]")
    bx.set_title("Shortfall of the scorer's own alignment (one dot per system)")
    return [plot.save(fig, out_dir / FIGURES[0])]
