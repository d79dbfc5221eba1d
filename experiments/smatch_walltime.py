"""Wall time of the Smatch command lines, as a user runs them: ``exactalign smatch`` (the proven
optimum) against smatch 1.0.4's ``smatch.py -f TEST GOLD`` (hill-climbing, its default 4
restarts) and Smatch++'s ILP (``python -m smatchpp -solver ilp -score_type micro``, no graph
standardisation), each a fresh process on the same machine.

Files: every pilot file pair with a reference in ``pilot/amr/reference`` (Little Prince gold vs
JAMR and CAMR, JAMR vs CAMR, gold vs the BART and T5 parsers, the bamboo STS pairs). Without
pilot data, one synthetic pair of files (a bank of random AMR-like trees from
:func:`experiments.smatch_gap.synthetic_bank` against a relabelled copy) is written to a
temporary folder and timed instead.

Each round runs every tool once on every file, the order of the tools reversed every other round
(so that a drift of the machine's speed hits both alike), after ``warmup`` unrecorded rounds.
Smatch++ runs only in the first ``smatchpp_rounds`` rounds (it is much slower). A tool that is not
installed (smatch and Smatch++ come with the ``peers`` extra) gets one skipped row per file.

The child processes (:func:`experiments.timing.measure`, which also records each one's peak
memory) run without ``PYTHONDONTWRITEBYTECODE`` (a user's normal setting: installed
modules are compiled once and their bytecode cached; ``smatch.py`` is a script, which Python
compiles at every run whatever the setting).

A file pair whose runs raise -- a tool running past ``timeout_s`` among them -- is one row with its
``error``; the other files go on.

Invariants (:class:`ExperimentError`): every run exits with status 0; the F-score that
``exactalign smatch`` prints is the same in every round and never below the one smatch prints
(both are rounded to two decimals, and rounding keeps the order).
"""

from __future__ import annotations

import functools
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_pairs

from . import plot, timing
from .runner import ExperimentError, parallel_map

NAME = "smatch_walltime"
DESCRIPTION = ("Smatch command lines, wall time per pilot AMR file: exactalign smatch (proven "
               "optimal) vs smatch 1.0.4 (-r 4) and Smatch++'s ILP, alternating fresh "
               "processes.")
DATA_SOURCE = ("pilot data: amr/reference/*.json file pairs; without it, one synthetic file "
               "pair (synthetic_bank vs a relabelled copy) written to a temporary folder")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("amr/lpp-test-jamr-camr", "amr/lpp-two-parsers", "amr/bamboo-sts-test")
SEEDING = ("exactalign's exact path draws no random numbers; smatch.py reseeds from system "
           "entropy at every pair (its F-score may vary between runs); the synthetic files: "
           "random.Random(config seed)")

FULL = {
    "seed": 0,
    "rounds": 20,
    "warmup": 1,
    "smatchpp_rounds": 1,
    "files": None,            # None: every pilot reference file
    "synthetic_graphs": 100,
    "timeout_s": 1800.0,
}

QUICK = {**FULL, "rounds": 2, "smatchpp_rounds": 0, "files": ["lp_jamr_vs_gold.json"],
         "synthetic_graphs": 30}

COLUMNS = ("file", "pairs", "tool", "round", "wall_s", "returncode", "f_score", "skipped",
           "skip_reason", "error")

FIGURES = ("walltime.png",)

TOOLS = ("exactalign", "smatch", "smatchpp-ilp")

_F_SCORE = {"exactalign": (re.compile(r"^F-score:\s*([0-9.]+)", re.M), 1.0),
            "smatch": (re.compile(r"^F-score:\s*([0-9.]+)", re.M), 1.0),
            "smatchpp-ilp": (re.compile(r"main ---->\s+F1:\s*([0-9.]+)"), 100.0)}


# --------------------------------------------------------------------------------------------
# the command lines
# --------------------------------------------------------------------------------------------
def commands() -> dict[str, list[str] | None]:
    """Per tool, the command before ``TEST GOLD``, or None when the tool is not installed.
    Every tool runs under this interpreter's environment (its virtualenv)."""
    bindir = Path(sys.executable).parent
    script = bindir / "exactalign"
    ours = [str(script)] if script.is_file() else [sys.executable, "-m", "exactalign"]
    smatch_py = bindir / "smatch.py"
    if not smatch_py.is_file():
        found = shutil.which("smatch.py")
        smatch_py = Path(found) if found else None
    return {
        # duplicate triples counted as smatch counts them: the same metric as smatch's
        "exactalign": ours + ["smatch", "--method", "exact", "--duplicates", "keep", "-f"],
        "smatch": None if smatch_py is None else [sys.executable, str(smatch_py), "-f"],
        "smatchpp-ilp": ([sys.executable, "-m", "smatchpp", "-solver", "ilp", "-score_type",
                          "micro", "-a"] if _importable("smatchpp") and _importable("mip")
                         else None),
    }


def _importable(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def _argv(tool: str, command: list[str], test: Path, gold: Path) -> list[str]:
    if tool == "smatchpp-ilp":  # -a TEST -b GOLD
        return command + [str(test), "-b", str(gold)]
    return command + [str(test), str(gold)]


def f_score(tool: str, stdout: str) -> float | None:
    """The F-score ``tool`` printed, as a fraction (None when the output has none)."""
    pattern, scale = _F_SCORE[tool]
    m = pattern.search(stdout)
    return float(m.group(1)) / scale if m else None


def time_run(tool: str, command: list[str], test: Path, gold: Path, timeout: float) -> dict:
    """One fresh process (:func:`experiments.timing.measure`): ``{"wall_s", "returncode",
    "f_score", "peak_mb"}`` (F as a fraction, None when the output has none)."""
    res = timing.measure(_argv(tool, command, test, gold), timeout=timeout)
    if res.timed_out:  # the file's instance fails (an error row), the run goes on
        raise TimeoutError(f"{tool} took over {timeout:g} s on {test.name}")
    return {"wall_s": res.wall_s, "returncode": res.returncode, "peak_mb": res.peak_mb,
            "f_score": f_score(tool, res.stdout),
            "stderr": [res.last_error()] if res.returncode else []}


# --------------------------------------------------------------------------------------------
# the files
# --------------------------------------------------------------------------------------------
def files(config: dict, tmp: Path) -> list[dict]:
    """``{"name", "test", "gold", "pairs"}`` per file pair."""
    data = resolve_data_dir()
    if not data.available:
        return [synthetic_files(config, tmp)]
    amr = data.require("amr")
    out = []
    for pair in amr_pairs(amr, config.get("files")):
        out.append({"name": pair.name, "test": pair.test, "gold": pair.gold,
                    "pairs": pair.pairs})
    return out


#: A constant PENMAN reads as a bare symbol; any other is written as a string.
_SYMBOL = re.compile(r'[^\s()/:~"^]+')


def _constant(c: str) -> str:
    """``c`` as PENMAN writes it: bare when it is a symbol, else quoted (the AMR Bio banks'
    names, ``"ERK1/2"``, hold a slash); the readers take the quotes off again."""
    if _SYMBOL.fullmatch(c):
        return c
    return '"' + c.replace("\\", "\\\\").replace('"', '\\"') + '"'


def amr_text(graphs) -> str:
    """``graphs`` (:class:`~exactalign.io.amr.AmrGraph`) in PENMAN notation, blank-line
    separated, as smatch.py and Smatch++ read them."""
    import penman

    out = []
    for g in graphs:
        var = [f"v{i}" for i in range(len(g.variables))]
        triples = ([(var[v], ":instance", c) for _, v, c in g.instances]
                   + [(var[a], f":{r}", var[b]) for r, a, b in g.relations]
                   + [(var[v], f":{r}", _constant(c)) for r, v, c in g.attributes
                      if r != "TOP"])
        top = next((var[v] for r, v, _ in g.attributes if r == "TOP"), var[0])
        out.append(penman.encode(penman.Graph(triples, top=top)))
    return "\n\n".join(out) + "\n"


def synthetic_files(config: dict, tmp: Path) -> dict:
    from .smatch_gap import perturb, synthetic_bank

    bank = synthetic_bank(config["synthetic_graphs"], config["seed"])
    rng = random.Random(f"{config['seed']}-walltime")
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    test = [perturb(g, "relabel", 0.3, rng, concepts, roles) for g in bank]

    paths = {"test": tmp / "synthetic_test.amr", "gold": tmp / "synthetic_gold.amr"}
    paths["test"].write_text(amr_text(test), encoding="utf-8")
    paths["gold"].write_text(amr_text(bank), encoding="utf-8")
    return {"name": "synthetic", "pairs": len(bank), **paths}


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def _file_rows(f: dict, cmds: dict, config: dict, quiet: bool) -> list[dict]:
    """The rows of one file pair (one instance), with a progress line unless ``quiet``."""
    t0 = time.perf_counter()
    rows = [{c: r.get(c) for c in COLUMNS} for r in run_file(f, cmds, config)]
    if not quiet:
        print(f"  {NAME}: {f['name']} ({f['pairs']} pairs) "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
    return rows


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    """Rounds over the files, one file pair per instance (``jobs`` is ignored: concurrent runs
    would disturb the timing)."""
    cmds = commands()
    with tempfile.TemporaryDirectory(prefix="exactalign-walltime-") as tmp:
        per_file = parallel_map(functools.partial(_file_rows, cmds=cmds, config=config,
                                                  quiet=quiet),
                                files(config, Path(tmp)), jobs=1, desc=NAME, quiet=True,
                                key=lambda f: f["name"],
                                cells=lambda f: {"file": f["name"], "pairs": f["pairs"]})
    return [r for rows in per_file for r in rows]


def run_file(f: dict, cmds: dict, config: dict) -> list[dict]:
    base = {"file": f["name"], "pairs": f["pairs"]}
    rows = [{**base, "tool": t, "skipped": True,
             "skip_reason": "not installed (the peers extra)"} for t in TOOLS if cmds[t] is None]
    present = [t for t in TOOLS if cmds[t] is not None]

    def one(tool: str, rnd: int):
        if tool == "smatchpp-ilp" and not 0 <= rnd < config["smatchpp_rounds"]:
            return None
        res = time_run(tool, cmds[tool], f["test"], f["gold"], config["timeout_s"])
        if res["returncode"] != 0:
            raise ExperimentError(f"{tool} failed on {f['name']} (exit {res['returncode']}): "
                                  f"{' '.join(res['stderr'])}")
        return res

    for rnd, tool, res in timing.alternating(present, config["rounds"], config["warmup"], one):
        rows.append({**base, "tool": tool, "round": rnd, "wall_s": res["wall_s"],
                     "returncode": res["returncode"], "f_score": res["f_score"],
                     "skipped": False})
    _check(f["name"], rows)
    return rows


def _check(name: str, rows: list[dict]) -> None:
    ours = {r["f_score"] for r in rows if r["tool"] == "exactalign" and not r["skipped"]}
    if len(ours) != 1 or None in ours:
        raise ExperimentError(f"{name}: exactalign smatch printed F-scores {sorted(ours)}")
    (f,) = ours
    theirs = [r["f_score"] for r in rows if r["tool"] == "smatch" and not r["skipped"]]
    if any(s is None or s > f for s in theirs):
        raise ExperimentError(f"{name}: smatch printed an F-score above the proven optimum "
                              f"{f}: {sorted(set(theirs))}")


# --------------------------------------------------------------------------------------------
# summary and figures (from the CSV alone)
# --------------------------------------------------------------------------------------------
def _timed(rows: list[dict], name: str, tool: str) -> list[float]:
    return sorted(r["wall_s"] for r in rows
                  if r["file"] == name and r["tool"] == tool and not r["skipped"])


def summary(rows: list[dict]) -> str:
    """Per file: median (min-max) wall time of each tool, exact / smatch ratio of medians."""
    lines = ["| file | pairs | exactalign smatch s | smatch -r 4 s | exact / smatch | "
             "Smatch++ ILP s | F exact | F smatch | F Smatch++ |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def cell(ts):
        if not ts:
            return "–"
        if len(ts) == 1:
            return f"{ts[0]:.2f}"
        return f"{statistics.median(ts):.3f} ({ts[0]:.3f}–{ts[-1]:.3f})"

    def f_of(sel, tool):
        fs = sorted({r["f_score"] for r in sel if r["tool"] == tool and not r["skipped"]})
        return "/".join(f"{x:.4g}" for x in fs) if fs else "–"

    for name in dict.fromkeys(r["file"] for r in rows):
        sel = [r for r in rows if r["file"] == name]
        ex, sm, pp = (_timed(rows, name, t) for t in TOOLS)
        ratio = (f"{statistics.median(ex) / statistics.median(sm):.2f}" if ex and sm else "–")
        lines.append(f"| {name} | {sel[0]['pairs']} | {cell(ex)} | {cell(sm)} | {ratio} | "
                     f"{cell(pp)} | {f_of(sel, 'exactalign')} | {f_of(sel, 'smatch')} | "
                     f"{f_of(sel, 'smatchpp-ilp')} |")
    lines += ["", "Wall time of one fresh process per run, median (min–max) over the rounds; "
              "ratio < 1: the proven optimum is faster than smatch's hill-climbing. Smatch++ "
              "scores its own triples (it does not invert :X-of roles without its "
              "standardisation), so its F differs."]
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: per pilot file, smatch -r 4's corpus F against exactalign's proven
    one (as each prints it; gap in F points), and the wall-time ratios in the finding."""
    names = list(dict.fromkeys(r["file"] for r in rows))
    gaps, ratios, pp = [], [], []
    for name in names:
        sel = [r for r in rows if r["file"] == name and not r["skipped"]]
        fe = [r["f_score"] for r in sel if r["tool"] == "exactalign"]
        fs = [r["f_score"] for r in sel if r["tool"] == "smatch"]
        if fe and fs:
            gaps.append(100 * (max(fe) - min(fs)))
        ex, sm, ilp = (_timed(rows, name, t) for t in TOOLS)
        if ex and sm:
            ratios.append(statistics.median(ex) / statistics.median(sm))
        if ex and ilp:
            pp.append(statistics.median(ilp) / statistics.median(ex))
    below = [g for g in gaps if g > 1e-9]
    finding = "No file timed."
    if ratios:
        finding = (f"The proven optimum (exactalign smatch) takes {min(ratios):.2f}–"
                   f"{max(ratios):.2f}x the wall time of smatch -r 4 (median per file; faster on "
                   f"{sum(x < 1 for x in ratios)} of {len(ratios)} files)")
        if pp:
            finding += f", Smatch++'s ILP {min(pp):.0f}–{max(pp):.0f}x exactalign's"
        finding += "."
    return {"heuristic": "smatch 1.0.4 -r 4 (printed F)", "unit": "files",
            "instances": len(gaps), "below": len(below),
            "gap_mean": float(statistics.mean(below)) if below else None,
            "gap_max": max(gaps, default=0.0), "gap_unit": "F points",
            "finding": finding}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``walltime.png``: median wall time per file and tool (bars), min-max as error bars."""
    from .runner import completed_rows

    plt = plot.pyplot()
    rows = completed_rows(csv_path)
    names = list(dict.fromkeys(r["file"] for r in rows))
    tools = [t for t in TOOLS if any(r["tool"] == t and not r["skipped"] for r in rows)]
    fig, ax = plt.subplots(figsize=(plot.TEXT_WIDTH, 2.8), layout="constrained")
    width = 0.8 / max(1, len(tools))
    labels = {"exactalign": "exactalign smatch (proven optimum)",
              "smatch": "smatch 1.0.4 -r 4 (hill-climbing)", "smatchpp-ilp": "Smatch++ ILP"}
    colours = {"exactalign": plot.STYLE["exact"]["color"],
               "smatch": plot.STYLE["greedy"]["color"],
               "smatchpp-ilp": plot.STYLE["other"]["color"]}
    for j, tool in enumerate(tools):
        xs, med, lo, hi = [], [], [], []
        for i, name in enumerate(names):
            ts = _timed(rows, name, tool)
            if ts:
                m = statistics.median(ts)
                xs.append(i + (j - (len(tools) - 1) / 2) * width)
                med.append(m)
                lo.append(m - ts[0])
                hi.append(ts[-1] - m)
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=labels[tool],
               color=colours.get(tool, plot.colour(j)), error_kw={"linewidth": 0.8})
    pairs = {r["file"]: r["pairs"] for r in rows}
    ax.set_xticks(range(len(names)), [f"{n}\n({pairs[n]:,} pairs)" for n in names],
                  fontsize=7.5)
    ax.grid(False, axis="x")
    ax.set_yscale("log")
    ax.set_ylabel("wall time per run [s]")
    plot.legend_below(fig, ax=ax, ncol=3,
                      title="one fresh process per run: median, min–max over the rounds")
    return [plot.save(fig, Path(out_dir) / "walltime.png")]
