"""Real CorefUD documents as gold: :func:`exactalign.perturb.corefud.read_documents` (heads from
the annotation or the dependency tree), and on UD English-GUM (the registry's extra files
``coref/ud-english-gum``, when fetched) the staged and the metric-optimal alignments of
documents with hundreds of mentions."""

from __future__ import annotations

import numpy as np
import pytest

from exactalign.io.corefud import pair_corefud, read_corefud
from exactalign.metrics.coref import corefud_exact
from exactalign.perturb.corefud import perturb, read_documents, to_corefud

# Two documents; "the big dog" (words 1-3) has its head (dog, 3) last in the tree; entity e1
# is used in both documents (two clusters, one per document); an empty node with DEPS.
TREE = """\
# newdoc id = a
# global.Entity = {fields}
# sent_id = a-1
1\tthe\t_\tDET\t_\t_\t3\tdet\t_\tEntity=(e1-animal{h3}
2\tbig\t_\tADJ\t_\t_\t3\tamod\t_\t_
3\tdog\t_\tNOUN\t_\t_\t4\tnsubj\t_\tEntity=e1)
4\tbarked\t_\tVERB\t_\t_\t0\troot\t_\t_
4.1\t_\t_\tPRON\t_\t_\t_\t_\t4:obj\tEntity=(e2-thing{h1})

# sent_id = a-2
1\tit\t_\tPRON\t_\t_\t2\tnsubj\t_\tEntity=(e1-animal{h1})
2\tran\t_\tVERB\t_\t_\t0\troot\t_\tEntity=(e2-event{h1})

# newdoc id = b
# sent_id = b-1
1\tdogs\t_\tNOUN\t_\t_\t2\tnsubj\t_\tEntity=(e1-animal{h1})
2\tbark\t_\tVERB\t_\t_\t0\troot\t_\t_

"""


def _file(tmp_path, with_head: bool):
    text = TREE.format(fields="eid-etype-head-other" if with_head else "eid-etype-other",
                       h3="-1-" if with_head else "-", h1="-1-" if with_head else "")
    p = tmp_path / "gold.conllu"
    p.write_text(text, encoding="utf-8")
    return p


def test_heads_from_the_tree_when_the_annotation_names_none(tmp_path):
    docs = read_documents(_file(tmp_path, with_head=False))
    assert [d["name"] for d in docs] == ["a", "b"]
    a, b = docs
    assert a["sentences"] == [{"words": 4, "empties": {"4.1": "4:obj"}},
                              {"words": 2, "empties": {}}]
    dog = a["entities"][0][0]
    assert dog == {"sent": 0, "start": "1", "end": "3", "head": "3"}   # the tree's head
    assert read_documents(_file(tmp_path, with_head=False), heads="annotated")[0][
        "entities"][0][0]["head"] == "1"                               # udapi's: first word
    assert b["entities"] == [[{"sent": 0, "start": "1", "end": "1", "head": "1"}]]
    zero = [m for ms in a["entities"] for m in ms if m["head"] == "4.1"]
    assert zero == [{"sent": 0, "start": "4.1", "end": "4.1", "head": "4.1"}]


def test_annotated_heads_are_kept_and_auto_follows_the_header(tmp_path):
    p = _file(tmp_path, with_head=True)
    assert read_documents(p)[0]["entities"][0][0]["head"] == "1"       # as annotated
    assert read_documents(p, heads="tree")[0]["entities"][0][0]["head"] == "3"
    with pytest.raises(ValueError, match="unknown heads"):
        read_documents(p, heads="first")


def test_written_back_the_scorer_reads_the_same_mentions(tmp_path):
    docs = read_documents(_file(tmp_path, with_head=False))
    out = tmp_path / "rewritten.conllu"
    out.write_text(to_corefud(docs), encoding="utf-8")
    f = read_corefud(out)
    got = [sorted((m.words[0], m.words[-1], m.head) for e in d.entities for m in e.mentions)
           for d in f.documents]
    assert got[0] == sorted([((1, 1), (1, 3), (1, 3)), ((1, 4.1), (1, 4.1), (1, 4.1)),
                             ((2, 1), (2, 1), (2, 1)), ((2, 2), (2, 2), (2, 2))])
    assert got[1] == [((3, 1), (3, 1), (3, 1))]


# ------------------------------------------------------------------------------------------
# UD English-GUM, when fetched
# ------------------------------------------------------------------------------------------
def _gum_dev():
    from exactalign.data import extra_root

    root = extra_root("coref/ud-english-gum")
    if root is None:
        pytest.skip("UD English-GUM not fetched (exactalign data fetch --only "
                    "coref/ud-english-gum)")
    return root / "coref/ud-english-gum/en_gum-ud-dev.conllu"


@pytest.mark.pilot
def test_gum_dev_documents_have_hundreds_of_mentions():
    docs = read_documents(_gum_dev())
    sizes = [sum(map(len, d["entities"])) for d in docs]
    assert len(docs) == 30 and min(sizes) >= 150 and max(sizes) >= 350
    assert sum(sizes) == 7870


@pytest.mark.pilot
@pytest.mark.parametrize("match", ["head", "partial", "exact"])
def test_gum_exact_alignment_is_proven_and_never_below_the_staged(tmp_path, match):
    """Three real documents (the largest of the dev set included) and a perturbed system:
    every exact solve proven optimal and at least the staged alignment's F1, per document and
    for the corpus, singletons kept (the largest instances)."""
    docs = read_documents(_gum_dev())
    pick = sorted(range(len(docs)), key=lambda i: -sum(map(len, docs[i]["entities"])))[:1]
    pick += [0, 1]
    gold = [docs[i] for i in pick]
    rng = np.random.default_rng(7)
    system = [perturb(d, rng, 0.4, rounds=max(3, sum(map(len, d["entities"])) // 4))
              for d in gold]
    (tmp_path / "k").write_text(to_corefud(gold), encoding="utf-8")
    (tmp_path / "r").write_text(to_corefud(system), encoding="utf-8")
    pairs = pair_corefud(read_corefud(tmp_path / "k"), read_corefud(tmp_path / "r"))
    ex = corefud_exact.compare_documents(pairs, match=match, keep_singletons=True)
    assert max(d.staged.key_mentions for d in ex.documents) >= 350
    for d in ex.documents:
        for m, c in d.metrics.items():
            assert c.exact.proven_optimal, (d.name, m, c.exact.status)
            assert c.exact_f1 >= c.staged_f1 - 1e-9, (d.name, m)
    staged, exact = ex.overall("staged"), ex.overall("exact")
    for m, (res, _) in ex.corpus.items():
        assert res.proven_optimal and exact[m].f1 >= staged[m].f1 - 1e-9, m
