"""Reading AMR: triples exactly as smatch 1.0.4 builds them (hand-derived cases for every quirk;
where the ``peers`` extra is installed, smatch's own parser side by side on random graphs and on
every graph of every pilot AMR file; and the triple counts of every pilot pair against
``pilot/amr/reference``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from exactalign import InputError
from exactalign.io.amr import normalize, parse_graph, read_amr, read_pairs
from exactalign.testing import pilot_path
from exactalign.testing.strategies import penman_graphs

QUIRKS = ('(c / city :name (n / name :op1 "New York" :op2 "x:y") :mod (b / big) '
          ':mod "q" :ARG0-of c :consist-of n :quant 5 :polarity - :ARG1 z :wiki -)')


def test_quirks_hand_derived():
    g = parse_graph(QUIRKS.replace(":ARG1 z", ":ARG1 (z / zz :mod-of c)"))
    assert g.variables == ("c", "n", "b", "z")
    assert g.instances == (("instance", 0, "city"), ("instance", 1, "name"),
                           ("instance", 2, "big"), ("instance", 3, "zz"))
    # "New York" keeps its first token only; a closing quote becomes "_"; :mod "q" is lost;
    # TOP comes last among the top variable's attributes.
    assert g.attributes == (("quant", 0, "5"), ("polarity", 0, "-"), ("wiki", 0, "-"),
                            ("TOP", 0, "top"), ("op1", 1, "New"), ("op2", 1, "x:y_"))
    # :ARG0-of c inverted onto c itself, consist-of kept, :mod -> domain(child, parent),
    # :mod-of -> mod (the suffix is stripped and the arguments swapped).
    assert g.relations == (("name", 0, 1), ("ARG0", 0, 0), ("consist-of", 0, 1),
                           ("ARG1", 0, 3), ("mod", 0, 3), ("domain", 2, 0))
    assert g.num_triples == 16


def test_forward_reference_order():
    # a reference to a variable defined later is filed after the early ones (smatch's dict2)
    g = parse_graph("(a / x :ARG0 b :ARG1 (b / y) :ARG2 a)")
    assert g.relations == (("ARG1", 0, 1), ("ARG2", 0, 0), ("ARG0", 0, 1))


def test_normalize():
    assert normalize("Prince_") == "prince" == normalize("prince")


def test_errors_name_file_and_line(tmp_path):
    f = tmp_path / "bad.amr"
    f.write_text("# ::id 1\n(a / b)\n\n# ::id 2\n(a / b :ARG0 (c / d)\n")
    with pytest.raises(InputError) as e:
        read_amr(f)
    assert str(e.value).startswith(f"{f}:5: graph 2: unparsable AMR graph:")
    assert "Unexpected end of input" in str(e.value)  # penman's own message
    f.write_text("(a / b)\n\n(a / b :ARG0 (a / c))\n")
    with pytest.raises(InputError, match=r":3: graph 2: variable 'a' is defined twice"):
        read_amr(f)
    f.write_text("(a / b)\n")
    g = tmp_path / "two.amr"
    g.write_text("(a / b)\n\n(a / c)\n")
    with pytest.raises(InputError, match="same number of graphs"):
        read_pairs(f, g)
    f.write_text("(a / b)\n\n1.0\tsee above\n")  # not PENMAN (a label file, say)
    with pytest.raises(InputError, match=r":3: graph 2: not an AMR graph \(a graph starts "
                                         r"with '\('\): '1.0\\tsee above'"):
        read_amr(f)
    e = tmp_path / "empty.amr"
    e.write_text("# only metadata\n\n")
    assert read_amr(e) == []


@pytest.mark.parametrize("text,rest", [
    ("(a / b))", "')'"),                                    # one ')' too many
    ("(a / b :ARG0 (c / d)) :ARG1 (e / f))", "':ARG1 (e / f))'"),  # would lose e
    ("(a / b) junk", "'junk'"),
])
def test_text_after_the_graph_is_an_error(tmp_path, text, rest):
    """penman stops at the graph's closing parenthesis; what follows must not vanish silently
    (smatch 1.0.4 fails on the first two, with an error and with a traceback)."""
    f = tmp_path / "t.amr"
    f.write_text("(x / y)\n\n" + text + "\n")
    with pytest.raises(InputError) as e:
        read_amr(f)
    assert str(e.value) == (f"{f}:3: graph 2: text after the graph's closing parenthesis: "
                            f"{rest} (an unbalanced ')'?)")


def test_parentheses_in_quoted_strings_are_not_structure():
    g = parse_graph('(n / name :op1 "Foo (bar" :op2 "x\\")" :op3 ")")')
    # one graph, three attributes (their text as smatch's quote rule leaves it), nothing after
    assert [(r, c) for r, _, c in g.attributes] == [
        ("op1", "Foo"), ("op2", "x\\_)"), ("op3", ")_"), ("TOP", "top")]


def test_same_as_smatch_parser():
    amr = pytest.importorskip("amr", reason="smatch (peers extra) not installed")
    for text in (QUIRKS, "(a / x :ARG0 b :ARG1 (b / y) :ARG2 a)",
                 '(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b :polarity -))'):
        ours = parse_graph(text)
        assert (list(ours.instances), list(ours.attributes), list(ours.relations)) == \
            _smatch_triples(amr, text)


def _smatch_triples(amr, text):
    """smatch 1.0.4's triples of one graph, with its variables as our indices."""
    theirs = amr.AMR.parse_AMR_line(text)
    theirs.rename_node("a")
    inst, attr, rel = theirs.get_triples()
    return ([(r, int(v[1:]), c) for r, v, c in inst], [(r, int(v[1:]), c) for r, v, c in attr],
            [(r, int(v[1:]), int(w[1:])) for r, v, w in rel])


@given(penman_graphs())
@settings(max_examples=300, deadline=None)
def test_random_graphs_same_triples_as_smatch_parser(text):
    """Random PENMAN graphs (inverted roles, :mod, re-entrancies, forward references, quoted
    constants with spaces, colons, slashes and parentheses): the triples smatch 1.0.4 builds."""
    amr = pytest.importorskip("amr", reason="smatch (peers extra) not installed")
    ours = parse_graph(text)
    assert (list(ours.instances), list(ours.attributes), list(ours.relations)) == \
        _smatch_triples(amr, text), text


def _pilot_amr_files():
    names = ["lpp-test-jamr-camr/lp_test.txt", "lpp-test-jamr-camr/jamr.txt",
             "lpp-test-jamr-camr/wang.txt", "lpp-two-parsers/src.test.amr",
             "lpp-two-parsers/tgt.test.amr", "bamboo-sts-test/src.test.amr",
             "bamboo-sts-test/tgt.test.amr", "gold-banks/amr-bank-struct-v1.6-test.txt",
             "gold-banks/amr-bank-struct-v3.0.txt"]
    return [p for p in (pilot_path("amr", n) for n in names) if p is not None]


@pytest.mark.pilot
@pytest.mark.parametrize("path", _pilot_amr_files(), ids=lambda p: p.name)
def test_pilot_triples_equal_smatch_parser(path):
    """Every graph of every pilot AMR file (gold banks included): the very triples, in order,
    that smatch 1.0.4's own reader and parser build -- not just their counts."""
    amr = pytest.importorskip("amr", reason="smatch (peers extra) not installed")
    ours = read_amr(path)
    theirs = []
    with open(path, encoding="utf-8") as f:
        while line := amr.AMR.get_amr_line(f):
            theirs.append(_smatch_triples(amr, line))
    assert len(ours) == len(theirs)
    for k, (g, t) in enumerate(zip(ours, theirs, strict=True), start=1):
        assert (list(g.instances), list(g.attributes), list(g.relations)) == t, (path.name, k)


def _reference_files():
    ref = pilot_path("amr", "reference")
    return sorted(ref.glob("*.json")) if ref else []


@pytest.mark.pilot
@pytest.mark.parametrize("ref", _reference_files(), ids=lambda p: p.stem)
def test_pilot_triple_counts(ref):
    d = json.loads(ref.read_text())
    base = ref.parent.parent
    pairs = read_pairs(base / d["test_file"], base / d["gold_file"])
    assert len(pairs) == d["pairs"]
    got = [(t.num_triples, g.num_triples) for t, g in pairs]
    want = [(p["test_triples"], p["gold_triples"]) for p in d["per_pair"]]
    assert got == want
