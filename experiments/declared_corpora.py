"""The corpora of the declared-metrics experiment: its families and datasets, seeded
synthetic documents per family (every function draws from the generators it is given, nothing
global) and the pilot datasets, each in the form the declared metrics take."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

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
def conll_cases(root: Path) -> list[dict]:
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
