"""``exactalign nugget`` understands EvmEval scorer v1.8's short flags as v1.8 reads them:
``-c [PREFIX]``, ``-ct T``, ``-m N``, ``-wl FILE``, ``-te EXT``, ``-of B,E`` and ``-o FILE``
(which is written only when the run succeeds)."""

from __future__ import annotations

import json

import pytest
from test_json_every_command import GOLD_TBF, SYS_TBF

from exactalign.cli import main


@pytest.fixture
def files(tmp_path):
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(GOLD_TBF)
    s.write_text(SYS_TBF)
    return str(g), str(s)


def run(capsys, *argv):
    code = main(["nugget", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_short_flags_mean_the_long_ones(files, capsys, tmp_path):
    g, s = files
    wl = tmp_path / "types.txt"
    wl.write_text("Conflict_Attack\n")
    pairs = [
        (["-c", "-ct", "0.5"], ["-c", "--coref-threshold", "0.5"]),  # not -c -t 0.5
        (["-c", "-m", "3"], ["-c", "--coref-mapping", "mention_type+realis_status"]),
        (["-c", "-m", "0"], ["-c", "--coref-mapping", "plain"]),
        (["-wl", str(wl)], ["--type-whitelist", str(wl)]),
    ]
    for short, long in pairs:
        a = run(capsys, "-g", g, "-s", s, *short, "--json")
        b = run(capsys, "-g", g, "-s", s, *long, "--json")
        assert a[0] == b[0] == 0 and a[2] == b[2], short
        # the same scores; only the envelope's options show how they were spelt
        da, db = json.loads(a[1]), json.loads(b[1])
        da.pop("options"), db.pop("options")
        assert _untimed(da) == _untimed(db), short


def _untimed(obj):
    """A JSON document without its timings (they differ between two runs)."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if "time" not in k}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


def test_c_prefix_writes_the_conll_files(files, capsys, tmp_path):
    g, s = files
    prefix = tmp_path / "out" / "run"
    prefix.parent.mkdir()
    code, out, _ = run(capsys, "-g", g, "-s", s, "-c", str(prefix))
    assert code == 0 and "Final Mention Coreference Results" in out
    both = tmp_path / "both"
    assert run(capsys, "-g", g, "-s", s, "-c", "--coref-conll", str(both))[0] == 0
    for side in ("gold", "sys"):
        assert (tmp_path / "out" / f"run_{side}.conll").read_text() == \
            (tmp_path / f"both_{side}.conll").read_text()
    code, _, err = run(capsys, "-g", g, "-s", s, "-c", str(prefix), "--coref-conll", "x")
    assert code == 2 and "name two prefixes" in err


def test_m_and_coref_mapping_must_agree(files, capsys):
    g, s = files
    code, _, err = run(capsys, "-g", g, "-s", s, "-c", "-m", "1", "--coref-mapping", "plain")
    assert code == 2 and "-m 1 (mention_type) and --coref-mapping plain disagree" in err
    code, _, err = run(capsys, "-g", g, "-s", s, "-m", "4")
    assert code == 2 and "invalid choice" in err


def test_o_writes_the_output_only_on_success(files, capsys, tmp_path):
    g, s = files
    out_file = tmp_path / "scores.txt"
    code, out, _ = run(capsys, "-g", g, "-s", s, "-o", str(out_file))
    assert code == 0 and out == ""
    direct = run(capsys, "-g", g, "-s", s)[1]
    assert out_file.read_text() == direct
    # a failing run leaves what the user had
    code, _, err = run(capsys, "-g", g, "-s", str(tmp_path / "missing.tbf"), "-o", str(out_file))
    assert code == 2 and out_file.read_text() == direct
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".exactalign-")]


def test_token_flags(tmp_path, capsys):
    """-te and -of: a token table with the offsets in other columns and another extension."""
    gold = tmp_path / "g.tbf"
    gold.write_text("#BeginOfDocument d\ngold\td\tE1\tt1,t2\tx\tA_B\tActual\n#EndOfDocument\n")
    tokens = tmp_path / "tok"
    tokens.mkdir()
    # columns: id, begin, end, word (v1.8's default reads the offsets from columns 2 and 3)
    (tokens / "d.tt").write_text("token_id\tbegin\tend\tword\nt1\t0\t3\tabc\nt2\t4\t6\tde\n")
    code, out, err = run(capsys, "-g", str(gold), "-s", str(gold), "-t", str(tokens),
                         "-te", ".tt", "-of", "1,2", "--json")
    assert code == 0 and err == "", err
    # without -of the default columns (2, 3) hold 'end' and 'word': the table is warned about
    code, out, err = run(capsys, "-g", str(gold), "-s", str(gold), "-t", str(tokens),
                         "-te", ".tt", "--json")
    assert code == 0 and "are not integers" in err
    code, _, err = run(capsys, "-g", str(gold), "-s", str(gold), "-of", "x")
    assert code == 2 and "two column numbers" in err
