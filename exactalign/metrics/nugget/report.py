"""v1.8's report: every number it prints, computed its way (``nan`` included,
:func:`v18_numbers`), its layout (:func:`format_v18`, byte for byte with ``compat``), its
coreference section, a parser for reports (ours or the official scorer's), and its ``-d``
comparison of gold and system mentions (:func:`format_v18_comparison`)."""

from __future__ import annotations

import math

from ...core.errors import InputError
from ...io.tbf import canonical
from .. import coref as corefm
from .coreference import COREF_METRICS, V18_COREF_SKIPPED, CorefEvaluation
from .instances import PLAIN
from .reading import type_filter
from .scores import NuggetScore

NAN = float("nan")

_SMALL = "Prec  \tRec  \tF1   "


def _div(n: float, d: float) -> float:
    """v1.8's ``safe_div``: nan unless the denominator is > 0 (a nan denominator gives nan)."""
    return 1.0 * n / d if d > 0 else NAN


def _f1(p: float, r: float) -> float:
    return _div(2 * p * r, p + r)


def v18_numbers(score: NuggetScore) -> dict:
    """Every number v1.8 prints, computed its way (percentages, ``nan`` included):
    ``{"documents": {doc: {comb: (P, R, F1)}}, "types": {type: (P, R, F1, #gold, #sys)},
    "micro": {comb: (P, R, F1)}, "macro": {comb: (P, R, F1)}}`` (per-type P/R/F1 are
    fractions with nan shown as 0, as printed)."""
    docs: dict = {}
    sums = {c: [0.0, 0.0, 0.0] for c in score.combinations}  # tp*100, sum of P, sum of R
    n_gold = n_sys = valid = 0
    for d in score.documents:
        row = {}
        for c in score.combinations:
            tp = d.tp(c) * 100
            p, r = _div(tp, d.n_system), _div(tp, d.n_gold)
            row[c] = (p, r, _f1(p, r))
            if not math.isnan(r):
                sums[c][0] += tp
                sums[c][1] += 0.0 if math.isnan(p) else p
                sums[c][2] += r
        docs[d.doc_id] = row
        if d.n_gold > 0:
            valid += 1
            n_gold += d.n_gold
            n_sys += d.n_system
    mic, mac = {}, {}
    for c, (tp, ps, rs) in sums.items():
        p, r = _div(tp, n_sys), _div(tp, n_gold)
        mic[c] = (p, r, _f1(p, r))
        p, r = _div(ps, valid), _div(rs, valid)
        mac[c] = (p, r, _f1(p, r))

    def z(v):
        return 0.0 if math.isnan(v) else v

    types = {}
    for t, ts in score.per_type.items():
        p, r = _div(ts.tp, ts.n_system), _div(ts.tp, ts.n_gold)
        types[t] = (z(p), z(r), z(_f1(p, r)), ts.n_gold, ts.n_system)
    return {"documents": docs, "types": types, "micro": mic, "macro": mac}


def _pad(s: str, n: int) -> str:
    return " " * (n - len(s)) + s


def format_v18(score: NuggetScore) -> str:
    """v1.8's report, in its layout (tabs, padding, ``nan``): mention detection, then -- when
    the coreference evaluation was asked for (:attr:`NuggetScore.coref`, v1.8's ``-c``) --
    the coreference section (:func:`format_v18_coref`). With ``compat=True`` and the ``kbp``
    mapping it is v1.8's output byte for byte."""
    v = v18_numbers(score)
    combos = score.combinations
    out = []
    w = max((len(d) for d in v["documents"]), default=0)
    headers = [_pad(c, len(_SMALL)) for c in combos]
    out.append("========Document Mention Detection Results==========\n")
    out.append(_pad("", w) + "\t" + "\t|\t".join(headers) + "\n")
    out.append(_pad("Doc ID", w) + "\t" + "\t|\t".join([_SMALL] * len(combos)) + "\n")
    for doc_id, row in v["documents"].items():
        cells = "\t|\t".join("\t".join(f"{x:.2f}" for x in row[c]) for c in combos)
        out.append(f"{_pad(doc_id, w)}\t{cells}\n")
    out.append("\n\n========Mention Type Results==========\n")
    if v["types"]:
        tw = max(len(t) for t in v["types"])
        out.append(_pad("Type", tw) + "\tPrec\tRec\tF1\t#Gold\t#Sys\n")
        for t, row in v["types"].items():
            p, r, f, ng, ns = row
            out.append(f"{_pad(t, tw)}\t{p:.2f}\t{r:.2f}\t{f:.2f}\t{ng:d}\t{ns:d}\n")
    out.append("\n=======Final Mention Detection Results=========\n")
    aw = max(len(h) for h in headers)
    out.append(_pad("", aw) + "\t" + "\t".join(_pad(h, len(_SMALL)) for h in
                                              ("Micro Average", "Macro Average")) + "\n")
    out.append(_pad("Attributes", aw) + "\t" + "\t".join([_SMALL] * 2) + "\n")
    for c, h in zip(combos, headers, strict=True):
        nums = v["micro"][c] + v["macro"][c]
        out.append(_pad(h, aw) + "\t" + "\t".join(f"{x:.2f}" for x in nums) + "\n")
    if score.coref is not None and score.coref.documents:
        # v1.8 without any document writes no CoNLL file: the scorer reads nothing and the
        # section is left out
        out.append(format_v18_coref(score.coref))
    return "".join(out)


COREF_SECTION = "\n=======Final Mention Coreference Results========="

_COREF_FOOTNOTE = "\n* Score not included for final CoNLL score.\n"


def format_v18_coref(c: CorefEvaluation) -> str:
    """v1.8's "Final Mention Coreference Results" (``print_eval_results``): one line per metric
    in v1.8's order with its truncated score (CEAFm marked ``*``), then the average of the
    others (:meth:`CorefEvaluation.v18_average`) and the footnote."""
    out = [COREF_SECTION + "\n"]
    for m, x in c.v18_scores().items():
        star = " *" if m in V18_COREF_SKIPPED else ""
        out.append(f"Metric : {m}\tScore\t{x:.2f}{star}\n")
    out.append(f"Overall Average CoNLL score\t{c.v18_average():.2f}\n")
    out.append(_COREF_FOOTNOTE)
    return "".join(out)


def format_coref_details(c: CorefEvaluation) -> str:
    """What v1.8's coreference section leaves out, in percent (exactalign's own block, after
    v1.8's report without ``--compat``): per metric the untruncated precision, recall and F1
    (the reference scorer's TOTALS; P, R, F1 as every exactalign table), the CoNLL-2012
    average (MUC, B³, CEAFe; v1.8's average includes BLANC), the rows v1.8's conversion
    produced, and CEAFm/CEAFe with the greedy entity alignment against the exact one."""
    out = ["\n=======Coreference details (exactalign)=========\n",
           "Metric\tPrec\tRec\tF1\n"]
    for m in COREF_METRICS:
        p = c.scores.overall[m]
        out.append(f"{m}\t{100 * p.precision:.4f}\t{100 * p.recall:.4f}\t{100 * p.f1:.4f}\n")
    out.append(f"CoNLL-2012 average (muc, bcub, ceafe)\t{100 * c.conll:.4f}\n")
    n_key = sum(len(r.key.mentions) for r in c.documents)
    n_resp = sum(len(r.response.mentions) for r in c.documents)
    out.append(f"Rows: {sum(len(r.gold) for r in c.documents)} ({n_key} gold, {n_resp} "
               f"system, {sum(r.aligned for r in c.documents)} aligned on "
               f"{c.combination} with Dice >= {c.threshold:g})\n")
    for m in corefm.CEAF_PHI:
        g, x = c.greedy.overall[m], c.scores.overall[m]
        gap = c.greedy.ceaf_gap(m)
        out.append(f"{m}: greedy alignment F1 {100 * g.f1:.4f} vs exact {100 * x.f1:.4f} "
                   f"(shortfall {gap['shortfall']:.4f} in {gap['documents_with_gap']} of "
                   f"{gap['documents']} documents)\n")
    return "".join(out)


def parse_v18_coref(text: str, path: str = "<report>") -> dict | None:
    """The coreference section of a v1.8 report: ``{"scores": {metric: score}, "average":
    x}`` in printed order, or ``None`` when the report has none."""
    if COREF_SECTION not in text:
        return None
    lines = text.split(COREF_SECTION, 1)[1].split("\n")
    scores: dict[str, float] = {}
    for line in lines[1:]:
        try:
            if line.startswith("Metric : "):
                name, _, value = line[len("Metric : "):].split("\t")
                scores[name] = float(value.rstrip(" *"))
            elif line.startswith("Overall Average CoNLL score\t"):
                return {"scores": scores, "average": float(line.split("\t")[1])}
        except ValueError as e:
            raise InputError(f"malformed coreference line {line!r} ({e})", path=path) from None
    raise InputError("coreference section without its average line", path=path)


def parse_v18_report(text: str, path: str = "<report>") -> dict:
    """Parse v1.8's mention-detection report (ours or the official one) into the shape of
    :func:`v18_numbers`; the coreference section, if any, is left to
    :func:`parse_v18_coref`."""
    lines = text.split(COREF_SECTION, 1)[0].split("\n")
    out: dict = {"documents": {}, "types": {}, "micro": {}, "macro": {}}
    i = 0

    def expect(title: str) -> int:
        for j in range(i, len(lines)):
            if lines[j].strip() == title:
                return j + 1
        raise InputError(f"section {title!r} not found", path=path)

    try:
        i = expect("========Document Mention Detection Results==========")
        combos = [h.strip() for h in lines[i].split("\t", 1)[1].split("\t|\t")]
        i += 2
        while i < len(lines) and lines[i].strip():
            cells = lines[i].split("\t")
            nums = [float(x) for x in cells[1:] if x != "|"]
            out["documents"][cells[0].strip()] = {
                c: tuple(nums[3 * k:3 * k + 3]) for k, c in enumerate(combos)}
            i += 1
        i = expect("========Mention Type Results==========")
        if i < len(lines) and lines[i].strip().startswith("Type"):
            i += 1
            while i < len(lines) and lines[i].strip():
                cells = lines[i].split("\t")
                out["types"][cells[0].strip()] = (*(float(x) for x in cells[1:4]),
                                                  int(cells[4]), int(cells[5]))
                i += 1
        i = expect("=======Final Mention Detection Results=========") + 2
        while i < len(lines) and lines[i].strip():
            cells = lines[i].split("\t")
            nums = [float(x) for x in cells[1:7]]
            out["micro"][cells[0].strip()] = tuple(nums[:3])
            out["macro"][cells[0].strip()] = tuple(nums[3:])
            i += 1
    except (IndexError, ValueError) as e:
        raise InputError(f"not a v1.8 mention report ({e})", path=path, line=i + 1) from None
    return out


def format_v18_comparison(score: NuggetScore, gold, system, whitelist=None) -> str:
    """v1.8's ``-d`` file: per document, ``#BeginOfDocument <id>``, one line per gold mention
    (run id, gold id, span as v1.8 lists it -- every character, or the token ids as written --,
    canonical attributes, text, ``|``, the same for the system mention the span mapping gives
    it and the pair's Dice, or ``-``), one per unmapped system mention, with ``-c`` the gold and
    system clusters (``@coref``), then ``#EndOfDocument `` (sic)."""
    keep = type_filter(whitelist)
    run = system.run_id

    def info(m):
        if m.mode == "char":
            span = ",".join(str(c) for b, e in m.pieces for c in range(b, e))
        else:
            span = m.span
        return "\t".join([m.mention_id, span, *(canonical(a) for a in m.attributes), m.text])

    def clusters(doc, mentions, side):
        text = {m.mention_id: m.text for m in mentions}
        kept = None if keep is None else set(text)
        lines = []
        for r in (doc.relations if doc is not None else []):
            if r.name != "Coreference":
                continue
            args = r.arguments if kept is None else tuple(a for a in r.arguments if a in kept)
            if kept is not None and len(args) < 2:
                continue
            lines.append(f"@coref\t{side}\t"
                         + ",".join(f"{a}:{text[a].replace(',', '')}" for a in args) + "\n")
        return lines

    out = []
    for d in score.documents:
        g_doc, s_doc = gold.documents[d.doc_id], system.documents.get(d.doc_id)
        g = [m for m in g_doc.mentions if keep is None or m.type in keep]
        s = [] if s_doc is None else [m for m in s_doc.mentions if keep is None or m.type in keep]
        al, w = d.pair_weights(PLAIN)
        to_sys = {int(gi): (int(si), float(x)) for (gi, si), x in zip(al.tolist(), w.tolist(),
                                                                      strict=True)}
        out.append(f"#BeginOfDocument {d.doc_id}\n")
        for gi, m in enumerate(g):
            if gi in to_sys:
                si, x = to_sys[gi]
                out.append(f"{run}\t{info(m)}\t|\t{info(s[si])}\t{x:.2f}\n")
            else:
                out.append(f"{run}\t{info(m)}\t|\t-\t-\n")
        mapped = {si for si, _ in to_sys.values()}
        out += [f"{run}\t-\t|\t{info(m)}\t-\n" for si, m in enumerate(s) if si not in mapped]
        if score.coref is not None:
            out += clusters(g_doc, g, "gold") + clusters(s_doc, s, "system")
        out.append("#EndOfDocument \n")
    return "".join(out)
