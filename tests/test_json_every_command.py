"""Every ``exactalign`` sub-command with ``--json`` prints exactly one JSON document on stdout.

The inputs are tiny hand-written files in each format (no pilot data). Each case forces the
command's solver route where it has one (``bipartite --method ilp``, ``nugget --exact-method
ilp``, ``coref --ceaf-method ilp``, ``ere`` through its ILP, the GTT exact alignment's ILPs,
``smatch`` past its branch and bound into the LP/MIP route, ``monotone --method ilp`` on DAGs,
``timeline``, ``temporal`` in exact mode and ``temporal check`` on an inconsistent document) and
runs it with every backend. Two layers:

1. in-process, :func:`exactalign.cli.main` under ``capfd`` (file-descriptor capture, so output
   printed from C, such as highspy 1.16's banner, lands in the captured stdout): every (case,
   backend);
2. a fresh ``python -m exactalign`` per command with ``--backend highs`` on its solver route: a
   banner printed once per process would come before the JSON there even when the in-process
   layer, run after other solves in the same process, no longer sees it.

Where the brute backend legitimately refuses a model (more integer points than it enumerates),
the case expects what the command line promises for it: nothing on stdout, one line on stderr,
exit status 2 (:class:`ModelTooLargeError` is a usage/input error in :func:`cli.main`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from exactalign import cli
from exactalign.core import solve as core_solve
from exactalign.problems.latent import bnb

BACKENDS = cli.BACKENDS

#: The keys every solve object carries (docs/commands.md, "JSON output (stable keys)").
SOLVE_KEYS = {"status", "proven_optimal", "objective", "bound", "gap", "method", "backend",
              "wall_time", "nodes", "seed", "solver_version", "components", "presolve",
              "fallback"}


# --------------------------------------------------------------------------------------------
# tiny inputs, one (or two) per format
# --------------------------------------------------------------------------------------------
# bipartite: the Dice counterexample of tests/test_cli.py (optimum 1.4), and a dense 12 x 12
# instance (144 binary variables: 2^144 points, far past what the brute backend enumerates).
PAIRS = """\
n_ref 2 n_pred 2
0 0 0.5
0 1 1.0
1 0 0.4
"""
BIG_PAIRS = "n_ref 12 n_pred 12\n" + "".join(
    f"{i} {j} {(7 * i + 3 * j) % 11 + 1}\n" for i in range(12) for j in range(12))

# nugget: TBF, character offsets; three gold and three system mentions (a boundary, a realis
# and a subtype error), one coreference cluster each.
GOLD_TBF = """\
#BeginOfDocument d1
gold\td1\tE1\t0,5\tattack\tConflict_Attack\tActual
gold\td1\tE2\t10,15\tdied\tLife_Die\tActual
gold\td1\tE3\t20,26\tstrike\tConflict_Attack\tActual
@Coreference\tC1\tE1,E3
#EndOfDocument
"""
SYS_TBF = """\
#BeginOfDocument d1
sys\td1\tS1\t0,4\tattac\tConflict_Attack\tActual
sys\td1\tS2\t10,15\tdied\tLife_Die\tOther
sys\td1\tS3\t20,26\tstrike\tConflict_Demonstrate\tActual
@Coreference\tC1\tS1,S3
#EndOfDocument
"""


# score: JSONL documents for a declared coreference metric.
SCORE_GOLD = ('{"id": "d1", "entities": [["a", "b", "c"], ["d", "e"]]}\n'
              '{"id": "d2", "entities": [["x", "y"]]}\n')
SCORE_SYS = '{"id": "d1", "entities": [["a", "b"], ["c", "d", "e", "f"]]}\n'


def conll(name: str, cols: list[str]) -> str:
    """A CoNLL-2012 document whose coreference column is ``cols`` (as tests/test_coref.py)."""
    lines = [f"{name}\t0\t{t}\tw{t}\t{c}" for t, c in enumerate(cols)]
    return f"#begin document ({name}); part 000\n" + "\n".join(lines) + "\n#end document\n"


# coref: the hand-derived example of tests/test_coref.py.
KEY_CONLL = conll("d", ["(1)", "(1)", "(1", "1)", "(2)", "(2)", "-", "(3)", "-", "-"])
RESP_CONLL = conll("d", ["(7)", "(7)", "(5", "5)", "(5)", "-", "(5)", "(9)", "(4)", "-"])

# ere: the hand-derived gap of tests/test_ere_cli.py (the procedure maps 2 mentions, the
# optimum 3).
ERE_A = {"documents": [{"id": "d", "mentions": [
    {"id": "a0", "span": [0, 6]}, {"id": "a1", "span": [9, 11]}, {"id": "a2", "span": [9, 12]}],
    "entities": [{"id": "x", "type": "PER", "mentions": ["a0"]},
                 {"id": "y", "type": "ORG", "mentions": ["a1", "a2"]}]}]}
ERE_B = {"documents": [{"id": "d", "mentions": [
    {"id": "b0", "span": [0, 1]}, {"id": "b1", "span": [1, 10]}, {"id": "b2", "span": [10, 20]}],
    "entities": [{"id": "u", "type": "PER", "mentions": ["b0"]},
                 {"id": "v", "type": "ORG", "mentions": ["b1", "b2"]}]}]}

# muc4, 1992 format: every template lists slots 0-24 (as tests/test_muc4.py writes them).
MUC_SLOTS = ["MESSAGE: ID", "MESSAGE: TEMPLATE", "INCIDENT: DATE", "INCIDENT: LOCATION",
             "INCIDENT: TYPE", "INCIDENT: STAGE OF EXECUTION", "INCIDENT: INSTRUMENT ID",
             "INCIDENT: INSTRUMENT TYPE", "PERP: INCIDENT CATEGORY", "PERP: INDIVIDUAL ID",
             "PERP: ORGANIZATION ID", "PERP: ORGANIZATION CONFIDENCE", "PHYS TGT: ID",
             "PHYS TGT: TYPE", "PHYS TGT: NUMBER", "PHYS TGT: FOREIGN NATION",
             "PHYS TGT: EFFECT OF INCIDENT", "PHYS TGT: TOTAL NUMBER", "HUM TGT: NAME",
             "HUM TGT: DESCRIPTION", "HUM TGT: TYPE", "HUM TGT: NUMBER",
             "HUM TGT: FOREIGN NATION", "HUM TGT: EFFECT OF INCIDENT", "HUM TGT: TOTAL NUMBER"]


def muc_template(msg: str, number: str, fills: dict[int, str]) -> str:
    values = {0: msg, 1: number, **fills}
    return "".join(f"{f'{k}.':<4}{name:<31}{values.get(k, '-')}\n"
                   for k, name in enumerate(MUC_SLOTS)) + "\n"


MUC_KEY = muc_template("TST3-MUC4-0001", "1", {4: "BOMBING", 12: '"BANK"'})
MUC_RESP = (muc_template("TST3-MUC4-0001", "1", {4: "ATTACK", 12: '"BANK"'})
            + muc_template("TST3-MUC4-0001", "2", {4: "ARSON"}))

# muc4, GTT format. One gold template; two compatible predictions, one earning more recall
# points (its PerpInd mention lies in both gold PerpInd entities: P 2, R 3), the other more
# precision points (two mentions of one gold Target entity: P 3, R 2). The recall-best mapping
# is not F-best, so the exact alignment solves its max-P-given-R ILPs (r = 3, 2, 1).
ROLES = ("PerpInd", "PerpOrg", "Target", "Victim", "Weapon")


def _roles(**given) -> dict:
    return {r: given.get(r, []) for r in ROLES}


GTT_GOLD = {"docid": "TST3-MUC4-0001", "doctext": "", "templates": [
    {"incident_type": "attack", **_roles(PerpInd=[[["x", 0]], [["x", 0], ["y", 3]]],
                                         Target=[[["t", 9], ["u", 12]]])}]}
GTT_PRED = {"30001": {"pred_templates": [
    {"incident_type": "attack", **_roles(PerpInd=[["x"]])},
    {"incident_type": "attack", **_roles(Target=[["t"], ["u"]])}]}}
# muc4, GRIT's REE format (CEAF-REE).
REE_GOLD = {"docid": "TST3-MUC4-0001", "extracts": _roles(PerpInd=[[["x", 0]], [["y", 3]]],
                                                          Target=[[["t", 9], ["u", 12]]])}
REE_PRED = {"30001": {"pred_extracts": _roles(PerpInd=[["x"]], Target=[["u"]])}}

# smatch: the pair of tests/test_smatch.py (its LP bound proves it), and a pair of five-variable
# graphs (found by a seeded search) whose LP bound is fractional: only the MIP proves it, on
# --backend; its model (31 binary variables) is too large for the brute backend.
AMR_TEST = ("(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-02 :ARG0 b))\n\n"
            "(a0 / x :ARG0 (a1 / x :ARG1 (a3 / x)) :ARG0 (a2 / y :ARG0 (a4 / y) :ARG1 a0))\n")
AMR_GOLD = ("(w / want-01 :ARG0 (b / boy) :ARG1 (g / go-01 :ARG0 b :polarity -))\n\n"
            "(b0 / x :ARG1 (b1 / y :ARG1 (b3 / y :ARG0 (b4 / y :ARG1 b1))) :ARG1 (b2 / y))\n")

# umr: one sentence with its document-level annotation, predicted with one concept wrong.
UMR_GOLD = ("# :: snt1\tShe ate .\n\n# sentence level graph:\n(s1e / eat-01 :ARG0 (s1p / person))"
            "\n\n# alignment:\ns1e: 2-2\ns1p: 1-1\n\n# document level annotation:\n"
            "(s1s0 / sentence :modal ((author :full-affirmative s1e)))\n")
UMR_PRED = UMR_GOLD.replace("person", "she")

# drs: two DRSs in clause format (PMB); the first predicted with a wrong role and sense, the
# second with its symmetric EQU written the other way round. Both well-formed (Counter's referee).
DRS_GOLD = ('b1 REF x1\nb1 Name x1 "tom"\nb1 male "n.02" x1\nb2 REF e1\nb2 Agent e1 x1\n'
            'b2 eat "v.01" e1\n\n'
            'b1 REF x1\nb1 REF x2\nb1 EQU x1 x2\nb1 cat "n.01" x1\nb1 pet "n.01" x2\n')
DRS_PRED = ('b1 REF x1\nb1 Name x1 "tom"\nb1 male "n.02" x1\nb2 REF e1\nb2 Theme e1 x1\n'
            'b2 eat "v.02" e1\n\n'
            'b1 REF x1\nb1 REF x2\nb1 EQU x2 x1\nb1 cat "n.01" x1\nb1 pet "n.01" x2\n')

# monotone: two small DAGs (a diamond against a chain); every label appears on both sides.
DAG_A = {"items": ["a", "b", "c", "d", "e"], "edges": [[0, 1], [0, 2], [1, 3], [2, 3], [3, 4]]}
DAG_B = {"items": ["a", "c", "b", "e", "d"], "edges": [[0, 1], [1, 2], [2, 3], [3, 4]]}

# grits: a 2x2 gold table (a spanning header) against a prediction that splits it and adds a
# row; GriTS cell lists with boxes, so Top, Con and Loc all run.
GRITS_GOLD = [{"row_nums": [0], "column_nums": [0, 1], "cell_text": "h", "bbox": [0, 0, 20, 5]},
              {"row_nums": [1], "column_nums": [0], "cell_text": "a", "bbox": [0, 5, 10, 10]},
              {"row_nums": [1], "column_nums": [1], "cell_text": "b", "bbox": [10, 5, 20, 10]}]
GRITS_PRED = [{"row_nums": [0], "column_nums": [0], "cell_text": "h", "bbox": [0, 0, 10, 5]},
              {"row_nums": [0], "column_nums": [1], "cell_text": "", "bbox": [10, 0, 20, 5]},
              {"row_nums": [1], "column_nums": [0], "cell_text": "a", "bbox": [0, 5, 10, 10]},
              {"row_nums": [1], "column_nums": [1], "cell_text": "b", "bbox": [10, 5, 20, 10]},
              {"row_nums": [2], "column_nums": [0, 1], "cell_text": "c", "bbox": [0, 10, 20, 15]}]


def timeml(doc: str, events: list[tuple[str, str]], links: list[tuple[int, str, int]]) -> str:
    """A TimeML document: ``events`` = [(text, class)] with ids e1.. / ei1..; ``links`` =
    [(source, relType, target)], 1-based event numbers."""
    text = " ".join(f'<EVENT eid="e{i}" class="{c}">{t}</EVENT>'
                    for i, (t, c) in enumerate(events, 1))
    inst = "".join(f'<MAKEINSTANCE eventID="e{i}" eiid="ei{i}"/>'
                   for i in range(1, len(events) + 1))
    tl = "".join(f'<TLINK lid="l{k}" relType="{r}" eventInstanceID="ei{s}" '
                 f'relatedToEventInstance="ei{t}"/>' for k, (s, r, t) in enumerate(links))
    return f"<TimeML><DOCID>{doc}</DOCID><TEXT>{text}</TEXT>{inst}{tl}</TimeML>"


# timeline: tests/test_timeline.py's example (the id-based truth crosses the orders).
SAID = [("said", "REPORTING"), ("left", "OCCURRENCE"), ("said", "REPORTING")]
TIMELINE_GOLD = timeml("d1", SAID, [(1, "BEFORE", 2), (2, "BEFORE", 3)])
TIMELINE_SYS = timeml("d1", SAID, [(1, "AFTER", 2)])
# temporal: tests/test_temporal_cli.py's example; the system document is inconsistent
# (e1 < e3 and e3 < e1), so the exact mode and `check` solve its maximum consistent subset.
ABC = [("a", "OCCURRENCE"), ("b", "OCCURRENCE"), ("c", "OCCURRENCE")]
TEMPORAL_GOLD = timeml("d1", ABC, [(1, "BEFORE", 2), (2, "BEFORE", 3)])
TEMPORAL_SYS = timeml("d1", ABC, [(1, "BEFORE", 3), (3, "BEFORE", 1), (2, "AFTER", 1)])


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    """Every input file, written once for the module: placeholder name -> path."""
    root = tmp_path_factory.mktemp("inputs")
    paths: dict[str, str] = {}

    def put(name: str, text: str, key: str | None = None) -> None:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        if key is not None:
            paths[key] = str(p)

    def put_dir(key: str, name: str, doc: str, text: str) -> None:
        put(f"{name}/{doc}.tml", text)
        paths[key] = str(root / name)

    put("pairs.tsv", PAIRS, "pairs")
    (root / "data_dest").mkdir()
    paths["data_dest"] = str(root / "data_dest")
    put("score_gold.jsonl", SCORE_GOLD, "score_gold")
    put("score_sys.jsonl", SCORE_SYS, "score_sys")
    put("big.tsv", BIG_PAIRS, "big_pairs")
    put("gold.tbf", GOLD_TBF, "gold_tbf")
    put("sys.tbf", SYS_TBF, "sys_tbf")
    put("key.conll", KEY_CONLL, "key_conll")
    from exactalign.perturb.corefud import synthetic_pair
    key_ud, resp_ud = synthetic_pair(3)
    put("key.conllu", key_ud, "key_corefud")
    put("resp.conllu", resp_ud, "resp_corefud")
    put("resp.conll", RESP_CONLL, "resp_conll")
    put("ere_a.json", json.dumps(ERE_A), "ere_a")
    put("ere_b.json", json.dumps(ERE_B), "ere_b")
    put("key-tst3", MUC_KEY, "muc_key")
    put("resp-tst3", MUC_RESP, "muc_resp")
    put("gtt_gold.json", json.dumps(GTT_GOLD) + "\n", "gtt_gold")
    put("gtt_preds.out", json.dumps(GTT_PRED), "gtt_pred")
    put("ree_gold.json", json.dumps(REE_GOLD) + "\n", "ree_gold")
    put("ree_preds.out", json.dumps(REE_PRED), "ree_pred")
    put("test.amr", AMR_TEST, "amr_test")
    put("pred.umr", UMR_PRED, "umr_pred")
    put("gold.umr", UMR_GOLD, "umr_gold")
    put("gold.amr", AMR_GOLD, "amr_gold")
    put("pred.drs", DRS_PRED, "drs_pred")
    put("gold.drs", DRS_GOLD, "drs_gold")
    put("dag_a.json", json.dumps(DAG_A), "dag_a")
    put("dag_b.json", json.dumps(DAG_B), "dag_b")
    put("grits_gold.json", json.dumps(GRITS_GOLD), "grits_gold")
    put("grits_pred.json", json.dumps(GRITS_PRED), "grits_pred")
    put_dir("timeline_gold", "timeline_gold", "d1", TIMELINE_GOLD)
    put_dir("timeline_sys", "timeline_sys", "d1", TIMELINE_SYS)
    put_dir("temporal_gold", "temporal_gold", "d1", TEMPORAL_GOLD)
    put_dir("temporal_sys", "temporal_sys", "d1", TEMPORAL_SYS)
    return paths


# --------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One command line (``{placeholder}`` = an input path; ``--json`` and ``--backend`` are
    added), the backends it runs with, and what it must do."""

    name: str
    argv: tuple[str, ...]
    backends: tuple[str, ...] = ("highs",)  # the command solves nothing: one run suffices
    rc: int = 0  # expected exit status with JSON on stdout
    refused_by: frozenset[str] = frozenset()  # backends expected to refuse (one-line error)
    solver_route: bool = False  # the case forces the command's solver route
    fresh: bool = False  # also run in a fresh process (layer 2), with --backend highs
    no_bnb: bool = False  # smatch: skip the pure-Python branch and bound (LP/MIP route)

    @property
    def command(self) -> str:
        return self.argv[0]

    def line(self, paths: dict[str, str], backend: str) -> list[str]:
        """The command line; ``--backend`` only where the command takes it (``info`` and
        ``validate`` solve nothing through a backend)."""
        takes = "backend" in next(c for c in cli.COMMANDS if c.name == self.command).shared
        return ([a.format(**paths) for a in self.argv] + ["--json"]
                + (["--backend", backend] if takes else []))


ALL = BACKENDS
#: The case forces the command's solver route and runs in a fresh process too.
ROUTE = {"solver_route": True, "fresh": True}
CASES = [
    Case("bipartite-ilp", ("bipartite", "{pairs}", "--method", "ilp", "--method", "greedy"),
         ALL, **ROUTE),
    Case("bipartite-default", ("bipartite", "{pairs}")),
    Case("bipartite-ilp-12x12", ("bipartite", "{big_pairs}", "--method", "ilp"), ALL,
         refused_by=frozenset({"brute"}), solver_route=True),
    Case("info", ("info",), fresh=True),
    Case("data-status", ("data", "status"), fresh=True),
    Case("data-manifest", ("data", "manifest", "--only", "drs/gold"), fresh=True),
    # one file from an empty mirror on disk: no network, the failure reported in the JSON
    Case("data-fetch", ("data", "fetch", "--only", "amr/smatch-tests/LICENSE.txt", "--dest",
                        "{data_dest}", "--base-url", "file://{data_dest}/no-mirror"), rc=1,
         fresh=True),
    Case("nugget-ilp", ("nugget", "-g", "{gold_tbf}", "-s", "{sys_tbf}", "--mapping", "all",
                        "--exact-method", "ilp"), ALL, **ROUTE),
    Case("nugget-coref", ("nugget", "-g", "{gold_tbf}", "-s", "{sys_tbf}", "-c")),
    Case("nugget-pilot-study", ("nugget", "-g", "{gold_tbf}", "-s", "{sys_tbf}",
                                "--pilot-study")),
    Case("nugget-muc", ("nugget", "-g", "{gold_tbf}", "-s", "{sys_tbf}", "--scheme", "muc",
                        "--mapping", "all")),
    Case("coref-ilp", ("coref", "{key_conll}", "{resp_conll}", "--ceaf-method", "ilp"), ALL,
         **ROUTE),
    Case("coref-greedy", ("coref", "{key_conll}", "{resp_conll}", "--ceaf-method", "greedy")),
    Case("coref-corefud", ("coref", "--format", "corefud", "{key_corefud}", "{resp_corefud}",
                           "--match", "partial", "--keep-singletons")),
    Case("coref-corefud-exact", ("coref", "--format", "corefud", "{key_corefud}",
                                 "{resp_corefud}", "--method", "both"), ALL,
         refused_by=frozenset({"brute"}), **ROUTE),
    # ere solves its exact mapping as an assignment unless another backend or a time limit is
    # given: --time-limit sends every backend, highs included, through the ILP
    Case("ere-exact-ilp", ("ere", "{ere_a}", "{ere_b}", "--mapping", "exact", "--time-limit",
                           "60"), ALL, **ROUTE),
    Case("ere-procedure", ("ere", "{ere_a}", "{ere_b}")),
    Case("muc4-1992", ("muc4", "{muc_key}", "{muc_resp}", "--alignment", "all"), fresh=True),
    Case("muc4-gtt", ("muc4", "{gtt_gold}", "{gtt_pred}", "--format", "gtt", "--metric", "all",
                      "--alignment", "all"), ALL, **ROUTE),
    Case("muc4-gtt-ceaf-ree", ("muc4", "{ree_gold}", "{ree_pred}", "--format", "gtt",
                               "--metric", "ceaf-ree", "--alignment", "all")),
    # the pure-Python branch and bound switched off: the LP (always HiGHS), then the MIP
    Case("smatch-lp-mip", ("smatch", "-f", "{amr_test}", "{amr_gold}", "--method", "both",
                           "--pairs"), ALL, refused_by=frozenset({"brute"}), no_bnb=True,
         **ROUTE),
    Case("score", ("score", "--metric", "coref-ceafe", "--metric", "coref-bcubed",
                   "{score_gold}", "{score_sys}"), fresh=True),
    Case("validate", ("validate", "--metric", "coref-ceafm", "--heuristic",
                      "exactalign.declared.heuristics:largest_overlap", "--examples", "20",
                      "--guided", "10", "--exhaustive", "300", "{score_gold}", "{score_sys}"),
         fresh=True, rc=1),  # largest overlap first is not optimal for CEAFm: found
    Case("smatch-bnb", ("smatch", "-f", "{amr_test}", "{amr_gold}", "--pairs"), fresh=True),
    Case("umr-doc", ("umr", "{umr_pred}", "{umr_gold}", "--scope", "doc"), fresh=True),
    Case("umr-snt", ("umr", "{umr_pred}", "{umr_gold}")),
    Case("drs", ("drs", "{drs_pred}", "{drs_gold}", "--ms", "--no-wordnet"), fresh=True),
    Case("monotone-dag-ilp", ("monotone", "{dag_a}", "{dag_b}", "--method", "ilp"), ALL,
         **ROUTE),
    Case("monotone-dag-all-pairwise", ("monotone", "{dag_a}", "{dag_b}", "--formulation",
                                       "pairwise")),
    Case("timeline", ("timeline", "{timeline_gold}", "{timeline_sys}"), ALL, **ROUTE),
    Case("temporal-exact", ("temporal", "{temporal_gold}", "{temporal_sys}", "--mode", "exact"),
         ALL, **ROUTE),
    Case("temporal-te3", ("temporal", "{temporal_gold}", "{temporal_sys}", "--mode", "te3"),
         fresh=True),
    # `temporal check` exits 1 after its full report when a document is inconsistent (a lint's
    # convention, README), 0 when every document is consistent
    Case("temporal-check-inconsistent", ("temporal", "check", "{temporal_sys}"), ALL, rc=1,
         **ROUTE),
    Case("temporal-check-consistent", ("temporal", "check", "{temporal_gold}")),
    # the ILP's cell variables are continuous: the brute backend refuses it (one-line error)
    Case("grits-ilp", ("grits", "{grits_gold}", "{grits_pred}", "--exact-method", "ilp"), ALL,
         refused_by=frozenset({"brute"}), **ROUTE),
    Case("grits-bnb", ("grits", "{grits_gold}", "{grits_pred}"), fresh=True),
]


def _params(cases, backends_of) -> list:
    return [pytest.param(case, backend, id=f"{case.name}-{backend}")
            for case in cases for backend in backends_of(case)]


IN_PROCESS = _params(CASES, lambda c: c.backends)
SUBPROCESS = _params([c for c in CASES if c.fresh], lambda c: ("highs",))


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def solves(obj):
    """Every solve object (``Result.to_dict()``) nested anywhere in a JSON document."""
    if isinstance(obj, dict):
        if "status" in obj and "proven_optimal" in obj:
            yield obj
        for v in obj.values():
            yield from solves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from solves(v)


def check_run(case: Case, backend: str, rc: int, out: str, err: str) -> dict | None:
    """The command's stdout is exactly one JSON object and its exit status the expected one;
    or, for a backend expected to refuse, a one-line error and nothing on stdout."""
    where = (f"{case.name} --backend {backend}: exit {rc}\nstdout: {out[:2000]}\n"
             f"stderr: {err[:2000]}")
    assert "Traceback" not in err, where
    if backend in case.refused_by:
        assert rc == 2, where
        assert out == "", where
        assert err.startswith("exactalign: error: ") and err.count("\n") == 1, where
        return None
    assert rc == case.rc, where
    try:
        doc = json.loads(out)  # one document: a banner before it or anything after it fails
    except json.JSONDecodeError as e:
        raise AssertionError(f"stdout is not one JSON document ({e})\n{where}") from None
    assert isinstance(doc, dict), where
    assert out.endswith("}\n"), where
    for s in solves(doc):
        assert SOLVE_KEYS <= set(s), f"solve object without {SOLVE_KEYS - set(s)}: {s}"
    check_schema(doc, case)
    return doc


SCHEMA = json.loads((Path(cli.__file__).parent.parent / "output.schema.json").read_text())


def _objects(obj):
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _objects(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _objects(v)


#: Any P/R/F object nested anywhere (the schema's ``prf`` is strict, for ``overall`` and the
#: rows' ``scores``; a nested one may carry more, as a macro average's ``f1_of_means``).
NESTED_PRF = {"type": "object", "required": ["precision", "recall", "f1"],
              "properties": {k: {"$ref": "#/$defs/number_or_null"}
                             for k in ("precision", "recall", "f1")}}


def check_schema(doc: dict, case: Case) -> None:
    """``doc`` follows exactalign/output.schema.json: the envelope, the one shape of
    ``overall``, ``documents`` and ``solves``, and every solve and every precision/recall/F1
    object inside it (keys precision, recall, f1 in that order)."""
    import jsonschema

    jsonschema.validate(doc, SCHEMA)
    defs = SCHEMA["$defs"]
    for obj in _objects(doc):
        if "status" in obj and "proven_optimal" in obj:
            jsonschema.validate(obj, {**defs["solve"], "$defs": defs})
        if {"recall", "precision", "f1"} <= set(obj):
            jsonschema.validate(obj, {**NESTED_PRF, "$defs": defs})
            assert list(obj)[:3] == ["precision", "recall", "f1"], obj
    assert doc["command"] == case.command or doc["command"] == "temporal check" \
        or doc["command"] == f"{case.command} {case.argv[1]}"
    check_shape(doc)


#: The commands that score (P/R/F): ``overall`` and ``documents`` with ``scores``.
SCORING = {"nugget", "coref", "muc4", "smatch", "score", "temporal", "timeline", "grits",
           "umr", "drs"}
#: The commands whose alignments are certified solves (``solves`` at the top level).
CERTIFIED = {"bipartite", "monotone", "coref", "smatch", "timeline", "score", "ere",
             "temporal check", "grits", "umr", "drs"}


def check_shape(doc: dict) -> None:
    """The one shape, asserted directly (not only through the schema): ``overall`` maps a
    score name to a P/R/F; ``documents`` is a list of rows with unique ids whose ``scores``
    use ``overall``'s names; ``solves`` maps a name to a solve; each key only on the commands
    that have it."""
    command = doc["command"]
    nugget_certified = command == "nugget" and doc["options"]["scheme"] == "dice" \
        and doc["options"]["pilot_study"] is None
    if command in SCORING:
        overall = doc["overall"]
        assert isinstance(overall, dict) and overall
        for name, score in overall.items():
            assert isinstance(name, str) and set(score) <= {"precision", "recall", "f1",
                                                            "counts"}, (name, score)
        rows = doc["documents"]
        assert isinstance(rows, list) and rows
        ids = [row["id"] for row in rows]
        assert len(ids) == len(set(ids)), ids
        for row in rows:
            assert list(row)[:2] == ["id", "scores"], list(row)
            assert row["scores"] and set(row["scores"]) <= set(overall), \
                (set(row["scores"]) - set(overall))
    else:
        assert "overall" not in doc
    if command in ("ere", "temporal check"):
        assert all("id" in row and "scores" not in row for row in doc["documents"])
    if command in CERTIFIED or nugget_certified:
        assert isinstance(doc["solves"], dict) and doc["solves"], command
        assert all(set(s) >= SOLVE_KEYS for s in doc["solves"].values())
    else:
        assert "solves" not in doc, command
    assert "results" not in doc and "pairs" not in doc  # renamed: solves, documents


def test_the_schema_is_a_valid_json_schema():
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    names = ({c.name for c in cli.COMMANDS} - {"data"}) | {"temporal check", "data fetch",
                                                          "data status", "data manifest"}
    assert set(SCHEMA["properties"]["command"]["enum"]) == names


def test_every_command_is_covered():
    """A new sub-command must get a case here (with its solver route, if it has one)."""
    assert {c.name for c in cli.COMMANDS} == {c.command for c in CASES}
    assert {c.command for c in CASES} == {c.command for c, _ in (p.values for p in SUBPROCESS)}


# --------------------------------------------------------------------------------------------
# layer 1: in-process, file-descriptor capture
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case, backend", IN_PROCESS)
def test_json_in_process(case, backend, inputs, capfd, monkeypatch):
    if case.no_bnb:
        monkeypatch.setattr(bnb, "BNB_WORK_LIMIT", 0)
    used = []  # every backend a solve went through
    get_backend = core_solve.get_backend
    monkeypatch.setattr(core_solve, "get_backend",
                        lambda name: (used.append(name), get_backend(name))[1])
    capfd.readouterr()
    rc = cli.main(case.line(inputs, backend))
    out, err = capfd.readouterr()
    doc = check_run(case, backend, rc, out, err)
    if doc is None:
        assert "brute backend" in err
    if case.solver_route:  # the route was taken and --backend reached its solver
        assert backend in used, f"{case.name}: no solve on {backend} ({used})"


@pytest.mark.parametrize("backend", BACKENDS)
def test_bipartite_ilp_solve_reports_presolve_and_fallback(backend, inputs, capfd):
    rc = cli.main(["bipartite", inputs["pairs"], "--method", "ilp", "--method", "greedy",
                   "--json", "--backend", backend])
    out, err = capfd.readouterr()
    doc = check_run(CASES[0], backend, rc, out, err)
    ilp, greedy = doc["solves"]["ilp"], doc["solves"]["greedy"]
    assert ilp["status"] == "optimal" and ilp["objective"] == pytest.approx(1.4)
    assert ilp["backend"] == backend and ilp["fallback"] == []
    assert isinstance(ilp["presolve"], bool)
    # a heuristic has no solver: presolve null, no fallback
    assert greedy["backend"] is None and greedy["presolve"] is None and greedy["fallback"] == []


# --------------------------------------------------------------------------------------------
# layer 2: a fresh process per command
# --------------------------------------------------------------------------------------------
#: ``python -c`` prologue running ``python -m exactalign`` with the branch and bound of smatch
#: switched off, so that a tiny pair reaches the LP/MIP route in a fresh process too.
NO_BNB = ("import runpy, exactalign.problems.latent.bnb as lp; lp.BNB_WORK_LIMIT = 0; "
          "runpy.run_module('exactalign', run_name='__main__', alter_sys=True)")


@pytest.mark.parametrize("case, backend", SUBPROCESS)
def test_json_fresh_process(case, backend, inputs):
    head = [sys.executable, "-c", NO_BNB] if case.no_bnb else [sys.executable, "-m", "exactalign"]
    proc = subprocess.run([*head, *case.line(inputs, backend)], capture_output=True, text=True,
                          timeout=120)
    check_run(case, backend, proc.returncode, proc.stdout, proc.stderr)


# --------------------------------------------------------------------------------------------
# --time-limit is the command's budget: with none left, every command still answers
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c.solver_route], ids=lambda c: c.name)
def test_a_spent_budget_still_answers(case, inputs, capfd, monkeypatch):
    """``--time-limit 0``: every solve of the command stops at once (the budget is the
    command's, :func:`~exactalign.core.deadline.command_budget`); the command still prints one
    JSON document with its exit status, and every solve object reports a valid status, the ILP
    routes ``time_limit`` (or ``optimal`` where its incumbent meets its bound at once)."""
    if case.no_bnb:
        monkeypatch.setattr(bnb, "BNB_WORK_LIMIT", 0)
    limits = []
    real = core_solve.get_backend

    def spy(name):
        solve = real(name)
        return lambda model, opts: (limits.append(opts.time_limit), solve(model, opts))[1]

    monkeypatch.setattr(core_solve, "get_backend", spy)
    capfd.readouterr()
    rc = cli.main(case.line(inputs, "highs") + ["--time-limit", "0"])
    out, err = capfd.readouterr()
    doc = check_run(case, "highs", rc, out, err)
    statuses = {s["status"] for s in solves(doc)}
    assert statuses <= {"optimal", "time_limit", "feasible"}, statuses
    assert all(t is not None and t <= 1e-3 for t in limits), limits


# --------------------------------------------------------------------------------------------
# text output: one column order, P R F1
# --------------------------------------------------------------------------------------------
#: Text runs of every scoring command, with the options that add tables of P/R/F1.
TEXT_CASES = [c.argv for c in CASES if c.command in SCORING and c.argv[1] != "check"] + [
    ("coref", "{key_conll}", "{resp_conll}", "--documents"),
    ("coref", "--format", "corefud", "{key_corefud}", "{resp_corefud}", "--documents"),
    ("coref", "--format", "corefud", "{key_corefud}", "{resp_corefud}", "--documents",
     "--method", "both"),
    ("nugget", "-g", "{gold_tbf}", "-s", "{sys_tbf}", "-c", "--mapping", "all"),
    ("muc4", "{muc_key}", "{muc_resp}", "--per-message"),
    ("smatch", "-f", "{amr_test}", "{amr_gold}", "--pr", "--method", "both"),
    ("score", "--metric", "coref-ceafe", "{score_gold}", "{score_sys}", "--documents"),
    ("temporal", "{temporal_gold}", "{temporal_sys}", "--entities"),
]
PRF_TOKENS = {
    "P": re.compile(r"\b(?:P|Prec|precision|Precision)\b"),
    "R": re.compile(r"\b(?:R|Rec|recall|Recall)\b"),
    "F1": re.compile(r"\b(?:F1|f1|F-score)\b"),
}


def prf_order(line: str) -> list[str]:
    """The P/R/F1 column names of a line, in the order they appear."""
    found = [(m.start(), kind) for kind, rx in PRF_TOKENS.items() for m in rx.finditer(line)]
    return [kind for _, kind in sorted(found)]


def p_r_f1(line: str) -> bool:
    """P before R before F1 on ``line`` (each where it first appears; any may be absent)."""
    first = list(dict.fromkeys(prf_order(line)))
    return first == [k for k in ("P", "R", "F1") if k in first]


def test_prf_order():
    assert prf_order("metric  precision  recall  F1") == ["P", "R", "F1"]
    assert prf_order("EVENT strict F1  P  R") == ["F1", "P", "R"]
    assert prf_order("Rows: 5 (POS=2 PAR=1)") == []
    # the headers printed before one order was fixed fail; today's pass
    for old in ("metric  recall    precision    F1",  # coref
                "alignment  status  recall  precision  f1  counts",  # muc4
                "mapping  attributes  COR  PAR  credit  ACT  POS  opt  F1  Prec  Rec  status",
                "Metric\tRec\tPrec\tF1", "         strict F1       P       R   relaxed F1"):
        assert not p_r_f1(old), old
    assert p_r_f1("document  P  R  F1  matched/total (P; R)")
    assert p_r_f1("mapping  TP  max doc F1 gap  micro F1  exact micro F1")


@pytest.mark.parametrize("argv", TEXT_CASES, ids=lambda a: " ".join(a))
def test_text_tables_print_p_r_f1(argv, inputs, capfd):
    """Every table (and smatch's lines) of a scoring command prints precision, then recall,
    then F1 -- coref and muc4 printed R P F1 before. The reproduced peer formats keep their
    own layout byte for byte: nugget's v1.8 report (``--compat``) prints ``Prec Rec F1``
    anyway; its event sequencing section (``-a``, not run here) prints the TempEval-3
    toolkit's ``F1 P R``, as v1.8 does."""
    capfd.readouterr()
    rc = cli.main([a.format(**inputs) for a in argv])
    out, err = capfd.readouterr()
    assert rc in (0, 1), err
    headers = [(line, order) for line in out.splitlines()
               if len(order := prf_order(line)) >= 2]
    whole = [k for line in out.splitlines() for k in prf_order(line)]
    assert headers or whole, f"no P/R/F1 in the output of {argv}:\n{out}"
    for line, _ in headers:
        assert p_r_f1(line), line
    if "--pr" in argv:  # smatch: one line each, Precision:, Recall:, F-score:
        assert whole[:3] == ["P", "R", "F1"], out
