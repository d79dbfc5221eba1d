"""The in-process tasks of the performance benchmark: the code each timed process runs
(:func:`experiments.timing.python_task`, :func:`experiments.timing.loop_task`), the tools of
the in-process families and their inputs."""

from __future__ import annotations

import random
import re
from pathlib import Path

from exactalign.data import resolve_data_dir
from exactalign.data.pilot import amr_pairs

from .peers import dist, importable, ours_version, tool_spec
from .perf_inputs import coref_clusters

# in-process tasks (timing.python_task): each defines compute() -> {"score", ...}
_CEAF_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["coref-ceafe"]()
gold, pred = {"entities": inputs["gold"]}, {"entities": inputs["pred"]}
def compute():
    r = metric.compute(predictions=[pred], references=[gold])
    return {"score": r.score.f1, "proven": bool(r.proven_optimal)}
"""
_CEAF_METAMETRIC = """\
from metametric.metrics.coref import ceaf_phi4
from metametric.structures.ie import Entity, EntitySet, Mention
def entity_set(d):
    return EntitySet([Entity([Mention(*m) for m in e]) for e in d])
gold, pred = entity_set(inputs["gold"]), entity_set(inputs["pred"])
def compute():  # what metametric's coref suite computes per document: score and self-scores
    sxy = ceaf_phi4.score(pred, gold)
    sxx, syy = ceaf_phi4.score_self(pred), ceaf_phi4.score_self(gold)
    r, p = sxy / syy, sxy / sxx
    return {"score": 2 * p * r / (p + r) if p + r else 0.0}
"""
_SEQ_OURS = """\
import numpy as np
from exactalign.problems import monotone
a, b = np.array(inputs["a"]), np.array(inputs["b"])
def compute():
    W = (a[:, None] == b[None, :]).astype(float)
    r = monotone.solve(monotone.MonotoneInstance.sequences(W))
    return {"score": float(r.objective), "proven": bool(r.proven_optimal)}
"""
_SEQ_METAMETRIC_DP = """\
from metametric.core.matching_metrics import SequenceMatchingMetric
from metametric.core.metric import DiscreteMetric
metric = SequenceMatchingMetric(DiscreteMetric(str), "1:1")
def compute():
    return {"score": float(metric.compute(inputs["a"], inputs["b"])[0])}
"""
_SEQ_METAMETRIC_ILP = """\
from metametric.core.matching_metrics import GraphMatchingMetric
from metametric.core.metric import Metric
class Chain:  # a sequence as a graph: item i -> item i + 1 (nodes (position, label))
    def __init__(self, labels):
        self.items = list(enumerate(labels))
    def nodes(self):
        return self.items
    def successors(self, x):
        return [self.items[x[0] + 1]] if x[0] + 1 < len(self.items) else []
    def predecessors(self, x):
        return [self.items[x[0] - 1]] if x[0] > 0 else []
class Label(Metric):  # equal labels score 1
    def score(self, x, y):
        return float(x[1] == y[1])
    def score_self(self, x):
        return 1.0
metric = GraphMatchingMetric(Label(), "1:1")
a, b = Chain(inputs["a"]), Chain(inputs["b"])
def compute():
    return {"score": float(metric.compute(a, b)[0])}
"""
_LATENT_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["smatch"]()
def compute():
    r = metric.compute(predictions=[inputs["pred"]], references=[inputs["gold"]])
    return {"score": r.score.f1, "proven": bool(r.proven_optimal)}
"""
_LATENT_METAMETRIC = """\
from metametric.core.metric import Variable
from metametric.metrics.semantic_parsing import s_match
from metametric.structures.amr import AMR, Prop
def amr(doc):
    v = set(doc["variables"])
    return AMR([Prop(Variable(s), r, Variable(t) if t in v else t) for r, s, t in doc["triples"]])
gold, pred = amr(inputs["gold"]), amr(inputs["pred"])
def compute():
    return {"score": float(s_match.score(pred, gold))}
"""


def library_tools(family: str, config: dict) -> list[dict]:
    mm = "" if importable("metametric") else "not installed (the peers extra)"
    mem = config["mem_limit_mb"]
    ours, peer = ours_version(), dist("metametric")
    if family == "ceaf":
        return [tool_spec("exactalign-declared", "ours", True, "in-process", code=_CEAF_OURS,
                      mem=mem, version=ours),
                tool_spec("metametric", "peer", True, "in-process", code=_CEAF_METAMETRIC,
                      mem=mem, skip=mm, version=peer)]
    if family == "sequence":
        return [tool_spec("exactalign-dp", "ours", True, "in-process", code=_SEQ_OURS, mem=mem,
                      version=ours),
                tool_spec("metametric-dp", "peer", True, "in-process", code=_SEQ_METAMETRIC_DP,
                      mem=mem, skip=mm, version=peer),
                tool_spec("metametric-ilp", "peer", True, "in-process", code=_SEQ_METAMETRIC_ILP,
                      mem=config["sequence_ilp_mem_mb"], skip=mm, version=peer)]
    return [tool_spec("exactalign-declared", "ours", True, "in-process", code=_LATENT_OURS,
                  mem=mem, version=ours),
            tool_spec("metametric", "peer", True, "in-process", code=_LATENT_METAMETRIC,
                  mem=config["latent_mem_mb"], skip=mm, version=peer)]


# in-process loop tasks (timing.loop_task): each defines prepare() -> state and
# compute(state, n) -> {"score", ...}, scoring the first n documents of the inputs. Inputs are
# built into each API's own form before the clock starts; the score of a call is the corpus F1
# (smatch) or the mean per-document CEAFe F1 (coreference, declared).
_LOOP_SMATCH_OURS = """\
from exactalign.metrics.smatch import SmatchScorer
METHOD = "@METHOD@"
def prepare():  # the dev set's gold graphs, parsed and compiled once
    return SmatchScorer(inputs["gold"], method=METHOD, duplicates="keep", restarts=4)
def compute(scorer, n):
    c = scorer.score(inputs["pred"][:n], indices=list(range(n)))
    return {"score": c.scores(METHOD).f1,
            "proven": all(p.result(METHOD).proven_optimal for p in c.pairs)}
"""
_LOOP_SMATCH_PEER = """\
import smatch
smatch.iteration_num = @RESTARTS@ + 1  # smatch.py -r R sets R + 1
def prepare():
    return None
def compute(_, n):  # score_amr_pairs's loop: get_amr_match per pair, counts summed
    M = T = G = 0
    for test, gold in zip(inputs["pred"][:n], inputs["gold"][:n]):
        m, t, g = smatch.get_amr_match(test, gold)
        smatch.match_triple_dict.clear()
        M, T, G = M + m, T + t, G + g
    return {"score": smatch.compute_f(M, T, G)[2]}
"""
_LOOP_SMATCHPP = """\
from smatchpp import Smatchpp, solvers
def prepare():
    return Smatchpp(alignmentsolver=solvers.get_solver("@SOLVER@"))
def compute(scorer, n):  # process_pair per pair, its (match, match, test, gold) summed
    M = T = G = 0.0
    for test, gold in zip(inputs["pred"][:n], inputs["gold"][:n]):
        match = scorer.process_pair(test, gold)[0]["main"]
        M, T, G = M + float(match[0]), T + float(match[2]), G + float(match[3])
    return {"score": 2 * M / (T + G) if T + G else 0.0}
"""
_LOOP_COREF_OURS = """\
from exactalign.metrics.coref import CorefScorer
keys = [[[tuple(m) for m in c] for c in doc] for doc in inputs["keys"]]
responses = [[[tuple(m) for m in c] for c in doc] for doc in inputs["responses"]]
METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")  # scorch's set
def prepare():
    return CorefScorer(keys, METRICS, certify_exact=@CERTIFY@)
def compute(scorer, n):
    s = scorer.score(responses[:n], indices=list(range(n)))
    return {"score": sum(d.scores["ceafe"].f1 for d in s.documents) / n,
            "proven": all(d.ceaf[m].proven_optimal for d in s.documents
                          for m in ("ceafm", "ceafe"))}
"""
_LOOP_COREF_SCORCH = """\
import scorch.scores as sc
keys = [[set(map(tuple, c)) for c in doc] for doc in inputs["keys"]]
responses = [[set(map(tuple, c)) for c in doc] for doc in inputs["responses"]]
def prepare():
    return None
def compute(_, n):  # what scorch's main computes per document, less its conll2012 average
    f = 0.0
    for k, r in zip(keys[:n], responses[:n]):
        sc.muc(k, r)
        sc.b_cubed(k, r)
        sc.ceaf_m(k, r)
        f += sc.ceaf_e(k, r)[2]
        sc.blanc(k, r)
    return {"score": f / n}
"""
_LOOP_DECLARED_OURS = """\
from exactalign.declared.library import LIBRARY
metric = LIBRARY["coref-ceafe"]()
gold = [{"entities": doc} for doc in inputs["keys"]]
pred = [{"entities": doc} for doc in inputs["responses"]]
def prepare():
    return metric.prepare(gold)
def compute(prepared, n):
    r = prepared.compute(predictions=pred[:n], indices=list(range(n)))
    return {"score": sum(d.prf.f1 for d in r.documents) / n, "proven": r.proven_optimal}
"""
_LOOP_DECLARED_METAMETRIC = """\
from metametric.metrics.coref import ceaf_phi4
from metametric.structures.ie import Entity, EntitySet, Mention
def entity_set(doc):
    return EntitySet([Entity([Mention(*m) for m in e]) for e in doc])
gold = [entity_set(doc) for doc in inputs["keys"]]
pred = [entity_set(doc) for doc in inputs["responses"]]
def prepare():
    return None
def compute(_, n):  # per document: score and both self-scores, as its coref suite computes
    f = 0.0
    for x, y in zip(pred[:n], gold[:n]):
        sxy = ceaf_phi4.score(x, y)
        sxx, syy = ceaf_phi4.score_self(x), ceaf_phi4.score_self(y)
        r, p = sxy / syy, sxy / sxx
        f += 2 * p * r / (p + r) if p + r else 0.0
    return {"score": f / n}
"""


def loop_tools(family: str, config: dict) -> list[dict]:
    """The tools of an in-process family (timing ``loop``): ours, then each peer's own Python
    entry point (those named in ``loop_tools`` when it is not None)."""
    keep = config.get("loop_tools")
    return [t for t in _loop_tools(family, config) if keep is None or t["name"] in keep]


def _loop_tools(family: str, config: dict) -> list[dict]:
    mem, ours = config["mem_limit_mb"], ours_version()

    def tool(name, role, proven, code, skip="", version=ours):
        return tool_spec(name, role, proven, "loop", code=code, mem=mem, skip=skip,
                     version=version)

    missing = "not installed (the peers extra)"
    if family == "loop-smatch":
        pp = "" if importable("smatchpp") else missing
        return [tool("exactalign-exact", "ours", True,
                     _LOOP_SMATCH_OURS.replace("@METHOD@", "exact")),
                tool("exactalign-hillclimb", "ours", False,
                     _LOOP_SMATCH_OURS.replace("@METHOD@", "hillclimb")),
                tool("smatch-r1", "peer", False, _LOOP_SMATCH_PEER.replace("@RESTARTS@", "1"),
                     "" if importable("smatch") else missing, dist("smatch")),
                tool("smatch-r4", "peer", False, _LOOP_SMATCH_PEER.replace("@RESTARTS@", "4"),
                     "" if importable("smatch") else missing, dist("smatch")),
                tool("smatchpp-hillclimb", "peer", False,
                     _LOOP_SMATCHPP.replace("@SOLVER@", "hillclimber"), pp, dist("smatchpp")),
                tool("smatchpp-ilp", "peer", True, _LOOP_SMATCHPP.replace("@SOLVER@", "ilp"),
                     pp or ("" if importable("mip") else "mip not installed"),
                     f"{dist('smatchpp')}, {dist('mip')}")]
    if family == "loop-coref":
        return [tool("exactalign", "ours", True, _LOOP_COREF_OURS.replace("@CERTIFY@", "True")),
                # the same, each CEAF optimum proven by the algorithm (as scorch's) instead of
                # a dual certificate: what the certificate costs
                tool("exactalign-no-certificate", "ours", True,
                     _LOOP_COREF_OURS.replace("@CERTIFY@", "False")),
                tool("scorch", "peer", True, _LOOP_COREF_SCORCH,
                     "" if importable("scorch") else missing, dist("scorch"))]
    return [tool("exactalign-declared", "ours", True, _LOOP_DECLARED_OURS),
            tool("metametric", "peer", True, _LOOP_DECLARED_METAMETRIC,
                 "" if importable("metametric") else missing, dist("metametric"))]


def amr_lines(path: Path) -> list[str]:
    """The graphs of an AMR file as one-line strings, as smatch's ``generate_amr_lines``
    builds them (comment lines dropped, lines stripped and joined by a space)."""
    out = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        lines = [ln.strip() for ln in block.splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            out.append(" ".join(lines))
    return out


def loop_inputs(family: str, config: dict) -> tuple[dict, str]:
    """The documents of an in-process family (the largest batch; a unit scores its first
    ``n``) and where they come from. ``loop-smatch``: the pilot Little Prince BART/T5 parses
    against their gold (``lp_bart_t5_vs_gold``, the first pairs in file order), else
    synthetic trees (:func:`~experiments.smatch_gap.synthetic_bank`) against their ``relabel``
    perturbation (rate 0.3); the coreference families: seeded synthetic documents of
    ``loop_mentions`` key mentions (:func:`coref_clusters`, one seed per document)."""
    n, seed = max(config["loop_docs"]), config["seed"]
    if family == "loop-smatch":
        data = resolve_data_dir()
        if data.available:
            pair = next((p for p in amr_pairs(data.require("amr"), ["lp_bart_t5_vs_gold"])),
                        None)
            if pair is not None:
                return ({"pred": amr_lines(pair.test)[:n], "gold": amr_lines(pair.gold)[:n]},
                        "lp_bart_t5_vs_gold")
        from .smatch_gap import SYNTHETIC_CONCEPTS, SYNTHETIC_ROLES, perturb, synthetic_bank
        from .smatch_walltime import amr_text

        bank = synthetic_bank(n, seed)
        rng = random.Random(f"{seed}-perf-loop")
        pred = [perturb(g, "relabel", 0.3, rng, list(SYNTHETIC_CONCEPTS),
                        list(SYNTHETIC_ROLES)) for g in bank]
        one_line = [" ".join(t.split()) for t in amr_text(bank).strip().split("\n\n")]
        pred_line = [" ".join(t.split()) for t in amr_text(pred).strip().split("\n\n")]
        return {"pred": pred_line, "gold": one_line}, "synthetic"
    keys, responses = [], []
    for d in range(n):
        k, r = coref_clusters(config["loop_mentions"], seed * 1_000_003 + d)
        keys.append([[[m, m] for m in e] for e in k])
        responses.append([[[m, m] for m in e] for e in r])
    return {"keys": keys, "responses": responses}, f"synthetic-{config['loop_mentions']}"
