"""Event timelines: the partial order from BEFORE/AFTER links, matching without ids under the
order, recovery of the id-based truth, order-aware P/R/F1, and ``exactalign timeline``."""

import json

import numpy as np
import pytest

from exactalign import cli
from exactalign.core.errors import InputError
from exactalign.io.timeml import parse_timeml
from exactalign.metrics import timeline as T


def tml(events, links, doc_id="d"):
    """A TimeML document: ``events`` = [(text, class)], ids e1.. / ei1..; ``links`` =
    [(source index, relType, target index)] (1-based)."""
    text = " ".join(f'<EVENT eid="e{i}" class="{c}">{t}</EVENT>'
                    for i, (t, c) in enumerate(events, 1))
    inst = "".join(f'<MAKEINSTANCE eventID="e{i}" eiid="ei{i}"/>' for i in range(1, len(events) + 1))
    tl = "".join(f'<TLINK lid="l{k}" relType="{r}" eventInstanceID="ei{s}" '
                 f'relatedToEventInstance="ei{t}"/>' for k, (s, r, t) in enumerate(links, 1))
    return parse_timeml(f"<TimeML><DOCID>{doc_id}</DOCID><TEXT>{text}</TEXT>{inst}{tl}</TimeML>")


def test_order_from_links_closure_and_cycles():
    doc = tml([("a", "X"), ("b", "X"), ("c", "X"), ("d", "X")],
              [(1, "BEFORE", 2), (3, "AFTER", 2), (4, "IAFTER", 3), (3, "BEFORE", 1),
               (1, "SIMULTANEOUS", 4), (2, "INCLUDES", 4)])
    t = T.timeline(doc)
    assert t.ids == ("ei1", "ei2", "ei3", "ei4") and t.texts == ("a", "b", "c", "d")
    # 1 < 2 < 3 < 4 by closure; "3 BEFORE 1" would close a cycle and is dropped.
    assert t.links == 3 and t.dropped == 1
    assert t.order.less[0, 3] and not t.order.less[3, 0]
    assert t.order.hasse.tolist() == [[0, 1], [1, 2], [2, 3]]


def test_order_resolves_repeated_words():
    # gold: said(1) before said(2) before war(3); system: same ids, same order.
    events = [("said", "REPORTING"), ("said", "REPORTING"), ("war", "OCCURRENCE")]
    links = [(1, "BEFORE", 2), (2, "BEFORE", 3)]
    gold, system = tml(events, links), tml(events, links)
    for seed in range(5):  # whatever the shuffle of the system's events
        d = T.match_document(gold, system, seed=seed)
        assert d.results["dag"].proven_optimal and d.results["dag"].objective == 3.0
        assert d.recovered["dag"] == 3 and len(d.truth) == 3 and d.truth_monotone
        assert d.recovered["sequence"] == 3
        assert d.recovered["unconstrained"] in (1, 3)  # the two "said" are interchangeable
    assert d.prf.f1 == 1.0


def test_contradicting_order_costs_score_and_truth_crosses():
    events = [("said", "REPORTING"), ("left", "OCCURRENCE")]
    gold = tml(events, [(1, "BEFORE", 2)])
    system = tml(events, [(1, "AFTER", 2)])
    d = T.match_document(gold, system)
    assert d.results["dag"].objective == 1.0 and not d.truth_monotone
    assert d.results["unconstrained"].objective == 2.0 and d.recovered["unconstrained"] == 2
    assert (d.prf.precision, d.prf.recall) == (1 / 2, 1 / 2)


def test_similarity_text_and_class():
    gold = T.timeline(tml([("Said", "REPORTING"), ("war", "OCCURRENCE")], []))
    system = T.timeline(tml([("said", "OCCURRENCE"), ("said", "REPORTING")], []))
    W = T.similarity(gold, system).to_dense()
    assert W.tolist() == [[T.OTHER_CLASS, T.SAME_CLASS], [0.0, 0.0]]
    assert T.id_alignment(gold, system).tolist() == [[0, 0], [1, 1]]


def test_missing_system_document_and_extra_one():
    gold = {"d": tml([("a", "X")], [])}
    c = T.match_corpus(gold, {})
    assert c.prf.recall == 0.0 and c.recovery("dag") == (0, 0)
    with pytest.raises(InputError, match="has no reference document"):
        T.match_corpus(gold, {"e": tml([("a", "X")], [], doc_id="e")})


def _write(dirpath, name, doc_xml):
    dirpath.mkdir(exist_ok=True)
    (dirpath / f"{name}.tml").write_text(doc_xml)


def test_timeline_cli(tmp_path, capsys):
    events = [("said", "REPORTING"), ("left", "OCCURRENCE"), ("said", "REPORTING")]
    xml = ('<TimeML><DOCID>d1</DOCID><TEXT>'
           + " ".join(f'<EVENT eid="e{i}" class="{c}">{t}</EVENT>'
                      for i, (t, c) in enumerate(events, 1))
           + "</TEXT>" + "".join(f'<MAKEINSTANCE eventID="e{i}" eiid="ei{i}"/>'
                                 for i in (1, 2, 3)))
    gold = xml + ('<TLINK lid="l1" relType="BEFORE" eventInstanceID="ei1" '
                  'relatedToEventInstance="ei2"/><TLINK lid="l2" relType="BEFORE" '
                  'eventInstanceID="ei2" relatedToEventInstance="ei3"/></TimeML>')
    system = xml + ('<TLINK lid="l1" relType="AFTER" eventInstanceID="ei1" '
                    'relatedToEventInstance="ei2"/></TimeML>')
    _write(tmp_path / "gold", "d1", gold)
    _write(tmp_path / "sys", "d1", system)
    assert cli.main(["timeline", str(tmp_path / "gold"), str(tmp_path / "sys"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # gold: said1 < left < said3; system: left < said1, said3 unordered. The id-based truth
    # crosses (said1 before left in gold, after it in the system); the only monotone matching
    # of all three swaps the two "said": gold said1 -> system said3 (unordered, allowed), gold
    # said3 -> system said1 (both after "left").
    assert out["overall"]["order-aware"]["f1"] == 1.0
    doc = out["documents"][0]
    assert doc["solves"]["dag"]["status"] == "optimal" and not doc["truth_monotone"]
    assert doc["recovered"]["dag"] == 1
    assert out["recovery"]["unconstrained"]["truth"] == 3
    assert cli.main(["timeline", str(tmp_path / "gold"), str(tmp_path / "sys")]) == 0
    assert "proven optimal on 1/1 documents" in capsys.readouterr().out
    assert cli.main(["timeline", str(tmp_path / "gold"), str(tmp_path / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_shuffle_is_seeded_and_keeps_the_order():
    t = T.timeline(tml([("a", "X"), ("b", "X"), ("c", "X")], [(1, "BEFORE", 3)]))
    s1, s2 = T.shuffled(t, 7), T.shuffled(t, 7)
    assert s1.ids == s2.ids
    i, j = s1.ids.index("ei1"), s1.ids.index("ei3")
    assert s1.order.less[i, j] and np.count_nonzero(s1.order.less) == 1
