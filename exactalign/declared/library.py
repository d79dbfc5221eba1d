"""The shipped declared metrics, each a few lines of Chen et al. (2023)'s algebra.

Every entry of :data:`LIBRARY` is a function returning a fresh :class:`Metric`; the document
shape each expects is in its docstring (JSON: spans are ``[start, end)`` offsets, mentions any
JSON value compared by equality). ``exactalign score --metric NAME`` runs them;
``exactalign score --list`` prints them.

=============================  =================================================================
name                           declaration
=============================  =================================================================
``coref-muc``                  entities, N:N, link similarity ``max(0, |k ∩ r| - 1)``
``coref-bcubed``               memberships (mention, entity), 1:1 by mention, entity overlap
                               normalised in the direction of the outer score
``coref-ceafe``                entities 1:1, ``φ4``: F1 (Dice) of the mention overlap
``coref-ceafm``                entities 1:1, ``φ3``: the mention overlap ``|k ∩ r|``
``relation-strict``            relations 1:1: type, head and tail spans and entity types
``relation-boundary``          relations 1:1: type, head and tail spans
``event-trigger-id``           events 1:1 by trigger span
``event-trigger-cls``          events 1:1 by trigger span and type
``event-argument-id``          events 1:1 (trigger span and type), arguments 1:1 by span inside
                               each event pair (Eq. 16: the nested matching)
``event-argument-cls``         the same, arguments by span and role
``event-trigger-hierarchical`` §6: trigger span, type credit by depth of the common type prefix
``dependency-uas``             edges 1:1 by (dependent, head)
``dependency-las``             edges 1:1 by (dependent, head, label)
``ceaf-ree``                   role-filler entities 1:1 within a role, ``φ = [p ⊆ g]``
                               (GRIT's CEAF-REE)
``ceaf-ree-prop``              the same with ``φ = |g ∩ p| / |p|``
``ceaf-ree-phi4``              §6's partial credit: ``φ4`` (F1 of the mention overlap) instead of
                               ``[p ⊆ g]``
``ceaf-rme-phi3``              templates 1:1 (incident types sharing a label), inside a pair
                               entities 1:1 by common mentions (role and string), recall over
                               gold entities: IterX's CEAF-RME φ3 over every alignment it could
                               choose
``smatch``                     triples with variables, one 1:1 variable mapping (Smatch)
=============================  =================================================================
"""

from __future__ import annotations

from collections.abc import Callable

from .metric import Metric
from .nodes import Eq, Func, Hierarchy, Latent, Match, Record, Span


def muc_link(key, response) -> float:
    """MUC's similarity of two entities (Chen et al. §3.2): ``max(0, |k ∩ r| - 1)`` common
    links."""
    return float(max(0, len(set(map(_h, key)) & set(map(_h, response))) - 1))


def _h(v):
    return tuple(_h(x) for x in v) if isinstance(v, list | tuple) else v


def memberships(entities) -> list[dict]:
    """B³'s data structure: one ``{"mention", "entity"}`` record per mention."""
    return [{"mention": m, "entity": e} for e in entities for m in e]


def coref_muc() -> Metric:
    """MUC (Vilain et al. 1995). Document: ``{"entities": [[mention, ...], ...]}``."""
    return Metric(Match(Func(muc_link, name="muc_link", shares_element=True, bounded=False,
                             like=Match(Eq())), "N:N"), field="entities", name="coref-muc")


def coref_bcubed() -> Metric:
    """B³ (Bagga & Baldwin 1998). Document: ``{"entities": [[mention, ...], ...]}``."""
    member = Record({"mention": Eq(), "entity": Match(Eq(), normalizer="directional")})
    return Metric(Match(member, "1:1"), field="entities", name="coref-bcubed",
                  transform=memberships)


def coref_ceafe() -> Metric:
    """Entity CEAF, φ4 (Luo 2005). Document: ``{"entities": [[mention, ...], ...]}``."""
    return Metric(Match(Match(Eq(), normalizer="f1"), "1:1"), field="entities",
                  name="coref-ceafe")


def coref_ceafm() -> Metric:
    """Mention CEAF, φ3 (Luo 2005). Document: ``{"entities": [[mention, ...], ...]}``."""
    return Metric(Match(Match(Eq()), "1:1"), field="entities", name="coref-ceafm")


def _argument(span: bool = True, typed: bool = False) -> Record:
    fields: dict = {"span": Span()}
    if typed:
        fields["type"] = Eq()
    return Record(fields)


def relation_strict() -> Metric:
    """Relation extraction, strict. Document: ``{"relations": [{"type", "head": {"span",
    "type"}, "tail": {"span", "type"}}, ...]}``."""
    return Metric(Match(Record({"type": Eq(), "head": _argument(typed=True),
                                "tail": _argument(typed=True)})),
                  field="relations", name="relation-strict")


def relation_boundary() -> Metric:
    """Relation extraction, boundaries only (entity types ignored). Document as
    :func:`relation_strict`."""
    return Metric(Match(Record({"type": Eq(), "head": _argument(), "tail": _argument()})),
                  field="relations", name="relation-boundary")


_EVENTS_DOC = ('Document: ``{"events": [{"trigger": [start, end], "type": str, "arguments": '
               '[{"span": [start, end], "role": str}, ...]}, ...]}``.')


def event_trigger_id() -> Metric:
    return Metric(Match(Record({"trigger": Span()})), field="events", name="event-trigger-id")


def event_trigger_cls() -> Metric:
    return Metric(Match(Record({"trigger": Span(), "type": Eq()})), field="events",
                  name="event-trigger-cls")


def event_argument_id() -> Metric:
    args = Match(Span(field="span"), "1:1")
    return Metric(Match(Record({"trigger": Span(), "type": Eq(), "arguments": args})),
                  field="events", name="event-argument-id")


def event_argument_cls() -> Metric:
    args = Match(Record({"span": Span(), "role": Eq()}), "1:1")
    return Metric(Match(Record({"trigger": Span(), "type": Eq(), "arguments": args})),
                  field="events", name="event-argument-cls")


def event_trigger_hierarchical() -> Metric:
    """§6's hierarchical ontologies: a trigger with the right span earns the share of type
    levels predicted right from the top (``Conflict.Attack`` vs ``Conflict.Demonstrate``: 1/2)."""
    return Metric(Match(Record({"trigger": Span(), "type": Hierarchy()})), field="events",
                  name="event-trigger-hierarchical")


for _f in (event_trigger_id, event_trigger_cls, event_argument_id, event_argument_cls):
    _f.__doc__ = f"Event extraction ({_f.__name__.replace('_', ' ')}). {_EVENTS_DOC}"


def dependency_uas() -> Metric:
    """Unlabelled attachment. Document: ``{"edges": [{"dep": int, "head": int, "label": str},
    ...]}``."""
    return Metric(Match(Record({"dep": Eq(), "head": Eq()})), field="edges",
                  name="dependency-uas")


def dependency_las() -> Metric:
    """Labelled attachment. Document as :func:`dependency_uas`."""
    return Metric(Match(Record({"dep": Eq(), "head": Eq(), "label": Eq()})), field="edges",
                  name="dependency-las")


def ceaf_ree() -> Metric:
    """CEAF-REE (Du, Rush & Cardie 2021), ``φ_strict``. Document: ``{"entities": [{"role":
    str, "mentions": [str, ...]}, ...]}`` (one record per role-filler entity)."""
    subset = Match(Eq(), normalizer="precision", minimum=1.0, binary=True)
    return Metric(Match(Record({"role": Eq(), "mentions": subset}, )), field="entities",
                  name="ceaf-ree")


def ceaf_ree_prop() -> Metric:
    """CEAF-REE with ``φ_prop = |g ∩ p| / |p|``. Document as :func:`ceaf_ree`."""
    prop = Match(Eq(), normalizer="precision")
    return Metric(Match(Record({"role": Eq(), "mentions": prop})), field="entities",
                  name="ceaf-ree-prop")


def ceaf_ree_phi4() -> Metric:
    """CEAF-REE with partial credit (Chen et al. §6: "replace φ_REE with φ3 or φ4"): ``φ4 =
    2|g ∩ p| / (|g| + |p|)``. Document as :func:`ceaf_ree`."""
    return Metric(Match(Record({"role": Eq(), "mentions": Match(Eq(), normalizer="f1")})),
                  field="entities", name="ceaf-ree-phi4")


def type_labels_overlap(gold, pred) -> float:
    """1 when two MUC-4 incident types share a label (``"attack / bombing"`` has two), else 0:
    IterX lets a multi-label gold template match a prediction of either label."""
    def labels(t):
        return {x.strip() for x in str(t).split("/")}

    return 1.0 if labels(gold) & labels(pred) else 0.0


def ceaf_rme_phi3() -> Metric:
    """CEAF-RME with ``φ3`` (Chen et al. 2023, IterX): predicted templates aligned 1:1 to gold
    templates of a compatible incident type; a pair scores the best 1:1 matching of their
    entities by common mentions (``|e ∩ g|``, mentions compared with their role); precision
    and recall over all predicted and gold mentions. Document: ``{"templates": [{"type": str,
    "entities": [[[role, mention], ...], ...]}, ...]}`` (:func:`exactalign.declared.convert.
    template_document`). IterX splits a multi-label gold template and keeps the label with the
    larger row sum before its assignment; the exact search allows either label, so it is never
    below IterX's score."""
    entities = Match(Match(Eq(), "1:1"), "1:1")
    template = Record({"type": Func(type_labels_overlap, name="type_labels_overlap",
                                    like=Eq()),
                       "entities": entities})
    return Metric(Match(template, "1:1"), field="templates", name="ceaf-rme-phi3",
                  recall_denominator="entities")


def smatch() -> Metric:
    """Smatch (Cai & Knight 2013) on any triple set. Document: ``{"triples": [[relation,
    source, target], ...], "variables": [name, ...]}``."""
    return Metric(Latent(), name="smatch")


#: name -> constructor of every shipped metric.
LIBRARY: dict[str, Callable[[], Metric]] = {
    "coref-muc": coref_muc,
    "coref-bcubed": coref_bcubed,
    "coref-ceafe": coref_ceafe,
    "coref-ceafm": coref_ceafm,
    "relation-strict": relation_strict,
    "relation-boundary": relation_boundary,
    "event-trigger-id": event_trigger_id,
    "event-trigger-cls": event_trigger_cls,
    "event-argument-id": event_argument_id,
    "event-argument-cls": event_argument_cls,
    "event-trigger-hierarchical": event_trigger_hierarchical,
    "dependency-uas": dependency_uas,
    "dependency-las": dependency_las,
    "ceaf-ree": ceaf_ree,
    "ceaf-ree-prop": ceaf_ree_prop,
    "ceaf-ree-phi4": ceaf_ree_phi4,
    "ceaf-rme-phi3": ceaf_rme_phi3,
    "smatch": smatch,
}
