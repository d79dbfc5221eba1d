"""The ``exactalign`` command: sub-commands, shared options, JSON keys, one-line errors, start-up.

Most tests call :func:`exactalign.cli.main` in-process (fast); two run a subprocess to check what
a real start-up imports and that the console entry point works."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import exactalign
from exactalign import VerificationError, cli
from exactalign.core import solve as core_solve
from exactalign.problems import bipartite

# Dice of the counterexample, derived by hand: ref spans {t1,t2}, {t3,t4,t5}; pred spans
# {t2,t3}, {t1,t2}. Optimum 1.0 + 0.4 = 1.4 (r0-p1, r1-p0); the pilot's Algorithm 1 lets r0
# collect both p1 (1.0) and p0 (0.5), so r1 is left without a match: 1.0.
COUNTEREXAMPLE = f"""\
# ref {{t1,t2}} {{t3,t4,t5}} vs pred {{t2,t3}} {{t1,t2}}, Dice
n_ref 2 n_pred 2
0 0 {2 * 1 / (2 + 2)!r}
0 1 {2 * 2 / (2 + 2)!r}
1 0 {2 * 1 / (3 + 2)!r}
"""

RESULT_KEYS = {"status", "proven_optimal", "objective", "bound", "gap", "method", "backend",
               "wall_time", "nodes", "seed", "solver_version", "components", "presolve",
               "fallback"}
SHARED = ("--json", "--backend", "--time-limit", "--seed")
HEAVY = ("numpy", "scipy", "highspy", "pulp", "penman")


@pytest.fixture
def ce(tmp_path):
    p = tmp_path / "ce.tsv"
    p.write_text(COUNTEREXAMPLE)
    return str(p)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


# --------------------------------------------------------------------------------------------
# start-up
# --------------------------------------------------------------------------------------------
def test_help_lists_commands_without_importing_heavy_modules():
    code = ("import sys\n"
            "from exactalign.cli import build_parser, main\n"
            "build_parser()\n"
            "rc = main(['--help'])\n"
            f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules], rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY [] 0" in proc.stdout
    for cmd in cli.COMMANDS:
        assert f"\n    {cmd.name}" in proc.stdout
        assert cmd.help.split()[0] in proc.stdout


@pytest.mark.parametrize("command", ["nugget", "coref"])
def test_one_document_imports_no_solver_nor_penman(tmp_path, command):
    """A one-document nugget or coreference command, exact mapping included, needs numpy and
    scipy's assignment but no solver (HiGHS, PuLP) and no penman: the modules of the other
    families are imported only when they run."""
    from tests.test_json_every_command import GOLD_TBF, KEY_CONLL, RESP_CONLL, SYS_TBF

    if command == "nugget":
        (tmp_path / "g.tbf").write_text(GOLD_TBF)
        (tmp_path / "s.tbf").write_text(SYS_TBF)
        argv = ["nugget", "-g", str(tmp_path / "g.tbf"), "-s", str(tmp_path / "s.tbf"),
                "--mapping", "all", "-c"]
    else:
        (tmp_path / "k.conll").write_text(KEY_CONLL)
        (tmp_path / "r.conll").write_text(RESP_CONLL)
        argv = ["coref", str(tmp_path / "k.conll"), str(tmp_path / "r.conll"), "--metric",
                "muc", "bcub", "ceafm", "ceafe", "blanc", "lea"]
    code = ("import sys, contextlib, io\n"
            "from exactalign.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    rc = main({argv!r})\n"
            "heavy = ('highspy', 'pulp', 'penman')\n"
            "print('LOADED', [m for m in heavy if m in sys.modules], 'numpy' in sys.modules, rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED [] True 0" in proc.stdout, proc.stdout + proc.stderr


def test_a_300_mention_document_scores_ceaf_as_the_ilp(tmp_path, capsys):
    """The command's exact CEAF (one assignment on the whole entity graph, 14 components of
    which 6 have tied optima) gives the ILP's counts, per component, on a 300-mention
    document."""
    from exactalign.metrics import coref
    from experiments.performance import coref_clusters, write_conll

    key, resp = coref_clusters(300, 0)
    write_conll(tmp_path / "k.conll", key, 315)
    write_conll(tmp_path / "r.conll", resp, 315)
    argv = ["coref", str(tmp_path / "k.conll"), str(tmp_path / "r.conll"), "--metric", "ceafm",
            "ceafe", "--json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    ilp = coref.score_files(tmp_path / "k.conll", tmp_path / "r.conll", ("ceafm", "ceafe"),
                            ceaf_method="ilp")
    for m in ("ceafm", "ceafe"):
        counts = out["overall"][m]["counts"]
        assert counts["recall_num"] == pytest.approx(ilp.overall[m].recall_num, abs=1e-9)
    assert out["overall"]["ceafm"]["counts"]["recall_num"] == 222.0  # 222 of 300 key mentions


def test_python_m_exactalign_runs_the_command():
    proc = subprocess.run([sys.executable, "-m", "exactalign", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"exactalign {exactalign.__version__}")


def test_lazy_package_keeps_every_public_name():
    for name in exactalign.__all__:
        assert getattr(exactalign, name) is not None, name
    assert exactalign.bipartite is bipartite
    assert set(exactalign.__all__) <= set(dir(exactalign))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        exactalign.nope  # noqa: B018


def test_choices_mirror_the_library():
    assert cli.BACKENDS == core_solve.BACKENDS
    assert cli.BIPARTITE_KINDS == tuple(bipartite.KINDS)
    assert cli.BIPARTITE_EXACT == bipartite.EXACT_METHODS
    assert cli.BIPARTITE_HEURISTICS == tuple(bipartite.HEURISTICS)


#: Options a command defines itself under a shared option's name: validate's --time-limit is
#: the limit of one call of the user's heuristic, not the budget of exact computations.
OWN = {("validate", "--time-limit")}


@pytest.mark.parametrize("name", [c.name for c in cli.COMMANDS])
def test_each_command_has_the_shared_options_that_act_on_it(capsys, name):
    code, out, _ = run(capsys, name, "--help")
    assert code == 0
    cmd = next(c for c in cli.COMMANDS if c.name == name)
    assert "--json" in out
    for opt in SHARED[1:]:
        if (name, opt) in OWN:  # the command's own option of that name, not the shared one
            assert opt[2:] not in cmd.shared and opt in out
            continue
        assert (opt in out) == (opt[2:] in cmd.shared), (name, opt)
    # one process everywhere (faster than starting workers), but smatch's exact path on
    # document corpora (issue 37) and DRS files' (issue 55)
    assert ("--jobs" in out) == (name in ("smatch", "drs"))


# --------------------------------------------------------------------------------------------
# bipartite
# --------------------------------------------------------------------------------------------
#: The keys every --json document starts with (exactalign/output.schema.json).
ENVELOPE = ("command", "version", "inputs", "options")


def test_bipartite_json_keys_and_counterexample(capsys, ce):
    doc = run_json(capsys, "bipartite", ce)
    assert set(doc) == {*ENVELOPE, "instance", "solves", "vs_exact"}
    assert doc["command"] == "bipartite" and doc["inputs"] == {"instance": ce}
    assert doc["instance"] == {"file": ce, "n_ref": 2, "n_pred": 2, "pairs": 3, "kind": "1:1"}
    assert list(doc["solves"]) == ["exact", *bipartite.HEURISTICS]
    for res in doc["solves"].values():
        assert set(res) == RESULT_KEYS  # no alignment unless asked
    exact, pilot = doc["solves"]["exact"], doc["solves"]["pilot2015"]
    assert exact["status"] == "optimal" and exact["proven_optimal"] is True
    assert exact["objective"] == pytest.approx(1.0 + 0.4)
    assert exact["bound"] == pytest.approx(1.4) and exact["gap"] == 0.0
    assert pilot["status"] == "feasible" and pilot["bound"] is None and pilot["gap"] is None
    assert pilot["objective"] == pytest.approx(1.0)
    vs = doc["vs_exact"]
    assert vs["method"] == "exact" and vs["optimum"] == pytest.approx(1.4)
    assert vs["heuristics"]["pilot2015"] == pytest.approx({"shortfall": 0.4,
                                                           "relative": 0.4 / 1.4})


def test_bipartite_json_alignment(capsys, ce):
    doc = run_json(capsys, "bipartite", ce, "--alignment", "--method", "exact",
                   "--method", "pilot2015")
    assert doc["solves"]["exact"]["alignment"] == [[0, 1], [1, 0]]
    assert doc["solves"]["pilot2015"]["alignment"] == [[0, 1]]


def test_bipartite_table(capsys, ce):
    code, out, err = run(capsys, "bipartite", ce)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{ce}: 2 reference x 2 predicted items, 3 candidate pairs, kind 1:1"
    assert lines[1].split() == ["method", "status", "objective", "bound", "gap", "time(s)", "vs",
                                "exact"]
    rows = {ln.split()[0]: ln.split() for ln in lines[2:]}
    assert rows["exact"][1:5] == ["optimal", "1.4", "1.4", "0"]
    assert rows["pilot2015"][1:5] == ["feasible", "1", "-", "-"]
    assert rows["pilot2015"][-2:] == ["-0.4", "(-28.57%)"]
    assert rows["greedy"][-1] == "optimal"


def test_bipartite_table_alignment(capsys, ce):
    code, out, _ = run(capsys, "bipartite", ce, "--method", "pilot2015", "--alignment")
    assert code == 0
    assert "alignment of pilot2015 (1 pairs):\nref  pred  weight\n0    1     1\n" in out
    assert "no proven optimum among the methods run" in out


def test_methods_repeat_in_order_without_duplicates(capsys, ce):
    doc = run_json(capsys, "bipartite", ce, "--method", "greedy", "--method", "brute",
                   "--method", "greedy")
    assert list(doc["solves"]) == ["greedy", "brute"]
    assert doc["vs_exact"]["method"] == "brute"


def test_no_exact_method_means_no_comparison(capsys, ce):
    doc = run_json(capsys, "bipartite", ce, "--method", "greedy")
    assert doc["vs_exact"] is None


def test_kind_option_overrides_the_file(capsys, ce):
    doc = run_json(capsys, "bipartite", ce, "--kind", "N:N", "--method", "exact")
    assert doc["instance"]["kind"] == "N:N"
    assert doc["solves"]["exact"]["objective"] == pytest.approx(0.5 + 1.0 + 0.4)


def test_shared_options_reach_the_solver(capsys, ce):
    doc = run_json(capsys, "bipartite", ce, "--method", "ilp", "--backend", "scipy",
                   "--seed", "7")
    ilp = doc["solves"]["ilp"]
    assert (ilp["status"], ilp["backend"], ilp["seed"]) == ("optimal", "scipy", 7)
    doc = run_json(capsys, "bipartite", ce, "--method", "ilp", "--time-limit", "0")
    assert doc["solves"]["ilp"]["status"] == "time_limit"


def test_json_file_and_stdin(capsys, tmp_path, monkeypatch):
    import io

    p = tmp_path / "ce.json"
    p.write_text('{"kind": "1:N", "pairs": [[0, 0, 0.5], [0, 1, 1.0], [1, 0, 0.4]]}')
    doc = run_json(capsys, "bipartite", str(p), "--method", "exact")
    assert doc["instance"]["kind"] == "1:N"
    assert doc["solves"]["exact"]["objective"] == pytest.approx(1.0 + 0.5)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(COUNTEREXAMPLE.encode())))
    doc = run_json(capsys, "bipartite", "-", "--method", "exact")
    assert doc["instance"]["file"] == "<stdin>"
    assert doc["solves"]["exact"]["objective"] == pytest.approx(1.4)


# --------------------------------------------------------------------------------------------
# info
# --------------------------------------------------------------------------------------------
def test_info_json(capsys, monkeypatch, tmp_path):
    import numpy

    monkeypatch.setenv("EXACTALIGN_DATA", str(tmp_path))
    monkeypatch.setitem(cli.INFO_PACKAGES, "nosuchpkg", "no-such-distribution-xyz")
    doc = run_json(capsys, "info")
    assert set(doc) == {*ENVELOPE, "exactalign", "python", "packages", "data"}
    assert doc["exactalign"] == exactalign.__version__
    assert doc["packages"]["numpy"] == numpy.__version__
    assert doc["packages"]["nosuchpkg"] is None
    assert doc["data"]["path"] == str(tmp_path.resolve())
    assert doc["data"]["source"] == "$EXACTALIGN_DATA" and doc["data"]["available"] is True


def test_info_text_reports_missing_package_and_bad_data_dir(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("EXACTALIGN_DATA", str(tmp_path / "absent"))
    monkeypatch.setitem(cli.INFO_PACKAGES, "nosuchpkg", "no-such-distribution-xyz")
    code, out, err = run(capsys, "info")
    assert (code, err) == (0, "")
    assert out.startswith(f"exactalign {exactalign.__version__} (Python ")
    assert "  nosuchpkg not installed\n" in out
    assert "data: $EXACTALIGN_DATA is set to" in out and "not a directory" in out


# --------------------------------------------------------------------------------------------
# errors: one line on stderr, nothing on stdout, exit 2 (usage/input) or 1 (others)
# --------------------------------------------------------------------------------------------
def _one_line_error(capsys, argv, status):
    code, out, err = run(capsys, *argv)
    assert code == status
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("exactalign: error: ")
    assert "Traceback" not in err
    return err.rstrip("\n")


def test_input_error_names_file_and_line(capsys, tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("n_ref 2 n_pred 2\n0 0 0.5\n# fine so far\n1 0 -0.4\n")
    err = _one_line_error(capsys, ["bipartite", str(p), "--json"], 2)
    assert err == (f"exactalign: error: {p}:4: weight -0.4 is negative; weights must be >= 0")


def test_missing_file(capsys, tmp_path):
    p = tmp_path / "absent.tsv"
    err = _one_line_error(capsys, ["bipartite", str(p)], 2)
    assert err == f"exactalign: error: {p}: No such file or directory"


@pytest.mark.parametrize("argv, phrase", [
    (["bipartite", "F", "--kind", "2:2"], "argument --kind: invalid choice: '2:2'"),
    (["bipartite", "F", "--method", "hungarian"], "argument --method: invalid choice"),
    (["bipartite", "F", "--backend", "gurobi"], "argument --backend: invalid choice"),
    (["bipartite", "F", "--time-limit", "-1"], "argument --time-limit: must be a finite number"),
    (["bipartite", "F", "--time-limit", "soon"], "'soon' is not a number of seconds"),
    (["bipartite", "F", "--jobs", "2"], "unrecognized arguments: --jobs 2"),
    (["info", "--backend", "scipy"], "unrecognized arguments: --backend scipy"),
    (["bipartite", "F", "--seed", "x"], "argument --seed: 'x' is not an integer"),
    (["bipartite"], "the following arguments are required: FILE"),
    (["frobnicate"], "argument COMMAND: invalid choice: 'frobnicate'"),
    ([], "no command given; choose one of bipartite, info"),
], ids=["kind", "method", "backend", "time-limit", "time-limit-text", "jobs", "info-backend",
        "seed",
        "no-file", "unknown-command", "no-command"])
def test_usage_errors(capsys, argv, phrase):
    err = _one_line_error(capsys, argv, 2)
    assert phrase in err
    assert err.endswith("--help')")


def test_too_large_for_brute_force_is_a_usage_error(capsys, tmp_path):
    p = tmp_path / "big.tsv"
    p.write_text("".join(f"{i} {j} 1\n" for i in range(5) for j in range(5)))
    err = _one_line_error(capsys, ["bipartite", str(p), "--method", "brute"], 2)
    assert "brute_force enumerates at most 20 candidate pairs; this instance has 25" in err


def test_other_library_errors_exit_1(capsys, ce, monkeypatch):
    def broken(*a, **k):
        raise VerificationError("highs returned a solution that violates the model")

    monkeypatch.setattr(bipartite, "solve", broken)
    err = _one_line_error(capsys, ["bipartite", ce], 1)
    assert err == "exactalign: error: highs returned a solution that violates the model"


# --------------------------------------------------------------------------------------------
# helpers for future sub-commands
# --------------------------------------------------------------------------------------------
def test_prf_object_has_stable_keys():
    assert cli.prf(0.5, 0.25, 1 / 3) == {"recall": 0.5, "precision": 0.25, "f1": 1 / 3}
    assert cli.prf(float("nan"), None, 0) == {"recall": None, "precision": None, "f1": 0.0}


# --------------------------------------------------------------------------------------------
# -o FILE, on every command
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [c.name for c in cli.COMMANDS])
def test_every_command_takes_dash_o(capsys, name):
    code, out, _ = run(capsys, name, "--help")
    assert code == 0 and "-o FILE, --output FILE" in out


def test_dash_o_writes_the_output_and_keeps_an_old_file_on_failure(capsys, ce, tmp_path):
    target = tmp_path / "out.json"
    code, out, err = run(capsys, "bipartite", ce, "--json", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    doc = json.loads(target.read_text())
    assert doc["command"] == "bipartite" and doc["options"]["output"] == str(target)
    before = target.read_bytes()
    code, out, err = run(capsys, "bipartite", str(tmp_path / "missing.tsv"), "-o", str(target))
    assert code == 2 and out == "" and "missing.tsv" in err
    assert target.read_bytes() == before  # a failed run leaves the earlier file as it was
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file
    code, _, err = run(capsys, "bipartite", ce, "-o", str(tmp_path / "no" / "x.txt"))
    assert code == 2 and "no such directory" in err


def test_the_command_runs_on_one_core_unless_told_otherwise(monkeypatch, capsys):
    """The command's entry point keeps numpy's OpenBLAS (and MKL, OpenMP) to one thread, whose
    start-up threads otherwise spin on every core (0.1 s of CPU per command, measured), and
    leaves a user's own setting alone."""
    for name in cli.ONE_CORE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    monkeypatch.setattr(sys, "argv", ["exactalign", "--version"])
    assert cli.entry() == 0
    assert capsys.readouterr().out.strip() == f"exactalign {exactalign.__version__}"
    assert os.environ["OPENBLAS_NUM_THREADS"] == os.environ["OMP_NUM_THREADS"] == "1"
    assert os.environ["MKL_NUM_THREADS"] == "4"
