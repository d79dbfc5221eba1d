"""Event sequencing as the TAC KBP scorer v1.8 scores it (its ``-a``), and its ``-d``/``-dn``.

Reference values come from running the official scorer (EvmEval @9f60e17, ``scorer_v1.8.py``
under Python 2.7.18, hash randomisation off as Python 2's default) outside the project:

    python2 scorer_v1.8.py -g GOLD -s SYSTEM -a OUT_DIR -o OUT.scores [FLAGS]

on the pilot's ``scoring_demo/char_based`` files, on perturbed copies of them (the edits of
:data:`PERTURBED`, applied by this file to the pilot files), on the pilot's ACE dev files with
links added by :func:`with_links` (the perturbed ACE systems are the recipe's,
``exactalign.data.recipes.ACE_PERTURBED``), and on small files written here. Each constant is
the ``F1, P, R`` triple v1.8 printed per type. Pilot-based tests are skipped without the pilot
data, and a case whose pilot file is absent is skipped, naming it."""

from __future__ import annotations

import json

import pytest

from exactalign.cli import main
from exactalign.data import resolve_data_dir
from exactalign.io.tbf import parse_tbf
from exactalign.metrics import nugget, sequencing

DATA = resolve_data_dir()
NUGGET = None if DATA.path is None else DATA.path / "nugget"
DEMO = None if NUGGET is None else NUGGET / "evmeval" / "scoring_demo" / "char_based"
ACE = None if NUGGET is None else NUGGET / "ace-dev"
needs_pilot = pytest.mark.skipif(DEMO is None or not DEMO.is_dir(),
                                 reason="pilot data (nugget/) not available")

TYPES = ("Subevent", "After", "All")


def need(*paths):
    """Skip unless every pilot file of ``paths`` is present (a recorded one is absent from a
    directory filled by ``exactalign data fetch``)."""
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        pytest.skip(f"pilot file(s) absent: {', '.join(missing)} (recorded files are not fetched)")


def run(capsys, *argv):
    code = main(["nugget", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def printed(report: str) -> dict[str, tuple[str, str, str]]:
    """The ``F1, P, R`` strings of v1.8's sequencing section, per type."""
    out = {}
    for t in TYPES:
        block = report.split(f"=======Event Sequencing Results for {t} =======\n")[1]
        out[t] = tuple(block.split("\n")[3].strip("\t").split("\t"))
    return out


def triples(*rows):
    return dict(zip(TYPES, (tuple(r.split()) for r in rows), strict=True))


def section(rows) -> str:
    """v1.8's sequencing section for per-type ``F1 P R`` strings."""
    out = ["\n"]
    for t, row in zip(TYPES, rows, strict=True):
        f, p, r = row.split()
        out.append(f"=======Event Sequencing Results for {t} =======\n"
                   "=== Temporal Awareness Score ===\n"
                   "Evaluated considering implicit relations in recall as well\n"
                   "Temporal Score\tF1\tP\tR\n"
                   f"\t\t{f}\t{p}\t{r}\t\n"
                   f"Overall Temporal Awareness Score (F1 score): {f}\n\n")
    return "".join(out)


# --------------------------------------------------------------------------------------------
# official values on the pilot demo and perturbed copies
# --------------------------------------------------------------------------------------------
#: (gold, system, flags) in scoring_demo/char_based -> official (F1, P, R) per type.
#: The first is the sequencing command of EvmEval's demo_score.sh.
OFFICIAL_DEMO = {
    ("gold.tbf", "temporal_sample.tbf"): triples("0.0 0.0 0.0", "75.0 100.0 60.0",
                                                 "75.0 100.0 60.0"),
    ("gold.tbf", "temporal.tbf"): triples("0.0 0.0 0.0", "100.0 100.0 100.0",
                                          "100.0 100.0 100.0"),
    ("gold.tbf", "system_A.tbf"): triples("0.0 0.0 0.0", "100.0 100.0 100.0",
                                          "100.0 100.0 100.0"),
    ("temporal.tbf", "temporal_sample.tbf"): triples("0.0 0.0 0.0", "75.0 100.0 60.0",
                                                     "75.0 100.0 60.0"),
    ("temporal_sample.tbf", "temporal.tbf"): triples("0.0 0.0 0.0", "75.0 60.0 100.0",
                                                     "75.0 60.0 100.0"),
}


def edit(text: str, drop=(), add=(), replace=()) -> str:
    """Lines removed (exact), ``(old, new)`` lines replaced, lines added before the last
    ``#EndOfDocument``."""
    lines = [x for x in text.splitlines() if x not in drop]
    for old, new in replace:
        lines = [new if x == old else x for x in lines]
    end = max(i for i, x in enumerate(lines) if x.startswith("#EndOfDocument"))
    lines[end:end] = list(add)
    return "\n".join(lines) + "\n"


_B = "brat_conversion\texample2\t"
#: name -> (gold file, its edits, system file, its edits, flags, official (F1, P, R) per type).
PERTURBED = {
    # one After link dropped, one added, plus a Subevent
    "drop_add": ("gold.tbf", {}, "system_A.tbf",
                 {"drop": ["@After\tA3\tE4,E5"],
                  "add": ["@After\tA9\tE1,E4", "@Subevent\tS1\tE2,E1"]}, (),
                 triples("0.0 0.0 0.0", "88.8889 100.0 80.0", "72.7273 66.6667 80.0")),
    # one link flipped, the coreference cluster removed
    "flip_nocoref": ("gold.tbf", {}, "system_A.tbf",
                     {"drop": ["@Coreference\tR1\tE2,E3"],
                      "replace": [("@After\tA2\tE3,E4", "@After\tA2\tE4,E3")]}, (),
                     triples("0.0 0.0 0.0", "50.0 66.6667 40.0", "50.0 66.6667 40.0")),
    # shifted spans and a wrong type (E5 not mapped on mention_type) ...
    "shifted": ("gold.tbf", {}, "system_A.tbf",
                {"replace": [
                    (_B + "E4\t100,106\tresign\tPersonnel_End-Position\tGeneric",
                     _B + "E4\t101,109\tresign\tPersonnel_End-Position\tGeneric"),
                    (_B + "E2\t45,57\tcreated jobs\tPersonnel_Start-Position\tGeneric",
                     _B + "E2\t45,50\tcreated jobs\tPersonnel_Start-Position\tGeneric"),
                    (_B + "E5\t139,146\tnew job\tPersonnel_Start-Position\tGeneric",
                     _B + "E5\t139,146\tnew job\tPersonnel_End-Position\tGeneric")]}, (),
                triples("0.0 0.0 0.0", "80.0 80.0 80.0", "80.0 80.0 80.0")),
    # ... and mapped when the mapping is on spans only (-m 0)
    "shifted_m0": ("gold.tbf", {}, "system_A.tbf",
                   {"replace": [
                       (_B + "E4\t100,106\tresign\tPersonnel_End-Position\tGeneric",
                        _B + "E4\t101,109\tresign\tPersonnel_End-Position\tGeneric"),
                       (_B + "E2\t45,57\tcreated jobs\tPersonnel_Start-Position\tGeneric",
                        _B + "E2\t45,50\tcreated jobs\tPersonnel_Start-Position\tGeneric"),
                       (_B + "E5\t139,146\tnew job\tPersonnel_Start-Position\tGeneric",
                        _B + "E5\t139,146\tnew job\tPersonnel_End-Position\tGeneric")]},
                   ("-m", "0"),
                   triples("0.0 0.0 0.0", "100.0 100.0 100.0", "100.0 100.0 100.0")),
    # Subevent links on both sides (implicit recall credit in Subevent and All)
    "subevent": ("gold.tbf", {"add": ["@Subevent\tS1\tE1,E4", "@Subevent\tS2\tE4,E5"]},
                 "temporal.tbf", {"add": ["@Subevent\tS1\tE1,E4", "@Subevent\tS2\tE1,E5"]}, (),
                 triples("79.8799 100.0 66.5", "100.0 100.0 100.0", "93.9233 100.0 88.5429")),
    # the system links E1 and E2 both ways: refused by v1.8's validation, scored with -nv
    "both_ways_nv": ("gold.tbf", {}, "system_A.tbf", {"add": ["@After\tA9\tE2,E1"]}, ("-nv",),
                     triples("0.0 0.0 0.0", "60.0 60.0 60.0", "60.0 60.0 60.0")),
}


def with_links(text: str) -> str:
    """A TBF text with links added to each document from its mentions' order by begin offset:
    ``@After`` (i, i+1) unless i % 3 == 2, ``@Subevent`` (i, i+2) when i % 4 == 0, and one
    ``@Coreference`` cluster per type of the mentions at even positions (when >= 2)."""
    out, mentions = [], []
    for line in text.splitlines():
        if line.startswith("#EndOfDocument"):
            order = sorted(range(len(mentions)),
                           key=lambda k: (int(mentions[k][3].split(",")[0]), k))
            ids = [mentions[k][2] for k in order]
            rel, by_type = 0, {}
            for i, k in enumerate(order):
                if i % 2 == 0:
                    by_type.setdefault(mentions[k][5], []).append(mentions[k][2])
            for t in sorted(by_type):
                if len(by_type[t]) >= 2:
                    out.append(f"@Coreference\tC{rel}\t{','.join(by_type[t])}")
                    rel += 1
            for i in range(len(ids) - 1):
                if i % 3 != 2:
                    out.append(f"@After\tR{rel}\t{ids[i]},{ids[i + 1]}")
                    rel += 1
            for i in range(len(ids) - 2):
                if i % 4 == 0:
                    out.append(f"@Subevent\tR{rel}\t{ids[i]},{ids[i + 2]}")
                    rel += 1
            mentions = []
        elif line and not line.startswith(("#", "@")):
            mentions.append(line.split("\t"))
        out.append(line)
    return "\n".join(out) + "\n"


#: ACE dev gold against a system file, both through with_links (30 documents, 505 gold and
#: 319 system mentions in the unperturbed pair) -> flags, official (F1, P, R) per type. Without
#: -nv v1.8 refuses these files (links both ways after propagation through the clusters).
OFFICIAL_ACE = {
    ("system.tbf", ("-nv",)): triples("3.5295 6.6421 2.4033", "8.3458 13.1818 6.1058",
                                      "5.5369 8.554 4.0932"),
    ("perturbed/system3.tbf", ("-nv",)): triples("16.1083 14.8545 17.5931",
                                                 "23.8015 20.8251 27.7705",
                                                 "19.232 17.2101 21.7921"),
}


@needs_pilot
@pytest.mark.parametrize("case", list(OFFICIAL_DEMO), ids=lambda c: f"{c[0]}-{c[1]}")
def test_official_values_on_the_demo(case, capsys):
    gold, system = case
    code, out, _ = run(capsys, "-g", str(DEMO / gold), "-s", str(DEMO / system), "-a")
    assert code == 0
    assert printed(out) == OFFICIAL_DEMO[case]


@needs_pilot
@pytest.mark.parametrize("name", list(PERTURBED))
def test_official_values_on_perturbed_demo_files(name, capsys, tmp_path):
    gold, g_edit, system, s_edit, flags, expected = PERTURBED[name]
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(edit((DEMO / gold).read_text(), **g_edit))
    s.write_text(edit((DEMO / system).read_text(), **s_edit))
    code, out, err = run(capsys, "-g", str(g), "-s", str(s), "-a", *flags, "--compat")
    assert code == 0, err
    assert printed(out) == expected
    assert out.endswith(section(" ".join(expected[t]) for t in TYPES))


@needs_pilot
@pytest.mark.parametrize("case", list(OFFICIAL_ACE), ids=lambda c: " ".join((c[0], *c[1])))
def test_official_values_on_ace_dev_with_links(case, capsys, tmp_path):
    system, flags = case
    need(ACE / "gold.tbf", ACE / system)
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(with_links((ACE / "gold.tbf").read_text()))
    s.write_text(with_links((ACE / system).read_text()))
    code, out, err = run(capsys, "-g", str(g), "-s", str(s), "-a", *flags)
    assert code == 0, err
    assert printed(out) == OFFICIAL_ACE[case]
    # v1.8 ignores a link inside one coreference cluster; we say so
    assert "ignored for sequencing (as v1.8 does)" in err


#: Pairs on which v1.8 stops with ``ZeroDivisionError`` (its implicit-recall weight): measured
#: with the same command as :data:`OFFICIAL_ACE` on the recipe's perturbed systems.
V18_CRASHES_ACE = [("perturbed/system1.tbf", ("-nv",)), ("perturbed/system1.tbf", ("-nv", "-m", "3")),
                   ("perturbed/system2.tbf", ("-nv",)), ("perturbed/system2.tbf", ("-nv", "-m", "3")),
                   ("perturbed/system3.tbf", ("-nv", "-m", "3"))]


@needs_pilot
@pytest.mark.parametrize("case", V18_CRASHES_ACE, ids=lambda c: " ".join((c[0], *c[1])))
def test_where_v18_divides_by_zero_we_refuse_in_one_line(case, capsys, tmp_path):
    system, flags = case
    need(ACE / "gold.tbf", ACE / system)
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(with_links((ACE / "gold.tbf").read_text()))
    s.write_text(with_links((ACE / system).read_text()))
    code, out, err = run(capsys, "-g", str(g), "-s", str(s), "-a", *flags)
    assert code == 2 and out == "" and "Traceback" not in err
    assert "divides by zero" in err and "where v1.8 crashes (ZeroDivisionError)" in err


@needs_pilot
def test_links_both_ways_are_refused_without_nv(capsys, tmp_path):
    gold, g_edit, system, s_edit, _, _ = PERTURBED["both_ways_nv"]
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(edit((DEMO / gold).read_text(), **g_edit))
    s.write_text(edit((DEMO / system).read_text(), **s_edit))
    code, out, err = run(capsys, "-g", str(g), "-s", str(s), "-a")   # official: exit 255
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"exactalign: error: {s}: document example2: the system @After links "
                          "go both ways between E")


@needs_pilot
def test_timeml_directory_as_v18_writes_it(capsys, tmp_path):
    """-a DIR: the files v1.8 leaves there; the gold After links in v1.8's order (the Python 2
    set order of the expansion through the cluster {E2, E3}), as its TimeML file lists them."""
    out_dir = tmp_path / "seq"
    code, out, _ = run(capsys, "-g", str(DEMO / "gold.tbf"), "-s",
                       str(DEMO / "temporal_sample.tbf"), "-a", str(out_dir))
    assert code == 0
    for t in TYPES:
        for sub in ("gold", "sys"):
            assert sorted(p.name for p in (out_dir / t / sub).iterdir()) == [
                "example1.tml", "example2.tml"]
        assert (out_dir / t / "seq.out").read_text() in out
    tml = (out_dir / "After" / "gold" / "example2.tml").read_text()
    links = [line.split('"')[1::2] for line in tml.splitlines() if "<TLINK" in line]
    assert links == [["te0", "l0", "BEFORE", "te2"], ["te0", "l0", "BEFORE", "te1"],
                     ["te1", "l0", "BEFORE", "te3"], ["te3", "l0", "BEFORE", "te4"],
                     ["te2", "l0", "BEFORE", "te3"]]
    assert tml.startswith('<?xml version="1.0" ?>\n<TimML ')
    assert '  <MAKEINSTANCE eid="te4" eiid="instance_te4"/>\n' in tml


# --------------------------------------------------------------------------------------------
# small cases written here (official values from the same command)
# --------------------------------------------------------------------------------------------
HAND_GOLD = """#BeginOfDocument d1
g\td1\tE1\t0,5\ta\tConflict_Attack\tActual
g\td1\tE2\t10,15\tb\tConflict_Attack\tActual
g\td1\tE3\t20,25\tc\tConflict_Attack\tActual
@After\tA1\tE1,E2
@After\tA2\tE2,E3
#EndOfDocument
"""
HAND_SYS = """#BeginOfDocument d1
s\td1\tS1\t0,5\ta\tConflict_Attack\tActual
s\td1\tS2\t10,15\tb\tConflict_Attack\tActual
s\td1\tS3\t20,25\tc\tConflict_Attack\tActual
@After\tA1\tS1,S3
#EndOfDocument
"""


def test_hand_derived_implicit_recall(capsys, tmp_path):
    """Gold E1 < E2 < E3, system E1 < E3 only. Precision: the system link is entailed by the
    gold graph, 1/1. Recall: neither gold link is in the system graph (E2 is not in it), so
    m = 0, but the system link is an *implicit* gold relation: k = 1; the two graphs share
    n = 2 events, so w = 0.99 / (1 + 1 - 0) = 0.495 and R = (0 + 0.495) / 2 = 0.2475;
    F1 = 2 * 0.2475 / 1.2475 = 0.396794 (rounded). Official: 39.6794 100.0 24.75."""
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(HAND_GOLD)
    s.write_text(HAND_SYS)
    code, out, _ = run(capsys, "-g", str(g), "-s", str(s), "-a", "--compat")
    assert code == 0
    assert out.endswith(section(["0.0 0.0 0.0", "39.6794 100.0 24.75",
                                 "39.6794 100.0 24.75"]))
    code, out, _ = run(capsys, "-g", str(g), "-s", str(s), "-a", "--json")
    assert code == 0
    seq = json.loads(out)["mappings"]["kbp"]["sequencing"]
    assert seq["combination"] == "mention_type"
    assert seq["documents"][0]["id"] == "d1"
    after = seq["documents"][0]["types"]["After"]
    assert after == {"prec_matched": 1, "system_links": 1, "rec_matched": 0,
                     "implicit_matched": 1, "common_entities": 2, "weight": 0.495,
                     "rec_credit": 0.495, "gold_links": 2}
    assert seq["types"]["After"]["precision"] == 1.0
    assert seq["types"]["After"]["recall"] == pytest.approx(0.2475)
    assert seq["types"]["After"]["f1"] == pytest.approx(2 * 0.2475 / 1.2475)
    assert seq["types"]["After"]["v18"] == {"f1": "39.6794", "precision": "100.0",
                                            "recall": "24.75"}


def test_library_agrees_with_the_command_line():
    g = parse_tbf(HAND_GOLD, path="gold.tbf")
    s = parse_tbf(HAND_SYS, path="sys.tbf")
    sc = nugget.evaluate(g, s).scores["kbp"]
    seq = sequencing.sequencing_evaluate(g, s, sc)
    doc = seq.documents[0]
    assert doc.gold_links["After"] == [("te0", "te1", "BEFORE"), ("te1", "te2", "BEFORE")]
    assert doc.system_links["After"] == [("te0", "te2", "BEFORE")]
    p, r, f = seq.scores("After")
    assert (p, r) == (1.0, pytest.approx(0.2475))


HAND2_GOLD = """#BeginOfDocument d1
g\td1\tE1\t0,5\tattack\tConflict_Attack\tActual
g\td1\tE2\t10,15\tkilled\tLife_Die\tActual
g\td1\tE3\t20,25\twar\tConflict_Attack\tGeneric
g\td1\tE4\t30,40\tmeeting\tContact_Meet\tActual
@Coreference\tC1\tE1,E3
@After\tA1\tE1,E2
@Subevent\tS1\tE4,E2
#EndOfDocument
#BeginOfDocument d2
g\td2\tE1\t0,4\tdied\tLife_Die\tActual
g\td2\tE2\t8,12\tmet\tContact_Meet\tActual
@After\tA1\tE2,E1
#EndOfDocument
"""
HAND2_SYS = """#BeginOfDocument d1
s\td1\tS1\t0,5\tattack\tConflict_Attack\tActual
s\td1\tS2\t11,15\tilled\tLife_Die\tActual
s\td1\tS3\t20,25\twar\tConflict_Attack\tActual
s\td1\tS4\t50,52\txx\tContact_Meet\tActual
@Coreference\tC1\tS1,S3
@After\tA1\tS3,S2
@Subevent\tS1\tS4,S2
#EndOfDocument
#BeginOfDocument d2
s\td2\tS1\t0,4\tdied\tLife_Die\tActual
s\td2\tS2\t8,12\tmet\tContact_Meet\tActual
@After\tA1\tS2,S1
#EndOfDocument
"""
_R = "hand2_sys.tbf\t"
#: v1.8's -d file for HAND2 (with -c: the @coref lines; -wl Conflict_Attack, Life_Die drops
#: the Contact_Meet mentions).
HAND2_DIFF = {
    "plain": ("#BeginOfDocument d1\n"
              f"{_R}E1\t0,1,2,3,4\tconflictattack\tactual\tattack\t|\t"
              "S1\t0,1,2,3,4\tconflictattack\tactual\tattack\t1.00\n"
              f"{_R}E2\t10,11,12,13,14\tlifedie\tactual\tkilled\t|\t"
              "S2\t11,12,13,14\tlifedie\tactual\tilled\t0.89\n"
              f"{_R}E3\t20,21,22,23,24\tconflictattack\tgeneric\twar\t|\t"
              "S3\t20,21,22,23,24\tconflictattack\tactual\twar\t1.00\n"
              f"{_R}E4\t30,31,32,33,34,35,36,37,38,39\tcontactmeet\tactual\tmeeting\t|\t-\t-\n"
              f"{_R}-\t|\tS4\t50,51\tcontactmeet\tactual\txx\t-\n"
              "{coref}#EndOfDocument \n"
              "#BeginOfDocument d2\n"
              f"{_R}E1\t0,1,2,3\tlifedie\tactual\tdied\t|\tS1\t0,1,2,3\tlifedie\tactual\tdied"
              "\t1.00\n"
              f"{_R}E2\t8,9,10,11\tcontactmeet\tactual\tmet\t|\tS2\t8,9,10,11\tcontactmeet\t"
              "actual\tmet\t1.00\n"
              "#EndOfDocument \n"),
}
_COREF = "@coref\tgold\tE1:attack,E3:war\n@coref\tsystem\tS1:attack,S3:war\n"
#: flags -> official (F1, P, R) per type on HAND2 (with -d: HAND2_DIFF).
OFFICIAL_HAND2 = {
    (): ["0.0 0.0 0.0", "100.0 100.0 100.0", "75.0 75.0 75.0"],
    ("-c",): ["0.0 0.0 0.0", "100.0 100.0 100.0", "75.0 75.0 75.0"],
    ("-dn", "d1"): ["0.0 0.0 0.0", "100.0 100.0 100.0", "66.6667 66.6667 66.6667"],
    ("-wl", "WL", "-c"): ["0.0 0.0 0.0", "100.0 100.0 100.0", "100.0 100.0 100.0"],
}


def _hand2_diff(flags) -> str:
    text = HAND2_DIFF["plain"].replace("{coref}", _COREF if "-c" in flags else "")
    if "-dn" in flags:
        text = text[:text.index("#BeginOfDocument d2")]
    if "-wl" in flags:
        text = "".join(line + "\n" for line in text.splitlines() if "contactmeet" not in line)
    return text


@pytest.mark.parametrize("flags", list(OFFICIAL_HAND2), ids=" ".join)
def test_comparison_output_and_single_document(flags, capsys, tmp_path):
    g, s = tmp_path / "hand2_gold.tbf", tmp_path / "hand2_sys.tbf"
    g.write_text(HAND2_GOLD)
    s.write_text(HAND2_SYS)
    wl = tmp_path / "wl.txt"
    wl.write_text("Conflict_Attack\nLife_Die\n")
    diff = tmp_path / "out" / "cmp.diff"
    argv = [str(wl) if x == "WL" else x for x in flags]
    code, out, err = run(capsys, "-g", str(g), "-s", str(s), "-a", "--compat", "-d", str(diff),
                         *argv)
    assert code == 0, err
    assert out.endswith(section(OFFICIAL_HAND2[flags]))
    assert diff.read_text() == _hand2_diff(flags)
    if "-dn" in flags:
        assert "\nd2\t" not in out


def test_an_after_and_a_subevent_link_on_one_pair_is_v18s_division_by_zero(capsys, tmp_path):
    """The official scorer crashes (ZeroDivisionError) even scoring this file against itself:
    in type All both links of the pair are credited, m = 2 > n(n-1)/2 = 1."""
    g = tmp_path / "g.tbf"
    g.write_text("#BeginOfDocument d1\n"
                 "g\td1\tE1\t0,5\ta\tConflict_Attack\tActual\n"
                 "g\td1\tE2\t10,15\tb\tConflict_Attack\tActual\n"
                 "@After\tA1\tE1,E2\n@Subevent\tS1\tE1,E2\n#EndOfDocument\n")
    code, out, err = run(capsys, "-g", str(g), "-s", str(g), "-a")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"exactalign: error: {g}: document d1, type All: ")
    assert "divides by zero" in err
    code, out, _ = run(capsys, "-g", str(g), "-s", str(g))  # without -a: scored as usual
    assert code == 0


def test_sequencing_errors_are_one_line(capsys, tmp_path):
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(HAND_GOLD)
    s.write_text(HAND_SYS.replace("@After\tA1\tS1,S3", "@After\tA1\tS1,S2,S3"))
    cases = [
        (["-g", str(g), "-s", str(s), "-a"], f"{s}:5: @After A1 links 3 mentions"),
        (["-g", str(g), "-s", str(g), "-nv"], "-nv/--no-script-validation applies with -a"),
        (["-g", str(g), "-s", str(g), "-dn", "d9"], f"{g}: -dn d9: no such document"),
        (["-g", str(g), "-s", str(g), "-a", "--scheme", "muc"],
         "apply to v1.8's scores (--scheme dice) only"),
        (["-g", str(g), "-s", str(g), "-d", str(tmp_path / "x"), "--mapping", "all"],
         "comparison of one mapping"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err.count("\n") == 1 and message in err and "Traceback" not in err, err


def test_json_is_one_document_with_sequencing_per_mapping(capsys, tmp_path):
    g, s = tmp_path / "gold.tbf", tmp_path / "sys.tbf"
    g.write_text(HAND2_GOLD)
    s.write_text(HAND2_SYS)
    code, out, _ = run(capsys, "-g", str(g), "-s", str(s), "-a", "--json", "--mapping", "all")
    assert code == 0
    doc = json.loads(out)  # exactly one JSON document
    for m, entry in doc["mappings"].items():
        assert set(entry["sequencing"]["types"]) == set(TYPES), m
    assert doc["mappings"]["kbp"]["sequencing"]["types"]["All"]["v18"] == {
        "f1": "75.0", "precision": "75.0", "recall": "75.0"}
    code, out, _ = run(capsys, "-g", str(g), "-s", str(s), "--json")
    assert json.loads(out)["mappings"]["kbp"]["sequencing"] is None


# --------------------------------------------------------------------------------------------
# Python 2 reproductions
# --------------------------------------------------------------------------------------------
def test_python2_set_order():
    """``list(s)`` of a Python 2.7.18 set filled with these 40 tuples in order (printed by
    python2; the table is resized twice on the way)."""
    items = [(f"E{i % 7}", f"em-{i * 13 % 11}", ("After", "Subevent")[i % 2]) for i in range(40)]
    expected = [0, 3, 21, 26, 7, 30, 9, 25, 15, 11, 28, 4, 39, 5, 38, 33, 19, 31, 14, 36, 37,
                6, 13, 35, 27, 17, 20, 2, 16, 24, 34, 22, 23, 10, 12, 29, 8, 32, 1, 18]
    assert sequencing.py2_set_order(items) == [items[k] for k in expected]
    assert sequencing.py2_set_order(items + items[::-1]) == [items[k] for k in expected]
    assert sequencing.py2_set_order([]) == []


@pytest.mark.parametrize("x, text", [(0.0078125, "0.7813"), (2 / 3, "66.6667"), (1, "100.0"),
                                     (0, "0.0"), (5e-07, "0.0"), (0.1234565, "12.3456"),
                                     (0.9999995, "100.0")])
def test_python2_percent(x, text):
    """``str(100 * round(x, 6))`` as python2 printed it (0.0078125 is an exact half: Python 2
    rounds it away from zero, Python 3 to even)."""
    assert sequencing.py2_percent(x) == text
