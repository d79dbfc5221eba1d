"""Native evaluation files as declared-metric documents (the JSONL shape of
:mod:`exactalign.declared.files`), so a declaration runs on the data a field already has.

==========  ==========================================  =======================================
format      reads (reference, system)                    document
==========  ==========================================  =======================================
``amr``     two AMR files, graphs paired by position     ``{"triples", "variables"}`` (Smatch's
            (:func:`exactalign.io.amr.read_pairs`)        triples: instance, attribute and
                                                         relation, normalised as smatch 1.0.4
                                                         compares them; duplicates once)
``conll``   CoNLL-2012 key and response, after the       ``{"entities": [[mention id, ...]]}``
            reference scorer's mention identification
``ree``     GRIT's role-filler entity files               ``{"entities": [{"role", "mentions"}]}``
``gtt``     GTT gold JSON and GTT/IterX predictions       ``{"templates": [{"type", "entities":
                                                         [[[role, mention], ...]]}]}``
==========  ==========================================  =======================================

Each reader returns ``(ids, references, predictions)`` aligned by position (a reference document
the system file lacks gets an empty prediction); :func:`read_native` returns both files'
documents for pairing, where such a document is missing, and named.
"""

from __future__ import annotations

FORMATS = ("jsonl", "amr", "conll", "ree", "gtt")


def amr_document(graph) -> dict:
    """Smatch's triples of one :class:`~exactalign.io.amr.AmrGraph` (duplicates once).
    Variables are renamed ``#0, #1, ...`` (more ``#`` if a constant looks like one), so a
    constant can never be mistaken for a variable."""
    from ..io.amr import normalize
    from ..metrics.smatch import distinct

    g, _ = distinct(graph)
    constants = {normalize(c) for _, _, c in g.attributes}
    prefix = "#"
    while any(c.startswith(prefix) for c in constants):
        prefix += "#"
    names = [f"{prefix}{k}" for k in range(len(g.variables))]
    triples = [["instance", names[v], normalize(c)] for _, v, c in g.instances]
    triples += [[normalize(r), names[v], normalize(c)] for r, v, c in g.attributes]
    triples += [[normalize(r), names[a], names[b]] for r, a, b in g.relations]
    return {"triples": triples, "variables": names}


def read_amr(reference_path, system_path):
    from ..io.amr import read_pairs

    pairs = read_pairs(system_path, reference_path)  # (test, gold) pairs
    ids = [str(k + 1) for k in range(len(pairs))]
    return ids, [amr_document(g) for _, g in pairs], [amr_document(t) for t, _ in pairs]


def read_conll(reference_path, system_path):
    from ..io.conll import read_pair
    from ..metrics.coref import identify

    docs = [identify(k, r) for k, r in read_pair(reference_path, system_path)]
    ids = [d.name for d in docs]
    gold = [{"entities": [c.tolist() for c in d.key_chains]} for d in docs]
    pred = [{"entities": [c.tolist() for c in d.response_chains]} for d in docs]
    return ids, gold, pred


def _some(pred: dict, path) -> dict:
    """``pred``, unless it holds no document: an error, as an empty JSONL file is (every
    reference document would be scored as an empty prediction)."""
    if not pred:
        from ..core.errors import InputError

        raise InputError("no documents (a JSON object without document ids)", path=str(path))
    return pred


def ree_document(slots) -> dict:
    from ..io.gtt import ROLES

    return {"entities": [{"role": role, "mentions": list(e)}
                         for role, ents in zip(ROLES, slots, strict=True) for e in ents]}


def _ree(reference_path, system_path):
    """As :func:`read_ree`, a document absent from the system file ``None``."""
    from ..io import gtt

    gold = gtt.read_ree_gold(reference_path)
    pred = _some(gtt.read_ree_predictions(system_path), system_path)
    ids = list(gold)
    return ids, [ree_document(gold[d]) for d in ids], [ree_document(pred[d]) if d in pred
                                                        else None for d in ids]


def read_ree(reference_path, system_path):
    from ..io.gtt import ROLES

    ids, gold, pred = _ree(reference_path, system_path)
    empty = ree_document(((),) * len(ROLES))
    return ids, gold, [empty if p is None else p for p in pred]


def template_document(templates) -> dict:
    """MUC-4 templates (:class:`exactalign.io.gtt.Template`) as ``{"templates": [{"type",
    "entities"}]}``, each entity a list of ``[role, mention]`` (IterX's structure: a mention
    carries its role)."""
    from ..io.gtt import ROLES

    return {"templates": [
        {"type": t.incident_type,
         "entities": [[[role, m] for m in e] for role, ents in zip(ROLES, t.slots, strict=True)
                      for e in ents]}
        for t in templates]}


def _gtt(reference_path, system_path):
    """As :func:`read_gtt`, a document absent from the system file ``None``."""
    from ..io import gtt

    gold = gtt.read_gold(reference_path)
    pred = _some(gtt.read_predictions(system_path), system_path)
    ids = list(gold)
    return ids, [template_document(gold[d]) for d in ids], [template_document(pred[d])
                                                              if d in pred else None
                                                              for d in ids]


def read_gtt(reference_path, system_path):
    ids, gold, pred = _gtt(reference_path, system_path)
    return ids, gold, [template_document([]) if p is None else p for p in pred]


READERS = {"amr": read_amr, "conll": read_conll, "ree": read_ree, "gtt": read_gtt}
_NATIVE = {"amr": read_amr, "conll": read_conll, "ree": _ree, "gtt": _gtt}


def read_native(format: str, reference_path, system_path):
    """The two files of a native ``format`` as the ``(id, line, document)`` lists of
    :func:`exactalign.declared.files.read_jsonl`: a reference document the system file does
    not hold is left out of the system list, so that pairing names it among the missing
    documents (a warning) instead of scoring an empty prediction without a word."""
    ids, refs, preds = _NATIVE[format](reference_path, system_path)
    return ([(i, None, d) for i, d in zip(ids, refs, strict=True)],
            [(i, None, d) for i, d in zip(ids, preds, strict=True) if d is not None])
