"""coval's options on the CoNLL path (``exactalign.metrics.coref.coval``, ``coref
--remove-singletons --remove-nested --np-only --min-span``): minimum spans derived by hand from
parse bits, each option on tiny documents (with coval's quirks), coval's printed values recorded
on generated parsed documents (every option set) and on the CoNLL reference scorer's test cases
(pilot data), the exact and greedy CEAF alignments on the mentions the options leave, bad input
as one error with file and line, and the command line."""

from __future__ import annotations

import itertools
import json

import pytest

from exactalign import InputError, cli
from exactalign.data import resolve_data_dir
from exactalign.data.pilot import CONLL_TESTS, conll_test_pairs
from exactalign.io.conll import parse_conll, read_conll
from exactalign.metrics.coref import coval
from exactalign.metrics.coref.coval import CovalOptions
from exactalign.metrics.coref.mina import mention_tree, minimum_span
from exactalign.perturb.conll import synthetic_pair
from exactalign.testing.recorded import COVAL_CONLL_TESTS, COVAL_GENERATED


# --------------------------------------------------------------------------------------------
# helpers: a parsed CoNLL-2012 document from (word, POS, parse bit, coreference) rows
# --------------------------------------------------------------------------------------------
def conll(sentences, name="d") -> str:
    lines = [f"#begin document ({name}); part 000"]
    for rows in sentences:
        for i, (w, pos, bits, coref) in enumerate(rows):
            lines.append("\t".join([name, "0", str(i), w, pos, bits, "-", "-", "-", "-", "*",
                                    coref]))
        lines.append("")
    return "\n".join(lines + ["#end document", ""])


def pair(key_sents, resp_sents):
    (k,) = parse_conll(conll(key_sents), path="key", keep_rows=True)
    (r,) = parse_conll(conll(resp_sents), path="resp", keep_rows=True)
    return k, r


def ms(rows, start=0):
    """The minimum span of the mention made of ``rows`` ((word, POS, bits))."""
    tree = mention_tree(rows, start)
    return minimum_span(tree, [w for w, _, _ in rows])


def with_coref(rows, column):
    return [(w, p, b, c) for (w, p, b), c in zip(rows, column, strict=True)]


# "the man who came said that he left ." with its parse bits (CoNLL-2012 drops POS brackets)
S1 = [("the", "DT", "(TOP(S(NP(NP*"), ("man", "NN", "*)"), ("who", "WP", "(SBAR(WHNP*)"),
      ("came", "VBD", "(S(VP*))))"), ("said", "VBD", "(VP*"), ("that", "IN", "(SBAR*"),
      ("he", "PRP", "(S(NP*)"), ("left", "VBD", "(VP*))))"), (".", ".", "*))")]


# --------------------------------------------------------------------------------------------
# MINA by hand
# --------------------------------------------------------------------------------------------
def test_a_flat_np_is_one_terminal_indexed_at_its_last_word():
    # (NP the big man): the bits "(NP*", "*", "*)" have no brackets between the words, so coval
    # reads one terminal "the big man", indexed where it closes (position 2 + start 4)
    rows = [("the", "DT", "(NP*"), ("big", "JJ", "*"), ("man", "NN", "*)")]
    assert ms(rows, start=4) == {("the big man", 6)}


def test_a_relative_clause_leaves_the_head_np():
    # (NP (NP the man) (SBAR who came)): the top-level NP child is searched, its terminal
    # "the man" (index 1) is the minimum span -- the same as the mention "the man" alone
    whole = [(w, p, b) for w, p, b in S1[:4]]
    assert ms(whole) == {("the man", 1)} == ms(whole[:2])


def test_coordination_keeps_each_conjunct():
    # (NP (NP Gao) and (NP Smith)): two top-level NPs, each contributes its terminal
    rows = [("Gao", "NNP", "(NP(NP*)"), ("and", "CC", "*"), ("Smith", "NNP", "(NP*))")]
    assert ms(rows) == {("Gao", 0), ("Smith", 2)}


def test_a_terminal_child_of_the_root_wins():
    # (NP (NP Gao 's) plan): "plan" is a terminal child of the root, a valid one
    rows = [("Gao", "NNP", "(NP(NP*"), ("'s", "POS", "*)"), ("plan", "NN", "*)")]
    assert ms(rows) == {("plan", 2)}


def test_determiners_and_punctuation_are_not_minimum_spans_and_the_fallback_is_relative():
    # "that" (DT) alone has no valid terminal: coval falls back to the words, numbered from 0
    # within the mention -- so two such mentions in one sentence have one minimum span
    assert ms([("that", "DT", "(NP*)")], start=3) == {("that", 0)}
    assert ms([("that", "DT", "(NP*)")], start=9) == {("that", 0)}
    assert ms([("-LRB-", "-LRB-", "*")]) == {("-LRB-", 0)}


def test_a_vp_keeps_its_verb():
    rows = [("said", "VBD", "(VP*"), ("that", "IN", "(SBAR*"), ("he", "PRP", "(S(NP*)"),
            ("left", "VBD", "(VP*))))")]
    tree = mention_tree(rows, 0)
    # "said" is closed by the "(" of the next line: coval indexes it there, at 1
    assert tree.tag == "VP" and minimum_span(tree, []) == {("said", 1)}


def test_words_without_letters_are_dropped_before_a_bracket():
    # ", (NP the man)": the pending "," is dropped when "(" follows it; the root is the NP
    rows = [(",", ",", "*"), ("the", "DT", "(NP*"), ("man", "NN", "*)")]
    tree = mention_tree(rows, 0)
    assert tree.tag == "NP" and tree.terminals() == ["the man"]
    # a span across two phrases gets a new NP above them
    two = [("the", "DT", "(NP*"), ("man", "NN", "*)"), ("said", "VBD", "(VP*)")]
    assert mention_tree(two, 0).tag == "NP"
    assert [c.tag for c in mention_tree(two, 0).children] == ["NP", "VP"]


# --------------------------------------------------------------------------------------------
# the options on tiny documents
# --------------------------------------------------------------------------------------------
def clusters(key_sents, resp_sents, **opts):
    d = coval.apply_options(*pair(key_sents, resp_sents), CovalOptions(**opts))
    return d.key, d.response


def test_min_span_makes_the_man_and_the_man_who_came_one_mention():
    # key: "the man who came" (0-3) and "he" (6) corefer; response: "the man" (0-1) and "he"
    key = [with_coref(S1, ["(1", "-", "-", "1)", "-", "-", "(1)", "-", "-"])]
    resp = [with_coref(S1, ["(1", "1)", "-", "-", "-", "-", "(1)", "-", "-"])]
    plain = coval.score_documents([pair(key, resp)])
    assert plain.mentions.recall_num == 1            # "he" only
    mina = coval.score_documents([pair(key, resp)], options=CovalOptions(min_span=True))
    assert mina.mentions.recall_num == 2 and mina.overall["muc"].f1 == 1.0
    k, _ = clusters(key, resp, min_span=True)
    assert k == (((0, frozenset({("the man", 1)})), (0, frozenset({("he", 6)}))),)


def test_np_only_prunes_vps_and_drops_a_cluster_left_with_one_mention():
    # entity 1: "said that he left" (VP, 4-7) and "it" -- after pruning one mention is left,
    # so the cluster goes even though singletons are kept; entity 2: VP + two NPs stays as 2
    rows = S1 + [("it", "PRP", "(TOP(S(NP*)"), ("was", "VBD", "(VP*"), ("news", "NN", "(NP*))"),
                 (".", ".", "*))")]
    col = ["(2", "2)", "-", "-", "(1", "-", "(2)", "1)", "-", "(1)", "-", "(3)", "-"]
    sents = [with_coref(rows[:9], col[:9]), with_coref(rows[9:], col[9:])]
    k, _ = clusters(sents, sents, np_only=True)
    assert k == (((0, 0, 1), (0, 6, 6)), ((1, 2, 2),))   # entity 2, then entity 3 (a singleton)
    k, _ = clusters(sents, sents)
    assert len(k) == 3


def test_remove_singletons_comes_first_and_remove_nested_keeps_or_drops_would_be_singletons():
    # entity 1: "the man who came" (0-3) and "the man" (0-1), nested; entity 2: "he" alone
    col = ["(1|(1", "1)", "-", "1)", "-", "-", "(2)", "-", "-"]
    sents = [with_coref(S1, col)]
    # removing the nested "the man" would leave one mention: without remove_singletons coval
    # keeps the cluster unchanged, with it drops the cluster
    k, _ = clusters(sents, sents, remove_nested=True)
    assert k == (((0, 0, 1), (0, 0, 3)), ((0, 6, 6),))
    k, _ = clusters(sents, sents, remove_nested=True, remove_singletons=True)
    assert k == ()
    # a third mention: the nested one goes, two are left
    col3 = ["(1|(1", "1)", "-", "1)", "-", "-", "(1)", "-", "-"]
    k, _ = clusters([with_coref(S1, col3)], [with_coref(S1, col3)], remove_nested=True)
    assert k == (((0, 0, 3), (0, 6, 6)),)


def test_metrics_count_repeated_mentions_as_coval_does():
    # response: "the man who came" in entity 1 and "the man" in entity 2 -- one mention under
    # min_span, in two clusters: B3 and MUC count it in both, its key cluster is the last one
    key = [with_coref(S1, ["(1", "-", "-", "1)", "-", "-", "(1)", "-", "-"])]
    resp = [with_coref(S1, ["(1|(2", "2)", "-", "1)", "-", "-", "(1)", "-", "-"])]
    s = coval.score_documents([pair(key, resp)], options=CovalOptions(min_span=True))
    # key {M, he}; response {M, he}, {M}: precision B3 = (2^2/2 + 1^2/1) / 3
    assert s.overall["bcub"].precision == pytest.approx((4 / 2 + 1) / 3)
    assert s.overall["bcub"].recall == 1.0
    # MUC precision: R1 2 mentions in key 1 -> 1 link of 1; R2 0 of 0
    assert s.overall["muc"].counts() == {"recall_num": 1, "recall_den": 1,
                                         "precision_num": 1, "precision_den": 1}
    assert s.mentions.counts() == {"recall_num": 2, "recall_den": 2, "precision_num": 2,
                                   "precision_den": 2}


# --------------------------------------------------------------------------------------------
# coval's printed values
# --------------------------------------------------------------------------------------------
def printed(s) -> str:
    vals = []
    for m in ("mentions", "muc", "bcub", "ceafe", "lea"):
        p = s.mentions if m == "mentions" else s.overall[m]
        vals += [f"{100 * p.recall:.2f}", f"{100 * p.precision:.2f}", f"{100 * p.f1:.2f}"]
    return " ".join(vals + [f"{100 * s.conll:.2f}"])


@pytest.mark.parametrize("seed", sorted({k[0] for k in COVAL_GENERATED}))
def test_covals_printed_values_on_generated_parsed_documents(seed, tmp_path):
    key, resp = synthetic_pair(seed)
    (tmp_path / "k").write_text(key)
    (tmp_path / "r").write_text(resp)
    cases = [c for c in COVAL_GENERATED if c[0] == seed]
    assert len(cases) == 16      # every combination of the four options
    for case in cases:
        opts = CovalOptions(*case[1:])
        for method in ("exact", "ilp"):
            s = coval.score_files(tmp_path / "k", tmp_path / "r", options=opts,
                                  ceaf_method=method)
            assert printed(s) == COVAL_GENERATED[case], (case, method)


def _conll_tests():
    try:
        data = resolve_data_dir()
    except InputError:
        return None
    base = data.path / "coref" / CONLL_TESTS if data.available else None
    return base if base is not None and (base / "DataFiles").is_dir() else None


@pytest.mark.pilot
def test_covals_printed_values_on_the_reference_test_cases():
    base = _conll_tests()
    if base is None:
        pytest.skip("no pilot data (coref/conll-reference-scorer-tests)")
    pairs = conll_test_pairs(base)
    assert len(pairs) == 36
    for key, resp in pairs:
        name = resp.rpartition("/")[2].removesuffix(".response")
        for rs, rn in itertools.product((False, True), repeat=2):
            s = coval.score_files(base / key, base / resp,
                                  options=CovalOptions(remove_singletons=rs, remove_nested=rn))
            assert printed(s) == COVAL_CONLL_TESTS[(name, rs, rn)], (name, rs, rn)


# --------------------------------------------------------------------------------------------
# the exact alignment sees the options' mentions
# --------------------------------------------------------------------------------------------
def test_greedy_ceaf_is_compared_with_the_exact_alignment_on_the_options_mentions(tmp_path):
    key, resp = synthetic_pair(3, documents=3, rate=0.5)
    (tmp_path / "k").write_text(key)
    (tmp_path / "r").write_text(resp)
    opts = CovalOptions(min_span=True, remove_nested=True)
    exact = coval.score_files(tmp_path / "k", tmp_path / "r", options=opts)
    greedy = coval.score_files(tmp_path / "k", tmp_path / "r", options=opts,
                               ceaf_method="greedy", compare_exact=True)
    for m in ("ceafm", "ceafe"):
        assert exact.ceaf_result(m).proven_optimal
        assert greedy.overall[m].recall_num <= exact.overall[m].recall_num + 1e-12
        assert greedy.ceaf_result(m, exact=True).objective == pytest.approx(
            exact.ceaf_result(m).objective)
    # the min-span mentions are what is aligned: fewer distinct mentions than spans
    plain = coval.score_files(tmp_path / "k", tmp_path / "r")
    assert exact.mentions.recall_den < plain.mentions.recall_den


# --------------------------------------------------------------------------------------------
# bad input: one error, file and line
# --------------------------------------------------------------------------------------------
def _write(tmp_path, text, name="k"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("edit, line, words", [
    (lambda t: t.replace("(TOP(S(NP(NP*", "-"), 2, "parse bit '-'"),
    (lambda t: t.replace("(VP*\t", "(VP\t"), 6, "not a parse bit"),
    (lambda t: t.replace("*))\t", "*)\t"), 10, "do not balance"),
    (lambda t: "\n".join("\t".join(ln.split("\t")[:5] + ln.split("\t")[-1:]) if "\t" in ln
                         else ln for ln in t.split("\n")), 2, "6 columns"),
])
def test_the_parse_options_need_the_keys_parse_trees(tmp_path, edit, line, words):
    text = conll([with_coref(S1, ["(1", "1)"] + ["-"] * 7)])
    key = _write(tmp_path, edit(text))
    resp = _write(tmp_path, text, "r")
    for opts in (CovalOptions(np_only=True), CovalOptions(min_span=True)):
        with pytest.raises(InputError) as e:
            coval.score_files(key, resp, options=opts)
        assert (e.value.path, e.value.line) == (key, line), str(e.value)
        assert words in str(e.value)
    coval.score_files(key, resp, options=CovalOptions(remove_nested=True))   # no parse needed


def test_a_mention_across_sentences_and_different_sentence_breaks_are_errors(tmp_path):
    second = [("it", "PRP", "(TOP(S(NP*)"), ("was", "VBD", "(VP*)"), (".", ".", "*))")]
    text = conll([with_coref(S1, ["(1"] + ["-"] * 8), with_coref(second, ["1)", "-", "-"])])
    key = _write(tmp_path, text)
    with pytest.raises(InputError, match="closes in another sentence") as e:
        coval.score_files(key, key, options=CovalOptions(min_span=True))
    assert e.value.line == 12   # where it closes
    one = conll([with_coref(S1 + second, ["-"] * 12)])
    two = conll([with_coref(S1, ["-"] * 9), with_coref(second, ["-"] * 3)])
    with pytest.raises(InputError, match="breaks sentences where the key") as e:
        coval.score_files(_write(tmp_path, one), _write(tmp_path, two, "r"),
                          options=CovalOptions(np_only=True))
    assert e.value.line == 12


def test_coval_reads_the_coreference_column_its_own_way(tmp_path):
    # "(1(1" without "|": coval opens one mention (a "(" starts the id afresh) and skips the
    # second closing; the reference scorer reads two mentions of entity 1
    rows = [("a", "DT", "(TOP(NP*"), ("b", "NN", "*"), ("c", "NN", "*))")]
    text = conll([with_coref(rows, ["(1(1", "-", "1)1)"])])
    path = _write(tmp_path, text)
    (doc,) = read_conll(path, keep_rows=True)
    assert doc.clusters == (((0, 2), (0, 2)),)
    d = coval.apply_options(doc, doc, CovalOptions(remove_nested=True))
    assert d.key == (((0, 0, 2),),)


# --------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------
def test_the_command_scores_as_coval_with_its_options(tmp_path, capsys):
    key, resp = synthetic_pair(0)
    k, r = _write(tmp_path, key), _write(tmp_path, resp, "r")
    assert cli.main(["coref", k, r, "--min-span", "--np-only", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["options"]["min_span"] and out["options"]["np_only"]
    assert list(out["overall"]) == ["mentions", "muc", "bcub", "ceafm", "ceafe", "lea", "conll"]
    want = COVAL_GENERATED[(0, False, False, True, True)].split()
    assert f"{100 * out['overall']['conll']['f1']:.2f}" == want[-1]
    assert cli.main(["coref", k, r, "--remove-singletons"]) == 0
    assert "scored as coval does with remove_singletons" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["--min-span", "--metric", "blanc"], "not one of coval's metrics"),
    (["--remove-nested", "--format", "corefud"], "coval's options for --format conll"),
])
def test_the_command_refuses_what_coval_does_not_have(tmp_path, capsys, args, words):
    key, resp = synthetic_pair(0)
    k, r = _write(tmp_path, key), _write(tmp_path, resp, "r")
    assert cli.main(["coref", k, r, *args]) == 2
    assert words in capsys.readouterr().err
