"""The text of ``exactalign nugget``'s dice scheme: v1.8's report of one mapping (with ``-a``
its event sequencing section, without ``--compat`` the coreference details after it), the
coreference of every mapping side by side (``--mapping all -c``) and v1.8's ``-d`` comparison
of gold and system mentions."""

from __future__ import annotations


def format_report(score, compat: bool, seq=None) -> str:
    """v1.8's report (with ``seq``, its event sequencing section); without ``--compat``, the
    coreference details follow it."""
    from ...metrics import nugget

    text = nugget.format_v18(score)
    if seq is not None:
        from ...metrics import sequencing

        text += sequencing.format_v18_sequencing(seq)
    if score.coref is not None and not compat:
        text += nugget.format_coref_details(score.coref)
    return text


def format_coref_by_mapping(ev) -> str:
    """Coreference under each mention mapping: rows aligned, v1.8's average, the CoNLL-2012
    average and each metric's F1 (percent, untruncated)."""
    from ...metrics.coref import METRICS

    metrics = [m for m in METRICS if m != "lea"]
    header = ["mapping", "aligned", "v1.8 average", "CoNLL-2012", *metrics]
    rows = []
    for m, sc in ev.scores.items():
        c = sc.coref
        rows.append([m, str(sum(r.aligned for r in c.documents)), f"{c.v18_average():.2f}",
                     f"{100 * c.conll:.2f}",
                     *(f"{100 * c.scores.overall[x].f1:.2f}" for x in metrics)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    return "\n=======Coreference by mapping=========\n" + "\n".join(lines) + "\n"


def format_v18_comparison(score, gold, system, whitelist) -> str:
    """v1.8's ``-d`` file: per document, ``#BeginOfDocument <id>``, one line per gold mention
    (run id, gold id, span as v1.8 lists it -- every character, or the token ids as written --,
    canonical attributes, text, ``|``, the same for the system mention the span mapping gives
    it and the pair's Dice, or ``-``), one per unmapped system mention, with ``-c`` the gold and
    system clusters (``@coref``), then ``#EndOfDocument `` (sic)."""
    from ...io.tbf import canonical
    from ...metrics import nugget

    keep = nugget.type_filter(whitelist)
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
        al, w = d.pair_weights(nugget.PLAIN)
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
