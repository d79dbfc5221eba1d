"""Declared metrics: every shipped metric of :mod:`exactalign.declared.library` computed by its
greedy twin and by its proven optimum, on the pilot data where the pilot has it in the metric's
native format and on seeded synthetic corpora otherwise; how far the greedy twin falls short.

Data (one ``dataset`` per source; ``kind`` says ``pilot``, ``pilot-derived`` or ``synthetic``)
---------------------------------------------------------------------------------------------
* ``coref-*`` (MUC, B³, CEAFe, CEAFm):

  - ``conll-tests`` (pilot) -- every (key, response) pair of the CoNLL reference scorer's test
    suite (``coref/conll-reference-scorer-tests``, the pairs ``expected_values.json`` names; one
    ``system`` per test case), mentions after the reference scorer's identification
    (:data:`exactalign.declared.convert.READERS` ``conll``). Tiny documents: the exact values
    must equal the suite's expected values (the harness's check, summed |difference| < 1e-4);
  - ``synthetic-coref`` (synthetic) -- gold clusterings of OntoNotes-like size (20-120 token-span
    mentions per document in a Chinese-restaurant partition, some mentions nested in others),
    each perturbed by :func:`exactalign.perturb.clusters.perturb_clusters` at a uniform rate
    (missing, shifted, extra and nested mentions, split and merged entities): one ``system``
    per rate. Mentions are compared by their exact span.

* ``smatch``: ``lpp-test`` (Little Prince v1.6 test, gold vs JAMR and CAMR), ``lpp-two-parsers``
  (200 Little Prince sentences, the BART- and T5-based parsers as two systems: even and odd
  pairs of ``src.test.amr``) and ``bamboo-sts`` (1,380 pairs of silver AMRs, ``src`` vs
  ``tgt``), all read as :func:`exactalign.declared.convert.read_amr` does. Greedy twin: smatch
  1.0.4's hill-climbing (4 restarts, ``random.Random(seed)`` per pair). The exact matched triples
  are held against the independent optimum of ``amr/reference/*.json`` pair by pair -- except on
  pairs where a graph states a triple twice: the declared Smatch counts a duplicate once, smatch
  1.0.4 (and that reference) twice; those pairs are counted in ``note``.
  Without pilot data: ``synthetic-amr``, relabel perturbations of the synthetic bank of
  :func:`experiments.smatch_gap.synthetic_bank`.

* ``ceaf-ree``, ``ceaf-ree-prop``, ``ceaf-ree-phi4``: ``grit-ree`` (pilot: GRIT's role-filler
  entity predictions vs ``muc4/grit/test_ree.json``; CEAF-REE must round to GRIT's published
  54.50) and ``muc4-templates-as-ree`` (pilot-derived: the template predictions of GTT, the
  Das et al. 2022 systems and IterX flattened into role-filler entities -- per role, the
  distinct entities of all predicted templates, in order -- against the same REE gold; these
  systems never output REE themselves, so the numbers are not theirs). Without pilot data:
  ``synthetic-ree``.

* ``ceaf-rme-phi3`` (IterX's CEAF-RME, templates): ``muc4-templates`` (pilot: GTT's gold
  ``muc4/gtt/test.json`` vs the template predictions of GTT, the Das et al. 2022 systems and
  IterX, read by :data:`~exactalign.declared.convert.READERS` ``gtt``). Without pilot data:
  ``synthetic-templates`` (1-3 templates of MUC-4 incident types holding synthetic role-filler
  entities).

* ``event-*`` (trigger id/cls, argument id/cls, hierarchical trigger), ``relation-*`` (strict,
  boundary), ``dependency-*`` (UAS, LAS): no pilot data in these formats; ``synthetic-events``
  (20-60 events per document, ACE-like two-level types, triggers shared by two events, arguments
  drawn from one pool of entity spans so that they collide across events; systems with missed,
  shifted, retyped, split and merged events, dropped, shifted and re-roled arguments, spurious
  events on existing triggers), ``synthetic-relations`` (20-60 relations per document over a
  pool of typed entity mentions; missed, spurious, retyped, swapped, shifted and duplicated
  relations) and ``synthetic-dependency`` (documents of 5-15 sentences, 8-40 tokens each;
  attachment and label errors). One ``system`` per noise rate.

A shipped metric the experiment has no dataset for (one added to the library later) gives one
``kind = absent`` row saying so.

Per (metric, dataset, system) one row: the micro-averaged counts (denominators are self-scores,
exact under both methods), recall / precision / F1 of the exact optimum and of the greedy twin,
the gap in F1 points, the documents where the greedy twin scores below the optimum in recall or
precision and the largest per-document F1 gap, the exact status and its proven F1 bound, both
wall times, the reference value where one exists (``reference_f1``/``reference_match``: the
CoNLL expected F1 under the harness's check; GRIT's published CEAF-REE; the F1 of the
independent smatch optimum with smatch 1.0.4's triple counts), ``fallback`` (solver routes
that failed verification before the exact answers; 0 normally). A pilot source whose folder is
missing gives one ``kind = absent`` row saying so.

Invariants (:class:`ExperimentError`): every exact document proven optimal; the greedy twin never
above the optimum in either direction; equal denominators under both methods; the exact F1 equal
to its proven bound; the CoNLL expected values, the smatch reference optimum (pairs without
duplicate triples) and GRIT's 54.50 reproduced.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from exactalign.core.result import Status
from exactalign.data import resolve_data_dir
from exactalign.declared.library import LIBRARY

from . import plot
from .runner import ExperimentError, fallback_count, parallel_map

NAME = "declared_metrics"
DESCRIPTION = ("Declared metrics (exactalign.declared): each shipped metric's greedy twin vs its "
               "proven optimum -- coreference on the CoNLL scorer tests and perturbed "
               "OntoNotes-sized clusterings, Smatch on the AMR pilot sets, CEAF-REE on GRIT and "
               "MUC-4 template systems, events, relations and dependencies on seeded synthetic "
               "corpora.")
DATA_SOURCE = ("pilot: coref/conll-reference-scorer-tests, amr/lpp-test-jamr-camr, "
               "amr/lpp-two-parsers, amr/bamboo-sts-test (+ amr/reference), muc4/grit, "
               "muc4/gtt, muc4/das2022, muc4/iterx; synthetic (always, labelled kind=synthetic): "
               "perturbed coreference clusterings, events, relations, dependencies; without "
               "pilot data the pilot sources are replaced by synthetic AMR, REE and template "
               "corpora")
#: The paths under the data directory this experiment reads (its meta.json records their digest).
DATA_READS = ("coref/conll-reference-scorer-tests", "amr/lpp-test-jamr-camr",
              "amr/lpp-two-parsers", "amr/bamboo-sts-test", "amr/reference", "muc4/grit",
              "muc4/gtt", "muc4/das2022", "muc4/iterx")
SEEDING = ("synthetic document d of family f: gold from numpy.random.default_rng([seed, f, 0, d])"
           ", the system at rate index s from default_rng([seed, f, 1 + s, d]); the greedy "
           "smatch hill-climbing: random.Random(seed) per pair (Metric.compute(seed=seed))")

TOL = 1e-9
#: CoNLL reference harness: sum of |expected - actual| over (R, P, F1) below this.
CONLL_TOLERANCE = 1e-4
#: GRIT's published CEAF-REE F1 (MANIFEST.md), in percent with two decimals.
GRIT_F1 = 54.50

#: family -> shipped metrics (every LIBRARY entry appears once).
FAMILIES = {
    "coref": ("coref-muc", "coref-bcubed", "coref-ceafe", "coref-ceafm"),
    "smatch": ("smatch",),
    "ree": ("ceaf-ree", "ceaf-ree-prop", "ceaf-ree-phi4"),
    "template": ("ceaf-rme-phi3",),
    "event": ("event-trigger-id", "event-trigger-cls", "event-argument-id",
              "event-argument-cls", "event-trigger-hierarchical"),
    "relation": ("relation-strict", "relation-boundary"),
    "dependency": ("dependency-uas", "dependency-las"),
}
#: index of each family in the seeds.
FAMILY_INDEX = {f: k for k, f in enumerate(FAMILIES)}

CONLL = ("coref", "conll-reference-scorer-tests")
#: smatch datasets: dataset -> [(system, test file, gold file, reference json, parity)]
#: (parity: keep the pairs k with k % 2 == parity; None: all pairs).
SMATCH_SETS = {
    "lpp-test": [("JAMR", "lpp-test-jamr-camr/jamr.txt", "lpp-test-jamr-camr/lp_test.txt",
                  "lp_jamr_vs_gold.json", None),
                 ("CAMR", "lpp-test-jamr-camr/wang.txt", "lpp-test-jamr-camr/lp_test.txt",
                  "lp_camr_vs_gold.json", None)],
    "lpp-two-parsers": [("BART", "lpp-two-parsers/src.test.amr", "lpp-two-parsers/tgt.test.amr",
                         "lp_bart_t5_vs_gold.json", 0),
                        ("T5", "lpp-two-parsers/src.test.amr", "lpp-two-parsers/tgt.test.amr",
                         "lp_bart_t5_vs_gold.json", 1)],
    "bamboo-sts": [("src-vs-tgt", "bamboo-sts-test/src.test.amr", "bamboo-sts-test/tgt.test.amr",
                    "bamboo_sts_test.json", None)],
}
GRIT = ("muc4/grit/test_ree.json", "muc4/grit/preds_s_t.out")
GTT_GOLD = "muc4/gtt/test.json"
#: template systems (CEAF-RME against GTT_GOLD; flattened into REE against GRIT's gold): system -> prediction file (under the pilot folder).
TEMPLATE_SYSTEMS = {
    "GTT": "muc4/gtt/preds_gtt.out",
    "DyGIE++": "muc4/das2022/dygie_muc_preds.out",
    "GE-1992": "muc4/das2022/ge_output.json",
    "NYU-1992": "muc4/das2022/nyu_output.json",
    "SRI-1992": "muc4/das2022/sri_output.json",
    "UMass-1992": "muc4/das2022/umass_output.json",
    "IterX-bart-base": "muc4/iterx/bart-base/preds.test.jsonlines",
    "IterX-bart-large": "muc4/iterx/bart-large/preds.test.jsonlines",
    "IterX-bert-base": "muc4/iterx/bert-base/preds.test.jsonlines",
    "IterX-t5-large-enc": "muc4/iterx/t5-large-enc/preds.test.jsonlines",
}

FULL = {
    "seed": 0,
    "rates": [0.1, 0.2, 0.35],
    "coref_docs": 150,
    "event_docs": 40,
    "relation_docs": 60,
    "dependency_docs": 60,
    "smatch_sets": list(SMATCH_SETS),
    "template_systems": list(TEMPLATE_SYSTEMS),
    "synthetic_fallback_docs": 100,
}
QUICK = {**FULL, "rates": [0.2], "coref_docs": 12, "event_docs": 8, "relation_docs": 6,
         "dependency_docs": 6, "smatch_sets": ["lpp-test"], "template_systems": ["GTT"],
         "synthetic_fallback_docs": 12}

COLUMNS = (
    "family", "metric", "dataset", "system", "kind", "documents", "seed",
    "recall_den", "precision_den", "exact_recall_num", "exact_precision_num",
    "greedy_recall_num", "greedy_precision_num",
    "exact_recall", "exact_precision", "exact_f1", "greedy_recall", "greedy_precision",
    "greedy_f1", "gap_f1_points", "docs_short", "max_doc_gap_f1_points",
    "status", "greedy_status", "f1_bound", "time_exact_s", "time_greedy_s",
    "reference_f1", "reference_match", "note", "fallback", "error",
)
FIGURES = ("gap_by_metric.png",)


def _family(metric: str) -> str:
    return next((f for f, ms in FAMILIES.items() if metric in ms), "other")


# ------------------------------------------------------------------------------------------
# synthetic corpora (every function draws from the generators it is given, nothing global)
# ------------------------------------------------------------------------------------------
def _rngs(seed: int, family: str, system: int, doc: int):
    f = FAMILY_INDEX[family]
    return (np.random.default_rng([seed, f, 0, doc]),
            np.random.default_rng([seed, f, 1 + system, doc]))


def synthetic_coref_gold(rng: np.random.Generator) -> tuple[list, int]:
    """An OntoNotes-sized gold clustering: 20-120 mentions of 1-4 tokens in text order (gaps of
    0-6 tokens; one in eight nested inside the previous mention), entities by a Chinese
    restaurant process (concentration 6: a few long chains, many short ones). Returns the
    clusters (tuples of one-piece spans ``((begin, end),)``) and the document length."""
    clusters: list[list] = []
    sizes: list[int] = []
    pos, prev = 0, None
    for _ in range(int(rng.integers(20, 121))):
        if prev is not None and prev[1] - prev[0] >= 2 and rng.random() < 0.125:
            b = int(rng.integers(prev[0], prev[1] - 1))
            span = (b, int(rng.integers(b + 1, prev[1])))
        else:
            pos += int(rng.integers(0, 7))
            span = (pos, pos + int(rng.integers(1, 5)))
            pos = span[1]
        prev = span
        n = sum(sizes)
        if rng.random() < 6.0 / (n + 6.0):
            clusters.append([(span,)])
            sizes.append(1)
        else:
            k = int(rng.choice(len(sizes), p=np.array(sizes) / n))
            clusters[k].append((span,))
            sizes[k] += 1
    seen, out = set(), []
    for c in clusters:  # a span drawn twice stays in its first entity
        keep = [s for s in c if s not in seen]
        seen.update(keep)
        if keep:
            out.append(tuple(keep))
    return out, pos + 10


def _coref_doc(clusters) -> dict:
    return {"entities": [[list(s[0]) if len(s) == 1 else [list(p) for p in s] for s in c]
                         for c in clusters]}


#: ACE-2005-like event types (two levels) and roles.
EVENT_TYPES = {
    "Conflict": ("Attack", "Demonstrate"),
    "Life": ("Die", "Injure", "Be-Born", "Marry"),
    "Movement": ("Transport",),
    "Justice": ("Arrest-Jail", "Charge-Indict", "Trial-Hearing", "Sentence", "Release-Parole"),
    "Contact": ("Meet", "Phone-Write"),
    "Transaction": ("Transfer-Money", "Transfer-Ownership"),
    "Personnel": ("Elect", "End-Position", "Start-Position"),
}
TYPES = tuple(f"{top}.{sub}" for top, subs in EVENT_TYPES.items() for sub in subs)
ROLES = ("Agent", "Attacker", "Target", "Victim", "Instrument", "Place", "Time", "Person",
         "Entity", "Artifact", "Destination", "Origin")


def _pick(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


def _entity_pool(rng, n: int, length: int, typed: tuple | None = None) -> list:
    """``n`` distinct entity spans ``[b, e]`` of 1-4 tokens in ``[0, length)`` (with a type drawn
    from ``typed`` when given)."""
    pool, seen = [], set()
    while len(pool) < n:
        b = int(rng.integers(0, length - 4))
        s = (b, b + int(rng.integers(1, 5)))
        if s not in seen:
            seen.add(s)
            pool.append([s[0], s[1]] if typed is None else ([s[0], s[1]], _pick(rng, typed)))
    return pool


def _shift(rng, span: list, length: int) -> list:
    b, e = span
    if rng.random() < 0.5:
        b = min(max(0, b + _pick(rng, (-1, 1))), e - 1)
    else:
        e = max(min(length, e + _pick(rng, (-1, 1))), b + 1)
    return [b, e]


def synthetic_event_gold(rng: np.random.Generator) -> tuple[list, list, int]:
    """20-60 events over a document of 25 tokens per event: one-token triggers, one in five
    shared with an earlier event (half the time with the same type: two events of one trigger),
    0-5 arguments from a pool of entity spans (an event sharing a trigger reuses most of the
    earlier event's arguments). Returns (events, entity pool, length)."""
    n = int(rng.integers(20, 61))
    length = 25 * n
    pool = _entity_pool(rng, int(1.3 * n), length)
    events: list[dict] = []
    for _ in range(n):
        if events and rng.random() < 0.2:
            first = _pick(rng, events)
            trigger = list(first["trigger"])
            etype = first["type"] if rng.random() < 0.5 else _pick(rng, TYPES)
            args = [dict(a) for a in first["arguments"] if rng.random() < 0.7]
        else:
            b = int(rng.integers(0, length - 1))
            trigger, etype, args = [b, b + 1], _pick(rng, TYPES), []
        for _ in range(int(rng.integers(0, 6)) - len(args)):
            args.append({"span": list(_pick(rng, pool)), "role": _pick(rng, ROLES)})
        seen, uniq = set(), []
        for a in args:  # one argument per (span, role)
            k = (tuple(a["span"]), a["role"])
            if k not in seen:
                seen.add(k)
                uniq.append(a)
        events.append({"trigger": trigger, "type": etype, "arguments": uniq})
    events.sort(key=lambda e: e["trigger"])
    return events, pool, length


def perturb_events(events: list, pool: list, length: int, rate: float,
                   rng: np.random.Generator) -> list:
    """A system's events at noise ``rate`` (see the module docstring)."""
    out: list[dict] = []
    merged: set = set()
    by_key: dict = {}
    for k, e in enumerate(events):
        by_key.setdefault((tuple(e["trigger"]), e["type"]), []).append(k)
    for k, e in enumerate(events):
        if k in merged or rng.random() < rate / 2:  # missed (or merged into an earlier one)
            continue
        args = [dict(a) for a in e["arguments"]]
        twins = [j for j in by_key[(tuple(e["trigger"]), e["type"])] if j > k]
        if twins and rng.random() < 0.5:  # two events of one trigger and type output as one
            merged.add(twins[0])
            args += [dict(a) for a in events[twins[0]]["arguments"]]
        trigger, etype = list(e["trigger"]), e["type"]
        if rng.random() < rate / 3:
            trigger = _shift(rng, trigger, length)
        if rng.random() < rate / 2:
            top = etype.split(".")[0]
            siblings = [t for t in TYPES if t.startswith(top + ".") and t != etype]
            etype = _pick(rng, siblings) if siblings and rng.random() < 0.6 else _pick(rng, TYPES)
        new = []
        for a in args:
            if rng.random() < rate:
                continue
            span, role = list(a["span"]), a["role"]
            if rng.random() < rate / 2:
                span = _shift(rng, span, length)
            if rng.random() < rate / 2:
                role = _pick(rng, ROLES)
            new.append({"span": span, "role": role})
        for _ in range(int(rng.binomial(2, rate))):
            new.append({"span": list(_pick(rng, pool)), "role": _pick(rng, ROLES)})
        if len(new) >= 2 and rng.random() < rate / 2:  # one event output as two halves
            mask = rng.random(len(new)) < 0.5
            out.append({"trigger": trigger, "type": etype,
                        "arguments": [a for a, m in zip(new, mask, strict=True) if m]})
            new = [a for a, m in zip(new, mask, strict=True) if not m]
        out.append({"trigger": trigger, "type": etype, "arguments": new})
    for _ in range(int(rng.binomial(len(events), rate / 3))):  # spurious events
        if rng.random() < 0.5:
            trigger = list(_pick(rng, events)["trigger"])
        else:
            b = int(rng.integers(0, length - 1))
            trigger = [b, b + 1]
        out.append({"trigger": trigger, "type": _pick(rng, TYPES),
                    "arguments": [{"span": list(_pick(rng, pool)), "role": _pick(rng, ROLES)}
                                  for _ in range(int(rng.integers(0, 4)))]})
    order = rng.permutation(len(out))  # textual order, ties in random order
    return [out[i] for i in sorted(order, key=lambda i: (out[i]["trigger"], int(order[i])))]


ENTITY_TYPES = ("PER", "ORG", "GPE", "LOC", "FAC", "VEH", "WEA")
RELATION_TYPES = ("PHYS", "PART-WHOLE", "PER-SOC", "ORG-AFF", "ART", "GEN-AFF")


def synthetic_relation_gold(rng: np.random.Generator) -> tuple[list, list, int]:
    """20-60 relations over a pool of typed entity mentions (0.8 per relation, so that
    mentions take part in several relations). Returns (relations, pool, length)."""
    n = int(rng.integers(20, 61))
    length = 30 * n
    pool = _entity_pool(rng, max(4, int(0.8 * n)), length, ENTITY_TYPES)
    rels, seen = [], set()
    while len(rels) < n:
        h, t = _pick(rng, pool), _pick(rng, pool)
        r = _pick(rng, RELATION_TYPES)
        key = (r, tuple(h[0]), tuple(t[0]))
        if h is t or key in seen:
            continue
        seen.add(key)
        rels.append({"type": r, "head": {"span": list(h[0]), "type": h[1]},
                     "tail": {"span": list(t[0]), "type": t[1]}})
    return rels, pool, length


def perturb_relations(rels: list, pool: list, length: int, rate: float,
                      rng: np.random.Generator) -> list:
    out = []
    for r in rels:
        if rng.random() < rate / 2:
            continue
        r = json.loads(json.dumps(r))
        if rng.random() < rate / 3:
            r["type"] = _pick(rng, RELATION_TYPES)
        if rng.random() < rate / 4:
            r["head"], r["tail"] = r["tail"], r["head"]
        for arg in ("head", "tail"):
            if rng.random() < rate / 4:
                r[arg]["span"] = _shift(rng, r[arg]["span"], length)
            if rng.random() < rate / 3:
                r[arg]["type"] = _pick(rng, ENTITY_TYPES)
        out.append(r)
        if rng.random() < rate / 4:  # the same pair stated twice (other type)
            out.append({**json.loads(json.dumps(r)), "type": _pick(rng, RELATION_TYPES)})
    for _ in range(int(rng.binomial(len(rels), rate / 3))):
        h, t = _pick(rng, pool), _pick(rng, pool)
        out.append({"type": _pick(rng, RELATION_TYPES), "head": {"span": list(h[0]),
                    "type": h[1]}, "tail": {"span": list(t[0]), "type": t[1]}})
    return out


DEP_LABELS = ("nsubj", "obj", "obl", "amod", "det", "case", "advmod", "nmod", "conj", "cc",
              "mark", "aux", "punct", "compound", "root")


def synthetic_dependency_gold(rng: np.random.Generator) -> tuple[list, list]:
    """A document of 5-15 sentences of 8-40 tokens, tokens numbered through the document from
    1; in each sentence one root (head 0), every other token attached to a token at a
    geometric distance (mostly neighbours). Returns (edges, sentence bounds)."""
    edges, bounds, start = [], [], 1
    for _ in range(int(rng.integers(5, 16))):
        n = int(rng.integers(8, 41))
        root = start + int(rng.integers(0, n))
        for i in range(start, start + n):
            if i == root:
                edges.append({"dep": i, "head": 0, "label": "root"})
                continue
            while True:
                h = i + int(rng.geometric(0.45)) * _pick(rng, (-1, 1))
                if start <= h < start + n and h != i:
                    break
            edges.append({"dep": i, "head": h, "label": _pick(rng, DEP_LABELS[:-1])})
        bounds.append((start, start + n))
        start += n
    return edges, bounds


def perturb_dependencies(edges: list, bounds: list, rate: float,
                         rng: np.random.Generator) -> list:
    out = []
    for e in edges:
        e = dict(e)
        if rng.random() < rate / 2:
            lo, hi = next(b for b in bounds if b[0] <= e["dep"] < b[1])
            choices = [h for h in range(lo, hi) if h not in (e["dep"], e["head"])]
            if choices:
                e["head"] = _pick(rng, choices)
        if rng.random() < rate / 2:
            e["label"] = _pick(rng, DEP_LABELS)
        out.append(e)
    return out


#: Mention vocabulary of the synthetic REE fallback (MUC-4-like role fillers).
REE_WORDS = ("guerrillas", "fmln", "army", "soldiers", "police", "bomb", "dynamite", "car",
             "embassy", "mayor", "priests", "students", "bus", "power station", "urban commandos",
             "shining path", "judge", "peasants", "rifles", "grenade", "headquarters", "bank")
REE_ROLES = ("PerpInd", "PerpOrg", "Target", "Victim", "Weapon")


def synthetic_ree_gold(rng: np.random.Generator) -> list:
    """Without pilot data: 1-8 role-filler entities, each 1-3 mentions of a small vocabulary
    (mention strings shared between entities of one document, as coreferent names are)."""
    ents = []
    for _ in range(int(rng.integers(1, 9))):
        k = int(rng.integers(1, 4))
        ments = list(dict.fromkeys(_pick(rng, REE_WORDS) for _ in range(k)))
        ents.append({"role": _pick(rng, REE_ROLES), "mentions": ments})
    return ents


def perturb_ree(ents: list, rate: float, rng: np.random.Generator) -> list:
    out = []
    for e in ents:
        if rng.random() < rate:
            continue
        ments = [m for m in e["mentions"] if rng.random() >= rate] or e["mentions"][:1]
        if rng.random() < rate:
            ments = list(dict.fromkeys(ments + [_pick(rng, REE_WORDS)]))
        role = _pick(rng, REE_ROLES) if rng.random() < rate / 2 else e["role"]
        out.append({"role": role, "mentions": ments})
    for _ in range(int(rng.binomial(len(ents) + 1, rate))):
        out.append({"role": _pick(rng, REE_ROLES), "mentions": [_pick(rng, REE_WORDS)]})
    return out


INCIDENT_TYPES = ("attack", "bombing", "kidnapping", "arson", "robbery", "forced work stoppage",
                  "attack / bombing")


def _template_doc(templates: list) -> dict:
    return {"templates": [{"type": t, "entities": [[[e["role"], m] for m in e["mentions"]]
                                                   for e in ents]} for t, ents in templates]}


def synthetic_templates(rng: np.random.Generator) -> list:
    """Without pilot data: 1-3 templates, each an incident type and synthetic role-filler
    entities (:func:`synthetic_ree_gold`)."""
    return [(_pick(rng, INCIDENT_TYPES), synthetic_ree_gold(rng))
            for _ in range(int(rng.integers(1, 4)))]


def perturb_templates(templates: list, rate: float, rng: np.random.Generator) -> list:
    out = []
    for t, ents in templates:
        if rng.random() < rate / 2:
            continue
        out.append((_pick(rng, INCIDENT_TYPES) if rng.random() < rate / 3 else t,
                    perturb_ree(ents, rate, rng)))
    if rng.random() < rate:
        out.append((_pick(rng, INCIDENT_TYPES), synthetic_ree_gold(rng)))
    return out


def synthetic_corpus(family: str, rate_index: int, rate: float, n_docs: int, seed: int
                     ) -> tuple[list, list, list]:
    """``(ids, references, predictions)`` of one synthetic (family, system)."""
    from exactalign.perturb.clusters import ClusterNoise, perturb_clusters

    ids, refs, preds = [], [], []
    for d in range(n_docs):
        g, s = _rngs(seed, family, rate_index, d)
        if family == "coref":
            gold, length = synthetic_coref_gold(g)
            sys_, _ = perturb_clusters(gold, length, ClusterNoise.uniform(rate), s)
            ref, pred = _coref_doc(gold), _coref_doc(sys_)
        elif family == "event":
            events, pool, length = synthetic_event_gold(g)
            ref = {"events": events}
            pred = {"events": perturb_events(events, pool, length, rate, s)}
        elif family == "relation":
            rels, pool, length = synthetic_relation_gold(g)
            ref = {"relations": rels}
            pred = {"relations": perturb_relations(rels, pool, length, rate, s)}
        elif family == "dependency":
            edges, bounds = synthetic_dependency_gold(g)
            ref, pred = {"edges": edges}, {"edges": perturb_dependencies(edges, bounds, rate, s)}
        elif family == "ree":
            ents = synthetic_ree_gold(g)
            ref, pred = {"entities": ents}, {"entities": perturb_ree(ents, rate, s)}
        elif family == "template":
            tpl = synthetic_templates(g)
            ref, pred = _template_doc(tpl), _template_doc(perturb_templates(tpl, rate, s))
        elif family == "smatch":
            return _synthetic_amr(rate_index, rate, n_docs, seed)
        else:  # pragma: no cover - FAMILIES is closed
            raise ValueError(family)
        ids.append(f"doc{d}")
        refs.append(ref)
        preds.append(pred)
    return ids, refs, preds


def _synthetic_amr(rate_index: int, rate: float, n_docs: int, seed: int):
    import random

    from exactalign.declared.convert import amr_document

    from .smatch_gap import perturb, synthetic_bank

    bank = synthetic_bank(n_docs, seed)
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    prng = random.Random(f"{seed}-declared-{rate_index}-{rate}")
    pairs = [(perturb(g, "relabel", rate, prng, concepts, roles), g) for g in bank]
    return ([str(k + 1) for k in range(len(pairs))], [amr_document(g) for _, g in pairs],
            [amr_document(t) for t, _ in pairs])


# ------------------------------------------------------------------------------------------
# pilot corpora
# ------------------------------------------------------------------------------------------
def _conll_cases(root: Path) -> list[dict]:
    base = root.joinpath(*CONLL)
    return json.loads((base / "expected_values.json").read_text())


@functools.lru_cache(maxsize=8)
def _conll_case(root: str, key_file: str, response_file: str):
    from exactalign.declared.convert import READERS

    base = Path(root).joinpath(*CONLL)
    return READERS["conll"](base / key_file, base / response_file)


@functools.lru_cache(maxsize=4)
def _amr_pairs(root: str, test_file: str, gold_file: str):
    from exactalign.declared.convert import amr_document
    from exactalign.io.amr import read_pairs
    from exactalign.metrics.smatch import distinct

    amr = Path(root) / "amr"
    pairs = read_pairs(amr / test_file, amr / gold_file)
    return ([amr_document(g) for _, g in pairs], [amr_document(t) for t, _ in pairs],
            [bool(distinct(t)[1] or distinct(g)[1]) for t, g in pairs])


@functools.lru_cache(maxsize=2)
def _ree_gold(root: str):
    from exactalign.io import gtt

    return gtt.read_ree_gold(Path(root) / GRIT[0])


def _templates_as_ree(templates) -> tuple:
    """Role-filler entities of predicted templates: per role, the distinct entities of all
    templates in order."""
    from exactalign.io import gtt

    slots = []
    for role in gtt.ROLES:
        seen: list = []
        for t in templates:
            for e in t.role(role):
                if e not in seen:
                    seen.append(e)
        slots.append(tuple(seen))
    return tuple(slots)


def pilot_corpus(unit: dict, root: Path) -> tuple[list, list, list, dict]:
    """``(ids, references, predictions, reference info)`` of one pilot unit."""
    from exactalign.declared.convert import ree_document
    from exactalign.io import gtt

    ds = unit["dataset"]
    if ds == "conll-tests":
        ids, refs, preds = _conll_case(str(root), unit["key_file"], unit["response_file"])
        return list(ids), refs, preds, {"expected": unit["expected"]}
    if ds in SMATCH_SETS:
        _, test, gold, ref_json, parity = next(s for s in SMATCH_SETS[ds]
                                               if s[0] == unit["system"])
        refs, preds, dup = _amr_pairs(str(root), test, gold)
        ref_path = root / "amr" / "reference" / ref_json  # recorded: absent from a fetched cache
        reference = (json.loads(ref_path.read_text())["per_pair"] if ref_path.is_file()
                     else None)
        keep = [k for k in range(len(refs)) if parity is None or k % 2 == parity]
        return ([str(k + 1) for k in keep], [refs[k] for k in keep], [preds[k] for k in keep],
                {"smatch": None if reference is None else [reference[k] for k in keep],
                 "duplicates": [dup[k] for k in keep], "reference_file": f"amr/reference/"
                 f"{ref_json}"})
    if ds == "muc4-templates":
        from exactalign.declared.convert import READERS

        ids, refs, preds = READERS["gtt"](root / GTT_GOLD, root / TEMPLATE_SYSTEMS[unit["system"]])
        return list(ids), refs, preds, {}
    gold = _ree_gold(str(root))
    ids = list(gold)
    empty = ((),) * len(gtt.ROLES)
    if ds == "grit-ree":
        pred = gtt.read_ree_predictions(root / GRIT[1])
        slots = {d: pred.get(d, empty) for d in ids}
    else:  # muc4-templates-as-ree
        tpl = gtt.read_predictions(root / TEMPLATE_SYSTEMS[unit["system"]])
        slots = {d: _templates_as_ree(tpl.get(d, [])) for d in ids}
    return (ids, [ree_document(gold[d]) for d in ids], [ree_document(slots[d]) for d in ids],
            {"grit": ds == "grit-ree"})


# ------------------------------------------------------------------------------------------
# one unit: a metric on one (dataset, system)
# ------------------------------------------------------------------------------------------
def _nums(doc) -> tuple[float, float, float, float]:
    p = doc.prf
    return p.recall_num, p.recall_den, p.precision_num, p.precision_den


def _f1(rn, rd, pn, pd) -> float:
    r = rn / rd if rd else 0.0
    p = pn / pd if pd else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def measure(metric: str, ids, refs, preds, seed: int, label: str) -> dict:
    """Exact and greedy on one corpus, the invariants checked; the measured columns."""
    m = LIBRARY[metric]()
    ex = m.compute(predictions=preds, references=refs, method="exact", seed=seed, ids=ids)
    gr = m.compute(predictions=preds, references=refs, method="greedy", seed=seed, ids=ids)
    short, doc_gap = 0, 0.0
    for de, dg in zip(ex.documents, gr.documents, strict=True):
        if de.status is not Status.OPTIMAL:
            raise ExperimentError(f"{label}: exact document {de.id} is {de.status.value}, not "
                                  "proven optimal")
        er, erd, ep, epd = _nums(de)
        gr_, grd, gp, gpd = _nums(dg)
        if abs(erd - grd) > TOL * max(1, erd) or abs(epd - gpd) > TOL * max(1, epd):
            raise ExperimentError(f"{label}: document {de.id}: denominators differ between "
                                  f"exact ({erd}, {epd}) and greedy ({grd}, {gpd})")
        if gr_ > er + TOL * max(1, er) or gp > ep + TOL * max(1, ep):
            raise ExperimentError(f"{label}: document {de.id}: greedy ({gr_}, {gp}) above the "
                                  f"exact optimum ({er}, {ep})")
        if gr_ < er - TOL * max(1, er) or gp < ep - TOL * max(1, ep):
            short += 1
        doc_gap = max(doc_gap, 100 * (de.prf.f1 - dg.prf.f1))
    se, sg = ex.score, gr.score
    bound = ex.f1_bound
    if bound is None or abs(bound - se.f1) > 1e-9:
        raise ExperimentError(f"{label}: exact F1 {se.f1!r} is not its proven bound {bound!r}")
    return dict(
        documents=len(ex.documents), recall_den=se.recall_den, precision_den=se.precision_den,
        exact_recall_num=se.recall_num, exact_precision_num=se.precision_num,
        greedy_recall_num=sg.recall_num, greedy_precision_num=sg.precision_num,
        exact_recall=se.recall, exact_precision=se.precision, exact_f1=se.f1,
        greedy_recall=sg.recall, greedy_precision=sg.precision, greedy_f1=sg.f1,
        gap_f1_points=100 * (se.f1 - sg.f1), docs_short=short, max_doc_gap_f1_points=doc_gap,
        status=ex.status.value, greedy_status=gr.status.value, f1_bound=bound,
        time_exact_s=ex.wall_time, time_greedy_s=gr.wall_time,
        fallback=fallback_count(*(r for d in ex.documents for r in d.results)),
        _exact=ex)


def _reference(unit: dict, info: dict, out: dict, label: str) -> dict:
    """The reference columns (and the checks against them)."""
    ex = out.pop("_exact")
    if "expected" in info:
        exp = info["expected"]
        if exp is None:
            return {"note": "no expected value in the suite for this metric"}
        got = (out["exact_recall"], out["exact_precision"], out["exact_f1"])
        diff = sum(abs(e - a) for e, a in zip(exp, got, strict=True))
        if diff >= CONLL_TOLERANCE:
            raise ExperimentError(f"{label}: exact (R, P, F1) {got} differs from the reference "
                                  f"scorer's expected {tuple(exp)} by {diff:.3g}")
        return {"reference_f1": float(exp[2]), "reference_match": True}
    if "smatch" in info and info["smatch"] is None:
        return {"note": f"{info['reference_file']} (recorded, not fetchable) absent: no "
                        "reference optimum to compare with"}
    if "smatch" in info:
        ref, dup = info["smatch"], info["duplicates"]
        compared = 0
        for doc, r, d in zip(ex.documents, ref, dup, strict=True):
            if d:
                continue
            compared += 1
            if abs(doc.results[0].objective - r["optimal_match"]) > 1e-6:
                raise ExperimentError(f"{label}: pair {doc.id}: exact {doc.results[0].objective}"
                                      f" matched triples, the reference optimum "
                                      f"{r['optimal_match']}")
        m = sum(r["optimal_match"] for r in ref)
        f1 = _f1(m, sum(r["gold_triples"] for r in ref), m, sum(r["test_triples"] for r in ref))
        note = (f"{compared}/{len(ref)} pairs equal to the amr/reference optimum"
                + (f"; {len(ref) - compared} pairs state a triple twice (counted once here, "
                   "twice by smatch 1.0.4 and the reference): not compared"
                   if compared < len(ref) else ""))
        return {"reference_f1": f1, "reference_match": compared == len(ref), "note": note}
    if info.get("grit") and unit["metric"] == "ceaf-ree":
        ok = round(100 * out["exact_f1"], 2) == GRIT_F1
        if not ok:
            raise ExperimentError(f"{label}: CEAF-REE {100 * out['exact_f1']:.4f} does not "
                                  f"round to GRIT's published {GRIT_F1}")
        return {"reference_f1": GRIT_F1 / 100, "reference_match": True,
                "note": "GRIT's published CEAF-REE F1 (two decimals)"}
    return {}


def run_unit(unit: dict) -> dict:
    """One row: ``unit["metric"]`` on one (dataset, system), exact and greedy."""
    row = {c: None for c in COLUMNS}
    row.update({k: unit.get(k) for k in ("family", "metric", "dataset", "system", "kind",
                                         "seed")})
    if unit["kind"] == "absent":
        row["note"] = unit["note"]
        return row
    label = f"{unit['metric']} on {unit['dataset']} / {unit['system']}"
    if unit["kind"] == "synthetic":
        ids, refs, preds = synthetic_corpus(unit["family"], unit["rate_index"], unit["rate"],
                                            unit["docs"], unit["seed"])
        info: dict = {}
    else:
        ids, refs, preds, info = pilot_corpus(unit, resolve_data_dir().path)
    out = measure(unit["metric"], ids, refs, preds, unit["seed"], label)
    ref = _reference(unit, info, out, label)
    row.update(out)
    row.update(ref)
    return row


# ------------------------------------------------------------------------------------------
# units
# ------------------------------------------------------------------------------------------
def _absent(family: str, dataset: str, folder: str, seed: int) -> list[dict]:
    return [dict(family=family, metric=m, dataset=dataset, system=None, kind="absent",
                 seed=seed, note=f"pilot folder {folder} absent: dataset skipped")
            for m in FAMILIES[family]]


def _synthetic_units(family: str, dataset: str, docs: int, config: dict) -> list[dict]:
    return [dict(family=family, metric=m, dataset=dataset, system=f"noise {rate:g}",
                 kind="synthetic", seed=config["seed"], rate=float(rate), rate_index=k,
                 docs=docs)
            for k, rate in enumerate(config["rates"]) for m in FAMILIES[family]]


def units(config: dict) -> list[dict]:
    """Every (metric, dataset, system) instance, pilot sources first."""
    seed = config["seed"]
    data = resolve_data_dir()
    out: list[dict] = []
    if data.available:
        root = data.path
        if root.joinpath(*CONLL, "expected_values.json").is_file():
            for case in _conll_cases(root):
                for m in FAMILIES["coref"]:
                    short = {"coref-muc": "muc", "coref-bcubed": "bcub",
                             "coref-ceafe": "ceafe", "coref-ceafm": "ceafm"}[m]
                    out.append(dict(family="coref", metric=m, dataset="conll-tests",
                                    system=f"{case['id']} ({Path(case['response_file']).name})",
                                    kind="pilot", seed=seed, key_file=case["key_file"],
                                    response_file=case["response_file"],
                                    expected=case["expected_metrics"].get(short)))
        else:
            out += _absent("coref", "conll-tests", "/".join(CONLL), seed)
        for ds in config["smatch_sets"]:
            for system, test, gold, _, _ in SMATCH_SETS[ds]:
                need = [root / "amr" / test, root / "amr" / gold]  # reference: when there
                if all(p.is_file() for p in need):
                    out.append(dict(family="smatch", metric="smatch", dataset=ds, system=system,
                                    kind="pilot", seed=seed))
                else:
                    out.append(dict(_absent("smatch", ds, f"amr/{Path(test).parent}", seed)[0],
                                    system=system))
        if all((root / p).is_file() for p in GRIT):
            out += [dict(family="ree", metric=m, dataset="grit-ree", system="GRIT", kind="pilot",
                         seed=seed) for m in FAMILIES["ree"]]
            for system in config["template_systems"]:
                if (root / TEMPLATE_SYSTEMS[system]).is_file():
                    out += [dict(family="ree", metric=m, dataset="muc4-templates-as-ree",
                                 system=system, kind="pilot-derived", seed=seed)
                            for m in FAMILIES["ree"]]
                else:
                    out += [dict(u, system=system) for u in _absent(
                        "ree", "muc4-templates-as-ree", str(Path(TEMPLATE_SYSTEMS[system]).parent),
                        seed)]
        else:
            out += _absent("ree", "grit-ree", "muc4/grit", seed)
        for system in config["template_systems"]:
            files = (root / GTT_GOLD, root / TEMPLATE_SYSTEMS[system])
            if all(f.is_file() for f in files):
                out += [dict(family="template", metric=m, dataset="muc4-templates",
                             system=system, kind="pilot", seed=seed)
                        for m in FAMILIES["template"]]
            else:
                out += [dict(u, system=system) for u in _absent(
                    "template", "muc4-templates", str(Path(TEMPLATE_SYSTEMS[system]).parent),
                    seed)]
    else:
        n = config["synthetic_fallback_docs"]
        out += _synthetic_units("smatch", "synthetic-amr", n, config)
        out += _synthetic_units("ree", "synthetic-ree", n, config)
        out += _synthetic_units("template", "synthetic-templates", n, config)
    out += _synthetic_units("coref", "synthetic-coref", config["coref_docs"], config)
    out += _synthetic_units("event", "synthetic-events", config["event_docs"], config)
    out += _synthetic_units("relation", "synthetic-relations", config["relation_docs"], config)
    out += _synthetic_units("dependency", "synthetic-dependency", config["dependency_docs"],
                            config)
    covered = {m for ms in FAMILIES.values() for m in ms}
    out += [dict(family="other", metric=m, dataset=None, system=None, kind="absent", seed=seed,
                 note="no dataset configured for this metric in the experiment")
            for m in LIBRARY if m not in covered]
    return out


def _cells(unit: dict) -> dict:
    return {k: unit.get(k) for k in ("family", "metric", "dataset", "system", "kind", "seed")}


def run(config: dict, *, jobs: int = 1, quiet: bool = False) -> list[dict]:
    rows = parallel_map(run_unit, units(config), jobs=jobs, desc=NAME, quiet=quiet,
                        cells=_cells)
    return [{c: r[c] for c in COLUMNS} for r in rows]


# ------------------------------------------------------------------------------------------
# summary and figure (from the CSV rows alone)
# ------------------------------------------------------------------------------------------
def _groups(rows: list[dict]) -> list[tuple[str, str, list[dict]]]:
    keys = list(dict.fromkeys((r["metric"], r["dataset"]) for r in rows))
    order = {m: k for k, m in enumerate(m for ms in FAMILIES.values() for m in ms)}
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    return [(m, d, [r for r in rows if r["metric"] == m and r["dataset"] == d])
            for m, d in keys]


def pooled(sel: list[dict]) -> tuple[float, float]:
    """Micro F1 of the exact and the greedy counts summed over ``sel``'s rows."""
    rd = sum(r["recall_den"] for r in sel)
    pd = sum(r["precision_den"] for r in sel)
    fe = _f1(sum(r["exact_recall_num"] for r in sel), rd,
             sum(r["exact_precision_num"] for r in sel), pd)
    fg = _f1(sum(r["greedy_recall_num"] for r in sel), rd,
             sum(r["greedy_precision_num"] for r in sel), pd)
    return fe, fg


def summary(rows: list[dict]) -> str:
    """Per metric and dataset: exact vs greedy F1 (pooled over the systems), the gap, the
    largest system gap, documents where greedy is short, status and time; then which data is
    synthetic, the reference checks and the systems with the largest gaps."""
    measured = [r for r in rows if r["kind"] != "absent"]
    head = ["metric", "dataset", "data", "systems", "docs", "exact F1", "greedy F1",
            "gap (pts)", "max system gap (pts)", "docs short", "max doc gap (pts)", "exact",
            "exact s", "greedy s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 3 + ["---:"] * 11) + "|"]
    for metric, ds, sel in _groups(measured):
        fe, fg = pooled(sel)
        docs = sum(r["documents"] for r in sel)
        short = sum(r["docs_short"] for r in sel)
        statuses = sorted({r["status"] for r in sel})
        lines.append("| " + " | ".join([
            metric, ds, sel[0]["kind"], str(len(sel)), str(docs), f"{100 * fe:.2f}",
            f"{100 * fg:.2f}", f"{100 * (fe - fg):.3f}",
            f"{max(r['gap_f1_points'] for r in sel):.3f}",
            f"{short} ({100 * short / docs:.1f}%)" if docs else "0",
            f"{max(r['max_doc_gap_f1_points'] for r in sel):.2f}", "/".join(statuses),
            f"{sum(r['time_exact_s'] for r in sel):.2f}",
            f"{sum(r['time_greedy_s'] for r in sel):.2f}"]) + " |")
    lines.append("")
    lines.append("F1 in percent, micro-averaged over every document of the dataset's systems "
                 "(counts summed); gap = exact − greedy F1; max system gap: the largest gap of "
                 "one system's corpus; docs short: documents where the greedy twin scores below "
                 "the optimum in recall or precision; exact: the status of the exact solves "
                 "(optimal = proven, with the F1 equal to its proven bound).")
    kinds: dict = {}
    for r in measured:
        kinds.setdefault(r["kind"], []).append(r["dataset"])
    parts = [f"{k}: {', '.join(dict.fromkeys(v))}" for k, v in kinds.items()]
    lines.append("Data -- " + "; ".join(parts) + ". Synthetic corpora are seeded and generated "
                 "in the experiment (see the module docstring); pilot-derived: MUC-4 template "
                 "predictions flattened into role-filler entities (not the systems' own REE "
                 "output).")
    absent = [r for r in rows if r["kind"] == "absent"]
    if absent:
        notes = list(dict.fromkeys(f"{r['metric'] if r['dataset'] is None else r['dataset']} "
                                   f"({r['note']})" for r in absent))
        lines.append("Skipped: " + "; ".join(notes) + ".")
    if not any(r["kind"] in ("pilot", "pilot-derived") for r in rows) and not absent:
        lines.append("No pilot data: the pilot sources (CoNLL tests, AMR sets, GRIT, MUC-4 "
                     "templates) were replaced by the synthetic-amr, synthetic-ree and "
                     "synthetic-templates corpora.")
    conll = [r for r in measured if r["dataset"] == "conll-tests"]
    if conll:
        checked = [r for r in conll if r["reference_match"] is not None]
        ok = sum(1 for r in checked if r["reference_match"])
        lines.append(f"CoNLL reference scorer tests: {ok}/{len(checked)} (case, metric) exact "
                     "(R, P, F1) triples equal the suite's expected values (harness check, "
                     f"summed difference < {CONLL_TOLERANCE:g}); "
                     f"{len(conll) - len(checked)} (case, metric) pairs have no expected value.")
    sm = [r for r in measured if r["metric"] == "smatch" and r["kind"] == "pilot"]
    for r in sm:
        ref = ("no reference F1" if r["reference_f1"] is None else
               f"reference F1 (smatch 1.0.4 triple counts) {100 * r['reference_f1']:.2f}")
        lines.append(f"Smatch {r['dataset']} / {r['system']}: {r['note']}; {ref}, declared "
                     f"exact {100 * r['exact_f1']:.2f}.")
    grit = [r for r in measured if r["dataset"] == "grit-ree" and r["reference_f1"] is not None]
    for r in grit:
        lines.append(f"GRIT CEAF-REE exact {100 * r['exact_f1']:.2f} = published "
                     f"{100 * r['reference_f1']:.2f}.")
    gaps = sorted((r for r in measured if r["gap_f1_points"] > 1e-9),
                  key=lambda r: -r["gap_f1_points"])
    if gaps:
        lines += ["", "Systems with the largest gaps:", "",
                  "| metric | dataset | system | docs | exact F1 | greedy F1 | gap (pts) | "
                  "docs short |", "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in gaps[:12]:
            lines.append(f"| {r['metric']} | {r['dataset']} | {r['system']} | {r['documents']} "
                         f"| {100 * r['exact_f1']:.2f} | {100 * r['greedy_f1']:.2f} | "
                         f"{r['gap_f1_points']:.3f} | {r['docs_short']} |")
    zero = [f"{m} ({d})" for m, d, sel in _groups(measured)
            if all(r["gap_f1_points"] <= 1e-9 and r["docs_short"] == 0 for r in sel)]
    if zero:
        lines += ["", "Greedy equal to the optimum on every document: " + ", ".join(zero)
                  + ". For some this holds by construction: MUC matches N:N (nothing to "
                  "choose); relations, dependencies, trigger identification/classification and "
                  "B³'s memberships have 0/1 element similarities with an equality key, so every "
                  "block of candidate pairs is complete with equal weights. For the others it "
                  "is a property of this data."]
    same = [d for m, d, sel in _groups(measured) if m == "ceaf-ree-prop"
            and all(any(o["metric"] == "ceaf-ree" and o["dataset"] == d and o["system"]
                        == r["system"] and o["exact_recall_num"] == r["exact_recall_num"]
                        and o["greedy_recall_num"] == r["greedy_recall_num"] for o in measured)
                    for r in sel)]
    if same:
        lines.append("ceaf-ree-prop equals ceaf-ree on " + ", ".join(same) + ", as it must where "
                     "every predicted entity has a single mention (GRIT's and the template "
                     "systems' entities do): then φ_prop = |g ∩ p| / |p| = [p ⊆ g] = φ_strict.")
    return "\n".join(lines) + "\n"


def headline(rows: list[dict], meta: dict | None = None) -> dict:
    """The summary's line: one instance per (metric, dataset, system) corpus; below: corpora
    whose greedy F1 is under the exact one (gap: the corpus F1 lost, in points); the documents
    and metrics in the finding."""
    measured = [r for r in rows if r["kind"] != "absent"]
    below = [r for r in measured if r["gap_f1_points"] > 1e-9]
    docs = sum(r["documents"] for r in measured)
    short = sum(r["docs_short"] for r in measured)
    metrics = sorted({r["metric"] for r in measured})
    losing = sorted({r["metric"] for r in below})
    worst = max(below, key=lambda r: r["gap_f1_points"], default=None)
    finding = (f"The greedy twin falls below the proven optimum for {len(losing)} of "
               f"{len(metrics)} declared metrics, on {short:,} of {docs:,} documents")
    if worst is not None:
        finding += (f"; the largest corpus loss is {worst['gap_f1_points']:.2f} F1 points "
                    f"({worst['metric']}, {worst['dataset']}, {worst['system']})")
    finding += "."
    flips = pairs = 0  # system pairs ordered one way by exact F1, the other by greedy F1
    by_corpus: dict = {}
    for r in measured:
        by_corpus.setdefault((r["metric"], r["dataset"]), []).append(r)
    for rs in by_corpus.values():
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                e, g = a["exact_f1"] - b["exact_f1"], a["greedy_f1"] - b["greedy_f1"]
                pairs += 1
                flips += (e > 1e-12 and g < -1e-12) or (e < -1e-12 and g > 1e-12)
    return {"heuristic": "greedy twins", "unit": "corpora (metric × system)",
            "instances": len(measured), "below": len(below),
            "gap_mean": (sum(r["gap_f1_points"] for r in below) / len(below)) if below else None,
            "gap_max": worst["gap_f1_points"] if worst is not None else 0.0,
            "gap_unit": "F1 points", "rankings_changed": flips, "rankings": pairs,
            "ranking_unit": "system pairs", "finding": finding}


#: One Okabe-Ito colour per family (:data:`experiments.plot.OKABE_ITO`).
FAMILY_COLORS = {f: plot.OKABE_ITO[c] for f, c in (
    ("coref", "blue"), ("smatch", "bluish green"), ("ree", "reddish purple"),
    ("template", "sky blue"), ("event", "vermillion"), ("relation", "orange"),
    ("dependency", "black"))}


def figures(csv_path: Path, out_dir: Path) -> list[Path]:
    """``gap_by_metric.png``: per (metric, dataset), the pooled F1 gap of the greedy twin (bar;
    dots: each system's own gap) and the share of documents where it falls short."""
    from matplotlib.patches import Patch

    from .runner import completed_rows

    plt = plot.pyplot()
    rows = [r for r in completed_rows(csv_path) if r["kind"] != "absent"]
    groups = _groups(rows)
    n = len(groups)
    fig, axes = plt.subplots(1, 2, figsize=(plot.TEXT_WIDTH, 0.2 * n + 1.2), sharey=True,
                             layout="constrained", gridspec_kw={"width_ratios": [3, 2]})
    ys = np.arange(n)[::-1]
    labels = []
    for y, (metric, ds, sel) in zip(ys, groups, strict=True):
        fe, fg = pooled(sel)
        color = FAMILY_COLORS.get(_family(metric), "k")
        gap = 100 * (fe - fg)
        hatch = None if sel[0]["kind"].startswith("pilot") else "///"
        axes[0].barh(y, gap, color=color, alpha=0.8, hatch=hatch, edgecolor="white",
                     linewidth=0)
        sys_gaps = [r["gap_f1_points"] for r in sel]
        axes[0].plot(sys_gaps, [y] * len(sys_gaps), "|", color="k", markersize=5, alpha=0.6)
        zero = gap <= 1e-9 and max(sys_gaps) <= 1e-9
        axes[0].text(max([gap, 0.0, *sys_gaps]), y,
                     " 0 (greedy optimal)" if zero else f"  {gap:.3f}",
                     va="center", fontsize=5.5, color="#555555" if zero else "#222222")
        docs = sum(r["documents"] for r in sel)
        share = 100 * sum(r["docs_short"] for r in sel) / docs if docs else 0.0
        axes[1].barh(y, share, color=color, alpha=0.8, hatch=hatch, edgecolor="white",
                     linewidth=0)
        axes[1].text(share, y, f" {share:.1f}%" if share else " 0", va="center", fontsize=5.5,
                     color="#333333" if share else "#555555")
        labels.append(f"{metric} · {ds}")
    axes[0].set_yticks(ys, labels, fontsize=6.5)
    axes[0].set_xlim(0, 1.2 * max([r["gap_f1_points"] for r in rows] + [0.05]))
    axes[0].set_xlabel("F1 gap, exact − greedy [points]\n(bar and value: all systems pooled; "
                       "ticks: each system's own gap)")
    axes[1].set_xlabel("documents where greedy falls short [%]")
    axes[1].set_xlim(0, 1.2 * max(axes[1].get_xlim()[1], 1.0))
    for ax in axes:
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_ylim(-0.7, n - 0.3)
    handles = [Patch(color=c, alpha=0.8, label=f) for f, c in FAMILY_COLORS.items()
               if any(_family(m) == f for m, _, _ in groups)]
    handles.append(Patch(facecolor="white", edgecolor="k", hatch="///", label="synthetic data"))
    plot.legend_below(fig, handles, [h.get_label() for h in handles], ncol=4)
    fig.suptitle("Declared metrics: how far each greedy twin falls below the proven optimum",
                 fontsize=9)
    return [plot.save(fig, Path(out_dir) / "gap_by_metric.png")]


__all__ = ["COLUMNS", "DESCRIPTION", "FIGURES", "FULL", "NAME", "QUICK", "run", "summary",
           "headline", "figures", "units", "measure"]
