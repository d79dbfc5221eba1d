"""DRS parsing: how far Counter's hill-climbing (the official PMB scorer) falls below the proven
optimum of its own objective, with its default 20 restarts and with fewer, with and without its
smart concept mapping; and whether the published scores are the optimum.

Data: every system output of the pilot's ``drs/systems/`` (PMB 2.1.0, 2.2.0 dev and test, 3.0.0
dev; the Neural_DRS runs, Boxer, SPAR, ...) against its gold file, read and judged as Counter's
official setting does (``-g clf_signature.yaml``, ``-ill dummy``; concepts normalised to WordNet
3.0 synsets when the sense map is fetched, column ``wordnet``), by the Counter that published
the release's results (column ``scorer``, config ``scorer``: release -> Counter, else today's,
``190838f``): PMB 2.2.0's by DRS_parsing's tag ``v.2.2.0``, whose referee, operators over boxes
and ``SY1``/``SY2`` differ (:data:`~exactalign.metrics.drs.V220_OPTIONS`,
:mod:`exactalign.io.drs_referee_v220`). Without pilot data:
``synthetic_pairs`` random DRSs (:func:`synthetic_drs`) against seeded perturbations of them
(:func:`perturbed`; ``synthetic_runs`` runs at each rate of ``synthetic_rates``, files
``synthetic/rateQ/outputN.txt``), scored as they are (not judged by the referee: as Counter's
``-ill score``).

One row per (file, ``restarts``, ``smart``): the file's DRS pairs, Counter's produced and gold
clauses, the clauses matched under the proven optimum (``exact``, per pair
:func:`~exactalign.metrics.drs.counter_instance` solved by the latent package's exact path) and
under Counter's hill-climbing reproduced call for call
(:func:`~exactalign.metrics.drs_counter.counter_match`), the pairs where it is below, the clauses
it misses, Counter's corpus F of each (``compute_f``, 4 digits) and the gap in F1 points, the
largest gap of one pair and the pairs' gaps summed (F1 points), Counter's published F of the
run where ``eval.txt`` has it (and the whole file is scored), times.

These are the rows of ``kind`` ``file``. Systems published as five runs (``output1`` ...
``output5`` in one folder; without pilot data the synthetic systems, one a rate) add
(:mod:`experiments.drs_noise`): ``noise`` rows, each run of ``noise_runs`` scored by Counter's
``-r 20`` (smart mapping on, Counter's default) under each of ``noise_seeds`` seeds -- the
scorer's restart noise; ``system`` rows, the 5-run means, SDs and 95% t-intervals under
Counter, the optimum and as published, the ranks and the noise's share of the 5-run variance;
``pair`` rows, two systems of a release and split: the order of their 5-run means under each
scoring and paired significance of run 1 over DRSs, Counter-scored and optimum-scored
(``samples`` resamples, ``alpha``).

Invariants (:class:`~experiments.runner.ExperimentError`): Counter's mapping never above the
optimum on any pair (every seed); a published F never above the optimum's of its file; every pair proven (within ``exact_time_limit``); a noise
unit's Counter count under the file's own seed equals its ``file`` row's.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir
from exactalign.metrics.drs import COUNTER_VERSIONS, counter_drs, counter_f, counter_instance
from exactalign.metrics.drs_counter import counter_match
from exactalign.metrics.drs_report import counter_rules

from . import drs_noise, plot
from .runner import ExperimentError, parallel_map

NAME = "drs_gap"
DESCRIPTION = ("DRS parsing (PMB): Counter's hill-climbing (-r 1/2/5/20, smart mapping or not) "
               "vs the proven optimum of its objective on every pilot system output; the "
               "published scores.")
DATA_SOURCE = ("pilot drs/ (gold files and system outputs of PMB 2.1.0-3.0.0) when present, "
               "else synthetic DRS pairs")
DATA_READS = ("drs",)
SEEDING = ("Counter's hill-climbing on file f with r restarts and smart s: "
           "random.Random(f'{seed}/{f}/{r}/{s}') over the file's pairs in order; restart "
           "noise, seed k of run file f: random.Random(f'{seed}/noise/{f}/{k}') over its pairs "
           "in order; synthetic gold DRS k: random.Random(f'{seed}/synthetic/{k}'), its "
           "perturbation in run n of the system of rate q: "
           "random.Random(f'{seed}/synthetic/{q}/{n}/{k}'); significance tests: "
           "numpy.random.default_rng(seed) (the same resamples for Counter and the optimum)")

FULL = {"seed": 0, "restarts": [1, 2, 5, 20], "smart": [True, False], "files": None,
        "max_pairs": None, "synthetic_pairs": 300, "synthetic_rates": [0.1, 0.2, 0.3],
        "synthetic_runs": 5, "exact_time_limit": 600.0, "noise_seeds": 20,
        "noise_runs": [1, 2, 3, 4, 5], "noise_systems": None, "samples": 10_000, "alpha": 0.05,
        "scorer": {"pmb-2.2.0": "v.2.2.0"}}
QUICK = {**FULL, "restarts": [1, 20], "smart": [True],
         "files": ["pmb-3.0.0/en/dev/bert_only/output1.txt", "pmb-2.1.0/dev/boxer.txt",
                   *(f"pmb-2.2.0/en/dev/{s}/output{n}.txt" for s in ("bert_only", "bert_char_1enc")
                     for n in range(1, 6))],
         "max_pairs": 120, "synthetic_pairs": 40, "synthetic_rates": [0.2, 0.3],
         "noise_seeds": 3, "noise_runs": [1, 2], "noise_systems": 1, "samples": 1_000}

COLUMNS = ("kind", "release", "split", "system", "file", "restarts", "smart", "wordnet",
           "scorer", "pairs",
           "ill_pred", "ill_gold", "produced", "gold", "exact", "counter", "proven", "below",
           "short", "exact_f1", "counter_f1", "gap_f1", "pair_gap_max", "pair_gap_sum",
           "published_f1", "noise_seed",
           # system rows
           "runs", "mean_counter", "sd_counter", "ci_lo_counter", "ci_hi_counter", "mean_exact",
           "sd_exact", "ci_lo_exact", "ci_hi_exact", "mean_published", "sd_published",
           "ci_lo_published", "ci_hi_published", "rank_counter", "rank_exact", "rank_published",
           "noise_runs", "noise_seeds", "noise_sd", "noise_below", "noise_share",
           "noise_share_replica",
           # pair rows
           "system_b", "delta", "delta_exact", "p_bootstrap", "p_randomization",
           "p_bootstrap_exact", "p_randomization_exact", "significant", "significant_exact",
           "flipped", "verdict_changed", "mean_delta", "mean_delta_exact",
           "mean_delta_published", "mean_flipped", "published_flipped", "samples", "seed",
           "exact_s", "counter_s", "error")

SYSTEMS = "systems"
GOLD = {("pmb-2.1.0", "dev"): "gold/pmb-2.1.0/dev.txt", ("pmb-2.2.0", "dev"): "gold/pmb-2.2.0/dev.txt",
        ("pmb-2.2.0", "test"): "gold/pmb-2.2.0/test.txt",
        ("pmb-3.0.0", "dev"): "gold/pmb-3.0.0/dev.txt"}


# ------------------------------------------------------------------------------------------
# synthetic DRSs (no pilot data)
# ------------------------------------------------------------------------------------------
CONCEPTS = ("dog", "cat", "man", "woman", "house", "eat", "see", "give", "red", "old")
ROLES = ("Agent", "Theme", "Patient", "Recipient", "Attribute", "Time")


def synthetic_drs(rng: random.Random) -> list:
    """A random DRS: one to three boxes linked by ``NOT``/``PRESUPPOSITION``, two to seven
    referents each introduced (``REF``) with a concept, roles between them, some names and
    symmetric ``EQU``/``NEQ`` clauses."""
    nb, nx = rng.randint(1, 3), rng.randint(2, 7)
    boxes = [f"b{i}" for i in range(1, nb + 1)]
    refs = [f"x{i}" for i in range(1, nx + 1)]
    out = [[boxes[i - 1], rng.choice(["NOT", "PRESUPPOSITION"]), boxes[i]] for i in range(1, nb)]
    home = {x: rng.choice(boxes) for x in refs}
    for x in refs:
        out.append([home[x], "REF", x])
        out.append([home[x], rng.choice(CONCEPTS), f'"{rng.choice("nva")}.0{rng.randint(1, 3)}"',
                    x])
    for _ in range(rng.randint(1, nx + 2)):
        a, b = rng.sample(refs, 2)
        out.append([home[a], rng.choice(ROLES), a, b])
    for x in refs:
        if rng.random() < 0.2:
            out.append([home[x], "Name", x, f'"{rng.choice(["tom", "ann", "paris"])}"'])
    if nx > 2 and rng.random() < 0.4:
        a, b = rng.sample(refs, 2)
        out.append([home[a], rng.choice(["EQU", "NEQ"]), a, b])
    return out


def perturbed(drs: list, rng: random.Random, rate: float = 0.2) -> list:
    """A parser-like copy of ``drs``: each clause dropped, or its concept, sense or role
    changed, at ``rate``; a spurious role added; every variable renamed."""
    out = []
    for c in drs:
        c = list(c)
        u = rng.random()
        if u < rate / 3:
            continue
        if u < 2 * rate / 3 and len(c) == 4 and c[1] in CONCEPTS:
            c[1] = rng.choice(CONCEPTS)
        elif u < rate and len(c) == 4 and c[1] in ROLES:
            c[1] = rng.choice(ROLES)
        elif u < rate and len(c) == 4 and c[1] in CONCEPTS:
            c[2] = f'"n.0{rng.randint(1, 3)}"'
        out.append(c)
    refs = sorted({f for c in drs for f in c[2:] if f.startswith("x")})
    if len(refs) > 1 and rng.random() < rate:
        a, b = rng.sample(refs, 2)
        out.append([drs[0][0], rng.choice(ROLES), a, b])
    names = sorted({f for c in out for f in (c[0], *c[2:]) if f[:1] in "bx" and f[1:].isdigit()})
    new = names[:]
    rng.shuffle(new)
    ren = {a: ("p" + b) for a, b in zip(names, new, strict=True)}
    return [[ren.get(f, f) if k != 1 else f for k, f in enumerate(c)] for c in out]


# ------------------------------------------------------------------------------------------
# the files and a unit's rows
# ------------------------------------------------------------------------------------------
def _where(rel: str) -> tuple[str, str, str]:
    """(release, split, system) of a system file's path under ``systems/`` (or of a synthetic
    run ``synthetic/rateQ/outputN.txt``)."""
    parts = rel.split("/")
    if parts[0] == "synthetic":
        return "synthetic", "-", "/".join(parts[1:])
    release = parts[0]
    split = "test" if "test" in parts[1:-1] else "dev"
    rest = [p for p in parts[1:] if p not in ("en", "dev", "test")]
    return release, split, "/".join(rest)


def system_files(drs: Path) -> list[str]:
    """Every system output under ``drs/systems`` (``*.txt`` but ``eval.txt``, and Marian's
    ``*.seq.drs.res``) whose gold file is there, relative to ``systems/``, in path order."""
    root = drs / SYSTEMS
    out = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.name == "eval.txt":
            continue
        if not (p.suffix == ".txt" or p.name.endswith(".drs.res")):
            continue
        rel = p.relative_to(root).as_posix()
        release, split, _ = _where(rel)
        if (drs / GOLD.get((release, split), "-")).is_file():
            out.append(rel)
    return out


def published_f1(drs: Path, rel: str) -> float | None:
    """Counter's published F of a run ``outputN.txt`` from its folder's ``eval.txt``."""
    p = drs / SYSTEMS / rel
    ev = p.parent / "eval.txt"
    stem = p.name.split(".")[0]
    if not ev.is_file() or not stem.startswith("output") or not stem[6:].isdigit():
        return None
    kind = None
    for line in ev.read_text().splitlines():
        if line.startswith("For score-type:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("All scores:") and kind == "F-score":
            scores = [float(x) for x in line.split(":", 1)[1].split(",")]
            n = int(stem[6:])
            return scores[n - 1] if n <= len(scores) else None
    return None


def scorer(unit: dict) -> str:
    """The Counter (:data:`~exactalign.metrics.drs.COUNTER_VERSIONS`) that scores the unit's
    file: the one that published its release's results."""
    return unit["config"].get("scorer", {}).get(_where(unit["file"])[0], COUNTER_VERSIONS[0])


def _pairs(unit: dict):
    """The unit's DRS pairs as clause lists, with the ill-formed counts."""
    from exactalign.io.drs import read_drs_file

    cfg = unit["config"]
    if unit["file"].startswith("synthetic/"):
        _, rate, run_ = unit["file"].split("/")
        rate, n = float(rate[4:]), drs_noise.run_number(run_)
        gold, pred = [], []
        for k in range(cfg["synthetic_pairs"]):
            g = synthetic_drs(random.Random(f"{cfg['seed']}/synthetic/{k}"))
            gold.append(g)
            pred.append(perturbed(g, random.Random(f"{cfg['seed']}/synthetic/{rate:g}/{n}/{k}"),
                                  rate))
        return pred, gold, 0, 0
    drs = resolve_data_dir().path / "drs"
    release, split, _ = _where(unit["file"])
    rules = counter_rules(scorer(unit))
    p, ip = rules.replace_ill(read_drs_file(drs / SYSTEMS / unit["file"]), "dummy", "prod")
    g, ig = rules.replace_ill(read_drs_file(drs / GOLD[(release, split)]), "dummy", "gold")
    if len(p) != len(g):
        raise ValueError(f"{len(p)} DRSs against {len(g)} gold ones")
    n = cfg["max_pairs"] or len(p)
    return [d.clauses for d in p[:n]], [d.clauses for d in g[:n]], ip, ig


def _solved(unit: dict) -> dict:
    """The unit's pairs as Counter reads them (``sides``), each pair's proven optimum (``ex``)
    and the file's facts shared by its rows."""
    from exactalign.core.solve import SolveOptions
    from exactalign.data.wordnet import load_sense_map
    from exactalign.problems import latent

    cfg = unit["config"]
    pred, gold, ip, ig = _pairs(unit)
    whole = cfg["max_pairs"] is None or len(pred) < cfg["max_pairs"]
    synthetic = unit["file"].startswith("synthetic/")
    senses = load_sense_map() if not synthetic else None
    t0 = time.perf_counter()
    opts = counter_rules(scorer(unit)).options
    sides = [(counter_drs(a, opts, senses), counter_drs(b, opts, senses))
             for a, b in zip(pred, gold, strict=True)]
    res = latent.solve_exact_many([counter_instance(a, b) for a, b in sides],
                                  options=SolveOptions(time_limit=cfg["exact_time_limit"]))
    t_exact = time.perf_counter() - t0
    proven = sum(1 for r in res if r.proven_optimal)
    if proven < len(res):
        raise ExperimentError(f"{unit['file']}: {len(res) - proven} pairs not proven optimal")
    ex = [int(r.objective) for r in res]
    prod = sum(a.n_clauses for a, _ in sides)
    gl = sum(b.n_clauses for _, b in sides)
    release, split, system = _where(unit["file"])
    pub = None
    if not synthetic and whole:
        pub = published_f1(resolve_data_dir().path / "drs", unit["file"])
    ef = counter_f(sum(ex), prod, gl)[2]
    if pub is not None and pub > ef:  # the ceiling: no mapping scores above the optimum
        raise ExperimentError(f"{unit['file']}: the published F {pub} is above the proven "
                              f"optimum's {ef} (Counter {scorer(unit)})")
    return {"sides": sides, "ex": ex, "base": {
        "release": release, "split": split, "system": system, "file": unit["file"],
        "wordnet": senses is not None, "scorer": scorer(unit), "pairs": len(sides), "ill_pred": ip, "ill_gold": ig,
        "produced": prod, "gold": gl, "exact": sum(ex), "proven": proven,
        "exact_f1": ef, "published_f1": pub, "exact_s": t_exact}}


def _climb(s: dict, rng: random.Random, restarts: int, smart: bool, what: str) -> dict:
    """Counter's hill-climbing over the solved pairs ``s`` (:func:`_solved`) drawing from
    ``rng``: each pair's matched clauses and the row cells of the run; checks the ceiling."""
    sides, ex, b = s["sides"], s["ex"], s["base"]
    t0 = time.perf_counter()
    got = [counter_match(p, g, rng, restarts, smart).matched for p, g in sides]
    t_c = time.perf_counter() - t0
    for n, (e, c) in enumerate(zip(ex, got, strict=True)):
        if c > e:
            raise ExperimentError(f"{b['file']} pair {n + 1} ({what}): Counter's mapping "
                                  f"matches {c} clauses, above the optimum {e}")
    gaps = [counter_f(e, p.n_clauses, g.n_clauses)[2] - counter_f(c, p.n_clauses, g.n_clauses)[2]
            for e, c, (p, g) in zip(ex, got, sides, strict=True)]
    fc = counter_f(sum(got), b["produced"], b["gold"])[2]
    return {"got": got, "cells": {
        "restarts": restarts, "smart": smart, "counter": sum(got),
        "below": sum(1 for e, c in zip(ex, got, strict=True) if c < e),
        "short": sum(ex) - sum(got), "counter_f1": fc, "gap_f1": 100 * (b["exact_f1"] - fc),
        "pair_gap_max": 100 * max(gaps, default=0), "pair_gap_sum": 100 * sum(gaps),
        "counter_s": t_c}}


def _unit(unit: dict) -> list[dict]:
    """The ``file`` rows of one file: every setting of ``restarts`` and ``smart``."""
    cfg = unit["config"]
    s = _solved(unit)
    out = []
    for smart in cfg["smart"]:
        for r in cfg["restarts"]:
            rng = random.Random(f"{cfg['seed']}/{unit['file']}/{r}/{smart}")
            c = _climb(s, rng, r, smart, f"-r {r}")
            out.append({"kind": "file", **s["base"], **c["cells"]})
    return out


def _noise_unit(unit: dict) -> dict:
    """A run of a five-run system (``unit["file"]``) scored by Counter's ``-r 20`` (smart
    mapping) under ``unit["seeds"]`` seeds: the ``noise`` rows; and (``unit["counts"]``, run 1)
    its per-DRS ``[matched, produced, gold]`` under the file's own seed (as its ``file`` row)
    and under the optimum."""
    cfg = unit["config"]
    r = drs_noise.MAIN_RESTARTS
    s = _solved(unit)
    own = _climb(s, random.Random(f"{cfg['seed']}/{unit['file']}/{r}/True"), r, True,
                 "the file's seed")
    rows = []
    for k in range(unit["seeds"]):
        c = _climb(s, random.Random(f"{cfg['seed']}/noise/{unit['file']}/{k}"), r, True,
                   f"noise seed {k}")
        rows.append({"kind": "noise", **s["base"], **c["cells"], "noise_seed": k})
    sizes = [(p.n_clauses, g.n_clauses) for p, g in s["sides"]]
    return {"rows": rows, "file": unit["file"], "folder": unit["file"].rsplit("/", 1)[0],
            "own_counter": own["cells"]["counter"],
            "counts": None if not unit["counts"] else {"counter": [[m, p, g] for m, (p, g) in zip(own["got"], sizes, strict=True)],
                       "exact": [[m, p, g] for m, (p, g) in zip(s["ex"], sizes, strict=True)]}}


def _run_unit(unit: dict):
    return _noise_unit(unit) if unit.get("noise") else _unit(unit)


def synthetic_files(config: dict) -> list[str]:
    """The synthetic runs: ``synthetic_runs`` of a system per rate of ``synthetic_rates``."""
    return [f"synthetic/rate{q:g}/output{n}.txt" for q in config["synthetic_rates"]
            for n in range(1, config["synthetic_runs"] + 1)]


def units(config: dict) -> list[dict]:
    """One unit a file (its ``file`` rows), then the five-run systems' units: run 1's per-DRS
    counts and, for the first ``noise_systems`` systems (all for ``None``), the ``noise`` rows
    of each run of ``noise_runs`` (one unit a run)."""
    d = resolve_data_dir()
    drs = None if not d.available else d.path / "drs"
    if drs is None or not (drs / SYSTEMS).is_dir():
        files = synthetic_files(config)
    else:
        files = system_files(drs)
        if config["files"] is not None:
            files = [f for f in files if f in config["files"]]
    systems = list(drs_noise.five_run_systems(files).values())
    few = config["noise_systems"]
    out = [{"file": f, "config": config} for f in files]
    for i, runs in enumerate(systems):
        noisy = few is None or i < few
        for n, f in enumerate(runs, 1):
            if n == 1 or (noisy and n in config["noise_runs"]):
                out.append({"file": f, "config": config, "noise": True, "counts": n == 1,
                            "seeds": config["noise_seeds"]
                            if noisy and n in config["noise_runs"] else 0})
    return out


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    todo = units(config)
    per_unit = parallel_map(_run_unit, todo, jobs=jobs, desc=NAME, quiet=quiet,
                            cells=lambda u: {"kind": "noise" if u.get("noise") else "file",
                                             "file": u["file"]})
    rows = [r for u in per_unit if isinstance(u, list) for r in u]
    noise = [u for u in per_unit if isinstance(u, dict)]
    counts = {}
    for u in noise:
        own = [r for r in rows if r["file"] == u["file"]
               and r["restarts"] == drs_noise.MAIN_RESTARTS and r["smart"] is True]
        if own and own[0]["counter"] != u["own_counter"]:
            raise ExperimentError(f"{u['file']}: the noise unit's Counter count "
                                  f"under the file's seed is {u['own_counter']}, its file row "
                                  f"says {own[0]['counter']}")
        rows += u["rows"]
        if u["counts"] is not None:
            counts[u["folder"]] = u["counts"]
    systems = drs_noise.system_rows(rows)
    rows += systems + drs_noise.pair_rows(systems, counts, samples=config["samples"],
                                          seed=config["seed"], alpha=config["alpha"])
    return [{c: r.get(c) for c in COLUMNS} for r in rows]


# ------------------------------------------------------------------------------------------
# summary, headline, figures (from the CSV rows only)
# ------------------------------------------------------------------------------------------
def file_rows(rows: list[dict]) -> list[dict]:
    """The rows of ``kind`` ``file`` (a CSV from before the ``kind`` column has only those)."""
    return [r for r in rows if (r.get("kind") or "file") == "file"]


def _settings(rows):
    out: dict = {}
    for r in rows:
        out.setdefault((bool(r["smart"]), int(r["restarts"])), []).append(r)
    return dict(sorted(out.items(), key=lambda kv: (not kv[0][0], kv[0][1])))


def summary(all_rows: list[dict]) -> str:
    rows = file_rows(all_rows)
    out = ["Counter's hill-climbing against the proven optimum of its objective, per setting "
           "(smart concept mapping or random starts only, restarts), over every file: DRS "
           "pairs where it ends below the optimum, clauses it misses, the corpus F gap per "
           "file (mean, max, F1 points) and the largest gap of one pair.", "",
           "| smart | restarts | files | pairs | below | clauses short | file gap mean | "
           "file gap max | pair gap max | proven |", "|---|---:|" + "---:|" * 8]
    for (smart, r), sel in _settings(rows).items():
        out.append(f"| {'yes' if smart else 'no'} | {r} | {len(sel)} | "
                   f"{sum(x['pairs'] for x in sel)} | {sum(x['below'] for x in sel)} | "
                   f"{sum(x['short'] for x in sel)} | "
                   f"{np.mean([x['gap_f1'] for x in sel]):.4f} | "
                   f"{max(x['gap_f1'] for x in sel):.4f} | "
                   f"{max(x['pair_gap_max'] for x in sel):.2f} | "
                   f"{sum(x['proven'] for x in sel)}/{sum(x['pairs'] for x in sel)} |")
    if any(x["release"] == "synthetic" for x in rows):
        out += ["", "No pilot data: synthetic DRS pairs (random DRSs against seeded "
                "perturbations of them: five runs of a system a perturbation rate), not the "
                "PMB system outputs."]
    pub = [x for x in rows if x["published_f1"] is not None and bool(x["smart"])
           and int(x["restarts"]) == 20]
    if pub:
        out += ["", "Counter's published F (eval.txt, five runs a system) against the proven "
                "optimum of the Counter that published it ("
                + ", ".join(f"{r}: {v}" for r, v in sorted(
                    {(x["release"], x.get("scorer") or COUNTER_VERSIONS[0]) for x in pub}))
                + ")"
                + (" (WordNet map fetched):" if all(x["wordnet"] for x in pub)
                   else " (no WordNet map: concepts as written):"), "",
                "| release | split | runs | equal | published - exact: mean | min | max |",
                "|---|---|---:|---:|---:|---:|---:|"]
        groups: dict = {}
        for x in pub:
            groups.setdefault((x["release"], x["split"]), []).append(
                100 * (x["published_f1"] - x["exact_f1"]))
        for (rel, split), d in sorted(groups.items()):
            out.append(f"| {rel} | {split} | {len(d)} | {sum(abs(v) < 5e-3 for v in d)} | "
                       f"{np.mean(d):.2f} | {min(d):.2f} | {max(d):.2f} |")
    changed, total = rankings(rows)
    if total:
        out += ["", f"Systems ranked by corpus F within each release and split (-r 20, smart "
                f"mapping): {changed} of {total} system pairs ordered differently by Counter's "
                "mapping and the optimum."]
    return "\n".join(out + drs_noise.summary_lines(all_rows))


def rankings(rows: list[dict]) -> tuple[int, int]:
    """System pairs (same release and split, ``-r 20`` with the smart mapping) ordered
    differently by Counter's corpus F and the optimum's; and the pairs compared."""
    groups: dict = {}
    for r in file_rows(rows):
        if bool(r["smart"]) and int(r["restarts"]) == 20 and r["release"] != "synthetic":
            groups.setdefault((r["release"], r["split"]), []).append(r)
    counts = [drs_noise.order_changes({r["file"]: r["counter_f1"] for r in sel},
                                      {r["file"]: r["exact_f1"] for r in sel})
              for sel in groups.values()]
    return sum(c for c, _ in counts), sum(t for _, t in counts)


def headline(all_rows: list[dict], meta: dict | None = None) -> dict:
    from .runner.summary import headline_record

    rows = file_rows(all_rows)
    main = [r for r in rows if bool(r["smart"]) and int(r["restarts"]) == 20]
    pairs = sum(r["pairs"] for r in main)
    below = sum(r["below"] for r in main)
    changed, total = rankings(rows)
    few = [r for r in rows if bool(r["smart"]) and int(r["restarts"]) == 1]
    finding = (f"Counter's hill-climbing (-r 20) is below the proven optimum on {below} of "
               f"{pairs} DRS pairs over {len(main)} files")
    if few:
        finding += (f"; with the smart mapping alone (-r 1) on {sum(r['below'] for r in few)} "
                    f"pairs, {sum(r['short'] for r in few)} clauses")
    finding += drs_noise.finding(all_rows)
    return headline_record("Counter's hill-climbing (-r 20)", finding + ".", unit="DRS pairs",
                           instances=pairs, below=below,
                           gap_mean=sum(r["pair_gap_sum"] for r in main) / below if below
                           else None,
                           gap_max=max((r["pair_gap_max"] for r in main), default=0.0),
                           gap_unit="F1 points (pair)", rankings_changed=changed if total
                           else None, rankings=total or None, ranking_unit="system pairs")


FIGURES = ("below_vs_restarts.png", "restart_noise.png")


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``below_vs_restarts``: the share of DRS pairs where Counter's mapping ends below the
    optimum, and the clauses it misses per 1,000 gold clauses, against the restarts, with and
    without the smart mapping. ``restart_noise`` (when there are ``system`` rows with noise):
    each five-run system's published (else the replica's) 5-run SD of F against the SD of its
    runs under the noise seeds (:func:`experiments.drs_noise.noise_figure`)."""
    from .runner import completed_rows

    plt = plot.pyplot()
    all_rows = completed_rows(csv_path)
    rows = file_rows(all_rows)
    fig, axes = plot.panels(plt, 2, ncols=2, height=2.4)
    for k, smart in enumerate((True, False)):
        sel = [r for r in rows if bool(r["smart"]) == smart]
        rs = sorted({int(r["restarts"]) for r in sel})
        if not rs:
            continue
        share, short = [], []
        for r in rs:
            s = [x for x in sel if int(x["restarts"]) == r]
            pairs = sum(x["pairs"] for x in s)
            share.append(100 * sum(x["below"] for x in s) / pairs if pairs else np.nan)
            gold = sum(x["gold"] for x in s)
            short.append(1000 * sum(x["short"] for x in s) / gold if gold else np.nan)
        st = plot.series_style(k)
        label = "smart mapping first" if smart else "random starts only"
        axes[0].plot(rs, share, label=label, **st)
        axes[1].plot(rs, short, label=label, **st)
    ticks = sorted({int(r["restarts"]) for r in rows})
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(ticks, [str(t) for t in ticks])  # the restarts run, not powers of ten
        ax.minorticks_off()
        ax.set_xlabel("restarts (-r)")
    axes[0].set_ylabel("pairs below the optimum [%]")
    axes[1].set_ylabel("clauses missed per 1,000 gold")
    axes[0].legend()
    out = [plot.save(fig, Path(out_dir) / FIGURES[0])]
    n = sum(1 for r in all_rows if r.get("kind") == "system" and r.get("noise_sd") is not None)
    fig, (ax,) = plot.panels(plt, 1, ncols=1, height=0.8 + 0.22 * max(n, 4))
    if not drs_noise.noise_figure(ax, all_rows):
        ax.text(0.5, 0.5, "no five-run system scored under the noise seeds", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_axis_off()
    out.append(plot.save(fig, Path(out_dir) / FIGURES[1]))
    return out
