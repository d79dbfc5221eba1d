"""Recipes: pilot files rebuilt from files of their public source, byte for byte.

A recipe is a function ``read -> {pilot path: bytes}``, where ``read(path)`` returns the bytes
of a file of the recipe's repository (at the commit the registry pins); :data:`RECIPES` maps
each recipe's name (the registry's ``recipe``) to its repository, the paths it reads and the
function. ``exactalign data fetch`` checks every output against the registry's sha256, so a
recipe that drifts is an error, never a silently different data set.

``ace-dev``: ``nugget/ace-dev/{gold,system}.tbf``, the 30 ACE-2005 dev documents of EvmEval's
visualisation corpus (``util/visualization/corpus/ace_dev/span/DOC_{gold,sys}.json``, brat-style
JSON) as TBF with character offsets. The rules, found by rebuilding the pilot's copies:

* one TBF per side: ``DOC_gold.json`` -> ``gold.tbf`` (system column ``gold``),
  ``DOC_sys.json`` -> ``system.tbf`` (``sysX``); documents in byte-wise sorted order of the id,
  each framed by ``#BeginOfDocument DOC`` ... ``#EndOfDocument``; no coreference lines;
* one line per entry of ``triggers``, in the JSON's order, all of them (also those whose label
  carries the visualisation's ``_miss``, ``_part`` or ``_wrong_status``); the mention id is the
  trigger id; the token column is ``x`` (character offsets only);
* the span ``start,end``; a trigger in pieces has them sorted and touching pieces fused (one
  does: ``[[1000,1003],[998,1000]]`` -> ``998,1003``);
* the type is the label up to its first ``_`` (``conflictattack_miss`` -> ``conflictattack``);
  the realis is the event's attribute that is not a visualisation flag (``realis_wrong``,
  ``type_wrong``), capitalised (``actual`` -> ``Actual``; attribute -> event -> trigger).

``conll-expected``: ``coref/conll-reference-scorer-tests/expected_values.json``, the expected
values of the CoNLL reference scorer's Perl harness: the list ``our @TestCases = (...)`` of its
``test/CorefMetricTestConfig.pm`` as Perl itself serialises it (``JSON::PP->new->pretty->
canonical``; checked against Perl): comments dropped (also the commented-out metrics), the
arithmetic of the values evaluated left to right in double precision (``(7/3)/6``), integers as
integers and other numbers as Perl prints them (``%.15g``: ``1/3`` -> ``0.333333333333333``),
hash keys sorted at every level, lists in source order, three spaces of indent and ``" : "``.
The parser reads only this file's subset of Perl (hashes, arrays, strings without
interpolation, numbers and ``+ - * /``) and refuses anything else.

``amr-reference``: ``amr/reference/*.json``, smatch 1.0.4's triple counts and hill-climbing
matches under 10 seeds and Smatch++'s ILP optimum of smatch's objective, per AMR pair, computed
by the peers themselves (:mod:`exactalign.data.amr_reference`).

``ace-perturbed``: ``nugget/ace-dev/perturbed/system{1,2,3}.tbf``, three systems made from the
rebuilt ACE gold by :func:`exactalign.perturb.mentions.perturb` under the fixed rates and seeds of
:data:`ACE_PERTURBED` -- realistic, distinct error profiles (boundary shifts of up to 8
characters at both ends, as the ACE systems make them; type and realis errors; misses, spurious
mentions, merges, splits and double tagging), from a light system (plain F1 0.894 against the
gold) through a boundary-heavy one (0.797) to a weak one (0.696). The bytes are the registry's
as long as the generator and numpy's PCG64 stream are unchanged; a change fails the fetch.

``evmeval-v1.8`` and ``evmeval-v1.8-coref``: the official outputs of EvmEval's
``scorer_v1.8.py`` on the pilot's nugget inputs (the four token-based demo systems, the ACE-2005
dev system; the char-based demo system with its coreference scores), made by running that scorer
-- downloaded from EvmEval at the pinned commit, with the CoNLL scorer it calls for
coreference -- under Python 2.7 (``$EXACTALIGN_PYTHON2``, else ``python2.7``/``python2`` on PATH;
Perl too for the coreference one). Byte-identical to the recorded outputs. Without Python 2.7
the recipe is skipped (said so), not failed. The coreference run also gives the CoNLL scorer's
log (``char_based.system_A.coref``) in a normal form (:func:`normal_conll_log`): as the scorer
writes it, it names the absolute path the scorer ran from and orders each metric's
per-document blocks by Perl's hash order, which changes from run to run.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from . import amr_reference

ACE_SPAN_DIR = "util/visualization/corpus/ace_dev/span"
#: The 30 documents, in output (byte-wise sorted) order.
ACE_DOCS = (
    "AFP_ENG_20030304.0250", "AFP_ENG_20030305.0918", "AFP_ENG_20030311.0491",
    "AFP_ENG_20030314.0238", "AFP_ENG_20030319.0879", "AFP_ENG_20030320.0722",
    "AFP_ENG_20030327.0022", "AFP_ENG_20030327.0224", "AGGRESSIVEVOICEDAILY_20041116.1347",
    "CNNHL_ENG_20030304_142751.10", "CNNHL_ENG_20030424_123502.25",
    "CNNHL_ENG_20030513_220910.32", "CNN_CF_20030303.1900.02", "CNN_ENG_20030304_173120.16",
    "CNN_ENG_20030328_150609.10", "CNN_ENG_20030424_070008.15", "CNN_ENG_20030512_170454.13",
    "CNN_ENG_20030620_085840.7", "CNN_IP_20030329.1600.00-2", "CNN_IP_20030402.1600.00-1",
    "CNN_IP_20030405.1600.01-1", "CNN_IP_20030409.1600.02", "FLOPPINGACES_20041117.2002.024",
    "FLOPPINGACES_20050203.1953.038", "FLOPPINGACES_20050217.1237.014", "TTRACY_20050223.1049",
    "marcellapr_20050228.2219", "rec.games.chess.politics_20041216.1047",
    "rec.games.chess.politics_20041217.2111", "soc.org.nonprofit_20050218.1902",
)
#: (pilot path, JSON suffix, the TBF's system column)
ACE_SIDES = (("nugget/ace-dev/gold.tbf", "gold", "gold"),
             ("nugget/ace-dev/system.tbf", "sys", "sysX"))
_FLAGS = frozenset({"realis_wrong", "type_wrong"})


def _span(pieces: list[list[int]]) -> str:
    merged: list[list[int]] = []
    for start, end in sorted(pieces):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return ";".join(f"{s},{e}" for s, e in merged)


def _ace_document(doc: str, system: str, data: dict) -> list[str]:
    trigger_of = {event[0]: event[1] for event in data["events"]}
    realis = {trigger_of[event]: name.capitalize()
              for _, name, event in data["attributes"] if name not in _FLAGS}
    lines = [f"#BeginOfDocument {doc}"]
    for trigger, label, pieces in data["triggers"]:
        lines.append("\t".join((system, doc, trigger, _span(pieces), "x",
                                label.split("_", 1)[0], realis[trigger])))
    lines.append("#EndOfDocument")
    return lines


def ace_dev(read: Callable[[str], bytes]) -> dict[str, bytes]:
    """``nugget/ace-dev/gold.tbf`` and ``system.tbf`` from EvmEval's visualisation corpus."""
    out = {}
    for target, suffix, system in ACE_SIDES:
        lines: list[str] = []
        for doc in ACE_DOCS:
            lines += _ace_document(doc, system,
                                   json.loads(read(f"{ACE_SPAN_DIR}/{doc}_{suffix}.json")))
        out[target] = ("\n".join(lines) + "\n").encode("utf-8")
    return out


# ------------------------------------------------------------------ conll-expected
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_]\w*)
  | (?P<op>=>|[{}\[\](),+\-*/])
    """,
    re.VERBOSE | re.DOTALL,
)


def conll_expected_json(config_text: str) -> bytes:
    """``@TestCases`` of the harness's ``CorefMetricTestConfig.pm`` as Perl's
    ``JSON::PP->new->pretty->canonical`` prints it (see the module docstring)."""
    # --- 1. isolate the body of  our @TestCases = ( ... );
    m = re.search(r"our\s+@TestCases\s*=\s*\(", config_text)
    if not m:
        raise ValueError("@TestCases not found")
    text = config_text[m.end():]

    # --- 2. tokenize (Perl '#' comments run to end of line; they hold the
    #        commented-out, i.e. inactive, metric entries)
    tokens = []
    pos = 0
    depth = 1
    while True:
        mt = _TOKEN_RE.match(text, pos)
        if not mt:
            raise ValueError(f"cannot tokenize near {text[pos:pos + 40]!r}")
        pos = mt.end()
        kind = mt.lastgroup
        val = mt.group()
        if kind in ("ws", "comment"):
            continue
        if kind == "op" and val == "(":
            depth += 1
        elif kind == "op" and val == ")":
            depth -= 1
            if depth == 0:  # closing paren of the @TestCases list
                break
        tokens.append((kind, val))

    # --- 3. safe arithmetic evaluation (Perl semantics for these literals:
    #        integer literals stay integers, '/' is always true division)
    bin_ops = {ast.Add: operator.add, ast.Sub: operator.sub,
               ast.Mult: operator.mul, ast.Div: operator.truediv}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in bin_ops:
            return bin_ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        raise ValueError(f"unsupported expression node {node!r}")

    def unquote(s):
        if s[0] == "'":
            return re.sub(r"\\([\\'])", r"\1", s[1:-1])
        body = s[1:-1]
        if "$" in body or "@" in body:
            raise ValueError(f"interpolating string not supported: {s!r}")
        esc = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
        return re.sub(r"\\(.)", lambda g: esc.get(g.group(1), g.group(1)), body)

    # --- 4. recursive-descent parser for lists / hashrefs / arrayrefs
    i = 0

    def peek():
        return tokens[i] if i < len(tokens) else (None, None)

    def expect(v):
        nonlocal i
        if peek()[1] != v:
            raise ValueError(f"expected {v!r}, got {peek()!r}")
        i += 1

    def parse_expr():
        nonlocal i
        parts = []
        d = 0
        while True:
            kind, val = peek()
            if kind is None:
                raise ValueError("unexpected end in expression")
            if d == 0 and val in (",", "]", "}", "=>"):
                break
            if val == "(":
                d += 1
            elif val == ")":
                d -= 1
            if kind not in ("num", "op") or val in ("{", "}", "[", "]", "=>"):
                raise ValueError(f"unsupported token in expression: {val!r}")
            parts.append(val)
            i += 1
        if not parts:
            raise ValueError("empty expression")
        v = ev(ast.parse(" ".join(parts), mode="eval"))
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("non-finite value")
        return v

    def parse_value():
        nonlocal i
        kind, val = peek()
        if val == "{":
            return parse_hash()
        if val == "[":
            return parse_array()
        if kind == "str":
            i += 1
            return unquote(val)
        return parse_expr()

    def parse_items(close):
        nonlocal i
        items = []
        while peek()[1] != close:
            items.append(parse_value())
            if peek()[1] == ",":
                i += 1
            elif peek()[1] != close:
                raise ValueError(f"expected ',' or {close!r}, got {peek()!r}")
        return items

    def parse_array():
        expect("[")
        items = parse_items("]")
        expect("]")
        return items

    def parse_hash():
        nonlocal i
        expect("{")
        out = {}
        while peek()[1] != "}":
            kind, val = peek()
            if kind == "word" and tokens[i + 1][1] == "=>":  # bareword key
                key = val
                i += 1
            elif kind == "str":
                key = unquote(val)
                i += 1
            else:
                raise ValueError(f"bad hash key {peek()!r}")
            expect("=>")
            out[key] = parse_value()  # a repeated key: later one wins, as in Perl
            if peek()[1] == ",":
                i += 1
            elif peek()[1] != "}":
                raise ValueError(f"expected ',' or '}}', got {peek()!r}")
        expect("}")
        return out

    cases = []
    while i < len(tokens):
        cases.append(parse_value())
        if i < len(tokens):
            expect(",")

    # --- 5. JSON::PP ->pretty->canonical output
    def num(v):
        if isinstance(v, bool):
            raise ValueError("bool")
        if isinstance(v, int):
            return str(v)
        return f"{v:.15g}"  # Perl's default NV stringification

    def jstr(s):
        out = ['"']
        for ch in s:
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch in "\n\r\t\f\b":
                out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t",
                            "\f": "\\f", "\b": "\\b"}[ch])
            elif ord(ch) < 0x20:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    def enc(v, lvl):
        ind = "   " * (lvl + 1)
        end = "   " * lvl
        if isinstance(v, dict):
            if not v:
                return "{}"
            body = ",\n".join(ind + jstr(k) + " : " + enc(v[k], lvl + 1)
                              for k in sorted(v))
            return "{\n" + body + "\n" + end + "}"
        if isinstance(v, list):
            if not v:
                return "[]"
            body = ",\n".join(ind + enc(x, lvl + 1) for x in v)
            return "[\n" + body + "\n" + end + "]"
        if isinstance(v, str):
            return jstr(v)
        return num(v)

    return (enc(cases, 0) + "\n").encode("utf-8")


CONLL_CONFIG = "test/CorefMetricTestConfig.pm"


def conll_expected(read: Callable[[str], bytes]) -> dict[str, bytes]:
    """``expected_values.json`` from the harness's ``CorefMetricTestConfig.pm``."""
    return {"coref/conll-reference-scorer-tests/expected_values.json":
            conll_expected_json(read(CONLL_CONFIG).decode("utf-8"))}


# ------------------------------------------------------------------ ace-perturbed
#: system number -> (error rates as keywords of ErrorRates, seed): the three perturbed ACE
#: systems (module docstring). Changing one changes the files: the registry's sha256s follow.
ACE_PERTURBED = {
    1: (dict(miss=0.04, shift=0.22, type=0.04, realis=0.04, spurious=0.03, max_shift=8), 1),
    2: (dict(miss=0.04, merge=0.04, split=0.04, shift=0.45, type=0.08, realis=0.06, double=0.01,
             spurious=0.04, max_shift=8), 2),
    3: (dict(miss=0.10, merge=0.02, split=0.02, shift=0.62, type=0.08, realis=0.05, double=0.02,
             spurious=0.10, max_shift=8), 3),
}
ACE_GOLD = "nugget/ace-dev/gold.tbf"


def ace_perturbed_path(k: int) -> str:
    return f"nugget/ace-dev/perturbed/system{k}.tbf"


def ace_perturbed(root: Path) -> dict[str, bytes]:
    """The three perturbed ACE systems from ``root``'s rebuilt gold (:data:`ACE_PERTURBED`)."""
    from ..io.tbf import format_tbf, read_tbf
    from ..perturb.mentions import ErrorRates, perturb

    gold = read_tbf(root / ACE_GOLD)
    out = {}
    for k, (rates, seed) in ACE_PERTURBED.items():
        system = perturb(gold, ErrorRates(**rates), seed, system_id=f"system{k}").system
        out[ace_perturbed_path(k)] = format_tbf(system).encode("utf-8")
    return out


# ------------------------------------------------------------------ evmeval-v1.8
#: The scorer's own modules (EvmEval at the pinned commit) and the CoNLL scorer it runs for
#: coreference (``-c``).
EVMEVAL_SCORER = ("scorer_v1.8.py", "config.py", "conll_coref.py", "temporal.py", "utils.py")
EVMEVAL_CONLL = tuple(
    f"reference-coreference-scorers-8.01/{p}" for p in (
        "scorer.pl", "lib/CorScorer.pm", "lib/Cwd.pm", "lib/Data/Dumper.pm",
        "lib/Math/Combinatorics.pm", "lib/Algorithm/Munkres.pm"))
_DEMO = "nugget/evmeval/scoring_demo"
_TKN = f"{_DEMO}/token_based/tkn"
#: official output -> (gold, system, token folder or None), paths in the data directory.
EVMEVAL_RUNS = {
    **{f"nugget/evmeval/official-v1.8/token_based.sample_system_{x}.scores":
       (f"{_DEMO}/token_based/gold.tbf", f"{_DEMO}/token_based/sample_system_{x}.tbf", _TKN)
       for x in "ABCD"},
    "nugget/ace-dev/official-v1.8.scores":
        ("nugget/ace-dev/gold.tbf", "nugget/ace-dev/system.tbf", None),
    **{f"nugget/ace-dev/perturbed/system{k}.official-v1.8.scores":
       (ACE_GOLD, ace_perturbed_path(k), None) for k in ACE_PERTURBED},
}
EVMEVAL_COREF_RUNS = {
    "nugget/evmeval/official-v1.8/char_based.system_A.scores":
        (f"{_DEMO}/char_based/gold.tbf", f"{_DEMO}/char_based/system_A.tbf", None),
}


def normal_conll_log(text: str, scorer_dir: str | None = None) -> str:
    """The CoNLL reference scorer's verbose log in a normal form: the path of the scorer on its
    first line relative to ``scorer_dir`` (the folder the scorer ran from), and within each
    ``METRIC`` section the per-document blocks sorted by their lines (a block: the key's
    ``====> (doc); part N:`` entities, the response's, and the document's counts, up to the
    next document, an empty line or the totals); everything else as written. Two runs of the
    scorer on the same files give the same normal form."""
    if scorer_dir:
        text = text.replace(scorer_dir.rstrip("/") + "/", "")
    out: list[str] = []
    blocks: list[list[str]] = []

    def flush() -> None:
        out.extend(x for b in sorted(blocks) for x in b)
        blocks.clear()

    headers = 0  # "====>" lines in the open block (blocks[-1]); 0: no block open
    for line in text.split("\n"):
        if line.startswith("====> "):
            if headers in (0, 2):  # a new document's block
                blocks.append([])
                headers = 0
            headers += 1
            blocks[-1].append(line)
        elif headers and line and not line.startswith("====== TOTALS"):
            blocks[-1].append(line)
        else:
            headers = 0
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


def python2() -> str | None:
    """A working Python 2.7: ``$EXACTALIGN_PYTHON2``, else ``python2.7`` or ``python2`` on
    PATH -- each tried (a pyenv shim of a version not selected fails), ``None`` without one."""
    env = os.environ.get("EXACTALIGN_PYTHON2")
    for cand in ([env] if env else [shutil.which("python2.7"), shutil.which("python2")]):
        if not cand:
            continue
        try:
            ok = subprocess.run([cand, "-c", "import sys; sys.exit(sys.version_info[:2] != "
                                 "(2, 7))"], capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return cand
    return None


def _needs_python2() -> str | None:
    return None if python2() else ("needs Python 2.7 to run EvmEval's scorer_v1.8.py (set "
                                   "$EXACTALIGN_PYTHON2 or put python2.7 on PATH)")


def _needs_python2_and_perl() -> str | None:
    return _needs_python2() or (None if shutil.which("perl") else
                                "needs Perl for the CoNLL scorer EvmEval runs (-c)")


def _run_evmeval(read: Callable[[str], bytes], root: Path, runs: dict, files: tuple[str, ...],
                 coref: bool) -> dict[str, bytes]:
    py2 = python2()
    out = {}
    with tempfile.TemporaryDirectory(prefix="exactalign-evmeval-") as tmp:
        for p in files:
            target = Path(tmp, p)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(read(p))
        for name, (gold, system, tkn) in runs.items():
            argv = [py2, "scorer_v1.8.py", "-g", str(root / gold), "-s", str(root / system),
                    "-o", str(Path(tmp, "out.scores"))]
            if tkn:
                argv += ["-t", str(root / tkn)]
            if coref:
                argv += ["-c", str(Path(tmp, "out.coref"))]
            p = subprocess.run(argv, cwd=tmp, capture_output=True, timeout=900)
            if p.returncode != 0:
                tail = p.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
                raise ValueError(f"scorer_v1.8.py exited {p.returncode}: {tail[0][:200]}")
            out[name] = Path(tmp, "out.scores").read_bytes()
            if coref:
                log = Path(tmp, "out.coref").read_text(encoding="utf-8")
                out[name.replace(".scores", ".coref")] = normal_conll_log(
                    log, tmp).encode("utf-8")
    return out


def evmeval_official(read: Callable[[str], bytes], root: Path) -> dict[str, bytes]:
    """EvmEval v1.8's reports on the token-based demo systems and the ACE-2005 dev system."""
    return _run_evmeval(read, root, EVMEVAL_RUNS, EVMEVAL_SCORER, coref=False)


def evmeval_official_coref(read: Callable[[str], bytes], root: Path) -> dict[str, bytes]:
    """EvmEval v1.8's report on the char-based demo system, coreference included, and the
    CoNLL scorer's log of that run in its normal form (:func:`normal_conll_log`)."""
    return _run_evmeval(read, root, EVMEVAL_COREF_RUNS, EVMEVAL_SCORER + EVMEVAL_CONLL,
                        coref=True)


def _inputs(runs: dict) -> tuple[str, ...]:
    return tuple(sorted({p for run in runs.values() for p in run if p}))


class Recipe(NamedTuple):
    repo: str
    reads: tuple[str, ...]  # paths in ``repo``, each a registry download
    #: ``build(read, root)``: ``read`` a download's bytes, ``root`` the data directory (where
    #: :attr:`needs` are in place) -> {pilot path: bytes}
    build: Callable[[Callable[[str], bytes], Path], dict[str, bytes]]
    needs: tuple[str, ...] = ()  # pilot files or folders that must be in place first
    requires: Callable[[], str | None] | None = None  # why it cannot run here (None: it can)


RECIPES: dict[str, Recipe] = {
    "ace-dev": Recipe("hunterhector/EvmEval",
                      tuple(f"{ACE_SPAN_DIR}/{doc}_{suffix}.json"
                            for _, suffix, _ in ACE_SIDES for doc in ACE_DOCS),
                      lambda read, root: ace_dev(read)),
    "conll-expected": Recipe("conll/reference-coreference-scorers", (CONLL_CONFIG,),
                             lambda read, root: conll_expected(read)),
    # after ace-dev: it needs the rebuilt gold in place
    "ace-perturbed": Recipe("hunterhector/EvmEval", (), lambda read, root: ace_perturbed(root),
                            (ACE_GOLD,)),
    # after ace-dev and ace-perturbed: it needs nugget/ace-dev/{gold,system}.tbf and the
    # perturbed systems in place
    "evmeval-v1.8": Recipe("hunterhector/EvmEval", EVMEVAL_SCORER, evmeval_official,
                           _inputs(EVMEVAL_RUNS), _needs_python2),
    # the peers themselves on the AMR pairs (exactalign.data.amr_reference): slow (about two
    # minutes, most of it on the 1,380 bamboo pairs), and only with the peers extra
    "amr-reference": Recipe("snowblink14/smatch", (), lambda read, root: amr_reference.build(root),
                            amr_reference.needs(), amr_reference.requires),
    "evmeval-v1.8-coref": Recipe("hunterhector/EvmEval", EVMEVAL_SCORER + EVMEVAL_CONLL,
                                 evmeval_official_coref, _inputs(EVMEVAL_COREF_RUNS),
                                 _needs_python2_and_perl),
}
