"""``te3`` link scores align system ids to the reference's as the TempEval-3 toolkit does.

The toolkit (naushadzaman/tempeval3_toolkit @e02eb2d) first runs its TimeML-Normalizer on the
reference and the system file together: events align by first token, timexes by overlap (one
to one, in text order), the DCTs with each other, event instances by MAKEINSTANCE order; a
system entity without counterpart gets an id of its own, so its links stay in the system graph.
``temporal_evaluation.py`` then scores the renamed links. Every expected value below was
produced by the official toolkit (Java 17 for the normaliser, Python 2.7 for the scripts, run
outside the project) on the files the tests write::

    java -jar TimeML-Normalizer/TimeML-Normalizer.jar -a "GOLD/;SYSTEM/"
    python2.7 evaluation-relations/temporal_evaluation.py GOLD-normalized/ SYSTEM-normalized/ 2

(what ``TE3-evaluation.py GOLD SYSTEM`` runs), reading the per-document ``precision MATCHED
TOTAL`` / ``recall MATCHED TOTAL`` lines and the overall score it prints (percent, 4 decimals).
The values in comments (``before``) are what exact-span alignment gave. The normaliser also
writes a turned link whose label it cannot invert (VAGUE, ...) with the label "null" (case
``null``). The pilot test skips without the pilot data."""

from __future__ import annotations

import re

import pytest

from exactalign.cli import main
from exactalign.io.timeml import parse_timeml, read_timeml_dir
from exactalign.metrics.temporal import score_corpus, te3_link_ids

DCT = ('<DCT><TIMEX3 tid="{dct}" type="DATE" value="2013-03-22" temporalFunction="false" '
       'functionInDocument="CREATION_TIME">March 22, 2013</TIMEX3></DCT>')


def tml(doc: str, text: str, instances, links, dct: str = "t0") -> str:
    """A TimeML file: ``instances`` are ``(eiid, eid)``, ``links`` ``(source, rel, target)``;
    the tids of ``text`` and ``dct`` are timexes, other ids event instances."""
    def attr(ident, first):
        if ident == dct or f'tid="{ident}"' in text:
            return ("timeID" if first else "relatedToTime") + f'="{ident}"'
        return ("eventInstanceID" if first else "relatedToEventInstance") + f'="{ident}"'
    mk = "".join(f'<MAKEINSTANCE eventID="{e}" eiid="{i}" tense="PAST" aspect="NONE" '
                 f'polarity="POS" pos="VERB"/>\n' for i, e in instances)
    tl = "".join(f'<TLINK lid="l{k}" relType="{r}" {attr(s, True)} {attr(t, False)}/>\n'
                 for k, (s, r, t) in enumerate(links))
    return (f'<?xml version="1.0" ?>\n<TimeML>\n<DOCID>{doc}</DOCID>\n{DCT.format(dct=dct)}\n'
            f'<TEXT>\n{text}\n</TEXT>\n{mk}{tl}</TimeML>\n')


def E(eid: str, text: str) -> str:
    return f'<EVENT eid="{eid}" class="OCCURRENCE">{text}</EVENT>'


def T(tid: str, text: str, value: str = "2013-03-18") -> str:
    return f'<TIMEX3 tid="{tid}" type="DATE" value="{value}">{text}</TIMEX3>'


CASES = {
    # "Friday" -> "last Friday" (begun one token earlier), "Monday morning" -> "Monday",
    # "left town" -> "left" (same first token), "resigned" -> "resigned on", all ids and the
    # DCT's renamed: the toolkit aligns every entity, exact spans none (before: 0/6, 0/7)
    "spans": (
        tml("spans",
            f"The talks {E('e1', 'ended')} last {T('t1', 'Friday')} , and the minister "
            f"{E('e2', 'resigned')} on {T('t2', 'Monday morning', '2013-03-18TMO')} before "
            f"he {E('e3', 'left town')} .",
            [("ei1", "e1"), ("ei2", "e2"), ("ei3", "e3")],
            [("ei1", "IS_INCLUDED", "t1"), ("ei2", "IS_INCLUDED", "t2"),
             ("ei1", "BEFORE", "ei2"), ("ei3", "AFTER", "ei2"), ("t1", "BEFORE", "t0"),
             ("ei3", "BEFORE", "t0"), ("t2", "AFTER", "t1")]),
        tml("spans",
            f"The talks {E('x7', 'ended')} {T('d4', 'last Friday')} , and the minister "
            f"{E('x5', 'resigned on')} {T('d3', 'Monday', '2013-03-18')} morning before "
            f"he {E('x6', 'left')} town .",
            [("a5", "x5"), ("a6", "x6"), ("a7", "x7")],
            [("d4", "INCLUDES", "a7"), ("a5", "IS_INCLUDED", "d3"), ("a5", "AFTER", "a7"),
             ("a6", "AFTER", "d4"), ("d0", "AFTER", "d4"), ("a6", "BEFORE", "d0"),
             ("a7", "BEFORE", "a6")], dct="d0"),
    ),
    # a timex split in two with links to both halves (the second half is a system entity of
    # its own), an event begun one token earlier (not aligned), a spurious event linked to
    # aligned ones (before: 3/10, 3/7)
    "split": (
        tml("split",
            f"Officials {E('e1', 'met')} {T('t1', 'Tuesday night', '2013-03-19TNI')} and "
            f"{E('e2', 'will vote')} {T('t2', 'next week', '2013-W13')} , {E('e3', 'said')} "
            "a spokesman .",
            [("ei1", "e1"), ("ei2", "e2"), ("ei3", "e3")],
            [("ei1", "IS_INCLUDED", "t1"), ("ei2", "IS_INCLUDED", "t2"),
             ("ei1", "BEFORE", "ei2"), ("ei3", "AFTER", "ei1"), ("t1", "BEFORE", "t0"),
             ("t2", "AFTER", "t0"), ("ei3", "IS_INCLUDED", "t0")]),
        tml("split",
            f"{E('s9', 'Officials')} {E('s1', 'met')} {T('u1', 'Tuesday', '2013-03-19')} "
            f"{T('u2', 'night', '2013-03-19TNI')} and {E('s2', 'will vote')} "
            f"{T('u3', 'next week', '2013-W13')} , {E('s3', 'said a')} spokesman .",
            [("j9", "s9"), ("j1", "s1"), ("j2", "s2"), ("j3", "s3")],
            [("j1", "IS_INCLUDED", "u2"), ("j1", "IS_INCLUDED", "u1"),
             ("u3", "INCLUDES", "j2"), ("j2", "AFTER", "j1"), ("j3", "AFTER", "j1"),
             ("u1", "BEFORE", "u3"), ("u2", "BEFORE", "t0"), ("j9", "BEFORE", "j1"),
             ("j3", "AFTER", "j9"), ("j9", "IS_INCLUDED", "t0"), ("t0", "BEFORE", "u3")]),
    ),
    # an event with two instances, listed in the other order by the system: instances align
    # by MAKEINSTANCE order, not by eiid (before: 3/5, 3/5)
    "instances": (
        tml("instances",
            f"He {E('e1', 'visited')} Rome {T('t1', 'twice')} and {E('e2', 'returned')} "
            f"{T('t2', 'Sunday', '2013-03-17')} .",
            [("ei1", "e1"), ("ei2", "e1"), ("ei3", "e2")],
            [("ei1", "BEFORE", "ei2"), ("ei2", "BEFORE", "ei3"),
             ("ei3", "IS_INCLUDED", "t2"), ("ei1", "BEFORE", "t2"), ("t2", "BEFORE", "t0")]),
        tml("instances",
            f"He {E('e1', 'visited')} Rome {T('t1', 'twice')} and {E('e2', 'returned')} "
            f"{T('t2', 'Sunday', '2013-03-17')} .",
            [("ei2", "e1"), ("ei1", "e1"), ("ei3", "e2")],
            [("ei2", "BEFORE", "ei1"), ("ei1", "BEFORE", "ei3"),
             ("ei3", "IS_INCLUDED", "t2"), ("ei2", "BEFORE", "t2"), ("t2", "BEFORE", "t0")]),
    ),
    # VAGUE links the normaliser turns (time -> event, a later event first): it cannot invert
    # the label and writes "null"; the Timegraph sets such a link aside upper-cased and then
    # counts it twice, as "null" and as "NULL" (before: 4/4, 4/4)
    "null": (
        tml("null", f"He {E('e1', 'left')} {T('t1', 'Friday')} and {E('e2', 'returned')} .",
            [("ei1", "e1"), ("ei2", "e2")],
            [("ei1", "VAGUE", "t1"), ("ei1", "VAGUE", "ei2"), ("ei2", "AFTER", "ei1"),
             ("ei2", "VAGUE", "t0")]),
        tml("null", f"He {E('e1', 'left')} {T('t1', 'Friday')} and {E('e2', 'returned')} .",
            [("ei1", "e1"), ("ei2", "e2")],
            [("t1", "VAGUE", "ei1"), ("ei2", "VAGUE", "ei1"), ("ei2", "AFTER", "ei1"),
             ("t0", "VAGUE", "ei2")]),
    ),
}
# the toolkit, per document: (prec_matched, system links, rec_matched, reference links)
TOOLKIT = {"spans": (6, 6, 5, 7), "split": (6, 10, 5, 7), "instances": (5, 5, 5, 5),
           "null": (1, 7, 1, 4)}
TOOLKIT_ALL = (66.8213, 64.2857, 69.5652)   # F1, P, R of the four documents together


def write(tmp_path, names):
    for name in names:
        for side, text in zip(("gold", "sys"), CASES[name], strict=True):
            (tmp_path / side).mkdir(exist_ok=True)
            (tmp_path / side / f"{name}.tml").write_text(text, encoding="utf-8")
    return read_timeml_dir(tmp_path / "gold"), read_timeml_dir(tmp_path / "sys")


def counts(scores):
    return {d.doc_id: (d.prec_matched, d.sys_total, d.rec_matched, d.gold_total)
            for d in scores.documents}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_cases_match_the_toolkit(tmp_path, name):
    gold, system = write(tmp_path, [name])
    assert counts(score_corpus(gold, system, "te3")) == {name: TOOLKIT[name]}


def test_hand_cases_together_and_cli(tmp_path, capsys):
    gold, system = write(tmp_path, sorted(CASES))
    scores = score_corpus(gold, system, "te3")
    assert counts(scores) == TOOLKIT
    assert (100 * scores.f1, 100 * scores.precision, 100 * scores.recall) == \
        pytest.approx(TOOLKIT_ALL, abs=5e-5)
    assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys"), "--mode",
                 "te3"]) == 0
    assert "64.2857  69.5652  66.8213" in capsys.readouterr().out


def test_normalised_ids():
    gold, system = (parse_timeml(t) for t in CASES["spans"])
    g, s = te3_link_ids(gold, system)
    assert g == {"t0": "t0", "t1": "t1", "t2": "t2", "ei1": "ei1", "ei2": "ei2", "ei3": "ei3"}
    assert s == {"d0": "t0", "d4": "t1", "d3": "t2", "a7": "ei1", "a5": "ei2", "a6": "ei3"}
    gold, system = (parse_timeml(t) for t in CASES["split"])
    g, s = te3_link_ids(gold, system)
    # 'Officials' (system only) takes e1; 'said a' begins at 'said': aligned with 'said'
    assert [s[k] for k in ("j9", "j1", "j2", "j3")] == ["ei1", "ei2", "ei3", "ei4"]
    assert [g[k] for k in ("ei1", "ei2", "ei3")] == ["ei2", "ei3", "ei4"]
    assert [s[k] for k in ("u1", "u2", "u3")] == ["t1", "t2", "t3"]   # 'night' is new: t2
    assert [g[k] for k in ("t1", "t2")] == ["t1", "t3"]
    gold, system = (parse_timeml(t) for t in CASES["instances"])
    g, s = te3_link_ids(gold, system)
    assert (g["ei1"], g["ei2"], g["ei3"]) == ("ei1", "ei1000001", "ei2")
    assert (s["ei2"], s["ei1"], s["ei3"]) == ("ei1", "ei1000001", "ei2")


def test_unaligned_system_entities_are_noted(tmp_path):
    gold, system = write(tmp_path, ["split"])
    doc = score_corpus(gold, system, "te3").documents[0]
    assert doc.notes["unaligned"] == ["j9", "u2"]


def test_different_texts_fall_back_to_span_alignment(tmp_path, capsys):
    """The toolkit stops where the two texts differ; te3 mode scores with exact-span ids."""
    gold_text, sys_text = CASES["instances"]
    sys_text = sys_text.replace("Rome", "Oslo")  # same offsets
    for side, text in (("gold", gold_text), ("sys", sys_text)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "d.tml").write_text(text, encoding="utf-8")
    scores = score_corpus(read_timeml_dir(tmp_path / "gold"), read_timeml_dir(tmp_path / "sys"),
                          "te3")
    doc = scores.documents[0]
    assert doc.notes["texts_differ"] is True
    assert (doc.prec_matched, doc.sys_total, doc.rec_matched, doc.gold_total) == (3, 5, 3, 5)
    assert main(["temporal", str(tmp_path / "gold"), str(tmp_path / "sys"), "--mode",
                 "te3"]) == 0
    assert "differs from the reference's: 1" in capsys.readouterr().out


# ---------------------------------------------------------------- pilot: TE3-Platinum

from tests.test_temporal_conformance import BASE, needs_data  # noqa: E402  (pilot data)

_WORD_BEFORE, _WORD_AFTER = r"(?:^|(?<=\s))[^\s<>]+\s+$", r"\s+[^\s<>]+(?=\s|$)"


def perturb(raw: str) -> str:
    """A system run with other entity spans and ids, its links kept: by turns, an EVENT
    dropped (its instances and links too), one word more after it, one word more before it;
    a TIMEX3 dropped (and its links), one word more before it, cut to its last word, split
    after its first word (every link of the timex copied to the second half); now and then a
    spurious EVENT linked to the DCT. Then every eid, eiid, tid (the DCT's too) and lid is
    renamed, numbered backwards."""
    head, rest = raw.split("<TEXT>", 1)
    body, tail = rest.split("</TEXT>", 1)
    pieces = re.split(r"(<[^>]+>)", body)
    gone, split, spurious = set(), {}, []
    n_ev = n_tx = 0
    i = 0
    while i < len(pieces):
        p = pieces[i]
        m = re.match(r"<(EVENT|TIMEX3)\b", p)
        if m is None:
            w = re.search(r"(?<=\s)([A-Za-z]{4,})(?=\s)", p)
            if not p.startswith("<") and i % 17 == 5 and w:
                spurious.append(f"sp{len(spurious)}")
                pieces[i] = (p[:w.start()] + f'<EVENT eid="{spurious[-1]}" class="STATE">' +
                             w.group(1) + "</EVENT>" + p[w.end():])
            i += 1
            continue
        close = i + 2
        ident = re.search(r'\b(?:eid|tid)="([^"]*)"', p).group(1)
        if m.group(1) == "EVENT":
            op, n_ev = n_ev % 7, n_ev + 1
        else:
            op, n_tx = 3 + n_tx % 6, n_tx + 1
        words = pieces[i + 1].split(" ")
        if op in (0, 3):                                    # dropped
            gone.add(ident)
            pieces[i] = pieces[close] = ""
        elif op == 1 and (w := re.match(_WORD_AFTER, pieces[close + 1])):
            pieces[i + 1] += pieces[close + 1][:w.end()]
            pieces[close + 1] = pieces[close + 1][w.end():]
        elif op in (2, 4) and (w := re.search(_WORD_BEFORE, pieces[i - 1])):
            pieces[i + 1] = pieces[i - 1][w.start():] + pieces[i + 1]
            pieces[i - 1] = pieces[i - 1][:w.start()]
        elif op == 5 and len(words) > 1:                    # cut to the last word
            pieces[i] = ""
            pieces[i + 1] = " ".join(words[:-1]) + " " + p + words[-1]
        elif op == 6 and len(words) > 1:                    # split after the first word
            split[ident] = ident + "x"
            pieces[i + 1] = (words[0] + "</TIMEX3> " + p.replace(f'"{ident}"', f'"{ident}x"') +
                             " ".join(words[1:]))
        i = close + 1
    body = re.sub(r' (?:anchorTimeID|beginPoint|endPoint)="[^"]*"', "", "".join(pieces))
    for mk in re.findall(r"<MAKEINSTANCE[^>]*>", tail):
        if re.search(r'eventID="([^"]*)"', mk).group(1) in gone:
            gone.add(re.search(r'eiid="([^"]*)"', mk).group(1))
            tail = tail.replace(mk, "")
    links = []
    for link in re.findall(r"<TLINK[^>]*>", tail):
        ids = re.findall(r'(?:ID|Instance|Time)="([^"]*)"', link)
        if not gone.intersection(ids):
            links.append(link)
            links += [link.replace(f'"{t}"', f'"{x}"').replace('lid="', f'lid="{x}')
                      for t, x in split.items() if t in ids]
    dct = re.search(r'<DCT><TIMEX3[^>]*tid="([^"]*)"', head).group(1)
    links += [f'<MAKEINSTANCE eventID="{e}" eiid="i{e}"/>\n<TLINK lid="l{e}" relType="BEFORE" '
              f'eventInstanceID="i{e}" relatedToTime="{dct}"/>' for e in spurious]
    tail = re.sub(r"<[TSA]LINK[^>]*>\n?", "", tail).replace("</TimeML>",
                                                          "\n".join(links) + "\n</TimeML>")
    out = head + "<TEXT>" + body + "</TEXT>" + tail
    for names, prefix in (("eid|eventID", "ev"), ("eiid|eventInstanceID|relatedToEventInstance",
                          "in"), ("tid|timeID|relatedToTime", "tm"), ("lid", "lk")):
        pattern = rf'\b((?:{names})=")([^"]*)"'
        found = sorted({m.group(2) for m in re.finditer(pattern, out)})
        new = {old: f"{prefix}{len(found) - k}" for k, old in enumerate(found)}
        out = re.sub(pattern, lambda m, new=new: f'{m.group(1)}{new[m.group(2)]}"', out)
    return out


# the toolkit on TE3-Platinum's reference against perturb(sys_ning17_SP+ILP): F1, P, R as it
# prints them (before: 10.7265, 13.1215, 9.0708) and the per-document counts
PILOT_RUN = "sys_ning17_SP+ILP"
PILOT_OVERALL = (19.5397, 26.7956, 15.3761)
PILOT_PER_DOC = {
    "AP_20130322": (7, 29, 7, 40),
    "CNN_20130321_821": (2, 3, 2, 11),
    "CNN_20130322_1003": (22, 88, 19, 99),
    "CNN_20130322_1243": (1, 7, 2, 14),
    "CNN_20130322_248": (5, 20, 2, 26),
    "CNN_20130322_314": (5, 27, 2, 42),
    "WSJ_20130318_731": (13, 43, 8, 36),
    "WSJ_20130321_1145": (6, 19, 4, 36),
    "WSJ_20130322_159": (30, 75, 11, 60),
    "WSJ_20130322_804": (7, 29, 9, 41),
    "bbc_20130322_1150": (20, 50, 12, 65),
    "bbc_20130322_1353": (5, 32, 4, 53),
    "bbc_20130322_1600": (6, 18, 3, 27),
    "bbc_20130322_332": (4, 37, 3, 66),
    "bbc_20130322_721": (3, 22, 2, 27),
    "nyt_20130321_china_pollution": (16, 56, 13, 65),
    "nyt_20130321_cyprus": (23, 80, 20, 78),
    "nyt_20130321_sarcozy": (6, 20, 2, 24),
    "nyt_20130321_women_senate": (10, 43, 11, 68),
    "nyt_20130322_strange_computer": (3, 26, 3, 26),
}


@pytest.mark.pilot
@needs_data
def test_pilot_perturbed_matches_the_toolkit(tmp_path):
    (tmp_path / "sys").mkdir()
    for path in sorted((BASE / PILOT_RUN).glob("*.tml")):
        (tmp_path / "sys" / path.name).write_text(perturb(path.read_text(encoding="utf-8")),
                                                  encoding="utf-8")
    scores = score_corpus(read_timeml_dir(BASE / "gold"), read_timeml_dir(tmp_path / "sys"),
                          "te3")
    assert counts(scores) == PILOT_PER_DOC
    assert (100 * scores.f1, 100 * scores.precision, 100 * scores.recall) == \
        pytest.approx(PILOT_OVERALL, abs=5e-5)
