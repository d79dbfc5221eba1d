"""Document-level Smatch at scale: issue 37's targets measured by one command, on held-out
document pairs, with smatch 1.0.4 and Smatch++ side by side where they survive. A benchmark,
not a timed test, and not part of ``run --all``: ``make bench-doc``.

Documents are DocAMR-style (:func:`exactalign.io.docamr.join_sentences`: a ``document`` top with
``:sntK`` edges, variables renamed apart) built from the **AMR Bio banks** (test and dev, 500
sentences each; registry extra files ``heldout/amr-bio``, from flipz357/AMR-World, fetched by
``exactalign data fetch --only heldout/amr-bio``). They are held out: no test and no other
experiment reads them, so nothing was tuned on them. The system side is the issue's "10% seeded
perturbation": wrong concepts and roles at ``rates``
(:func:`exactalign.perturb.amr.perturb_graphs`), sentence by sentence. Each entry of
``constructions`` (:data:`CONSTRUCTIONS`, column ``construction``) joins them its own way:

``apart``     no merge: the construction issue 37 stated its targets on ("k consecutive sentences
              joined ... variables renamed apart"; its 60-sentence documents had 1,425 and 1,470
              variables: the test bank's first 60 sentences make 1,483 joined so, 1,162 with
              the ``any`` merges), DocAMR's no-merge representation.
``mentions``  entity mentions (:func:`experiments.doc_smatch.is_mention`) merged with probability
              0.5 into an earlier sentence's node of the same concept, gold and system each with
              its own seed: :mod:`doc_smatch`'s coreference-like merges.
``any``       any variable merged so at 0.3 (predicates and name nodes too, so a document's name
              nodes collect each other's strings): a stress test, the construction every
              measurement of the targets used from 2026-11-28 to 2026-11-29 (before this axis),
              much harder than the issue's (a 1,500-variable pair 64.3 s against 3.97 s at
              b12b3b9).

A document of ``n`` variables is the fewest consecutive sentences from its start whose
joined gold document has at least ``n`` variables (:func:`window`). Without the banks the
sentences are synthetic (:func:`exactalign.synthetic.random_amr_sentences`, ``synthetic_sentences``
of them) and the dataset column says ``synthetic``.

Units (column ``kind``):

``pair``    per construction, one document pair per size in ``pair_variables`` (the test bank,
            from sentence 0; a construction may give its own list): each
            tool of ``tools`` in turn, ``rounds`` times; a peer stopped by ``timeout_s`` or
            ``mem_limit_mb`` is not run on the larger pairs (``status`` ``skipped``, ``note`` says
            where it stopped). Ours runs with ``ours_timeout_s`` and ``ours_mem_limit_mb``.
``corpus``  per construction, ``corpus_docs`` document pairs of about ``corpus_variables``
            variables (half from each bank, windows from evenly spaced starts), one file pair,
            one command per ``--jobs`` value in ``corpus_jobs`` (exactalign only: the peers do
            not survive one such pair).

Tools: ``exactalign smatch --method exact --duplicates keep --json`` (smatch's triple counting;
``proven_pairs`` from its JSON), smatch 1.0.4 ``-r 1`` and ``-r 4``, Smatch++ ``-solver ilp``
and ``-solver hillclimber`` (:func:`experiments.performance.smatch_tools`; Smatch++ scores its
own triples, so its F is not compared). Each run is a fresh process
(:func:`experiments.timing.measure`): wall and CPU seconds, its own peak memory.

Targets (:data:`TARGETS`, issue 37): one pair of 1,500 variables in at most 15 s; one of 3,000
in at most 60 s and 2 GB; 50 documents of about 1,000 variables in at most 10 minutes on one
core, stated on ``apart`` documents and shown on every construction's rows.
``meets_target`` says whether a row meets the one of its kind and size (empty: none).

Invariants (:class:`ExperimentError`): exactalign never fails and proves every pair it scores
optimal (no time limit is set); smatch's printed F never above ours rounded as it prints.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from exactalign.perturb.amr import AmrErrorRates, AmrInventory, perturb_graphs

from . import plot, timing
from .doc_smatch import crc_seed, is_mention, smatch_graph
from .performance import ours_version, run_status, smatch_argv, smatch_tools
from .runner import ExperimentError, headline_record
from .smatch_walltime import amr_text, commands

NAME = "doc_scale"
DESCRIPTION = ("Document-level Smatch at scale (issue 37's targets): the exact path on held-out "
               "document pairs of 250 to 3,000 variables and a corpus of 50 ~1,000-variable "
               "documents, smatch 1.0.4 and Smatch++ side by side where they survive.")
DATA_SOURCE = ("held-out extra data: the AMR Bio test and dev banks (heldout/amr-bio, "
               "flipz357/AMR-World), joined into documents with perturbed copies; without "
               "them, synthetic AMR-like sentences")
#: Extra files (not pilot data): meta.json records where they were found and their digest.
DATA_READS = ("heldout/amr-bio",)
SEEDING = ("system sentences: exactalign.perturb.amr.perturb_graphs with seed config seed "
           "(sentence index = position in its bank); merges: random.Random(crc32 of "
           "'seed/bank/start/gold' or '.../system'); exactalign's exact path draws no random "
           "numbers; smatch.py reseeds from system entropy")

#: Not part of ``run --all`` (``make experiments``): a benchmark wants a quiet machine and one
#: process at a time; ``make bench-doc`` runs it alone.
IN_ALL = False

BIO = "heldout/amr-bio"
BANKS = ("test", "dev")

FULL = {
    "seed": 0,
    "rates": {"concept": 0.1, "role": 0.1},
    # How the sentences become documents (:data:`CONSTRUCTIONS`); each may narrow the sizes,
    # the corpus runs and whether the peers run (its own ``pair_variables``, ``corpus_jobs``,
    # ``peers``), to keep the benchmark within an hour.
    "constructions": [
        {"name": "apart", "merge": 0.0, "mentions_only": False},
        {"name": "mentions", "merge": 0.5, "mentions_only": True, "peers": False,
         "corpus_jobs": [1]},
        {"name": "any", "merge": 0.3, "mentions_only": False,
         "pair_variables": [250, 500, 1000, 1500], "corpus_jobs": [1]},
    ],
    "pair_variables": [250, 500, 1000, 1500, 3000],
    "corpus_docs": 50,
    "corpus_variables": 1000,
    "corpus_jobs": [1, 2],
    "tools": ["exactalign", "smatch-r1", "smatch-r4", "smatchpp-ilp", "smatchpp-hillclimb"],
    "rounds": 1,
    "timeout_s": 120.0,          # each peer run
    "mem_limit_mb": 4096,        # each peer run (address space)
    "ours_timeout_s": 3600.0,
    "ours_mem_limit_mb": 8192,
    "synthetic_sentences": 1000,
}

QUICK = {**FULL, "constructions": [FULL["constructions"][0], {**FULL["constructions"][2],
                                                                "pair_variables": [40]}],
         "pair_variables": [40, 80], "corpus_docs": 3, "corpus_variables": 40,
         "corpus_jobs": [1], "tools": ["exactalign", "smatch-r1"], "timeout_s": 60.0,
         "synthetic_sentences": 200}

#: The figure's title of each construction's panels.
TITLES = {"apart": "apart: no merge (the issue's)", "mentions": "mentions merged (0.5)",
          "any": "any variable merged (0.3)"}

#: The constructions a ``constructions`` entry may name: what its documents are.
CONSTRUCTIONS = {
    "apart": "variables renamed apart, no merge (the construction issue 37 stated its targets "
             "on; DocAMR's no-merge representation)",
    "mentions": "entity mentions merged into an earlier sentence's node of the same concept at "
                "0.5, gold and system independently (doc_smatch's coreference-like merges)",
    "any": "any variable merged into an earlier sentence's node of the same concept at 0.3, gold "
           "and system independently (predicates and name nodes included: a stress test)",
}

#: Issue 37's targets: (kind, size in variables or None, --jobs or None) -> (seconds, MB or None).
TARGETS = {("pair", 1500, None): (15.0, None), ("pair", 3000, None): (60.0, 2048.0),
           ("corpus", 1000, 1): (600.0, None)}

COLUMNS = ("kind", "dataset", "construction", "size", "documents", "sentences", "variables_gold",
           "variables_test", "tool", "version", "role", "jobs", "runs", "status", "wall_s",
           "cpu_s", "peak_mb", "runs_s", "score", "proven_pairs", "target_s", "target_mb",
           "meets_target", "note", "error")

FIGURES = ("doc_scale.png",)


# --------------------------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------------------------
def banks(seed: int, rates: dict, synthetic_sentences: int) -> dict:
    """``{name: (gold sentence graphs, system sentence graphs)}``: the Bio banks when found
    (:func:`exactalign.data.extra_root`), else one synthetic bank named ``synthetic``."""
    import penman

    from exactalign.data import extra_root

    root = extra_root(BIO)
    if root is not None:
        gold = {b: penman.load(str(root / BIO / f"amr-release-{b}-bio.txt")) for b in BANKS}
    else:
        from exactalign import synthetic

        gold = {"synthetic": synthetic.random_amr_sentences(synthetic_sentences,
                                                            seed=[seed, 41])}
    inv = AmrInventory.from_graphs(g for gs in gold.values() for g in gs)
    err = AmrErrorRates(**rates)
    return {name: (gs, [p.graph for p in perturb_graphs(gs, err, inv, seed=seed)])
            for name, gs in gold.items()}


def _join(sents, merge: float, seed: int, mentions_only: bool = False):
    from exactalign.io.docamr import join_sentences

    return smatch_graph(join_sentences(sents, merge=merge, seed=seed,
                               mergeable=is_mention if mentions_only else None))


def window(gold, system, start: int, n: int, merge: float, key,
           mentions_only: bool = False) -> dict | None:
    """The document pair of the fewest consecutive sentences from ``start`` whose joined gold
    has at least ``n`` variables (``None`` when the bank ends first): ``{"gold", "test",
    "sentences"}``, smatch triples (:class:`~exactalign.io.amr.AmrGraph`)."""
    gseed, sseed = crc_seed(*key, "gold"), crc_seed(*key, "system")
    def join(sents, seed):
        return _join(sents, merge, seed, mentions_only)

    if start >= len(gold):
        return None
    lo, hi = 1, len(gold) - start  # the smallest count reaching n, if the bank's rest does
    while lo < hi:
        mid = (lo + hi) // 2
        if len(join(gold[start:start + mid], gseed).variables) >= n:
            hi = mid
        else:
            lo = mid + 1
    doc = join(gold[start:start + lo], gseed)
    if len(doc.variables) < n:
        return None
    return {"gold": doc, "test": join(system[start:start + lo], sseed), "sentences": lo}


def units(config: dict) -> list[dict]:
    """The pairs (one per construction and size) and the corpus runs (one per construction and
    ``--jobs``), documents built."""
    bk = banks(config["seed"], config["rates"], config["synthetic_sentences"])
    first = next(iter(bk))
    out = []
    for c in config["constructions"]:
        if c["name"] not in CONSTRUCTIONS:
            raise ExperimentError(f"unknown construction {c['name']!r}")
        merge, mentions = c["merge"], c["mentions_only"]
        common = {"construction": c["name"], "peers": c.get("peers", True)}
        for n in c.get("pair_variables", config["pair_variables"]):
            gold, system = bk[first]
            doc = window(gold, system, 0, n, merge, (config["seed"], first, 0), mentions)
            if doc is None:
                raise ExperimentError(f"the {first} bank has fewer than {n} variables")
            out.append({"kind": "pair", "dataset": f"{first}@0", "size": n, "docs": [doc],
                        "jobs": 1, **common})
        k = config["corpus_docs"]
        if not k:
            continue
        per = {name: k // len(bk) + (i < k % len(bk)) for i, name in enumerate(bk)}
        docs = []
        for name, m in per.items():
            gold, system = bk[name]
            spacing = max(1, (len(gold) // 2) // max(m, 1))
            for i in range(m):
                doc = window(gold, system, i * spacing, config["corpus_variables"], merge,
                             (config["seed"], name, i * spacing), mentions)
                if doc is None:
                    raise ExperimentError(f"the {name} bank ends before window {i + 1}")
                docs.append(doc)
        for jobs in c.get("corpus_jobs", config["corpus_jobs"]):
            out.append({"kind": "corpus", "dataset": "+".join(bk), "size":
                        config["corpus_variables"], "docs": docs, "jobs": jobs, **common})
    return out


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------
def _key(unit: dict) -> str:
    return (f"{unit['construction']}/{unit['kind']}/{unit['dataset']}/{unit['size']}/"
            f"jobs{unit['jobs']}")


def _cells(unit: dict) -> dict:
    return {"kind": unit["kind"], "dataset": unit["dataset"],
            "construction": unit["construction"], "size": unit["size"], "jobs": unit["jobs"]}


def tools(config: dict, kind: str, peers: bool = True) -> list[dict]:
    """The tools of a unit: ours with its own limits and ``--json``; the peers on pairs only
    (and only when ``peers``)."""
    known = {t["name"]: t for t in smatch_tools({**config, "smatch_tools": [
        n for n in config["tools"] if n != "exactalign"]})}
    out = []
    for name in config["tools"]:
        if name == "exactalign":
            out.append({"name": name, "role": "ours", "version": ours_version(), "skip": "",
                        "argv": commands()["exactalign"], "mem": config["ours_mem_limit_mb"],
                        "timeout": config["ours_timeout_s"]})
        elif kind == "pair" and peers:
            out.append({**known[name], "timeout": config["timeout_s"]})
    return out


def _argv(tool: dict, test: Path, gold: Path, jobs: int) -> list[str]:
    if tool["role"] == "ours":
        return tool["argv"] + [str(test), str(gold), "--json", "--jobs", str(jobs)]
    return smatch_argv(tool, test, gold)


def _ours_result(stdout: str) -> tuple[float | None, int | None, int | None]:
    """``(F1, pairs proven, pairs scored)`` of ours' JSON document."""
    try:
        doc = json.loads(stdout)
        return (float(doc["overall"]["exact"]["f1"]), int(doc["methods"]["exact"]["proven_pairs"]),
                int(doc["pairs_scored"]))
    except (ValueError, KeyError, TypeError):
        return None, None, None


def target_of(kind: str, size, jobs) -> tuple[float | None, float | None]:
    """The target (seconds, MB or None) of a row, ``(None, None)`` when it has none."""
    size = int(float(size))
    jobs = None if kind == "pair" else int(float(jobs))
    return TARGETS.get((kind, size, jobs), (None, None))


def run_unit(unit: dict, config: dict, tmp: Path, stopped: dict) -> list[dict]:
    """The rows of one unit (module docstring). ``stopped`` maps (construction, peer) to the
    size where the peer timed out or ran out of memory on that construction's documents."""
    work = tmp / _key(unit).replace("/", "_")
    work.mkdir(parents=True, exist_ok=True)
    test, gold = work / "test.amr", work / "gold.amr"
    test.write_text(amr_text([d["test"] for d in unit["docs"]]), encoding="utf-8")
    gold.write_text(amr_text([d["gold"] for d in unit["docs"]]), encoding="utf-8")
    base = {"kind": unit["kind"], "dataset": unit["dataset"],
            "construction": unit["construction"], "size": unit["size"],
            "documents": len(unit["docs"]), "sentences": sum(d["sentences"] for d in unit["docs"]),
            "variables_gold": sum(len(d["gold"].variables) for d in unit["docs"]),
            "variables_test": sum(len(d["test"].variables) for d in unit["docs"]),
            "jobs": unit["jobs"]}
    rows = []
    for t in tools(config, unit["kind"], unit["peers"]):
        row = {**base, "tool": t["name"], "version": t["version"], "role": t["role"]}
        ts, tmb = target_of(unit["kind"], unit["size"], unit["jobs"])
        if t["role"] == "ours":
            row.update(target_s=ts, target_mb=tmb)
        where = stopped.get((unit["construction"], t["name"]))
        if t["skip"] or where:
            rows.append({**row, "runs": 0, "status": "skipped",
                         "note": t["skip"] or f"not run: {where}"})
            continue
        ms = []
        for _ in range(config["rounds"]):
            m = timing.measure(_argv(t, test, gold, unit["jobs"]), timeout=t["timeout"],
                               mem_limit_mb=t["mem"], cwd=work)
            ms.append(m)
            if not m.ok:
                break
        bad = next((m for m in ms if not m.ok), None)
        if bad is not None:
            status, note = run_status(bad)
            if t["role"] == "ours" and status == "failed":
                raise ExperimentError(f"{_key(unit)}: exactalign failed: {note}")
            if status in ("timeout", "memory"):
                stopped.setdefault((unit["construction"], t["name"]),
                                   f"{status} at {base['variables_gold']:,} variables")
                limit = f"{t['timeout']:g} s" if status == "timeout" else f"{t['mem']} MB"
                note = note or f"stopped at the {limit} limit"
            rows.append({**row, "runs": len(ms) - 1, "status": status, "note": note,
                         "wall_s": t["timeout"] if status == "timeout" else None,
                         "peak_mb": max((m.peak_mb for m in ms if m.peak_mb), default=None),
                         "meets_target": False if ts is not None else None})
            continue
        wall = [m.wall_s for m in ms]
        cpu = [m.cpu_s for m in ms if m.cpu_s is not None]
        peak = max((m.peak_mb for m in ms if m.peak_mb), default=None)
        if t["role"] == "ours":
            results = {_ours_result(m.stdout) for m in ms}
            score, proven, scored = sorted(results, key=str)[0]
            if score is None or proven != scored or len(results) > 1:
                raise ExperimentError(f"{_key(unit)}: exactalign proved {proven} of {scored} "
                                      f"pairs (score {score}; runs {sorted(results, key=str)})")
            note = ""
        else:
            scores = {t["parse"](m.stdout) for m in ms}
            score = max((s for s in scores if s is not None), default=None)
            proven = None
            note = "" if len(scores) <= 1 else f"scores vary over the runs: {sorted(scores)}"
        med = statistics.median(wall)
        meets = None
        if ts is not None:
            meets = med <= ts and (tmb is None or (peak is not None and peak <= tmb))
        rows.append({**row, "runs": len(ms), "status": "ok", "wall_s": med,
                     "cpu_s": statistics.median(cpu) if cpu else None, "peak_mb": peak,
                     "runs_s": ";".join(f"{x:.6g}" for x in wall), "score": score,
                     "proven_pairs": proven, "meets_target": meets, "note": note})
    check(_key(unit), rows)
    return [{c: r.get(c) for c in COLUMNS} for r in rows]


def check(name: str, rows: list[dict]) -> None:
    """smatch's printed F never above ours rounded as it prints it (two decimals)."""
    ours = next((r for r in rows if r["role"] == "ours" and r["status"] == "ok"), None)
    if ours is None:
        return
    for r in rows:
        if r["tool"].startswith("smatch-") and r["status"] == "ok" and r["score"] is not None \
                and r["score"] > round(ours["score"], 2) + 1e-9:
            raise ExperimentError(f"{name}: {r['tool']} printed F {r['score']}, above the "
                                  f"proven optimum's {ours['score']:.4f}")


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Every unit in turn (``jobs`` is ignored: concurrent runs would disturb the timing)."""
    return timing.one_at_a_time(NAME, units(config), run_unit, config, key=_key, cells=_cells,
                                quiet=quiet)


# --------------------------------------------------------------------------------------------
# summary, headline and figure (from the CSV alone)
# --------------------------------------------------------------------------------------------
def _num(v) -> float | None:
    return None if v in (None, "") else float(v)


def _fmt(s: float | None) -> str:
    """Seconds to three significant digits, whole seconds from 1,000 on (never ``1.55e+03``)."""
    return "–" if s is None else f"{s:,.0f}" if s >= 1000 else f"{s:.3g}"


def _secs(r: dict) -> str:
    s = _num(r["wall_s"])
    if r["status"] == "timeout":
        return f"> {s:g}" if s is not None else "timeout"
    return _fmt(s)


def _meets(r: dict) -> str:
    if r["meets_target"] in (None, ""):
        return "–"
    t = f"{float(r['target_s']):g} s" + (f", {float(r['target_mb']) / 1024:g} GB"
                                          if r["target_mb"] not in (None, "") else "")
    return f"{'met' if r['meets_target'] in (True, 'True') else 'not met'} ({t})"


def summary(rows: list[dict]) -> str:
    """One line per row: construction, sizes, time, CPU, peak memory, F, pairs proven, the
    target."""
    lines = ["| construction | kind | dataset | documents | variables (gold/test) | tool | jobs | "
             "status | wall s | CPU s | peak MB | F1 | proven | target |",
             "|---|---|---|---:|---|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        cpu, peak, f = _num(r["cpu_s"]), _num(r["peak_mb"]), _num(r["score"])
        proven = "–" if r["proven_pairs"] in (None, "") else \
            f"{int(float(r['proven_pairs']))}/{int(float(r['documents']))}"
        lines.append(
            f"| {r['construction']} | {r['kind']} | {r['dataset']} | "
            f"{int(float(r['documents']))} | "
            f"{int(float(r['variables_gold'])):,}/{int(float(r['variables_test'])):,} | "
            f"{r['tool']} | {r['jobs']} | {r['status']} | {_secs(r)} | "
            f"{_fmt(cpu)} | {'–' if peak is None else f'{peak:,.0f}'} | "
            f"{'–' if f is None else f'{f:.4f}'} | {proven} | {_meets(r)} |")
    notes = sorted({f"{r['tool']} ({r['construction']}): {r['note']}" for r in rows
                    if r["status"] == "skipped" and r["note"]})
    if notes:
        lines += ["", "Not run: " + "; ".join(notes) + "."]
    lines += ["", "Constructions: " + "; ".join(
        f"`{name}`: {CONSTRUCTIONS[name]}" for name in dict.fromkeys(
            r["construction"] for r in rows)) + "."]
    lines += ["", "Each run a fresh process (wall time of the whole command, its own peak "
              "memory); exactalign without a time limit, every pair proven optimal. Targets: "
              "issue 37's (one pair of 1,500 variables in 15 s; of 3,000 in 60 s and 2 GB; 50 "
              "documents of ~1,000 variables in 10 minutes on one core), stated on documents "
              "of the `apart` construction and shown for every construction."]
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The targets, met or not, per construction (the issue's first), and where the peers
    stopped."""
    per: dict = {}
    for r in rows:
        if r["role"] == "ours" and r["target_s"] not in (None, ""):
            what = (f"one pair of {int(float(r['variables_gold'])):,} variables"
                    if r["kind"] == "pair" else
                    f"{int(float(r['documents']))} documents of ~{int(float(r['size'])):,} "
                    f"variables (--jobs {r['jobs']})")
            peak = _num(r["peak_mb"])
            took = (f"{_secs(r)} s" + (f", {peak / 1024:.2f} GB" if peak else "")
                    if r["status"] == "ok" else r["status"])
            per.setdefault(r["construction"], []).append(f"{what}: {took}, target {_meets(r)}")
    parts = []
    ours = [r for r in rows if r["role"] == "ours" and r["status"] == "ok"]
    if ours:
        big = max(ours, key=lambda r: float(r["variables_gold"]) / float(r["documents"]))
        parts.append(f"largest pair proven: {int(float(big['variables_gold'])):,} "
                     f"variables in {_secs(big)} s ({big['construction']})")
    parts += [f"{name}: " + "; ".join(items) for name, items in per.items()]
    stopped = sorted({f"{r['tool']} ({r['status']} at {int(float(r['variables_gold'])):,} "
                      f"variables, {r['construction']})" for r in rows
                      if r["role"] == "peer" and r["status"] in ("timeout", "memory")})
    finding = "Exact Smatch on held-out documents: " + " | ".join(parts) + "."
    if stopped:
        finding += " Peers stopped: " + ", ".join(stopped) + "."
    return headline_record("none: speed and scale of the exact path", finding)


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``doc_scale.png``: a column per construction, wall time (top) and peak memory (bottom)
    against the document pair's gold variables, log-log, one line per tool (its colour and
    marker the same in every panel); runs stopped at a limit marked (x) at it; the targets' time
    and memory halves as stars (filled: that half met)."""
    from matplotlib.ticker import (
        FixedLocator,
        FuncFormatter,
        LogLocator,
        NullFormatter,
        NullLocator,
    )

    from .runner import completed_rows

    plt = plot.pyplot()
    rows = [r for r in completed_rows(csv_path) if r["kind"] == "pair"]
    kinds = list(dict.fromkeys(r["construction"] for r in rows))
    style = {t: plot.series_style(i) for i, t in enumerate(dict.fromkeys(r["tool"] for r in rows))}
    fig, axes = plt.subplots(2, len(kinds), figsize=(3.4 * len(kinds), 5.6), sharey="row",
                             squeeze=False)
    for j, kind in enumerate(kinds):
        top, bottom = axes[0][j], axes[1][j]
        mine = [r for r in rows if r["construction"] == kind]
        seen: dict = {}
        for tool in dict.fromkeys(r["tool"] for r in mine):
            runs = [r for r in mine if r["tool"] == tool]
            ok = [r for r in runs if r["status"] == "ok"]
            top.plot([float(r["variables_gold"]) for r in ok], [float(r["wall_s"]) for r in ok],
                     label=tool, **style[tool])
            mem = [r for r in ok if r["peak_mb"] not in (None, "")]
            bottom.plot([float(r["variables_gold"]) for r in mem],
                        [float(r["peak_mb"]) for r in mem], label=tool, **style[tool])
            for r in runs:
                if r["status"] not in ("timeout", "memory"):
                    continue
                ax, y = ((top, float(r["wall_s"])) if r["status"] == "timeout" and
                         r["wall_s"] not in (None, "") else
                         (bottom, float(r["peak_mb"])) if r["peak_mb"] not in (None, "")
                         else (None, None))
                if ax is not None:  # two tools stopped at one point: side by side, both seen
                    x0 = float(r["variables_gold"])
                    k = seen.get((id(ax), x0, round(y)), 0)
                    seen[(id(ax), x0, round(y))] = k + 1
                    ax.plot([x0 * 1.06 ** k], [y], marker="x", linestyle="none",
                            color=style[tool]["color"], markersize=8)
        for r in mine:  # each half of a target filled when that half is met
            if r["role"] == "ours" and r["target_s"] not in (None, ""):
                ok = r["status"] == "ok"
                x = float(r["variables_gold"])
                met = ok and float(r["wall_s"]) <= float(r["target_s"])
                top.plot([x], [float(r["target_s"])], marker="*", markersize=11, color="black",
                         fillstyle="full" if met else "none", linestyle="none")
                if r["target_mb"] not in (None, ""):
                    met = (ok and r["peak_mb"] not in (None, "")
                           and float(r["peak_mb"]) <= float(r["target_mb"]))
                    bottom.plot([x], [float(r["target_mb"])], marker="*", markersize=11,
                                color="black", linestyle="none",
                                fillstyle="full" if met else "none")
        sizes = sorted({float(r["size"]) for r in mine})  # nominal: the pairs sit at them
        for ax in (top, bottom):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.xaxis.set_major_locator(FixedLocator(sizes))  # as plain numbers
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1
                                                       else f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())  # 2x10^2, 3x10^2 ... collide
            ax.set_xlim(min(sizes) * 0.85, max(sizes) * 1.25)  # every size's tick shown
            ax.tick_params(axis="x", labelsize=7)
        top.set_title(TITLES.get(kind, kind), fontsize=9)
        bottom.set_xlabel("gold variables of the pair")
    axes[0][0].set_ylabel("wall time (s)")
    axes[1][0].set_ylabel("peak memory (MB)")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("x: stopped at its limit (time, or memory at the cap); star: the issue's "
                 "target in time or memory (hollow: not met)", fontsize=8)
    fig.tight_layout()
    return [plot.save(fig, Path(out_dir) / FIGURES[0])]
