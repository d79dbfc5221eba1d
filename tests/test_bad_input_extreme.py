"""Malformed and extreme input found by issue 36's sweep: ``-o`` onto an input file, a symlink,
a FIFO, a device or a private file; NUL bytes in text files; huge integers; sizes that would
allocate gigabytes; weights whose dynamic range makes a certificate meaningless; a solver
status that contradicts a problem feasible by construction. Each case gets one clear error
line (or the right behaviour) and never a traceback; each test fails when its fix is
reverted."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest
from test_bad_input import one_error_line, put, run
from test_json_every_command import (
    AMR_GOLD,
    AMR_TEST,
    DRS_GOLD,
    DRS_PRED,
    ERE_A,
    ERE_B,
    GOLD_TBF,
    KEY_CONLL,
    MUC_KEY,
    PAIRS,
    RESP_CONLL,
    SYS_TBF,
    UMR_GOLD,
    UMR_PRED,
)

from exactalign import cli
from exactalign.core.result import Status


# --------------------------------------------------------------------------------------------
# 1. -o FILE
# --------------------------------------------------------------------------------------------
def _inputs(tmp_path):
    """One command line per command with its input paths (placeholders are what -o names)."""
    f = {name: put(tmp_path, name, text) for name, text in [
        ("pairs.tsv", PAIRS), ("gold.tbf", GOLD_TBF), ("sys.tbf", SYS_TBF),
        ("key.conll", KEY_CONLL), ("resp.conll", RESP_CONLL), ("a.json", '["a", "b"]'),
        ("b.json", '["b", "a"]'), ("ere_a.json", json.dumps(ERE_A)),
        ("ere_b.json", json.dumps(ERE_B)), ("test.amr", AMR_TEST), ("gold.amr", AMR_GOLD),
        ("pred.umr", UMR_PRED), ("gold.umr", UMR_GOLD),
        ("pred.drs", DRS_PRED), ("gold.drs", DRS_GOLD),
        ("key.muc", MUC_KEY), ("resp.muc", MUC_KEY), ("history.txt", "x\n"),
        ("wl.txt", "Conflict_Attack\n"), ("spec.toml", "x = 1\n"), ("g.jsonl", "{}\n"),
        ("s.jsonl", "{}\n"), ("gdir/d1.tml", "<TimeML/>"), ("sdir/d1.tml", "<TimeML/>"),
        ("tokens/d1.tab", "t1\ta\t0\t1\n"),
        ("tg.html", "<table><tr><td>a</td></tr></table>"),
        ("tp.html", "<table><tr><td>a</td></tr></table>")]}
    return f, [
        (("bipartite", f["pairs.tsv"]), f["pairs.tsv"]),
        (("nugget", "-g", f["gold.tbf"], "-s", f["sys.tbf"]), f["gold.tbf"]),
        (("nugget", "-g", f["gold.tbf"], "-s", f["sys.tbf"]), f["sys.tbf"]),
        (("nugget", "-g", f["gold.tbf"], "-s", f["sys.tbf"], "-wl", f["wl.txt"]), f["wl.txt"]),
        (("nugget", "-g", f["gold.tbf"], "-s", f["sys.tbf"], "-t", tmp_path / "tokens"),
         f["tokens/d1.tab"]),
        (("coref", f["key.conll"], f["resp.conll"]), f["key.conll"]),
        (("coref", f["key.conll"], f["resp.conll"]), f["resp.conll"]),
        (("muc4", f["key.muc"], f["resp.muc"]), f["key.muc"]),
        (("muc4", f["key.muc"], f["resp.muc"], "--history", f["history.txt"]),
         f["history.txt"]),
        (("muc4", f["key.muc"], f["resp.muc"], "--report", f["history.txt"]),
         f["history.txt"]),
        (("ere", f["ere_a.json"], f["ere_b.json"]), f["ere_b.json"]),
        (("monotone", f["a.json"], f["b.json"]), f["a.json"]),
        (("smatch", "-f", f["test.amr"], f["gold.amr"]), f["gold.amr"]),
        (("smatch", "-f", f["test.amr"], f["gold.amr"]), f["test.amr"]),
        (("umr", f["pred.umr"], f["gold.umr"]), f["pred.umr"]),
        (("umr", f["pred.umr"], f["gold.umr"]), f["gold.umr"]),
        (("drs", f["pred.drs"], f["gold.drs"]), f["pred.drs"]),
        (("drs", f["pred.drs"], f["gold.drs"]), f["gold.drs"]),
        (("score", f["g.jsonl"], f["s.jsonl"], "--spec", f["spec.toml"]), f["g.jsonl"]),
        (("score", f["g.jsonl"], f["s.jsonl"], "--spec", f["spec.toml"]), f["spec.toml"]),
        (("validate", f["g.jsonl"], f["s.jsonl"], "--metric", "coref-ceafm", "--heuristic",
          "m:f"), f["s.jsonl"]),
        (("timeline", tmp_path / "gdir", tmp_path / "sdir"), f["gdir/d1.tml"]),
        (("temporal", tmp_path / "gdir", tmp_path / "sdir"), f["sdir/d1.tml"]),
        (("temporal", "check", tmp_path / "gdir"), f["gdir/d1.tml"]),
        (("grits", f["tg.html"], f["tp.html"]), f["tg.html"]),
        (("grits", f["tg.html"], f["tp.html"]), f["tp.html"]),
    ]


def test_dash_o_refuses_every_input_of_every_command(tmp_path, capsys):
    files, cases = _inputs(tmp_path)
    assert {c[0][0] for c in cases} == {c.name for c in cli.COMMANDS} - {"info", "data"}
    assert set(cli.INPUT_PATHS) == {c.name for c in cli.COMMANDS}
    link = tmp_path / "link-to-input"
    for argv, target in cases:
        before = target.read_bytes()
        for out in (target, link):  # the file itself, and a symlink to it
            if out is link:
                link.unlink(missing_ok=True)
                link.symlink_to(target)
            code, stdout, err = run(capsys, *argv, "-o", out)
            assert (code, stdout) == (2, ""), (argv, err)
            line = one_error_line(err)
            assert f"-o {out}: " in line and str(target) in line, line
            assert "would overwrite" in line, line
            assert target.read_bytes() == before
    assert link.is_symlink()


def test_dash_o_writes_through_a_symlink(tmp_path, capsys):
    pairs = put(tmp_path, "pairs.tsv", PAIRS)
    real = put(tmp_path, "results/real.json", "old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, out, err = run(capsys, "bipartite", pairs, "--json", "-o", link)
    assert (code, out, err) == (0, "", "")
    assert link.is_symlink() and os.readlink(link) == str(real)  # still the link
    assert json.loads(real.read_text())["command"] == "bipartite"  # its target rewritten
    assert not [p for p in real.parent.iterdir() if p.name.endswith(".tmp")]


def test_dash_o_writes_a_fifo_directly(tmp_path, capsys):
    pairs = put(tmp_path, "pairs.tsv", PAIRS)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, out, err = run(capsys, "bipartite", pairs, "--json", "-o", fifo)
    assert (code, out, err) == (0, "", "")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file
    reader.join()  # the command wrote and closed the FIFO: the reader has its end of file
    assert json.loads(got[0])["command"] == "bipartite"


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dash_o_dev_null_stays_a_device(tmp_path, capsys):
    """Through a link of our own: a regression replaces the link, never the system's device."""
    pairs = put(tmp_path, "pairs.tsv", PAIRS)
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    code, out, err = run(capsys, "bipartite", pairs, "-o", link)
    assert (code, out, err) == (0, "", "")
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)
    assert not list(tmp_path.glob(".*.tmp"))


def test_atomic_open_never_replaces_what_is_not_a_regular_file(tmp_path):
    from exactalign.io.atomic import atomic_open

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(OSError, match="not a regular file"), atomic_open(path):
            pass
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and not list(tmp_path.glob(".*.tmp"))


def test_dash_o_keeps_the_permissions_of_an_existing_file(tmp_path, capsys):
    pairs = put(tmp_path, "pairs.tsv", PAIRS)
    private = put(tmp_path, "private.json", "old")
    os.chmod(private, 0o600)
    code, _, err = run(capsys, "bipartite", pairs, "--json", "-o", private)
    assert code == 0, err
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    assert json.loads(private.read_text())["command"] == "bipartite"
    new = tmp_path / "new.json"  # a new file: the default mode (0666 less the umask)
    assert run(capsys, "bipartite", pairs, "-o", new)[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o666 & ~umask


# --------------------------------------------------------------------------------------------
# 2. NUL bytes in text files
# --------------------------------------------------------------------------------------------
def _with_nul(text: str, after: str) -> bytes:
    data = text.encode()
    cut = data.index(after.encode()) + len(after)
    return data[:cut] + b"\x00" + data[cut:]


def test_smatch_nul_byte_is_an_error_with_file_and_line(tmp_path, capsys):
    gold = put(tmp_path, "gold.amr", AMR_GOLD)
    test = put(tmp_path, "test.amr", _with_nul(AMR_TEST, "(b / bo"))
    code, out, err = run(capsys, "smatch", "-f", test, gold)
    assert (code, out) == (2, "")
    assert f"{test}:1: a NUL byte (0x00) at offset " in one_error_line(err)
    assert "not a text file" in err


@pytest.mark.parametrize("command", ["bipartite", "coref", "ere", "monotone", "nugget",
                                     "muc4"])
def test_nul_byte_in_other_text_readers(tmp_path, capsys, command):
    text, after, line = {
        "bipartite": (PAIRS, "0 1", 3), "coref": (KEY_CONLL, "w1", 3),
        "ere": (json.dumps(ERE_A), '"a0"', 1), "monotone": ('[\n"a",\n"b"]', '"a', 2),
        "nugget": (GOLD_TBF, "attack", 2), "muc4": (MUC_KEY, "BOMBING", None)}[command]
    bad = put(tmp_path, "bad", _with_nul(text, after))
    other = {"bipartite": None, "coref": RESP_CONLL, "ere": json.dumps(ERE_B),
             "monotone": '["a"]', "nugget": SYS_TBF, "muc4": MUC_KEY}[command]
    ok = None if other is None else put(tmp_path, "ok", other)
    argv = {"bipartite": ("bipartite", bad), "coref": ("coref", bad, ok),
            "ere": ("ere", bad, ok), "monotone": ("monotone", bad, ok),
            "nugget": ("nugget", "-g", bad, "-s", ok), "muc4": ("muc4", bad, ok)}[command]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), err
    msg = one_error_line(err)
    assert "a NUL byte (0x00)" in msg and str(bad) in msg
    if line is not None:
        assert f"{bad}:{line}: " in msg


# --------------------------------------------------------------------------------------------
# 3. huge integers
# --------------------------------------------------------------------------------------------
def _ere_one_mention(span) -> str:
    return json.dumps({"documents": [{"id": "d", "mentions": [{"id": "m1", "span": span}],
                                      "entities": [{"id": "e1", "type": "PER",
                                                    "mentions": ["m1"]}]}]})


def test_ere_huge_span_end_is_an_error(tmp_path, capsys):
    a = put(tmp_path, "a.json", _ere_one_mention([0, 10**30]))
    b = put(tmp_path, "b.json", _ere_one_mention([0, 5]))
    for argv in (("ere", a, b), ("ere", b, a)):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), err
        msg = one_error_line(err)
        assert str(a) in msg and f"span end {10**30} is too large" in msg, msg


def test_ere_tbf_huge_offset_is_an_error(tmp_path, capsys):
    gold = put(tmp_path, "gold.tbf", GOLD_TBF)
    system = put(tmp_path, "sys.tbf", SYS_TBF.replace("0,4", f"0,{10**30}", 1))
    code, out, err = run(capsys, "ere", gold, system)
    assert (code, out) == (2, ""), err
    msg = one_error_line(err)
    assert f"{system}:2: " in msg and "is too large" in msg, msg


def test_monotone_huge_edge_vertex_is_an_error(tmp_path, capsys):
    a = put(tmp_path, "a.json", json.dumps({"items": ["a", "b"], "edges": [[0, 10**30]]}))
    b = put(tmp_path, "b.json", '["a", "b"]')
    code, out, err = run(capsys, "monotone", a, b)
    assert (code, out) == (2, ""), err
    msg = one_error_line(err)
    assert str(a) in msg and "names an item outside 0..1" in msg, msg


# --------------------------------------------------------------------------------------------
# 4. bipartite sizes
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content,line,phrase", [
    ("n_ref 2147483648 n_pred 2\n0 0 1\n", 1, "n_ref 2147483648 is too large"),
    ("n_ref 2 n_pred 10000001\n0 0 1\n", 1, "n_pred 10000001 is too large"),
    ("0 0 1\n2147483646 0 1\n", 2, "reference index 2147483646 is too large"),
    ("0 0 1\n0 10000000 1\n", 2, "predicted index 10000000 is too large"),
    ('{"n_ref": 2147483648, "pairs": [[0, 0, 1]]}', 1, "n_ref 2147483648 is too large"),
    ('{"pairs": [\n[0, 0, 1],\n[0, 99999999999, 1]]}', 3, "predicted index 99999999999"),
])
def test_bipartite_sizes_past_the_cap_are_refused(tmp_path, content, line, phrase):
    """The reader refuses (in process: were it to accept a size of 2**31, only the solve would
    allocate its 16 GiB, which this test never reaches)."""
    from exactalign.core.errors import InputError
    from exactalign.io.pairs import read_pairs

    f = put(tmp_path, "inst.json" if content.startswith("{") else "inst.tsv", content)
    with pytest.raises(InputError) as e:
        read_pairs(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}:{line}: ") and phrase in msg and "10000000" in msg, msg


def test_bipartite_size_past_the_cap_is_one_error_line(tmp_path, capsys):
    f = put(tmp_path, "inst.tsv", "n_ref 2 n_pred 10000001\n0 0 1\n")
    code, out, err = run(capsys, "bipartite", f)
    assert (code, out) == (2, "")
    assert one_error_line(err) == (f"exactalign: error: {f}:1: n_pred 10000001 is too large "
                                   "(at most 10000000 items a side)")


def test_bipartite_size_at_the_cap_is_read_without_dense_allocation(tmp_path):
    from exactalign.io.pairs import MAX_ITEMS, parse_pairs

    inst = parse_pairs(f"n_ref 3 n_pred {MAX_ITEMS}\n0 {MAX_ITEMS - 1} 1\n")
    assert (inst.n_ref, inst.n_pred, inst.num_pairs) == (3, MAX_ITEMS, 1)


# --------------------------------------------------------------------------------------------
# 5. numerics
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weights,phrase", [
    (("1e-300", "2e-300", "3e-300", "1e-300"), "weight 1e-300 is below 1e-05"),
    (("1e300", "2e300", "3e300", "1e300"), "weight 1e300 is above 1e+12"),
    (("1e-5", "1", "1", "1e8"), "the weights span 1e+13"),
])
def test_bipartite_weights_outside_the_range_are_refused(tmp_path, capsys, weights, phrase):
    lines = [f"{r} {c} {w}" for (r, c), w in zip([(0, 0), (0, 1), (1, 0), (1, 1)], weights,
                                                 strict=True)]
    f = put(tmp_path, "inst.tsv", "\n".join(lines) + "\n")
    for extra in ((), ("--method", "ilp", "--backend", "pulp")):
        code, out, err = run(capsys, "bipartite", f, *extra)
        assert (code, out) == (2, ""), err
        msg = one_error_line(err)
        assert str(f) in msg and phrase in msg, msg
    js = put(tmp_path, "inst.json", json.dumps(
        {"pairs": [[0, 0, float(weights[0])], [1, 1, float(weights[3])],
                   [0, 1, float(weights[1])]]}))
    code, out, err = run(capsys, "bipartite", js)
    assert (code, out) == (2, "") and str(js) in one_error_line(err)


def test_bipartite_weights_at_the_edges_of_the_range_are_proven(tmp_path, capsys):
    f = put(tmp_path, "inst.tsv", "0 0 1e-5\n0 1 2e-5\n1 0 3e-5\n1 1 1e-5\n")
    code, out, err = run(capsys, "bipartite", f, "--json", "--method", "exact", "--method",
                         "ilp")
    assert code == 0, err
    for solve in json.loads(out)["solves"].values():
        assert solve["status"] == "optimal"
        assert solve["objective"] == pytest.approx(5e-5, rel=1e-12)
        assert solve["bound"] == pytest.approx(5e-5, rel=1e-6)


@pytest.mark.parametrize("status", [Status.ERROR, Status.INFEASIBLE])
def test_bipartite_solver_failure_on_a_feasible_problem_exits_1(tmp_path, capsys,
                                                                 monkeypatch, status):
    from exactalign.core.result import Result
    from exactalign.problems import bipartite

    real = bipartite.solve

    def failing(inst, method, **kw):
        r = real(inst, method, **kw)
        if method != "ilp":
            return r
        return Result(status=status, objective=None, bound=None, alignment=None,
                      method="ilp", wall_time=0.0, backend="highs")

    monkeypatch.setattr(bipartite, "solve", failing)
    f = put(tmp_path, "inst.tsv", PAIRS)
    for extra in ((), ("--json",)):
        code, out, err = run(capsys, "bipartite", f, "--method", "ilp", "--method", "greedy",
                             *extra)
        assert code == 1
        assert status.value in out  # the report is printed, the status shown
        msg = one_error_line(err)
        assert f"{f}: method ilp: the solver reported status '{status.value}'" in msg, msg
        assert "feasible by construction" in msg


def test_nugget_type_credit_below_the_weight_range_is_refused(tmp_path, capsys):
    gold, system = put(tmp_path, "g.tbf", GOLD_TBF), put(tmp_path, "s.tbf", SYS_TBF)
    code, out, err = run(capsys, "nugget", "-g", gold, "-s", system, "--type-credit", "1e-300")
    assert (code, out) == (2, "")
    assert "--type-credit" in one_error_line(err) and "1e-05" in err
