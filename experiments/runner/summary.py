"""``<out>/SUMMARY.md``: provenance, one headline line per experiment (:data:`HEADLINE_KEYS`,
an experiment's optional ``headline(rows, meta)``), then a section per experiment -- all from
the ``rows.csv`` and ``meta.json`` files alone."""

from __future__ import annotations

import json
from pathlib import Path

from .files import write_text
from .protocol import ERROR_COLUMN, describe_error, registry
from .rows import read_rows
from .run import plot_module, present

#: Keys of an experiment's ``headline(rows, meta)``. ``heuristic`` (what is held against the
#: proven optimum) and ``finding`` (one sentence) are required; the others may be ``None``
#: (shown as "–", e.g. a timing experiment has no gap):
#:
#: ``unit``            what an instance is ("documents", "pairs", ...);
#: ``instances``       the instances compared; ``below`` those where the heuristic ends below
#:                     the optimum (worse than it, for a minimisation);
#: ``gap_mean``, ``gap_max``  the gap over the instances below the optimum (mean, largest), in
#:                     ``gap_unit`` ("%" of the optimum, "F1 points", "links", ...);
#: ``rankings_changed``, ``rankings``  where the experiment measures rankings: how many of
#:                     ``rankings`` (counted in ``ranking_unit``, e.g. "system pairs") the
#:                     exact alignment changes; ``rankings`` ``None``: not measured.
HEADLINE_KEYS = ("heuristic", "unit", "instances", "below", "gap_mean", "gap_max", "gap_unit",
                 "rankings_changed", "rankings", "ranking_unit", "finding")


def headline_record(heuristic: str, finding: str, **values) -> dict:
    """A headline record (:data:`HEADLINE_KEYS`, missing values ``None``); unknown keys are an
    error."""
    unknown = set(values) - set(HEADLINE_KEYS)
    if unknown:
        raise KeyError(f"unknown headline keys: {', '.join(sorted(unknown))}")
    out = dict.fromkeys(HEADLINE_KEYS)
    out.update(values, heuristic=heuristic, finding=finding)
    return out


def headline_of(module, rows: list[dict], meta: dict | None) -> dict:
    """``module.headline(rows, meta)`` checked against :data:`HEADLINE_KEYS`; for a module
    without ``headline`` (it is optional), or one that raises, a record saying so (never an
    exception: the summary of the other experiments is still written)."""
    fn = getattr(module, "headline", None)
    if fn is None:
        return headline_record("–", "_No headline: the experiment module defines no "
                        "`headline(rows, meta)`; see its section below._")
    if not rows:
        return headline_record("–", "_No completed instance._")
    try:
        rec = fn(rows, meta)
        missing = {"heuristic", "finding"} - {k for k, v in rec.items() if v}
        if missing:
            raise KeyError(f"headline lacks {', '.join(sorted(missing))}")
        return headline_record(**rec)
    except Exception as e:  # shown in the table, where a reader sees it first
        return headline_record("–", f"**headline() failed: {describe_error(e)}**")


def _num(v: float) -> str:
    """A gap for the headline table: 3 significant digits, thousands separated."""
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def headline_cells(h: dict) -> list[str]:
    """The table cells of a headline record: heuristic, below the optimum, gap, rankings,
    finding."""
    below = "–"
    if h["instances"]:
        unit = f" {h['unit']}" if h["unit"] else ""
        below = (f"{100 * (h['below'] or 0) / h['instances']:.1f}% ({h['below'] or 0:,} of "
                 f"{h['instances']:,}{unit})")
    gap = "–"
    if h["instances"] and not h["below"]:
        gap = "none below"
    elif h["gap_max"] is not None:
        unit = {None: "", "": "", "%": "%"}.get(h["gap_unit"], f" {h['gap_unit']}")
        mean = "–" if h["gap_mean"] is None else _num(h["gap_mean"])
        gap = f"{mean} / {_num(h['gap_max'])}{unit}"
    ranks = "not measured"
    if h["rankings"] is not None:
        unit = f" {h['ranking_unit']}" if h["ranking_unit"] else ""
        ranks = f"{h['rankings_changed'] or 0} of {h['rankings']:,}{unit}"
    return [h["heuristic"], below, gap, ranks, " ".join(str(h["finding"]).split())]


def _read_meta(folder: Path) -> dict | None:
    path = folder / "meta.json"
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _commit_label(meta: dict | None) -> str:
    git = (meta or {}).get("git") or {}
    commit = git.get("commit")
    if not commit:
        return "unknown"
    return commit[:12] + (" with uncommitted changes" if git.get("dirty") else "")


def provenance(metas: dict[str, dict | None]) -> list[str]:
    """The lines under the title of ``SUMMARY.md``: the commit, library versions, Python and
    configs the sections were produced with; what differs between sections is flagged in bold,
    naming the sections."""

    def groups(value) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for n, m in metas.items():
            out.setdefault(value(m), []).append(n)
        return out

    def listed(g: dict[str, list[str]], fmt) -> str:
        return "; ".join(f"{fmt(k)} ({', '.join(ns)})" for k, ns in g.items())

    commits = groups(_commit_label)
    lines = []
    if len(commits) == 1:
        (label,) = commits
        clean = "" if "uncommitted" in label or label == "unknown" else " (clean tree)"
        lines.append(f"Every section was produced at commit `{label.split()[0]}`"
                     f"{label[12:]}{clean}.")
    else:
        lines.append("**Sections produced at different commits** -- regenerate them at one "
                     "before quoting them together: " + listed(commits, lambda k: f"`{k}`")
                     + ".")
    dists = sorted({d for m in metas.values() for d in ((m or {}).get("versions") or {})})
    same, differ = [], []
    for d in dists:
        g = groups(lambda m, d=d: str(((m or {}).get("versions") or {}).get(d)))
        if len(g) == 1:
            same.append(f"{d} {next(iter(g))}")
        else:
            differ.append(f"{d}: " + listed(g, str))
    py = groups(lambda m: str(((m or {}).get("python") or {}).get("version")))
    if len(py) == 1:
        same.append(f"Python {next(iter(py))}")
    else:
        differ.append("Python: " + listed(py, str))
    if same:
        lines.append("Versions: " + ", ".join(same) + ".")
    if differ:
        lines.append("**Versions differ between sections**: " + " | ".join(differ) + ".")
    sources = groups(lambda m: str(((m or {}).get("data") or {}).get("source", "not recorded")))
    if len(sources) == 1:
        lines.append(f"Data: {_source_words(next(iter(sources)))} (each section names the "
                     "files it read and their sha256).")
    else:
        lines.append("**Data sources differ between sections**: "
                     + listed(sources, _source_words) + ".")
    configs = groups(lambda m: "no meta.json" if m is None else
                     ("quick" if m.get("quick") else "full"))
    if len(configs) == 1:
        lines.append(f"Configs: {next(iter(configs))} (per section below: seed, instances, "
                     "time, jobs, machine, data).")
    else:
        lines.append("**Configs differ between sections**: " + listed(configs, str) + ".")
    return lines


def _source_words(source: str) -> str:
    return {"../shared/pilot": "the pilot data in ../shared/pilot",
            "cache": "the pilot data fetched by `exactalign data fetch` (its cache)",
            "$EXACTALIGN_DATA": "the pilot data in $EXACTALIGN_DATA",
            "synthetic": "no pilot data: synthetic instances only",
            "not recorded": "source not recorded"}.get(
        source, "pilot data switched off: synthetic instances only" if source.startswith(
            "$EXACTALIGN_DATA=") else source)


def _data_read(meta: dict) -> str:
    """`` -- read from SOURCE: N files, sha256 ...`` of a section's meta (empty for a meta.json
    written before data provenance was recorded), and the extra files it read or looked for."""
    d = meta.get("data") or {}
    if "source" not in d:
        return ""
    if not d.get("files"):
        text = f" -- pilot data source: {d.get('source')}, no pilot file read."
    else:
        text = (f" -- read {d['files']} pilot files from {d.get('source')}, sha256 "
                f"`{(d.get('sha256') or '')[:16]}` (meta.json: data).")
    for prefix, x in (d.get("extra") or {}).items():
        text += (f" Extra data `{prefix}`: {x['files']} files from {x['path']}, sha256 "
                 f"`{(x.get('sha256') or '')[:16]}`." if x.get("files") else
                 f" Extra data `{prefix}`: not present (`exactalign data fetch --only "
                 f"{prefix}` gets it).")
    return text


def write_summary(out: str | Path = "results", reg: dict | None = None) -> Path:
    """Regenerate ``<out>/SUMMARY.md``: first one screen -- provenance (:func:`provenance`) and a
    table with one line per experiment present (:func:`headline_of`) -- then one section per
    experiment with its headline table, each from its ``rows.csv`` (plus run facts from
    ``meta.json`` when there)."""
    reg = registry() if reg is None else reg
    out = Path(out)
    names = present(out, reg)
    data = {}
    for n in names:
        all_rows = read_rows(out / n / "rows.csv")
        data[n] = (all_rows, _read_meta(out / n))
    parts = ["# Experiment summary", ""]
    if not names:
        parts.append("No experiment results found.")
    else:
        metas = {n: meta for n, (_, meta) in data.items()}
        parts += [f"- {line}" for line in provenance(metas)] + [""]
        parts += ["| experiment | heuristic vs proven optimum | below the optimum | gap when "
                  "below: mean / max | rankings changed | finding |",
                  "|---|---|---:|---:|---:|---|"]
        for n, (all_rows, meta) in data.items():
            rows = [r for r in all_rows if not r.get(ERROR_COLUMN)]
            cells = headline_cells(headline_of(reg[n], rows, meta))
            failed = len(all_rows) - len(rows)
            name = f"[{n}](#{n})" + (f" ({failed} failed)" if failed else "")
            parts.append("| " + " | ".join([name, *(c.replace("|", "\\|") for c in cells)])
                         + " |")
        parts += ["", f"Regenerated from `{out.name}/*/rows.csv` and `meta.json` by `python -m "
                  "experiments`; each line and table is computed from its CSV alone. An "
                  "instance below the optimum: the heuristic's own objective (or score) is "
                  "lower than the proven optimum's; gaps are over those instances. Details "
                  "per experiment follow.", ""]
    majority = None
    if names:
        labels = [_commit_label(meta) for _, meta in data.values()]
        majority = max(dict.fromkeys(labels), key=labels.count)
    for n in names:
        folder = out / n
        all_rows, meta = data[n]
        rows = [r for r in all_rows if not r.get(ERROR_COLUMN)]
        failed = [r for r in all_rows if r.get(ERROR_COLUMN)]
        parts += [f"## {n}", "", reg[n].DESCRIPTION, ""]
        instances = None
        if meta is not None:
            commit = (meta.get("git") or {}).get("commit") or "unknown"
            dirty = " (uncommitted changes)" if (meta.get("git") or {}).get("dirty") else ""
            other = (" -- **a different commit from the other sections**"
                     if _commit_label(meta) != majority else "")
            instances = meta.get("instances")
            counted = ""
            if instances:
                counted = (f"{instances.get('total')} instances, {instances.get('failed')} "
                           "failed")
                if instances.get("resumed"):
                    counted += f", {instances['resumed']} resumed from an interrupted run"
                counted += "; "
            on_scheduler = (f" on the Dask scheduler {meta['scheduler']}"
                            if meta.get("scheduler") else "")
            parts += [f"Run: {'quick' if meta.get('quick') else 'full'} config, seed "
                      f"{meta.get('config', {}).get('seed')}, {counted}{meta.get('rows')} rows "
                      f"in {meta.get('wall_time_s', float('nan')):.1f} s with jobs="
                      f"{meta.get('jobs')}{on_scheduler}, commit `{commit[:12]}`{dirty}{other}, "
                      f"{meta.get('machine', {}).get('cpu_count')} CPUs. "
                      f"Data: {meta.get('data', {}).get('used')}{_data_read(meta)}", ""]
        if failed:
            total = f" of {instances['total']}" if instances and instances.get("total") else ""
            reasons = list(dict.fromkeys(r[ERROR_COLUMN] for r in failed))
            shown = "; ".join(f"`{e}`" for e in reasons[:3])
            more = f" (and {len(reasons) - 3} other errors)" if len(reasons) > 3 else ""
            parts += [f"**{len(failed)}{total} instances FAILED** (rows with an `error` in "
                      f"rows.csv; left out of the table below): {shown}{more}.", ""]
        parts += [reg[n].summary(rows).rstrip() if rows else "No completed instance.", ""]
        figs = [f for f in reg[n].FIGURES if (folder / f).is_file()]
        if figs:
            links = []
            for f in figs:
                vec = [p for p in plot_module().sibling_paths(folder / f) if p.is_file()]
                links.append(f"[{f}]({n}/{f})" + (" (" + ", ".join(
                    f"[{p.suffix[1:].upper()}]({n}/{p.name})" for p in vec) + ")" if vec
                    else ""))
            parts += ["Figures: " + ", ".join(links), ""]
    path = out / "SUMMARY.md"
    out.mkdir(parents=True, exist_ok=True)
    write_text(path, "\n".join(parts))
    return path
