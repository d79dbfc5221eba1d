"""UMR: the reader (sections, alignments, document-level triples, file:line errors), AnCast's
triples counted by hand, the exact optimum against brute force and as a ceiling, AnCast 0.1.1
reproduced on the pilot files (skipped without them or without the ``ancast`` package), and
the command."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from exactalign.core.errors import InputError
from exactalign.data import resolve_data_dir
from exactalign.io.umr import parse_umr, read_pair
from exactalign.metrics import umr

penman = pytest.importorskip("penman")

SENTENCE_1 = """# :: snt1\t  Lindsay left to eat lunch .

# sentence level graph:
(s1l / leave-02
    :ARG0 (s1p / person
        :name (s1n / name :op1 "Lindsay"))
    :aspect performance
    :purpose (s1e / eat-01
        :ARG0 s1p
        :ARG1 (s1l2 / lunch)))

# alignment:
s1l: 2-2
s1p: 1-1
s1n: 0-0
s1e: 4-4, 5-5

# document level annotation:
(s1s0 / sentence
    :temporal ((document-creation-time :before s1l)
            (s1l :after s1e))
    :modal ((root :modal author)
            (author :full-affirmative s1l)))
"""

SENTENCE_2 = """# :: snt2\t  She ate .

# sentence level graph:
(s2e / eat-01
    :ARG0 (s2p / person))

# alignment:
s2e: 2-2
s2p: 1-1

# document level annotation:
(s2s0 / sentence
    :coref ((s1p :same-entity s2p)))
"""


def doc(*blocks) -> str:
    return "\n\n\n".join(blocks) + "\n"


# -- the reader --------------------------------------------------------------------------------
def test_reader_sections_alignment_and_document_triples():
    d = parse_umr(doc(SENTENCE_1, SENTENCE_2), "x.umr")
    assert len(d.sentences) == 2 and not d.amr and d.warnings == ()
    s1, s2 = d.sentences
    assert s1.variables == ("s1l", "s1p", "s1n", "s1e", "s1l2")
    assert s1.words == ("Lindsay", "left", "to", "eat", "lunch", ".")
    assert s1.alignment["s1e"] == ((4, 4), (5, 5)) and s1.alignment["s1n"] == ((0, 0),)
    assert [t[:4] for t in s1.doc] == [
        ("temporal", "document-creation-time", "before", "s1l"),
        ("temporal", "s1l", "after", "s1e"), ("modal", "root", "modal", "author"),
        ("modal", "author", "full-affirmative", "s1l")]
    assert s2.doc[0][:4] == ("coref", "s1p", "same-entity", "s2p")
    assert s1.graph_line == 4 and s2.line > s1.line


def test_reader_separator_lines_and_words_line():
    block = ("#" * 40 + "\n# meta-info :: sent_id = a\n# :: snt1\nIndex: 1 2\nWords: She ate\n\n"
             "# sentence level graph:\n(s1e / eat-01 :ARG0 (s1s / she))\n\n# alignment:\n"
             "s1e: 2-2\ns1s: 1-1\n\n# document level annotation:\n(s1s0 / sentence)\n")
    d = parse_umr(block + block.replace("sent_id = a", "sent_id = b"), "y.umr")
    assert len(d.sentences) == 2 and d.sentences[0].words == ("She", "ate")


def test_release_blocks_with_two_blank_lines_a_hash_concept_and_no_token_spans():
    block = ("#" * 40 + "\n# :: snt1\nIndex: 1 2\nWords: Jan spal\n\n# sentence level graph:\n"
             "(s1s / spát-001 :ARG0 (s1x / #Forn :op1 \"Jan\"))\n\n\n# alignment:\n"
             "s1s: 2-2\ns1x: -1--1\n\n\n# document level annotation:\n(s1s0 / sentence)\n")
    d = parse_umr(block * 2, "cs.umr")
    s = d.sentences[0]
    assert len(d.sentences) == 2 and s.alignment == {"s1s": ((2, 2),), "s1x": ((0, 0),)}
    # AnCast's sense pattern is two digits: Czech's three-digit "-001" reads as sense 00
    assert umr.side_of(s.tree).concepts == (("spát", 0), ("#fornjan", 0))


def test_amr_files_read_by_the_same_reader():
    d = parse_umr("# ::snt The boy\n(b / boy)\n\n# ::snt go\n(g / go-02 :ARG0 b2)\n", "a.amr")
    assert d.amr and len(d.sentences) == 2 and d.sentences[0].text == "The boy"


@pytest.mark.parametrize("text, line, words", [
    (SENTENCE_1.replace("(s1l2 / lunch)))", "(s1l2 / lunch))"), range(4, 11),
     "unparsable graph"),
    (SENTENCE_1.replace("s1l: 2-2", "s1l 2-2"), 13, "variable: i-j"),
    (SENTENCE_1.replace("s1l: 2-2", "s1l: 2-9"), 13, "outside the sentence's 6 tokens"),
    (SENTENCE_1.replace("s1l: 2-2", "s1l: 3-2"), 13, "not a span"),
    (SENTENCE_1.replace("(s1l :after s1e)", "(s1l :after s1q)"), 21, "no sentence graph"),
    (SENTENCE_1.replace(":temporal ((", ":temporal (("[:-1] + "x "), 20, "triples"),
    (SENTENCE_1.replace(":ARG0 s1p", ":ARG0 (s1p / person)"), 4, "defined twice"),
    (SENTENCE_1.replace("# sentence level graph:", "# sentence graph:"), 1, "no '# sentence"),
])
def test_bad_input_is_one_error_with_its_line(text, line, words):
    with pytest.raises(InputError) as e:
        parse_umr(text, "bad.umr")
    lines = line if isinstance(line, range) else [line]
    assert e.value.path == "bad.umr" and e.value.line in lines, str(e.value)
    assert words in e.value.message


def test_document_triple_naming_a_later_sentence_is_a_warning():
    text = doc(SENTENCE_1.replace("(s1l :after s1e)", "(s1l :after s2e)"), SENTENCE_2)
    d = parse_umr(text, "f.umr")
    assert [str(w) for w in d.warnings] == [
        "f.umr:21: document-level :temporal names 's2e' before the sentence that defines it; "
        "kept"]
    assert ("temporal", "s1l", "after", "s2e") in [t[:4] for t in d.sentences[0].doc]


def test_repaired_defects_are_warnings_with_lines():
    text = SENTENCE_1.replace("(s1l :after s1e))", "(s1l :after s1e) stray)")
    text = text.replace("(author :full-affirmative s1l)))",
                        "(root :modal author\n            (author :full-affirmative s1l)))")
    text = text.replace("(root :modal author)\n", "")
    d = parse_umr(text, "w.umr")
    msgs = [str(w) for w in d.warnings]
    assert any("'stray' between triples" in m and m.startswith("w.umr:21:") for m in msgs)
    assert any("is not closed" in m for m in msgs)
    assert ("modal", "root", "modal", "author") in [t[:4] for t in d.sentences[0].doc]


def test_a_variable_defined_in_two_sentences_is_refused_at_document_level():
    text = doc(SENTENCE_1, SENTENCE_2.replace("s2p", "s1p"))
    d = parse_umr(text, "dup.umr")
    with pytest.raises(InputError, match="'s1p' is defined in sentence 1") as e:
        umr.document_instance(d, d)
    assert e.value.path == "dup.umr" and e.value.line == d.sentences[1].graph_line


def test_a_file_whose_sentence_numbers_restart_holds_several_documents(tmp_path):
    from exactalign.io.umr import document_starts, split_documents

    second = SENTENCE_1.replace("s1", "s3")  # snt1 again: a new document, its own variables
    text = doc(SENTENCE_1, SENTENCE_2, second)
    d = parse_umr(text, "three.umr")
    assert [s.number for s in d.sentences] == [1, 2, 1]
    assert document_starts(d) == [0, 2]
    parts = split_documents(d, [0, 2])
    assert [len(p.sentences) for p in parts] == [2, 1]
    a = tmp_path / "a.umr"
    a.write_text(text)
    rep = umr.score_files(a, a, scope="doc")
    # 13 + 4 sentence counts + 5 document triples; 13 + 4 document triples
    assert [(u.test_size, u.matched("exact")) for u in rep.units] == [(22, 22), (17, 17)]


def test_different_sentence_counts(tmp_path):
    a, b = tmp_path / "a.umr", tmp_path / "b.umr"
    a.write_text(doc(SENTENCE_1, SENTENCE_2))
    b.write_text(doc(SENTENCE_1))
    with pytest.raises(InputError, match="2 sentences here but 1"):
        read_pair(a, b)


# -- AnCast's triples, by hand -----------------------------------------------------------------
def test_ancast_triples_of_a_sentence_by_hand():
    tree = parse_umr(SENTENCE_1, "s").sentences[0].tree
    side = umr.side_of(tree)
    # l=0 p=1 n=2 e=3 l2=4
    assert side.concepts == (("leave", 2), ("person", 0), ("namelindsay", 0), ("eat", 1),
                             ("lunch", 0))
    assert side.triples == {("rel", "arg0", 0, 1), ("rel", "name", 1, 2),
                            ("attr", "op1", 2, "lindsay"), ("attr", "aspect", 0, "performance"),
                            ("rel", "purpose", 0, 3), ("rel", "arg0", 3, 1),
                            ("rel", "arg1", 3, 4), ("top", 0)}
    assert side.size == 5 + 8


def test_inverted_roles_and_mod():
    tree = penman.parse('(a / x :mod (b / y) :ARG0-of (c / z) :mod "c1" :mod-of (d / w))')
    t = umr.side_of(tree, use_top=False).triples
    assert t == {("rel", "mod-of", 1, 0), ("rel", "arg0", 2, 0), ("modc", "c1", 0),
                 ("rel", "mod-of", 0, 3)}
    # AnCast's failing case: an inverted role to a constant is its triple None
    assert None in umr.side_of(penman.parse('(a / x :ARG0-of "q")')).triples


def test_identical_graphs_score_one_and_the_fixed_none_triple():
    tree = parse_umr(SENTENCE_1, "s").sentences[0].tree
    pi = umr.sentence_instance(tree, tree)
    from exactalign.problems.latent.corpus import exact_results

    r = exact_results([pi.instance], time_limit=None, seed=0, backend="highs", linking="aggregated",
               bnb_work=None)[0]
    assert r.proven_optimal and r.objective + pi.fixed == pi.test_size == 13
    bad = penman.parse('(a / x :ARG0-of "q")')
    pi = umr.sentence_instance(bad, bad)
    assert pi.fixed == 1 and pi.test_size == 1 + 2  # the variable, None and TOP


def test_lr_score_by_hand():
    from exactalign.metrics import umr_lr

    t = umr.side_of(penman.parse("(s1w / want-01 :ARG0 (s1b / boy) :polarity -)"))
    g = umr.side_of(penman.parse("(s1w / want-02 :ARG0 (s1b / boys) :ARG1 (s1g / girl))"))
    # test groups: (w, b) {arg0}, (w, "-") {polarity}; gold: (w, b) {arg0}, (w, g) {arg1}.
    # (w, b) matches: want/want sense 1 vs 2 -> 0.9, boy in boys -> 3/4: (0.9 + 0.75) / 2
    ps, pc, rs, rc = umr_lr.lr_counts(t, g, {0: 0, 1: 1})
    assert (pc, rc) == (2, 2) and ps == rs == pytest.approx((0.9 + 0.75) / 2)
    assert umr_lr.micro_f([(ps, pc, rs, rc)])[2] == pytest.approx(0.825 / 2)
    assert umr_lr.lr_counts(t, g, {0: 0})[0] == 0.0  # boy unmapped: no group carried over


# -- exact == brute force, exact >= any mapping --------------------------------------------------
CONCEPTS = ("a", "b", "c")
ROLES = (":ARG0", ":ARG1", ":mod")


def _random_tree(rng, n, prefix):
    nodes = [f"({prefix}0 / {rng.choice(CONCEPTS)}"]
    for k in range(1, n):
        nodes.append(f" {rng.choice(ROLES)} ({prefix}{k} / {rng.choice(CONCEPTS)}")
    text = "".join(nodes) + ")" * n
    if n > 1 and rng.random() < 0.5:
        text = text[:-1] + f" :ARG2 {prefix}0)"
    return penman.parse(text)


@pytest.mark.parametrize("seed", range(12))
def test_exact_equals_brute_force_and_bounds_every_mapping(seed):
    import random

    from exactalign.problems.latent.corpus import exact_results

    rng = random.Random(seed)
    t, g = _random_tree(rng, rng.randint(1, 4), "s1x"), _random_tree(rng, rng.randint(1, 4),
                                                                      "s1y")
    pi = umr.sentence_instance(t, g)
    r = exact_results([pi.instance], time_limit=None, seed=0, backend="highs", linking="aggregated",
               bnb_work=None)[0]
    assert r.proven_optimal
    n0, n1 = pi.instance.n_left, pi.instance.n_right
    best = 0
    for k in range(min(n0, n1) + 1):
        for left in itertools.combinations(range(n0), k):
            for right in itertools.permutations(range(n1), k):
                best = max(best, umr.count_under(pi, sorted(zip(left, right, strict=True))))
    assert r.objective + pi.fixed == best


# -- the pilot files and AnCast itself ------------------------------------------------------------
def _pilot():
    d = resolve_data_dir()
    root = None if d.path is None else d.path / "umr"
    if root is None or not (root / "ufal-english" / "gold_total_1-5.umr").is_file():
        pytest.skip("UMR pilot files absent (../shared/pilot/umr or $EXACTALIGN_DATA)")
    return root


def _ancast():
    pytest.importorskip("ancast", reason="the ancast peer (pip install 'exactalign[peers]')")


def test_pilot_conversion_every_sentence_at_or_below_the_optimum():
    root = _pilot()
    _ancast()
    rep = umr.score_files(root / "ufal-english/converted_total_1-5.umr",
                          root / "ufal-english/gold_total_1-5.umr", method="both")
    assert len(rep.units) == 209 and rep.proven() == 209
    for u in rep.units:  # AnCast's mapping is one of the mappings the optimum ranges over
        assert u.ancast[0] == u.ancast[1] <= u.matched("exact"), u
        # our count under AnCast's mapping is AnCast's own Smatch-format F
        f = umr.f_score(u.ancast[0], u.test_size, u.gold_size)[2]
        assert u.ancast_twice == 0 and f == pytest.approx(u.ancast_smatch_f, abs=1e-12)
    # AnCast's printed sentence micro F (its LR score), to its printed precision, and our LR
    # under its mapping equal to it (float for float)
    assert f"{rep.ancast_printed['sent'][2]:.2%}" == "18.46%"
    assert rep.lr["ancast"] == rep.ancast_printed["sent"]
    assert f"{rep.lr['exact'][2]:.2%}" == "19.96%"
    assert rep.totals("exact")[:1] == (1507.0,) and rep.totals("ancast")[:1] == (1354.0,)
    assert rep.below() == 80


def test_pilot_conversion_document_scope_ancast_fails_exact_does_not():
    root = _pilot()
    _ancast()
    rep = umr.score_files(root / "ufal-english/converted_total_1-5.umr",
                          root / "ufal-english/gold_total_1-5.umr", scope="doc",
                          method="both")
    assert rep.ancast_failure.startswith("ValueError: invalid literal for int()")
    # the gold file is six documents (its sentence numbers restart at snt1 five times)
    assert len(rep.units) == 6 and rep.proven("exact") == rep.proven("exact_sentence") == 6
    # the within-sentence optimum is the sentence optimum (the converted file has no
    # document-level triples), the unrestricted one at least as high
    assert rep.totals("exact_sentence")[0] == 1507
    assert rep.totals("exact")[0] >= rep.totals("exact_sentence")[0]
    assert len(rep.warnings) == 5


@pytest.mark.parametrize("scope, expected", [
    ("snt", {"sent": "41.03%"}),
    ("doc", {"sent": "41.03%", "modal": "50.00%", "temporal": "54.55%", "coref": "0.00%",
             "comp": "45.24%"}),
])
def test_ancast_samples_printed_numbers_and_ceiling(scope, expected):
    root = _pilot()
    _ancast()
    rep = umr.score_files(root / "ancast-samples/umr_test.txt",
                          root / "ancast-samples/umr_gold.txt", scope=scope, method="both")
    got = {k: f"{(v[2] if isinstance(v, tuple) else v):.2%}"
           for k, v in rep.ancast_printed.items()}
    assert got == expected
    assert rep.lr["ancast"] == rep.ancast_printed["sent"]
    for u in rep.units:
        assert u.ancast[0] <= u.matched("exact_sentence" if scope == "doc" else "exact")
        if scope == "doc":
            assert u.matched("exact_sentence") <= u.matched("exact")


def test_ancast_amr_samples():
    root = _pilot()
    _ancast()
    rep = umr.score_files(root / "ancast-samples/amr_test.txt",
                          root / "ancast-samples/amr_gold.txt", method="both")
    assert f"{rep.ancast_printed['sent'][2]:.2%}" == "70.53%"
    assert rep.lr["ancast"] == rep.ancast_printed["sent"]
    assert all(u.ancast[0] <= u.matched("exact") for u in rep.units)


# -- the command -------------------------------------------------------------------------------
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "exactalign", "umr", *map(str, args)],
                          capture_output=True, text=True)


def test_cli_exact_json_and_bad_input(tmp_path):
    a, b = tmp_path / "a.umr", tmp_path / "b.umr"
    a.write_text(doc(SENTENCE_1, SENTENCE_2))
    b.write_text(doc(SENTENCE_1, SENTENCE_2.replace("(s2p / person)", "(s2p / she)")))
    p = _cli(a, b, "--json", "--scope", "doc")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["command"] == "umr" and out["scope"] == "doc"
    ex = out["overall"]["exact"]
    # 13 + 4 sentence counts (variables and triples, TOP included) and 5 document triples a
    # side;
    # all match but the concept person/she
    assert ex["counts"] == {"matched": 21.0, "test_triples": 22, "gold_triples": 22}
    # what it prints is the report score_files returns, built once
    rep = umr.score_files(a, b, scope="doc")
    assert out["overall"] == rep.overall and rep.shown == ("exact", "exact_sentence")
    assert [r["scores"] for r in out["documents"]] == [r["scores"] for r in rep.documents]
    assert out["solves"].keys() == rep.solves.keys() and out["ancast"]["below"] is None
    b.write_text(doc(SENTENCE_1.replace("s1l: 2-2", "s1l: 7-7"), SENTENCE_2))
    p = _cli(a, b)
    assert p.returncode == 2
    assert p.stderr.strip().startswith(f"exactalign: error: {b}:13: alignment span 7-7")
    assert "Traceback" not in p.stderr


def test_ancast_counting_a_withdrawn_anchor_twice_is_explained(tmp_path):
    """A pair built for it: AnCast anchors a variable, withdraws the anchor in a later round
    and matches the variable again, counting it twice (its totals one above ours on both
    sides); our count under its final mapping stands, and the residual is reported."""
    _ancast()
    test = ("(s1a / and :op2 (s1b / think-01 :ARG1 (s1c / attract-02 :ARG0 (s1d / show) "
            ":aspect endeavor) :aspect state))")
    gold = ("(s1a / and :op2 (s1h / have-reason-91 :ARG1 (s1b / think-01 :ARG1 (s1c / "
            "attract-01 :ARG1 (s1e / gaze :poss (s1f / audience)) :aspect state))))")
    words = "the show attracted the gaze of the audience , I think"
    from exactalign.io.umr import format_document, format_sentence

    paths = []
    for name, g in (("t", test), ("g", gold)):
        p = tmp_path / f"{name}.umr"
        p.write_text(format_document([format_sentence(1, words, g, {}, ())]))
        paths.append(p)
    rep = umr.score_files(*paths, method="both")
    (u,) = rep.units
    assert u.ancast_twice == 1 and u.ancast == (4.0, 4.0) and u.matched("exact") == 4
    # AnCast's own Smatch-format F counts the variable twice: not the count under its mapping
    assert u.ancast_smatch_f != pytest.approx(umr.f_score(4, u.test_size, u.gold_size)[2])


def test_in_process_scorer_equals_score_files(tmp_path):
    from exactalign.metrics.umr_scorer import UmrScorer

    a, b = tmp_path / "a.umr", tmp_path / "b.umr"
    a.write_text(doc(SENTENCE_1, SENTENCE_2.replace("(s2p / person)", "(s2p / she)")))
    b.write_text(doc(SENTENCE_1.replace("lunch", "dinner"), SENTENCE_2))
    want = umr.score_files(a, b)
    scorer = UmrScorer(b)
    got = scorer.score([s.tree for s in parse_umr(a.read_text(), "a").sentences])
    # two concepts differ (lunch/dinner, she/person): 15 of 13 + 4 on each side
    assert got.totals("exact") == want.totals("exact") == (15.0, 17, 17)
    assert [u.matched("exact") for u in got.units] == [u.matched("exact") for u in want.units]
    assert got.lr == want.lr
    # again, one prediction against the second reference, as text
    one = scorer.score(["(s2e / eat-01 :ARG0 (s2p / person))"], indices=[1])
    assert one.totals("exact") == (4.0, 4, 4) and one.proven() == 1
    with pytest.raises(InputError, match="prediction 0: unparsable graph"):
        scorer.score(["(s2e / eat-01"], indices=[1])


def test_cli_where_ancast_fails_both_says_so_in_one_line_and_ancast_alone_exits_1():
    root = _pilot()
    _ancast()
    conv = root / "ufal-english/converted_total_1-5.umr"
    gold = root / "ufal-english/gold_total_1-5.umr"
    p = _cli(conv, gold, "--scope", "doc", "--method", "both")
    assert p.returncode == 0, p.stderr
    failed = [ln for ln in p.stdout.splitlines() if ln.startswith("ancast: failed: ")]
    assert len(failed) == 1 and "ValueError: invalid literal for int()" in failed[0]
    assert p.stdout.startswith("[exact] Smatch-format P 36.72 R 28.55 F 32.12")
    p = _cli(conv, gold, "--scope", "doc", "--method", "ancast", "--json")
    assert p.returncode == 1 and p.stdout == ""
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("exactalign: error:")]
    assert len(errors) == 1 and "AnCast failed: ValueError" in errors[0]
    assert "Traceback" not in p.stderr
