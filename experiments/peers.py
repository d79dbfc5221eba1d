"""The families of the performance benchmark and their tools -- exactalign and each peer:
their command lines, the versions timed (column ``version``: a reader must know which release or
commit of each peer the ratios are against) and the parsers of their outputs."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from exactalign.data.recipes import python2  # a Python 2.7 that runs (pyenv shims may not)

from . import timing
from .runner import ExperimentError, git_info
from .runner.meta import version_of

#: The in-process (training loop) families: one call scores 1, 10, 100 documents.
LOOP_FAMILIES = ("loop-smatch", "loop-coref", "loop-declared")

#: The corpus-scale families (issue 39): one whole command on 100 to 1,500 documents or pairs.
CORPUS_FAMILIES = ("corpus-smatch", "corpus-nugget", "corpus-coref", "corpus-te3")

FAMILIES = ("smatch-corpus", "smatch-pair", "nugget", "coref", "ceaf", "sequence", "latent",
            "te3", "drs") + CORPUS_FAMILIES + LOOP_FAMILIES
COREF_METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc"]


# --------------------------------------------------------------------------------------------
# the tools
# --------------------------------------------------------------------------------------------
def _exactalign() -> list[str]:
    script = Path(sys.executable).parent / "exactalign"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "exactalign"]




def _peer_dir(var: str, marker: str) -> tuple[Path | None, str]:
    """The checkout named by ``var`` when it holds ``marker``, else ``(None, reason)``."""
    path = os.environ.get(var)
    if not path:
        return None, f"optional peer: set {var} to your checkout"
    if not (Path(path) / marker).is_file():
        return None, f"{var}={path} has no {marker}"
    return Path(path), ""


def importable(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def tool_spec(name, role, proven, timing_kind="command", *, argv=None, code=None, cwd=None,
          env=None, mem=None, parse=None, skip="", version=None):
    return {"name": name, "role": role, "proven": proven, "timing": timing_kind, "argv": argv,
            "code": code, "cwd": cwd, "env": env, "mem": mem, "parse": parse, "skip": skip,
            "version": version}


# Versions of what was timed (column ``version``): a reader must know which release or commit
# of each peer the ratios are against.
@functools.cache
def dist(name: str) -> str:
    """``"name X.Y.Z"`` of an installed distribution, ``"name (not installed)"`` otherwise."""
    v = version_of(name)
    return f"{name} {v}" if v else f"{name} (not installed)"


def _output(argv: list[str]) -> str:
    """The first line a command prints (stdout, else stderr: ``python2 --version`` and ``java
    -version`` write there); ``""`` when it cannot run."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return ((p.stdout.strip() or p.stderr.strip()).splitlines() or [""])[0]


@functools.cache
def checkout(path: str) -> str:
    """The git commit of a peer's checkout (12 digits; ``modified`` when tracked files other
    than compiled ``*.pyc`` differ: the TE3 toolkit tracks one that Python 2 rewrites at every
    run), or ``"not a git checkout"``."""
    info = git_info(Path(path), exclude=("*.pyc",))
    if not info["commit"]:
        return "not a git checkout"
    return f"git {info['commit'][:12]}" + (" (modified)" if info["dirty"] else "")


@functools.cache
def interpreter(kind: str, exe: str) -> str:
    """``"Python 2.7.18"``, ``"Perl v5.36.0"``, ``"Java 17.0.15"`` of an interpreter."""
    if kind == "perl":
        return "Perl " + _output([exe, "-e", "print $^V"])
    if kind == "java":
        m = re.search(r'version "([^"]+)"', _output([exe, "-version"]))
        return "Java " + (m.group(1) if m else "?")
    return _output([exe, "--version"]) or "Python ?"


def ours_version() -> str:
    """``"exactalign X.Y.Z"``: the release timed as ours."""
    return dist("exactalign")


def smatch_tools(config: dict) -> list[dict]:
    from .smatch_walltime import commands, f_score

    cmds = commands()
    py = sys.executable
    have_pp = importable("smatchpp")
    no_pp = "" if have_pp else "not installed (the peers extra)"
    smatch_py = cmds["smatch"][1] if cmds["smatch"] else None
    no_sm = "" if smatch_py else "not installed (the peers extra)"
    pp = [py, "-m", "smatchpp", "-score_type", "micro", "-solver"]
    tools = {
        "exactalign": tool_spec("exactalign", "ours", True, argv=cmds["exactalign"],
                            parse=functools.partial(f_score, "exactalign"), version=ours_version()),
        "smatch-r1": tool_spec("smatch-r1", "peer", False, argv=[py, smatch_py, "-r", "1", "-f"],
                           parse=functools.partial(f_score, "smatch"), skip=no_sm,
                           version=dist("smatch")),
        "smatch-r4": tool_spec("smatch-r4", "peer", False, argv=[py, smatch_py, "-r", "4", "-f"],
                           parse=functools.partial(f_score, "smatch"), skip=no_sm,
                           version=dist("smatch")),
        "smatchpp-ilp": tool_spec("smatchpp-ilp", "peer", True, argv=pp + ["ilp", "-a"],
                              parse=functools.partial(f_score, "smatchpp-ilp"),
                              skip=no_pp or ("" if importable("mip") else "mip not installed"),
                              version=f"{dist('smatchpp')}, {dist('mip')}"),
        "smatchpp-hillclimb": tool_spec("smatchpp-hillclimb", "peer", False,
                                    argv=pp + ["hillclimber", "-a"],
                                    parse=functools.partial(f_score, "smatchpp-ilp"),
                                    skip=no_pp, version=dist("smatchpp")),
    }
    for t in tools.values():
        t["mem"] = config["mem_limit_mb"]
    return [tools[n] for n in config["smatch_tools"]]


def smatch_argv(tool: dict, test: Path, gold: Path) -> list[str]:
    """The command line of a :func:`smatch_tools` tool on ``test`` and ``gold``."""
    if tool["name"].startswith("smatchpp"):
        return tool["argv"] + [str(test), "-b", str(gold)]
    return tool["argv"] + [str(test), str(gold)]


_NUGGET_PLAIN = re.compile(r"Final Mention Detection Results.*?^\s*plain\s+([0-9.]+)\s+"
                           r"([0-9.]+)\s+([0-9.na]+)", re.S | re.M)


def nugget_f1(stdout: str) -> float | None:
    """The plain micro F1 of the final table (v1.8's layout, which exactalign prints too)."""
    m = _NUGGET_PLAIN.search(stdout)
    if not m or m.group(3) == "nan":
        return None
    return float(m.group(3)) / 100


def nugget_tools(config: dict) -> list[dict]:
    ours = _exactalign() + ["nugget"]
    evm, why = _peer_dir("EXACTALIGN_EVMEVAL", "scorer_v1.8.py")
    py2 = python2()
    argv = None
    if evm and not py2:
        why = "Python 2.7 not found (EXACTALIGN_PYTHON2, python2.7 or python2 on PATH)"
    elif evm:
        argv = [py2, str(evm / "scorer_v1.8.py")]
    mem = config["mem_limit_mb"]
    version = (f"EvmEval {checkout(str(evm))} (scorer_v1.8.py), {interpreter('python', py2)}"
               if argv else None)
    return [tool_spec("exactalign-kbp", "ours", False, argv=ours + ["--mapping", "kbp"],
                  parse=nugget_f1, mem=mem, version=ours_version()),
            tool_spec("exactalign-exact", "ours", True, argv=ours + ["--mapping", "exact"],
                  parse=nugget_f1, mem=mem, version=ours_version()),
            tool_spec("evmeval-v1.8", "peer", False, argv=argv, parse=nugget_f1, mem=mem,
                  skip="" if argv else why, version=version)]


def _fraction_f1(rn, rd, pn, pd) -> float:
    r = float(rn) / float(rd) if float(rd) else 0.0
    p = float(pn) / float(pd) if float(pd) else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


_OURS_CEAFE = re.compile(r"^CEAFe\s+\S+\s+\(([0-9.e+-]+) / ([0-9.e+-]+)\)\s+\S+\s+"
                         r"\(([0-9.e+-]+) / ([0-9.e+-]+)\)", re.M)
_PERL_CEAFE = re.compile(r"METRIC ceafe:.*?^Coreference: Recall: \(([0-9.e+-]+) / "
                         r"([0-9.e+-]+)\).*?Precision: \(([0-9.e+-]+) / ([0-9.e+-]+)\)",
                         re.S | re.M)


def coref_ceafe(stdout: str, pattern=_OURS_CEAFE) -> float | None:
    m = pattern.search(stdout)
    return _fraction_f1(*m.groups()) if m else None


_SCORCH_CEAFE = re.compile(r"^CEAF_e:\s+R=\S+\s+P=\S+\s+F\S*=([0-9.e+-]+)", re.M)


def scorch_ceafe(stdout: str) -> float | None:
    """scorch's printed CEAFe F1."""
    m = _SCORCH_CEAFE.search(stdout)
    return float(m.group(1)) if m else None


def coref_tools(config: dict) -> list[dict]:
    scorer, why = _peer_dir("EXACTALIGN_CONLL_SCORER", "scorer.pl")
    perl = shutil.which("perl")
    if scorer and not perl:
        scorer, why = None, "perl not found on PATH"
    mem = config["mem_limit_mb"]
    scorch = Path(sys.executable).parent / "scorch"
    return [tool_spec("exactalign", "ours", True, argv=_exactalign() + ["coref"], parse=coref_ceafe,
                  mem=mem, version=ours_version()),
            tool_spec("conll-scorer-v8.01", "peer", True,
                  argv=[perl, str(scorer / "scorer.pl"), "all"] if scorer else None,
                  parse=functools.partial(coref_ceafe, pattern=_PERL_CEAFE), mem=mem,
                  skip=why,
                  version=(f"reference-coreference-scorers {checkout(str(scorer))} "
                           f"(scorer.pl), {interpreter('perl', perl)}" if scorer else None)),
            tool_spec("scorch", "peer", True, argv=[str(scorch)] if scorch.is_file() else None,
                  parse=scorch_ceafe, mem=mem,
                  skip="" if scorch.is_file() else "not installed (the peers extra)",
                  version=dist("scorch"))]


def scorch_json(path: Path, out: Path) -> None:
    """The one document of a CoNLL file as scorch's input: ``{"type": "clusters", "clusters":
    {entity: [mention, ...]}}``, mentions named ``start-end`` by token."""
    from exactalign.io.conll import read_conll

    doc, = read_conll(path)
    clusters = {str(i): [f"{a}-{b}" for a, b in c] for i, c in enumerate(doc.clusters)}
    out.write_text(json.dumps({"type": "clusters", "clusters": clusters}), encoding="utf-8")


_TE3_F1 = re.compile(r"^overall\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)", re.M)
_TOOLKIT_F1 = re.compile(r"Temporal Score\s+F1\s+P\s+R\s*\n\s*([0-9.]+)", re.M)


def te3_tools(config: dict, tmp: Path) -> list[dict]:
    kit, why = _peer_dir("EXACTALIGN_TE3_TOOLKIT", "TE3-evaluation.py")
    py2, java = python2(), shutil.which("java")
    env = None
    if kit and not (py2 and java):
        kit, why = None, "the TE3 toolkit needs Python 2.7 and java"
    elif kit:  # the toolkit runs `python` (2.7) and `java` from PATH
        bindir = tmp / "py2bin"
        bindir.mkdir(exist_ok=True)
        if not (bindir / "python").exists():
            (bindir / "python").symlink_to(py2)
        env = timing.child_env({"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"})

    def parse(stdout):
        m = _TOOLKIT_F1.search(stdout)
        return float(m.group(1)) / 100 if m else None

    return [tool_spec("exactalign", "ours", True, argv=_exactalign() + ["temporal", "--mode", "te3"],
                  parse=lambda s: (float(m.group(1)) / 100 if (m := _TE3_F1.search(s)) else None),
                  mem=config["mem_limit_mb"], version=ours_version()),
            tool_spec("te3-toolkit", "peer", False,
                  argv=[py2, "TE3-evaluation.py"] if kit else None, cwd=kit, env=env,
                  parse=parse, skip=why,
                  version=(f"tempeval3_toolkit {checkout(str(kit))} (TE3-evaluation.py), "
                           f"{interpreter('python', py2)}, {interpreter('java', java)}"
                           if kit else None))]


# --------------------------------------------------------------------------------------------
# DRS: exactalign drs against Counter (RikVN/DRS_parsing, evaluation/counter.py)
# --------------------------------------------------------------------------------------------
_DRS_EXACT = re.compile(r"^\[exact\] P \S+ R \S+ F (\S+) .*; (\d+)/(\d+) DRS pairs proven "
                        r"optimal", re.M)
_COUNTER_F = re.compile(r"^F-score\s*:\s*([0-9.]+)", re.M)


def drs_f1(stdout: str) -> float | None:
    """The F of ``exactalign drs --method exact``'s text; every DRS pair must be proven
    optimal (:class:`ExperimentError` otherwise)."""
    m = _DRS_EXACT.search(stdout)
    if not m:
        return None
    if m.group(2) != m.group(3):
        raise ExperimentError(f"exactalign drs proved {m.group(2)} of {m.group(3)} DRS pairs "
                              "optimal, not every one")
    return float(m.group(1))


def counter_f1(stdout: str) -> float | None:
    """Counter's printed F-score (one run)."""
    m = _COUNTER_F.search(stdout)
    return float(m.group(1)) if m else None


def counter_dir() -> tuple[Path | None, str]:
    """Counter's ``evaluation/`` folder: ``$EXACTALIGN_COUNTER``, the folder holding
    ``counter.py`` or a checkout of RikVN/DRS_parsing holding ``evaluation/counter.py``."""
    path, why = _peer_dir("EXACTALIGN_COUNTER", "counter.py")
    if path is None and os.environ.get("EXACTALIGN_COUNTER"):
        alt, _ = _peer_dir("EXACTALIGN_COUNTER", "evaluation/counter.py")
        if alt is not None:
            return alt / "evaluation", ""
    return path, why


def drs_tools(config: dict) -> list[dict]:
    """``exactalign drs --method exact`` (every pair proven) against Counter ``-r 20`` as the
    PMB results are published (``-g clf_signature.yaml -ill dummy``), both with Counter's
    WordNet normalisation: Counter is skipped when our sense map is not fetched (its scores
    would not be comparable)."""
    from exactalign.data.wordnet import load_sense_map

    mem = config["mem_limit_mb"]
    counter, why = counter_dir()
    if counter is not None and load_sense_map() is None:
        counter, why = None, ("the WordNet sense map is not fetched (python -m "
                              "exactalign.data.wordnet): Counter normalises concepts, ours "
                              "could not")
    restarts = str(config["drs_restarts"])
    return [tool_spec("exactalign-exact", "ours", True,
                      argv=_exactalign() + ["drs", "--method", "exact", "--ill", "dummy"],
                      parse=drs_f1, mem=mem, version=ours_version()),
            tool_spec(f"counter-r{restarts}", "peer", False,
                      argv=([sys.executable, str(counter / "counter.py"), "-g",
                             "clf_signature.yaml", "-ill", "dummy", "-r", restarts]
                            if counter else None),
                      cwd=counter, parse=counter_f1, mem=mem, skip=why,
                      version=(f"Counter {checkout(str(counter))} (counter.py), "
                               f"{interpreter('python', sys.executable)}" if counter else None))]


def drs_argv(tool: dict, pred: Path, gold: Path) -> list[str]:
    """The command line of a :func:`drs_tools` tool on ``pred`` (produced) and ``gold``."""
    if tool["role"] == "ours":
        return tool["argv"] + [str(pred), str(gold)]
    return tool["argv"] + ["-f1", str(pred), "-f2", str(gold)]
