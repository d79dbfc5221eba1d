"""How far smatch's hill-climbing falls below the proven Smatch optimum, and what the exact path
costs.

Datasets (the triples of :mod:`exactalign.io.amr`, smatch 1.0.4's):

* ``pilot``  -- every file pair with a reference in ``pilot/amr/reference`` (Little Prince gold vs
  JAMR and CAMR, JAMR vs CAMR, gold vs the BART and T5 parsers, the bamboo STS pairs);
* ``perturbed`` -- ``sample`` graphs of the Little Prince gold bank v3.0 (drawn once), each
  scored against a perturbed copy of itself: ``rename`` (variables renumbered at random and the
  triples shuffled: only the mapping is hidden), ``drop`` (each attribute and relation triple
  removed with probability ``rate``), ``add`` (``rate`` x #relations random relation triples
  added), ``relabel`` (each concept and relation label replaced, with probability ``rate``, by
  another of the bank), ``anonymize`` (each concept replaced, with probability ``rate``, by
  ``thing``: the smart initial mapping loses its anchors and relations must place the variables);
* ``size`` -- ``k`` consecutive gold graphs joined under one new root (``multi-sentence``,
  ``:snt1 .. :sntk``), against a ``relabel`` perturbation at the first rate: one graph of up to a
  few hundred variables per instance, for time vs size.

Without pilot data there are no ``pilot`` rows, and ``perturbed`` and ``size`` use a synthetic
bank of random AMR-like trees (:func:`synthetic_bank`) instead of the gold bank; their dataset
names then start with ``synthetic-`` (``synthetic-rename@0``, ``synthetic-size4``), so that the
CSV, the summary and the figures say so.

For every dataset and every number of restarts in ``restarts`` and seed in ``seeds`` (``size``:
4 restarts, the first seed) one ``hillclimb`` row: pairs below the optimum (count and share), the
mean and max gap in triples and in F1 points, the corpus F1 of both and its deficit, and time.
One ``exact`` row per dataset: time, pairs proven (must be all), pairs proven without branching
(``assignment``, ``LP integral`` or ``LP bound``: every component settled by the LP), components
that needed the MIP. Seed-to-seed spread is the max - min of the corpus F1 over seeds (summary).

``fallback`` (exact rows): the solver routes that failed verification before the answers,
summed over the pairs (``Result.fallback``; 0 normally). A dataset whose run raises is one row
with its ``error``.

Invariants (:class:`ExperimentError`): every pair proven optimal; hill-climbing never above the
optimum; on the pilot files the exact matched count equals the reference optimum.
"""

from __future__ import annotations

import functools
import random
import time
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_pairs
from exactalign.io.amr import AmrGraph, read_amr, read_pairs
from exactalign.metrics import smatch
from exactalign.problems import latent
from exactalign.significance import approximate_randomization, paired_bootstrap

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "smatch_gap"
DESCRIPTION = ("Smatch: smatch 1.0.4's hill-climbing (0/1/4/19 restarts, several seeds) vs the "
               "proven optimum on the AMR pilot files and perturbed gold graphs; exact time "
               "and size scaling.")
DATA_SOURCE = ("pilot data: amr/reference/*.json file pairs and the Little Prince gold bank "
               "v3.0 (amr/gold-banks); without it, perturbations of a synthetic bank of "
               "random AMR-like trees (synthetic_bank) and no pilot-file rows")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("amr/reference", "amr/lpp-test-jamr-camr", "amr/lpp-two-parsers",
              "amr/bamboo-sts-test", "amr/gold-banks")
SEEDING = ("hill-climbing: one random.Random(seed) per (dataset, restarts, seed) drawn over the "
           "pairs in order; perturbations: random.Random(f'{seed}-{kind}-{rate}') per dataset; "
           "the gold-bank sample and the size groups: random.Random(config seed)")

FULL = {
    "seed": 0,
    "restarts": [0, 1, 4, 19],
    "seeds": [0, 1, 2],
    "pilot_seeds": 3,
    "sample": 100,
    "perturbed_seeds": 2,
    "perturbations": ["rename", "drop", "add", "relabel", "anonymize"],
    "rates": [0.1, 0.5],
    "sizes": [1, 4, 8, 16],
    "size_instances": 2,
}

QUICK = {**FULL, "restarts": [0, 4], "seeds": [0, 1], "pilot_seeds": 2, "sample": 25,
         "perturbations": ["rename", "relabel"], "rates": [0.3], "sizes": [1, 4],
         "size_instances": 2, "pilot_files": ["lp_jamr_vs_gold.json"]}

COLUMNS = ("dataset", "group", "method", "restarts", "seed", "pairs", "variables_mean",
           "variables_max", "triples_mean", "pairs_below", "share_below", "gap_mean", "gap_max",
           "gap_f1_mean", "gap_f1_max", "corpus_f1_exact", "corpus_f1", "deficit_f1_points",
           "time_s", "proven", "proven_no_branch", "mip_components", "components", "nodes_mean",
           "nodes_max", "deficit_ci_lo", "deficit_ci_hi", "p_bootstrap", "p_randomization",
           "fallback", "error")

#: Resamples (bootstrap) and trials (approximate randomization) of the paired tests over pairs.
SIGNIFICANCE_SAMPLES = 5_000

FIGURES = ("gap_vs_restarts.png", "time_vs_size.png")

NO_BRANCH = ("assignment", "LP integral", "LP bound")


# --------------------------------------------------------------------------------------------
# perturbations (on smatch triples)
# --------------------------------------------------------------------------------------------
def _graph(n, inst, attr, rel) -> AmrGraph:
    return AmrGraph(tuple(f"v{i}" for i in range(n)), tuple(inst), tuple(attr), tuple(rel))


def perturb(g: AmrGraph, kind: str, rate: float, rng: random.Random, concepts: list,
            roles: list) -> AmrGraph:
    """A perturbed copy of ``g`` (see the module docstring); variables always renumbered."""
    n = len(g.variables)
    perm = list(range(n))
    rng.shuffle(perm)
    inst = [("instance", perm[v], c) for _, v, c in g.instances]
    attr = [(r, perm[v], c) for r, v, c in g.attributes]
    rel = [(r, perm[a], perm[b]) for r, a, b in g.relations]
    if kind == "drop":
        attr = [t for t in attr if rng.random() >= rate]
        rel = [t for t in rel if rng.random() >= rate]
    elif kind == "add":
        for _ in range(round(rate * len(rel))):
            rel.append((rng.choice(roles), rng.randrange(n), rng.randrange(n)))
    elif kind == "anonymize":
        inst = [(x, v, "thing" if rng.random() < rate else c) for x, v, c in inst]
    elif kind == "relabel":
        inst = [(x, v, rng.choice(concepts) if rng.random() < rate else c) for x, v, c in inst]
        rel = [(rng.choice(roles) if rng.random() < rate else r, a, b) for r, a, b in rel]
    inst.sort(key=lambda t: t[1])
    rng.shuffle(attr)
    rng.shuffle(rel)
    return _graph(n, inst, attr, rel)


def join(graphs) -> AmrGraph:
    """Graphs joined under a new root ``multi-sentence`` with ``:snt1 ..`` relations."""
    inst, attr, rel = [("instance", 0, "multi-sentence")], [("TOP", 0, "top")], []
    off = 1
    for k, g in enumerate(graphs, start=1):
        inst += [(x, v + off, c) for x, v, c in g.instances]
        attr += [(r, v + off, c) for r, v, c in g.attributes if r != "TOP"]
        rel += [(r, a + off, b + off) for r, a, b in g.relations]
        rel.append((f"snt{k}", 0, off))
        off += len(g.variables)
    return _graph(off, inst, attr, rel)


# --------------------------------------------------------------------------------------------
# datasets
# --------------------------------------------------------------------------------------------
#: Vocabulary of the synthetic fallback bank (AMR-like concepts and roles).
SYNTHETIC_CONCEPTS = ("want-01", "go-02", "boy", "girl", "say-01", "see-01", "city", "big",
                      "person", "name", "believe-01", "thing", "and", "possible-01", "work-01")
SYNTHETIC_ROLES = ("ARG0", "ARG1", "ARG2", "mod", "location", "time", "op1", "op2", "domain")
#: Start of the names of the datasets drawn from the synthetic bank (no pilot data).
SYNTHETIC = "synthetic-"


def synthetic_bank(n_graphs: int, seed: int) -> list[AmrGraph]:
    """The fallback without pilot data: ``n_graphs`` random AMR-like trees of 2-14 variables
    (concepts and roles from a small vocabulary, so that concepts repeat and the matching is
    ambiguous, a few attributes, and smatch's TOP triple), drawn from ``random.Random(seed)``."""
    rng = random.Random(f"{seed}-synthetic-bank")
    bank = []
    for _ in range(n_graphs):
        n = rng.randint(2, 14)
        inst = [("instance", v, rng.choice(SYNTHETIC_CONCEPTS)) for v in range(n)]
        rel = [(rng.choice(SYNTHETIC_ROLES), rng.randrange(v), v) for v in range(1, n)]
        attr = [("polarity", v, "-") for v in range(n) if rng.random() < 0.1]
        bank.append(_graph(n, inst, attr + [("TOP", 0, "top")], rel))
    return bank


def datasets(config: dict) -> list[dict]:
    """``{"name", "group", "pairs", "optimum" (reference or None), "seeds"}`` per dataset."""
    data = resolve_data_dir()
    out = []
    if not data.available:
        return out + _bank_datasets(config, synthetic_bank(max(200, config["sample"]),
                                                           config["seed"]), SYNTHETIC)
    amr = data.require("amr")
    for pair in amr_pairs(amr, config.get("pilot_files")):
        ref = pair.reference  # recorded values: absent from a fetched cache
        out.append({"name": pair.name, "group": "pilot",
                     "pairs": read_pairs(pair.test, pair.gold),
                     "optimum": None if ref is None else
                     [round(p["optimal_match"]) for p in ref["per_pair"]],
                     "seeds": config["seeds"][:config["pilot_seeds"]]})
    return out + _bank_datasets(config, read_amr(amr / "gold-banks" /
                                                 "amr-bank-struct-v3.0.txt"))


def _bank_datasets(config: dict, bank: list[AmrGraph], prefix: str = "") -> list[dict]:
    """Perturbed copies of a sample of ``bank`` and joined groups of growing size, their names
    starting with ``prefix``."""
    out = []
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    rng = random.Random(config["seed"])
    sample = rng.sample(bank, config["sample"])
    for kind in config["perturbations"]:
        for rate in (config["rates"] if kind != "rename" else [0.0]):
            prng = random.Random(f"{config['seed']}-{kind}-{rate}")
            pairs = [(perturb(g, kind, rate, prng, concepts, roles), g) for g in sample]
            out.append({"name": f"{prefix}{kind}@{rate:g}", "group": "perturbed",
                        "pairs": pairs, "optimum": None,
                        "seeds": config["seeds"][:config["perturbed_seeds"]]})
    for k in config["sizes"]:
        pairs = []
        for _ in range(config["size_instances"]):
            start = rng.randrange(len(bank) - k)
            gold = join(bank[start:start + k])
            prng = random.Random(f"{config['seed']}-size-{k}-{start}")
            pairs.append((perturb(gold, "relabel", config["rates"][0], prng, concepts, roles),
                          gold))
        out.append({"name": f"{prefix}size{k}", "group": "size", "pairs": pairs,
                    "optimum": None, "seeds": config["seeds"][:1], "restarts": [4]})
    return out


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def _sizes(pairs):
    nv = [len(t.variables) + len(g.variables) for t, g in pairs]
    nt = [t.num_triples + g.num_triples for t, g in pairs]
    return float(np.mean(nv)), int(max(nv)), float(np.mean(nt))


def run_dataset(ds: dict, config: dict) -> list[dict]:
    pairs = ds["pairs"]
    insts = [smatch.instance_of(t, g) for t, g in pairs]
    tests = np.array([t.num_triples for t, _ in pairs], float)
    golds = np.array([g.num_triples for _, g in pairs], float)
    vmean, vmax, tmean = _sizes(pairs)
    base = {"dataset": ds["name"], "group": ds["group"], "pairs": len(pairs),
            "variables_mean": vmean, "variables_max": vmax, "triples_mean": tmean}
    t0 = time.perf_counter()
    exact = latent.solve_exact_many(insts)
    t_exact = time.perf_counter() - t0
    opt = np.array([r.objective for r in exact])
    if not all(r.proven_optimal for r in exact):
        raise ExperimentError(f"{ds['name']}: not every pair proven optimal")
    if ds["optimum"] is not None and list(opt.astype(int)) != ds["optimum"]:
        raise ExperimentError(f"{ds['name']}: exact differs from the reference optimum")
    f_ex = smatch.smatch_scores(opt.sum(), tests.sum(), golds.sum()).f1
    how = [r.details["proven_by"] for r in exact]
    rows = [{**base, "method": "exact", "restarts": None, "seed": None,
             "corpus_f1_exact": f_ex, "corpus_f1": f_ex, "time_s": t_exact,
             "proven": len(exact),
             "proven_no_branch": sum(1 for h in how if set(h) <= set(NO_BRANCH)),
             "mip_components": sum(h.get("MIP", 0) for h in how),
             "components": sum(r.components for r in exact), "fallback": fallback_count(*exact)}]
    # the pure-Python branch and bound (the CLI's first exact path), cross-checked here
    t0 = time.perf_counter()
    bnb = [latent.branch_and_bound(inst) for inst in insts]
    t_bnb = time.perf_counter() - t0
    for k, b in enumerate(bnb):
        if (b.proven and b.objective != opt[k]) or b.bound < opt[k] or b.objective > opt[k]:
            raise ExperimentError(f"{ds['name']}: branch and bound disagrees with the LP/MIP "
                                  f"path on pair {k}")
    nodes = np.array([b.nodes for b in bnb], float)
    rows.append({**base, "method": "bnb", "restarts": None, "seed": None,
                 "corpus_f1_exact": f_ex, "corpus_f1": f_ex, "time_s": t_bnb,
                 "proven": sum(b.proven for b in bnb), "nodes_mean": float(nodes.mean()),
                 "nodes_max": int(nodes.max())})
    pair_f_ex = np.array([smatch.smatch_scores(o, t, g).f1
                          for o, t, g in zip(opt, tests, golds, strict=True)])
    for restarts in ds.get("restarts", config["restarts"]):
        for seed in ds["seeds"]:
            rng = random.Random(seed)
            t0 = time.perf_counter()
            hc = np.array([latent.hillclimb_mapping(inst, restarts, rng=rng)[1]
                           for inst in insts], float)
            t_hc = time.perf_counter() - t0
            if (hc > opt).any():
                raise ExperimentError(f"{ds['name']}: hill-climbing above the optimum")
            gap = opt - hc
            pair_f = np.array([smatch.smatch_scores(o, t, g).f1
                               for o, t, g in zip(hc, tests, golds, strict=True)])
            gf = 100 * (pair_f_ex - pair_f)
            f_hc = smatch.smatch_scores(hc.sum(), tests.sum(), golds.sum()).f1
            # is the corpus F1 deficit significant? paired over the pairs (exact vs hill-climb)
            c_ex = np.stack([opt, tests, opt, golds], 1)
            c_hc = np.stack([hc, tests, hc, golds], 1)
            bs = paired_bootstrap(c_ex, c_hc, n_resamples=SIGNIFICANCE_SAMPLES, seed=seed)
            ar = approximate_randomization(c_ex, c_hc, n_trials=SIGNIFICANCE_SAMPLES, seed=seed)
            rows.append({**base, "method": "hillclimb", "restarts": restarts, "seed": seed,
                         "deficit_ci_lo": 100 * bs.ci[3][0], "deficit_ci_hi": 100 * bs.ci[3][1],
                         "p_bootstrap": bs.p_value, "p_randomization": ar.p_value,
                         "pairs_below": int((gap > 0).sum()),
                         "share_below": float((gap > 0).mean()),
                         "gap_mean": float(gap.mean()), "gap_max": float(gap.max()),
                         "gap_f1_mean": float(gf.mean()), "gap_f1_max": float(gf.max()),
                         "corpus_f1_exact": f_ex, "corpus_f1": f_hc,
                         "deficit_f1_points": 100 * (f_ex - f_hc), "time_s": t_hc})
    return rows


def _dataset_rows(ds: dict, config: dict, quiet: bool) -> list[dict]:
    """The rows of one dataset (one instance), with a progress line unless ``quiet``."""
    t0 = time.perf_counter()
    rows = [{c: r.get(c) for c in COLUMNS} for r in run_dataset(ds, config)]
    if not quiet:
        print(f"  {NAME}: {ds['name']} ({len(ds['pairs'])} pairs) "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return rows


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rows of every dataset, in :func:`datasets` order (one process: ``jobs`` is not used)."""
    per_ds = parallel_map(functools.partial(_dataset_rows, config=config, quiet=quiet),
                          datasets(config), jobs=1, desc=NAME, quiet=True,
                          key=lambda ds: ds["name"],
                          cells=lambda ds: {"dataset": ds["name"], "group": ds["group"],
                                            "pairs": len(ds["pairs"])})
    return [r for rows in per_ds for r in rows]


# --------------------------------------------------------------------------------------------
# summary and figures (from the CSV alone)
# --------------------------------------------------------------------------------------------
def summary(rows: list[dict]) -> str:
    """Per dataset: exact time and proofs; per restarts: share of pairs below the optimum,
    mean/max gap, corpus F1 deficit (mean over seeds) and seed-to-seed spread, time."""
    lines = ["| dataset | pairs | exact s | no-branch | B&B s | B&B proven | restarts | below | "
             "gap mean (max) | F1 gap pts mean (max) | corpus deficit pts | deficit 95% CI "
             "(seed 0) | significant seeds | seed spread pts | hill-climb s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    for name in names:
        sel = [r for r in rows if r["dataset"] == name]
        ex = next(r for r in sel if r["method"] == "exact")
        bb = next((r for r in sel if r["method"] == "bnb"), None)
        bb_cells = (f"{bb['time_s']:.2f} | {bb['proven']}/{bb['pairs']}" if bb is not None
                    else "– | –")
        for restarts in sorted({r["restarts"] for r in sel if r["method"] == "hillclimb"}):
            hc = [r for r in sel if r["method"] == "hillclimb" and r["restarts"] == restarts]
            f = [r["corpus_f1"] for r in hc]
            first = min(hc, key=lambda r: r["seed"])
            sig = sum(1 for r in hc if max(r["p_bootstrap"], r["p_randomization"]) < 0.05)
            lines.append(
                f"| {name} | {ex['pairs']} | {ex['time_s']:.2f} | "
                f"{ex['proven_no_branch']}/{ex['proven']} | {bb_cells} | {restarts} | "
                f"{100 * np.mean([r['share_below'] for r in hc]):.1f}% | "
                f"{np.mean([r['gap_mean'] for r in hc]):.3f} "
                f"({max(r['gap_max'] for r in hc):g}) | "
                f"{np.mean([r['gap_f1_mean'] for r in hc]):.3f} "
                f"({max(r['gap_f1_max'] for r in hc):.2f}) | "
                f"{np.mean([r['deficit_f1_points'] for r in hc]):.3f} | "
                f"[{first['deficit_ci_lo']:.3f}, {first['deficit_ci_hi']:.3f}] | "
                f"{sig}/{len(hc)} | "
                f"{100 * (max(f) - min(f)):.3f} | "
                f"{np.mean([r['time_s'] for r in hc]):.2f} |")
    lines += ["", "below: share of pairs where hill-climbing ends below the proven optimum "
              "(mean over seeds); gaps per pair in triples and F1 points; no-branch: pairs "
              "proven by the LP alone (no MIP); B&B: the pure-Python branch and bound "
              "(the CLI's first exact path) with its default budget, pairs it proves. "
              "Significance of the corpus F1 deficit (exact vs hill-climbing, paired over the "
              "pairs, exactalign.significance, 5,000 samples each): the 95% bootstrap interval "
              "of the deficit for seed 0, and the seeds whose deficit is significant at 0.05 "
              "under both the paired bootstrap and approximate randomization."]
    return "\n".join(lines) + "\n"


#: smatch 1.0.4's default number of random restarts (``-r``): the headline's heuristic.
DEFAULT_RESTARTS = 4


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: smatch's hill-climbing with its default restarts against the proven
    optimum, one instance per (AMR pair, seed) of the pilot and perturbed data sets (gap: the
    pair's F1 it loses, in points); the corpus deficit and other restarts in the finding."""
    hc = [r for r in rows if r["method"] == "hillclimb" and r["group"] != "size"]
    restarts = sorted({r["restarts"] for r in hc})
    r_head = DEFAULT_RESTARTS if DEFAULT_RESTARTS in restarts else (restarts or [None])[0]
    sel = [r for r in hc if r["restarts"] == r_head]
    total = sum(r["pairs"] for r in sel)
    below = sum(r["pairs_below"] for r in sel)
    lost = sum(r["gap_f1_mean"] * r["pairs"] for r in sel)
    gap_max = max((r["gap_f1_max"] for r in sel), default=0.0)

    def share(k):
        rs = [r for r in hc if r["restarts"] == k]
        n = sum(r["pairs"] for r in rs)
        return 100 * sum(r["pairs_below"] for r in rs) / n if n else 0.0

    worst = max(sel, key=lambda r: r["deficit_f1_points"], default=None)
    sig = sorted({r["dataset"] for r in sel
                  if max(r["p_bootstrap"], r["p_randomization"]) < 0.05})
    pairs = ("synthetic AMR-like pairs" if any(r["dataset"].startswith(SYNTHETIC) for r in sel)
             else "AMR pairs")
    finding = (f"With -r {r_head} hill-climbing ends below the proven optimum on "
               f"{100 * below / total if total else 0:.1f}% of {pairs} (up to "
               f"{gap_max:.1f} F1 points on one pair)")
    if worst is not None:
        finding += (f", costing up to {worst['deficit_f1_points']:.2f} corpus F1 points "
                    f"({worst['dataset']}); significant on "
                    + (", ".join(sig) if sig else "no data set"))
    if restarts and restarts[-1] != r_head:
        finding += f"; with -r {restarts[-1]} it still does on {share(restarts[-1]):.1f}%"
    return {"heuristic": f"hill-climbing -r {r_head}", "unit": "pairs × seeds",
            "instances": total, "below": below, "gap_mean": lost / below if below else None,
            "gap_max": gap_max, "gap_unit": "F1 points", "finding": finding + "."}


def _panel_groups(hc: list[dict]) -> list[tuple[str, list[str]]]:
    """The columns of ``gap_vs_restarts``: the pilot files, then the perturbed datasets
    (``kind@rate``) one column per rate (rate-0 datasets with the smallest rate), so that no
    panel has more than a handful of series; titled "synthetic trees" instead of "gold" when
    they come from the synthetic bank."""
    names = list(dict.fromkeys(r["dataset"] for r in hc))
    group = {r["dataset"]: r["group"] for r in hc}
    out = []
    pilot = [n for n in names if group[n] == "pilot"]
    if pilot:
        out.append(("pilot AMR files", pilot))
    pert = [n for n in names if group[n] != "pilot"]
    bank = "synthetic trees" if pert and all(n.startswith(SYNTHETIC) for n in pert) else "gold"

    def rate(n):
        try:
            return float(n.rsplit("@", 1)[1])
        except (IndexError, ValueError):
            return None

    rates = sorted({rate(n) for n in pert if rate(n)})
    for k, x in enumerate(rates):
        sel = [n for n in pert if rate(n) == x or (k == 0 and not rate(n))]
        out.append((f"perturbed {bank}, rate {x:g}", sel))
    rest = [n for n in pert if not any(n in s for _, s in out)]
    if rest:
        out.append((f"perturbed {bank}", rest))
    return out


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``gap_vs_restarts.png``: share of pairs below the optimum (top) and corpus F1 deficit
    (bottom) vs restarts, one column per dataset group (pilot files; perturbed gold, or synthetic
    trees, per rate), mean over seeds with a min..max band, the series labelled in each column;
    ``time_vs_size.png``: exact (both paths) and hill-climbing (-r 4) time per pair vs mean
    variables per pair."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    out_dir = Path(out_dir)
    written = []
    hc = [r for r in rows if r["method"] == "hillclimb" and r["group"] != "size"]
    xs = sorted({r["restarts"] for r in hc})
    cols = _panel_groups(hc)
    # every perturbation kind, whichever column it is in (the first column is the pilot files
    # only when there are some: without pilot data it is a perturbed one)
    kinds = list(dict.fromkeys(r["dataset"].split("@")[0] for r in hc if r["group"] != "pilot"))
    fig, grid = plt.subplots(2, max(1, len(cols)), figsize=(plot.TEXT_WIDTH, 4.6),
                             squeeze=False, sharex=True, sharey="row", layout="constrained")
    for c, (title, names) in enumerate(cols):
        for i, name in enumerate(names):
            sel = [r for r in hc if r["dataset"] == name]
            if sel[0]["group"] == "pilot":
                style = plot.series_style(i)
            else:  # one colour and marker per perturbation kind, in every column
                style = plot.series_style(kinds.index(name.split("@")[0]))
            for row, (key, scale) in enumerate((("share_below", 100),
                                                ("deficit_f1_points", 1))):
                st = plot.stats_by(sel, lambda r: r["restarts"],
                                   lambda r, k=key, s=scale: s * r[k])
                plot.line_with_band(grid[row][c], xs, st, name, style)
        grid[0][c].set_title(title)
        if not any(r["pairs_below"] for r in hc if r["dataset"] in names):
            for row in (0, 1):
                grid[row][c].text(0.5, 0.5, "no pair below the optimum",
                                  transform=grid[row][c].transAxes, ha="center",
                                  va="center", color="0.35")
        grid[0][c].legend(loc="upper right", fontsize=7, handlelength=1.5)
    grid[0][0].set_ylabel("pairs below the optimum [%]")
    grid[1][0].set_ylabel("corpus F1 deficit [points]")
    for ax in grid[1]:
        ax.set_xlabel("random restarts (-r)")
    for ax in grid.flat:
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.set_ylim(bottom=0)
    written.append(plot.save(fig, out_dir / "gap_vs_restarts.png"))

    fig, ax = plt.subplots(figsize=(plot.COLUMN_WIDTH + 0.5, 2.8), layout="constrained")
    for method, label, style in (
            ("exact", "exact (LP + MIP)", plot.STYLE["exact"]),
            ("bnb", "branch and bound\n(hollow: gave up on some pairs)",
             plot.STYLE["other"]),
            ("hillclimb", "hill-climbing -r 4", plot.STYLE["greedy"])):
        sel = [r for r in rows
               if r["method"] == method and (method != "hillclimb" or r["restarts"] == 4)]
        solid = [r for r in sel if method != "bnb" or r["proven"] == r["pairs"]]
        hollow = [r for r in sel if r not in solid]
        for part, face in ((solid, style["color"]), (hollow, "none")):
            pts = sorted((r["variables_mean"], r["time_s"] / r["pairs"]) for r in part)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none",
                        marker=style["marker"], color=style["color"], markerfacecolor=face,
                        alpha=0.85, label=label if part is solid or not solid else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("variables per pair (test + gold, dataset mean)")
    ax.set_ylabel("time per pair [s]")
    ax.legend(loc="upper left")
    written.append(plot.save(fig, out_dir / "time_vs_size.png"))
    return written
