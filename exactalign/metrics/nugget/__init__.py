"""Event-nugget (mention detection) scoring: the TAC KBP scorer v1.8, faithfully, and exactly.

The metric (EvmEval ``scorer_v1.8.py``), per document:

1. *Similarity*: the Dice coefficient of the spans, ``2 |G ∩ S| / (|G| + |S|)``, over token ids
   (token mode) or characters (character mode). Quirk reproduced: in character mode v1.8 counts
   the characters of a span as a *list*, so overlapping or repeated pieces inflate the
   denominator (:attr:`~exactalign.io.tbf.Mention.size`). Only pairs with Dice > 0 are
   candidates.
2. *Attribute combinations*: ``plain`` (span only) and every non-empty combination of the
   attributes in column order (by default ``mention_type``, ``realis_status``,
   ``mention_type+realis_status``). For a combination, a pair is a candidate only when the
   canonical attributes (:func:`~exactalign.io.tbf.canonical`) agree on every attribute of the
   combination; a gold value ``NOT_ANNOTATED`` agrees with anything ("full credit").
3. *Mapping*: for **each combination separately**, a 1:1 alignment of gold (rows) and system
   (columns) mentions on those candidates. v1.8 pops one heap of all pairs in the order
   ``(-Dice, system index, gold index)`` and, for each combination with its own used-sets,
   keeps a pair whose two mentions are still free and whose attributes match: exactly the global
   greedy of :func:`exactalign.problems.bipartite.greedy` on the combination's filtered
   instance. Mappings, by name (:data:`MAPPINGS`): ``kbp`` (that greedy, v1.7-v1.8),
   ``kbp-gold-order`` (v1.6 of 2015-08-11: gold mentions in order take their best free system
   mention), ``pilot2015`` (Liu et al. 2015, EvmEval v1.0-v1.3: a gold mention collects several
   system mentions and scores its first) and ``exact`` (a maximum-weight matching, proven
   optimal). Our reading: the older procedures are applied, like the v1.8 greedy, to each
   combination's filtered candidates (v1.0-v1.6 combined attributes differently); that keeps
   every mapping an alignment of the same objective, so that their values compare. The exact
   mapping of a combination therefore maximises the attribute-augmented TP directly (the
   *joint* objective). The pilot study's own order -- one mapping on spans, attributes scored
   on it (Algorithms 1 and 4) -- is offered as the span-first mappings of :data:`SPAN_FIRST`
   (``pilot2015-alg4``, ``kbp-span-first``; :func:`span_first_results`).
4. *Counts*: TP = the total Dice of the alignment. Precision = TP / N_S with N_S the number of
   system mentions (v1.2's "fixed" precision, which v1.8 prints); recall = TP / N_G. We also
   give precision over TP + FP, v1.8's false-positive count: for attribute combinations
   ``FP = N_S - TP`` (the same thing), but for ``plain`` v1.8 computes ``FP = #distinct system
   mention ids - TP`` -- a quirk that differs only when mention ids repeat.

Corpus level, exactly as v1.8 (``print_eval_results``/``get_averages``):

* Documents are the gold documents, in sorted order; a system document absent from the gold is
  ignored; a gold document absent from the system is scored with no system mentions.
* Only *valid* documents -- those with at least one gold mention -- enter the averages. Quirk
  reproduced: the system mentions of a document without gold mentions count nowhere, not even
  against micro precision (:attr:`NuggetScore.excluded_system_mentions` reports how many).
* Micro: summed TP over summed N_G and N_S of the valid documents.
* Macro: the mean over valid documents of the per-document precision (0 for a document without
  system mentions) and of the recall; **macro F1 is the F1 of those two means** (not the mean of
  the per-document F1s).
* Undefined ratios: v1.8 prints ``nan`` where a denominator is 0 (and for F1 when P + R = 0);
  :func:`v18_numbers` reproduces those for the report, while :class:`PRF` (and the JSON) follow
  the project convention of 0.

Per-type table (``Mention Type Results``): for each mention type (canonical first attribute),
TP = the Dice of the gold mentions of that type in some mapping, N_G and N_S = the gold and
system mentions of that type, P/R/F1 as fractions. Quirk: v1.8 takes the mapping of the *last*
combination that starts with ``mention_type`` -- i.e. ``mention_type+realis_status`` -- so a
realis error also costs a type its credit, and it lists only types that occur in the gold. With
``compat=True`` we reproduce that; by default (corrected) the table uses the ``mention_type``
mapping and lists every type of the gold or the system.

Coreference (v1.8's ``-c``; :func:`coref_rows`, :func:`coref_evaluate`): v1.8 writes each
document as a CoNLL key and response file with one row per mention -- every gold mention, paired
with the system mention the mapping of ``mention_type`` aligns to it when their Dice is at least
1 (identical spans), then the leftover system mentions -- each row's cluster being the mention's
``@Coreference`` cluster or a singleton, and runs the CoNLL reference scorer v8.01 (MUC, B³,
CEAFm, CEAFe, BLANC) on them. We build the same documents in memory and score them with
:mod:`exactalign.metrics.coref`. Quirks reproduced: the printed scores are the reference's F1
truncated to 0.01 (B³ and CEAFe numerators summed in its floating-point order), in Python 2's
dict order; "Overall Average CoNLL score" averages MUC, B³, CEAFe **and BLANC** (CEAFm is
starred out), which is not the CoNLL-2012 average; a document without coreference scores MUC
0/0. A mention in two clusters is an error, as in v1.8.

White list: v1.8's ``-wl`` (off by default) drops every gold and system mention whose canonical
type is not listed, before anything else (and, with ``-c``, their ids from the clusters). Quirk
reproduced: an empty white list (a file without lines) filters nothing (:func:`type_filter`;
we warn).

The pilot study's own scoring (:func:`pilot_study`, Liu, Mitamura & Hovy 2015): one mapping on
spans (Algorithm 1), the span TP of Algorithm 2 with its *original* precision -- TP / (TP + FP)
with FP literally as Algorithm 2's lines 3-4 print it (one per unmapped gold mention), or
(``evmeval``) as the pilot's scorer EvmEval v1.0-v1.1 computed it (N_S - mapped gold mentions)
-- beside the fixed TP / N_S of section 2.4; Algorithm 3's attribute accuracies over the gold
mentions; section 2.6's multiplicative combination; Algorithm 4; micro averages over the
documents paired as above (:class:`PilotStudyScore` says which reading we take where the paper
is ambiguous).

Scheme ``muc`` (:func:`muc_evaluate`): the MUC partial-credit scheme the pilot study contrasts
with Dice -- COR for an aligned pair with the same span, PAR (0.5, or the pair's Dice) for an
overlapping one, P = credit / ACT, R = credit / POS, and the alignment of highest F, with
optional gold mentions (``optional_values``) solved exactly as a ratio by Dinkelbach's method.

The package, one module per idea (each imports only modules above it in this list):

* :mod:`~exactalign.metrics.nugget.hierarchy` -- hierarchical type credit (:class:`LevelCredit`);
* :mod:`~exactalign.metrics.nugget.instances` -- span Dice, attribute combinations, the
  per-document alignment instances;
* :mod:`~exactalign.metrics.nugget.reading` -- reading a gold/system pair, pairing documents;
* :mod:`~exactalign.metrics.nugget.mappings` -- the mappings by name, span-first mappings;
* :mod:`~exactalign.metrics.nugget.coreference` -- v1.8's ``-c`` (CoNLL rows, reference metrics);
* :mod:`~exactalign.metrics.nugget.scores` -- per-document, per-type and corpus scores, gaps;
* :mod:`~exactalign.metrics.nugget.report` -- v1.8's report: numbers, layout, parser, and
  its ``-d`` comparison;
* :mod:`~exactalign.metrics.nugget.muc` -- the MUC-style scheme;
* :mod:`~exactalign.metrics.nugget.pilot` -- the 2015 pilot study's own scoring;
* :mod:`~exactalign.metrics.nugget.evaluation` -- :func:`evaluate` and :func:`evaluate_files`.

Every public name is importable from ``exactalign.metrics.nugget`` itself.
"""

from __future__ import annotations

from .coreference import (
    COREF_METRICS,
    V18_COREF_ORDER,
    V18_COREF_SKIPPED,
    CorefEvaluation,
    CorefRows,
    coref_chains,
    coref_evaluate,
    coref_rows,
    format_v18_conll,
    resolve_coref_combination,
)
from .evaluation import SCHEMES, evaluate, evaluate_files
from .hierarchy import KBP_EVENT_FAMILIES, LevelCredit
from .instances import (
    PLAIN,
    attribute_combinations,
    combination_masks,
    combination_name,
    document_instances,
    span_dice,
    span_overlap,
)
from .mappings import (
    HEURISTIC_MAPPINGS,
    MAPPINGS,
    SPAN_FIRST,
    span_first_mapping,
    span_first_results,
)
from .muc import (
    PARTIAL_CREDITS,
    MucCounts,
    MucDocument,
    MucEvaluation,
    MucInstance,
    MucScore,
    muc_evaluate,
    muc_instances,
)
from .pilot import (
    PILOT_ACCURACY_OVER,
    PILOT_PRECISIONS,
    PILOT_PRODUCTS,
    PilotDocument,
    PilotStudyScore,
    format_pilot_study,
    pilot_document,
    pilot_study,
    pilot_study_files,
)
from .reading import document_pairs, read_pair, type_filter
from .report import (
    COREF_SECTION,
    NAN,
    format_coref_details,
    format_v18,
    format_v18_comparison,
    format_v18_coref,
    parse_v18_coref,
    parse_v18_report,
    v18_numbers,
)
from .scores import (
    DocumentGap,
    DocumentScore,
    GapSummary,
    NuggetEvaluation,
    NuggetScore,
    TypeScore,
    gap_summary,
)

__all__ = [
    "MAPPINGS", "HEURISTIC_MAPPINGS", "SPAN_FIRST", "PLAIN", "SCHEMES", "PARTIAL_CREDITS",
    "attribute_combinations", "combination_name", "KBP_EVENT_FAMILIES", "LevelCredit",
    "span_overlap", "span_dice", "document_instances", "combination_masks", "DocumentScore",
    "TypeScore", "NuggetScore", "NuggetEvaluation", "DocumentGap", "GapSummary", "gap_summary",
    "span_first_mapping", "span_first_results", "evaluate", "document_pairs", "type_filter",
    "evaluate_files", "read_pair", "PILOT_PRECISIONS", "PILOT_ACCURACY_OVER", "PILOT_PRODUCTS",
    "PilotDocument", "PilotStudyScore", "pilot_document", "pilot_study", "pilot_study_files",
    "format_pilot_study", "COREF_METRICS", "V18_COREF_ORDER", "V18_COREF_SKIPPED",
    "resolve_coref_combination", "coref_chains", "CorefRows", "coref_rows", "format_v18_conll",
    "CorefEvaluation", "coref_evaluate", "NAN", "v18_numbers", "format_v18", "COREF_SECTION",
    "format_v18_coref", "format_coref_details", "format_v18_comparison", "parse_v18_coref",
    "parse_v18_report",
    "MucInstance", "MucCounts", "MucDocument", "MucScore", "MucEvaluation", "muc_instances",
    "muc_evaluate",
]
