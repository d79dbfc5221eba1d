"""UzZaman & Allen (2011), Figure 1 and Table 1: temporal awareness (closure) against plain
precision/recall (no closure).

Figure 1 (after Tannier & Muller 2008) is an image the text copy lacks; this reconstruction
reproduces every number of Table 1 and every sentence about it: the reference K is the chain
A < B < C < D (three links); S1 = {B < C, C < D} and S3 = {A < B, B < C} state two of K's links;
S2 = {A < B, B < D} states one, and B < D is implied by K. Table 1: P = 1 for all three, R = 2/3,
1/3, 2/3, F = 0.8, 0.5, 0.8. Without closure S2's B < D is not verified: P = 1/2."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactalign.io.timeml import parse_timeml
from exactalign.metrics import temporal

EVENTS = "ABCD"
K = [("A", "BEFORE", "B"), ("B", "BEFORE", "C"), ("C", "BEFORE", "D")]
SYSTEMS = {"S1": [("B", "BEFORE", "C"), ("C", "BEFORE", "D")],
           "S2": [("A", "BEFORE", "B"), ("B", "BEFORE", "D")],
           "S3": [("A", "BEFORE", "B"), ("B", "BEFORE", "C")]}
# Table 1 (P, R); F follows
TABLE1 = {"S1": (Fraction(1), Fraction(2, 3)), "S2": (Fraction(1), Fraction(1, 3)),
          "S3": (Fraction(1), Fraction(2, 3))}
PLAIN = {"S1": (Fraction(1), Fraction(2, 3)), "S2": (Fraction(1, 2), Fraction(1, 3)),
         "S3": (Fraction(1), Fraction(2, 3))}


def doc(links, name="fig1"):
    text = " ".join(f'<EVENT eid="e{x}" class="OCCURRENCE">{x}</EVENT>' for x in EVENTS)
    inst = "".join(f'<MAKEINSTANCE eventID="e{x}" eiid="ei{x}"/>' for x in EVENTS)
    tl = "".join(f'<TLINK lid="l{k}" relType="{r}" eventInstanceID="ei{s}" '
                 f'relatedToEventInstance="ei{t}"/>' for k, (s, r, t) in enumerate(links))
    return parse_timeml(f"<TimeML><DOCID>{name}</DOCID><TEXT>{text}</TEXT>{inst}{tl}</TimeML>",
                        f"{name}.tml")


def counts(mode, system):
    d = temporal.score_corpus({"fig1": doc(K)}, {"fig1": doc(SYSTEMS[system])}, mode).documents[0]
    return Fraction(d.prec_matched, d.sys_total), Fraction(d.rec_matched, d.gold_total)


@pytest.mark.parametrize("mode", ["te3", "exact"])
@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_table1_temporal_awareness(mode, system):
    p, r = counts(mode, system)
    assert (p, r) == TABLE1[system]
    f = 2 * p * r / (p + r)
    assert float(f) == pytest.approx({"S1": 0.8, "S2": 0.5, "S3": 0.8}[system])


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_plain_precision_recall_misses_the_implied_link(system):
    assert counts("plain", system) == PLAIN[system]


def test_plain_counts_a_link_and_its_inverse_once():
    """'B AFTER A' states 'A BEFORE B'; a duplicate counts once."""
    sys_links = [("B", "AFTER", "A"), ("A", "BEFORE", "B"), ("C", "BEFORE", "D")]
    assert counts_for(sys_links) == (Fraction(2, 2), Fraction(2, 3))


def counts_for(links):
    d = temporal.score_corpus({"fig1": doc(K)}, {"fig1": doc(links)}, "plain").documents[0]
    return Fraction(d.prec_matched, d.sys_total), Fraction(d.rec_matched, d.gold_total)
