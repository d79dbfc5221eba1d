"""Coreference metrics -- MUC, B³, CEAFm, CEAFe, BLANC, LEA and the CoNLL average -- as the
CoNLL reference scorer v8.01 computes them (``conll/reference-coreference-scorers``,
``lib/CorScorer.pm``), with CEAF's entity alignment solved exactly through
:mod:`exactalign.problems.bipartite` and also by the greedy heuristic, to measure the gap.

Pipeline
--------
1. :func:`exactalign.io.conll.read_conll` reads the files; :func:`~exactalign.io.conll.pair_documents`
   pairs key and response documents.
2. :func:`identify` turns one key/response pair into chains of mention ids, applying the
   reference scorer's mention identification (``IdentifMentions``):

   * mentions are identified by their exact span ``(start_token, end_token)`` (heads play no
     part);
   * **repeated mentions in the response**: walking the response clusters in order (the
     reader's order, i.e. the order in which entity ids first appear) and each cluster's mentions
     in order, a mention *that is in the key* and was already met is dropped -- so a key mention
     the response puts in two clusters stays in the lower-indexed one, and one it repeats within
     a cluster is kept once; a cluster left empty is dropped. A repeated response mention that
     is *not* in the key is kept every time (the reference only tracks key mentions in that
     pass). :func:`score_documents` refuses, as v8.01 does, a response with more than
     :data:`MAX_REPEATED` such repetitions (in all its documents);
   * **repeated mentions in the key** are kept in every cluster (the scorer only warns), under
     one id: a mention's key cluster, where one is needed, is the last one containing it (the
     Perl ``Indexa`` hash), and counts of mentions count the repetitions.

   Without repetitions (every well-formed file) all this reduces to the textbook definitions.
3. Each metric returns counts (:class:`~exactalign.metrics.aggregation.PRF`; :class:`Blanc` for
   BLANC); a corpus is scored by summing the counts over documents (micro average), as the
   reference scorer's ``Score`` sums ``(recall_num, recall_den, precision_num, precision_den)``
   -- and, for BLANC, the coreference-link and non-coreference-link counts separately, combining
   them only at the end (:class:`Blanc`).

The metrics, on chains of ids (``K`` a key chain, ``R`` a response chain, ``|.|`` counting
repetitions)
---------------------------------------------------------------------------------------------
* MUC (Vilain et al. 1995): recall ``sum (|K∩R| - 1) / sum (|K| - 1)`` over non-empty
  intersections, precision the same numerator over ``sum (|R| - 1)``.
* B³ (Bagga & Baldwin 1998) without Cai & Strube's changes (v8.01's ``bcub``): recall
  ``sum |K∩R|²/|K| / sum |K|``, precision ``sum |K∩R|²/|R| / sum |R|``; twinless mentions
  contribute 0 to the numerators and count in the denominators.
* CEAF (Luo 2005): the maximum-weight 1:1 alignment of key and response entities under
  ``φ3 = |K∩R|`` (CEAFm; denominators ``sum |K|``, ``sum |R|``) or ``φ4 = 2|K∩R|/(|K|+|R|)``
  (CEAFe; denominators the numbers of entities). The alignment is a
  :class:`~exactalign.problems.bipartite.BipartiteInstance` (kind 1:1) solved by ``method``:
  ``exact`` (the assignment problem, proven optimal: what the reference's Munkres computes),
  ``ilp`` (the ILP through a backend; must agree), or ``greedy`` (repeatedly take the best
  remaining entity pair: the heuristic; status FEASIBLE, no bound).
* BLANC (Recasens & Hovy 2011; Luo et al. 2014 for system mentions): the sets of coreference
  links (pairs of mentions in one chain) and non-coreference links (pairs in two different
  chains) of key and response; recall and precision of each; BLANC averages the two
  recalls, the two precisions and the two F1s -- or takes one kind alone when the key has no
  link of the other kind (``ComputeBLANCFromCounts``). Corpus BLANC sums the eight counts over
  documents first.
* LEA (Moosavi & Strube 2016; not in v8.01 -- as coval implements it): recall
  ``sum |K| * (common links of K) / link(K) / sum |K|`` with ``link(n) = n(n-1)/2``, the common
  links of ``K`` the pairs of its mentions that the response puts in one chain; a singleton
  ``K`` has one (self-)link, resolved when its mention is a singleton in the response too.
  Precision swaps key and response. Computed on the identified chains above.
* The CoNLL average: the mean of the MUC, B³ and CEAFe F1s (corpus level: of the corpus F1s).

Everything between documents' chains is computed on memberships -- ``(chain, mention id,
count)`` arrays, the incidence matrices chains x ids in sparse form -- whose products are
joins by mention id, vectorised with numpy; no Python loop runs over pairs of entities or of
mentions, and scipy is not imported (a third of a second at every start of the command). Where
a sum of floats depends on the order of its terms (B³), the terms are summed in the order
``scipy.sparse`` produced them when it computed these products, so every number is the one it
gave (``tests/test_coref.py`` compares the two on random chains).

Modules
-------
One idea per module; each imports only those listed before it:

* :mod:`~exactalign.metrics.coref.memberships` -- memberships and their joins by mention id
  (numpy; scipy only for :attr:`Identified.key_counts`/:attr:`Identified.response_counts`);
* :mod:`~exactalign.metrics.coref.identification` -- mention identification (:func:`identify`,
  :class:`Identified`, :data:`MAX_REPEATED`);
* :mod:`~exactalign.metrics.coref.muc_bcub_lea` -- MUC, B³ and LEA (:func:`muc`,
  :func:`b_cubed`, :func:`lea`);
* :mod:`~exactalign.metrics.coref.alignment` -- CEAF's entity alignment (:func:`ceaf_instance`,
  :func:`ceaf`, :class:`Ceaf`, :func:`ceaf_witness`);
* :mod:`~exactalign.metrics.coref.links` -- BLANC's link sets (:func:`blanc`, :class:`Blanc`);
* :mod:`~exactalign.metrics.coref.scores` -- documents and corpora (:func:`score_document`,
  :func:`score_identified`, :func:`score_documents`, :func:`score_files`,
  :class:`DocumentScores`, :class:`CorefScores`, :func:`conll_average`, :data:`METRICS`;
  :class:`CorefScorer`, the keys prepared once for a training loop).
* :mod:`~exactalign.metrics.coref.mina` -- minimum spans (MINA) from a mention's parse bits,
  as coval computes them;
* :mod:`~exactalign.metrics.coref.coval` -- coval's options (``remove_singletons``,
  ``remove_nested``, ``NP_only``, ``min_span``) and coval's metrics on what they leave
  (:class:`~exactalign.metrics.coref.coval.CovalOptions`, ``coval.score_files``).

Every name is handed on here: ``from exactalign.metrics import coref`` then ``coref.identify``,
``coref.score_documents``, ...
"""

from __future__ import annotations

from .alignment import (
    CEAF_HEURISTICS,
    CEAF_METHODS,
    CEAF_PHI,
    GAP_TOL,
    Ceaf,
    ceaf,
    ceaf_instance,
    ceaf_witness,
)
from .identification import MAX_REPEATED, Identified, identify
from .links import Blanc, blanc
from .memberships import Members
from .muc_bcub_lea import b_cubed, lea, muc
from .scores import (
    METRICS,
    CorefScorer,
    CorefScores,
    DocumentScores,
    conll_average,
    score_document,
    score_documents,
    score_files,
    score_identified,
)

__all__ = [
    "CEAF_METHODS", "CEAF_PHI", "MAX_REPEATED", "METRICS", "Blanc", "Ceaf", "CorefScorer",
    "CorefScores",
    "DocumentScores", "Identified", "b_cubed", "blanc", "ceaf", "ceaf_instance",
    "conll_average", "identify", "lea", "muc", "score_document",
    "score_documents", "score_files", "score_identified",
    # public in the single-module days without being listed here
    "CEAF_HEURISTICS", "GAP_TOL", "Members", "ceaf_witness",
]
