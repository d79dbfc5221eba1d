"""The ERE annotation schema (exactalign.io.ere): reading, every documented error, pairing,
writing back, and the TBF event-mention converter."""

from __future__ import annotations

import json

import pytest

from exactalign import InputError
from exactalign.io import ere as ere_io
from exactalign.io.tbf import parse_tbf

GOOD = {"documents": [{
    "id": "d1", "text": "THE EAST AND SOUTH OF IRAN, said the police on JULY 30, 2008.",
    "mentions": [{"id": "m1", "span": [0, 8], "level": "NOM"},
                 {"id": "m2", "span": [13, 26]},
                 {"id": "m3", "span": [[33, 36], [37, 43]], "level": "NOM"}],
    "entities": [{"id": "e1", "type": "LOC", "mentions": ["m1"]},
                 {"id": "e2", "type": "GPE", "mentions": ["m2"]},
                 {"id": "e3", "type": "ORG", "mentions": ["m3"]}],
    "relations": [{"id": "r1", "type": "Physical", "subtype": "Located", "args": ["m1", "m2"],
                   "trigger": [9, 12]}],
    "events": [{"id": "v1", "type": "Contact", "subtype": "Broadcast", "trigger": [28, 32],
                "args": [{"role": "entity", "mention": "m3"},
                         {"role": "date", "span": [47, 60]}]}]}]}


def _with(path: list, value):
    obj = json.loads(json.dumps(GOOD))
    cur = obj
    for k in path[:-1]:
        cur = cur[k]
    if value is _DELETE:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return obj


_DELETE = object()


def test_reads_every_part():
    ann = ere_io.ere_from_dict(GOOD, path="a.json")
    d = ann.documents["d1"]
    assert [m.id for m in d.mentions] == ["m1", "m2", "m3"]
    assert d.mentions[2].span == ((33, 36), (37, 43))
    assert d.mentions[0].entity == "e1" and d.mentions[1].level == ""
    assert d.relations[0].args == ("m1", "m2") and d.relations[0].trigger == ((9, 12),)
    ev = d.events[0]
    assert ev.trigger == ((28, 32),)
    assert ev.args[0] == ere_io.EventArgument("entity", mention="m3")
    assert ev.args[1] == ere_io.EventArgument("date", date=((47, 60),))


def test_round_trip(tmp_path):
    ann = ere_io.ere_from_dict(GOOD)
    p = tmp_path / "a.json"
    p.write_text(json.dumps(ere_io.ere_to_dict(ann)))
    again = ere_io.read_ere(p)
    assert again.documents == ann.documents


@pytest.mark.parametrize("path,value,message", [
    (["documents"], [], '"documents" is empty'),
    (["documents", 0, "id"], "", '"id" must be a non-empty string'),
    (["documents", 0, "mentions", 1, "id"], "m1", "mention id 'm1' repeats"),
    (["documents", 0, "mentions", 0, "span"], [8, 8], "0 <= begin < end"),
    (["documents", 0, "mentions", 0, "span"], [-1, 3], "0 <= begin < end"),
    (["documents", 0, "mentions", 0, "span"], "0-8", "a span is"),
    (["documents", 0, "mentions", 0, "span"], [[0, 5], [3, 8]], "overlap"),
    (["documents", 0, "mentions", 0, "span"], [0, 99], "after the end of the document text"),
    (["documents", 0, "entities", 1, "mentions"], ["m1"], "already in entity 'e1'"),
    (["documents", 0, "entities", 1, "mentions"], [], "at least one mention"),
    (["documents", 0, "entities", 1, "mentions"], ["m9"], "'m9' is not a mention"),
    (["documents", 0, "entities", 2], {"id": "e2", "mentions": ["m3"]}, "'e2' is given twice"),
    (["documents", 0, "relations", 0, "args"], ["m1"], "two mention ids"),
    (["documents", 0, "relations", 0, "args"], ["m1", "zz"], "'zz' is not a mention"),
    (["documents", 0, "events", 0, "trigger"], _DELETE, "trigger is obligatory"),
    (["documents", 0, "events", 0, "args"], [], "at least one argument"),
    (["documents", 0, "events", 0, "args", 0], {"role": "x"}, 'exactly one of "mention"'),
    (["documents", 0, "events", 0, "args", 0], {"role": "x", "mention": "q"},
     "'q' is not a mention"),
])
def test_errors_name_the_element(path, value, message):
    with pytest.raises(InputError, match=message) as e:
        ere_io.ere_from_dict(_with(path, value), path="a.json")
    assert str(e.value).startswith("a.json: ")


def test_mention_without_entity():
    obj = _with(["documents", 0, "entities"], GOOD["documents"][0]["entities"][:2])
    with pytest.raises(InputError, match=r"mentions\[2\] \(m3\): the mention belongs to no "):
        ere_io.ere_from_dict(obj)


def test_json_syntax_error_names_the_line(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"documents": [\n  {"id": "x",}\n]}')
    with pytest.raises(InputError, match=r"bad.json:2: not valid JSON"):
        ere_io.read_ere(p)


def test_pairing():
    a = ere_io.ere_from_dict(GOOD, path="a.json")
    other = _with(["documents", 0, "id"], "d2")
    other["documents"][0].pop("text")
    b = ere_io.ere_from_dict(other, path="b.json")
    with pytest.raises(InputError, match="document 'd1' is not in b.json"):
        ere_io.pair_annotations(a, b)
    c = ere_io.ere_from_dict(_with(["documents", 0, "text"], "x" * 80), path="c.json")
    with pytest.raises(InputError, match="different text"):
        ere_io.pair_annotations(a, c)
    assert [x.id for x, _ in ere_io.pair_annotations(a, a)] == ["d1"]


TBF = """#BeginOfDocument doc
sys\tdoc\tE1\t4,8;13,16\tmade way\tMovement_Transport-Person\tActual
sys\tdoc\tE2\t45,57\tcreated jobs\tPersonnel_Start-Position\tGeneric
sys\tdoc\tE3\t80,87\tcreated\tPersonnel_Start-Position\tOther
@Coreference\tR1\tE2,E3
#EndOfDocument
"""


def test_from_tbf():
    ann = ere_io.ere_from_tbf(parse_tbf(TBF, path="x.tbf", mode="char"))
    d = ann.documents["doc"]
    assert [(m.id, m.span, m.level, m.entity) for m in d.mentions] == [
        ("E1", ((4, 8), (13, 16)), "Actual", "E1(singleton)"),
        ("E2", ((45, 57),), "Generic", "R1"), ("E3", ((80, 87),), "Other", "R1")]
    assert [(e.id, e.type, e.mentions) for e in d.entities] == [
        ("R1", "personnelstartposition", ("E2", "E3")),
        ("E1(singleton)", "movementtransportperson", ("E1",))]


def test_from_tbf_errors():
    with pytest.raises(InputError, match="character mode"):
        ere_io.ere_from_tbf(parse_tbf(TBF.replace("4,8;13,16", "t1").replace("45,57", "t2")
                                      .replace("80,87", "t3"), mode="token"))
    two = TBF.replace("#EndOfDocument", "@Coreference\tR2\tE3,E1\n#EndOfDocument")
    with pytest.raises(InputError, match="in coreference clusters R1 and R2"):
        ere_io.ere_from_tbf(parse_tbf(two, path="x.tbf", mode="char"))


def _demo_dir():
    from exactalign.data import resolve_data_dir

    try:
        d = resolve_data_dir()
    except InputError:
        return None
    p = None if d.path is None else d.path / "nugget/evmeval/scoring_demo/char_based"
    return p if p is not None and p.is_dir() else None


@pytest.mark.pilot
@pytest.mark.skipif(_demo_dir() is None, reason="no pilot data")
def test_from_tbf_on_the_evmeval_demo():
    from exactalign.io.tbf import read_tbf

    ann = ere_io.ere_from_tbf(read_tbf(_demo_dir() / "gold.tbf", mode="char"))
    assert list(ann.documents) == ["example1", "example2"]
    one, two = ann.documents["example1"], ann.documents["example2"]
    assert one.mentions[0].span == ((4, 8), (13, 16)) and len(one.entities) == 1
    assert len(two.mentions) == 5
    assert [e.mentions for e in two.entities if len(e.mentions) > 1] == [("E2", "E3")]
    assert len(two.entities) == 4
