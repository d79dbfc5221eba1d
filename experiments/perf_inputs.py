"""The inputs of the performance benchmark: seeded synthetic AMR pairs, coreference
documents and corpora of growing size, and the slices of the pilot data they are cut from."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np

from exactalign.data import resolve_data_dir


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------
def amr_pair(n: int, seed: int):
    """(test, gold) :class:`~exactalign.io.amr.AmrGraph`: consecutive trees of
    :func:`~experiments.smatch_gap.synthetic_bank` joined under one root until the gold has at
    least ``n`` variables, against a ``relabel`` perturbation (rate 0.3)."""
    from .smatch_gap import join, perturb, synthetic_bank

    bank = synthetic_bank(max(50, n // 4), seed)
    graphs, total = [], 1
    while total < n:
        g = bank[len(graphs) % len(bank)]
        graphs.append(g)
        total += len(g.variables)
    gold = join(graphs)
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    return perturb(gold, "relabel", 0.3, random.Random(f"{seed}-perf-{n}"), concepts, roles), gold


def model_nnz(unit: dict, config: dict) -> int | None:
    """Non-zeros of exactalign's ILP for a single synthetic AMR pair (``smatch-pair`` and
    ``latent``: :func:`exactalign.problems.latent.ilp_model` on the pair's triples, the model
    whose LP the exact path solves when branch and bound does not finish), built untimed; None
    for the other families."""
    if unit["family"] not in ("smatch-pair", "latent"):
        return None
    from exactalign.metrics.smatch import instance_of
    from exactalign.problems.latent.model import ilp_model

    test, gold = amr_pair(unit["n"], config["seed"])
    return int(ilp_model(instance_of(test, gold, "full")).A.nnz)


def coref_clusters(n: int, seed: int) -> tuple[list[list[int]], list[list[int]]]:
    """(key, response) entities over token positions (one mention per token): ``n`` key
    mentions in ``n // 3`` entities; the response moves 15% of the mentions, drops 5%, splits
    10% of the entities, merges ``n // 60`` pairs and adds ``n // 20`` spurious mentions."""
    rng = np.random.default_rng([seed, n])
    k = max(1, n // 3)
    label = np.concatenate([np.arange(min(k, n)), rng.integers(0, k, max(0, n - k))])
    rng.shuffle(label)
    plabel = label.copy()
    moved = rng.random(n) < 0.15
    plabel[moved] = rng.integers(0, k, int(moved.sum()))
    fresh = k
    for e in range(k):
        if rng.random() < 0.10:
            half = np.flatnonzero((plabel == e) & (rng.random(n) < 0.5))
            plabel[half] = fresh
            fresh += 1
    for _ in range(n // 60):
        a, b = rng.integers(0, fresh, 2)
        plabel[plabel == b] = a
    kept = rng.random(n) >= 0.05
    key: dict = {}
    for m, e in enumerate(label):
        key.setdefault(int(e), []).append(m)
    resp: dict = {}
    for m in np.flatnonzero(kept):
        resp.setdefault(int(plabel[m]), []).append(int(m))
    entities = list(resp.values())
    for j in range(n // 20):
        entities[int(rng.integers(0, len(entities)))].append(n + j)
    return list(key.values()), entities


def write_conll(path: Path, entities: list[list[int]], tokens: int, doc: str = "synthetic"):
    """A one-document CoNLL-2012 file of ``tokens`` lines (document name and coreference
    column), each mention one token."""
    col = ["-"] * tokens
    for eid, ent in enumerate(entities, start=1):
        for m in ent:
            col[m] = f"({eid})"
    lines = [f"#begin document ({doc}); part 000"] + [f"{doc} {c}" for c in col]
    path.write_text("\n".join(lines + ["", "#end document", ""]), encoding="utf-8")


def first_documents(src: Path, dst: Path, docs: list[str]) -> None:
    keep, out = False, []
    for line in src.read_text(encoding="utf-8").splitlines():
        if line.startswith("#BeginOfDocument"):
            keep = line.split()[1] in docs
        if keep:
            out.append(line)
        if line.startswith("#EndOfDocument"):
            keep = False
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# corpus inputs (families ``corpus-*``): hundreds to thousands of documents or pairs
# --------------------------------------------------------------------------------------------
def _tbf_documents(path: Path) -> list[list[str]]:
    """The documents of a TBF file, each its lines from ``#BeginOfDocument`` to
    ``#EndOfDocument``."""
    out, cur = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#BeginOfDocument"):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line.startswith("#EndOfDocument"):
                out.append(cur)
                cur = None
    return out


def cycled(docs: list[list[str]], n: int) -> list[str]:
    """The lines of ``n`` documents: ``docs`` in turn, copy ``k >= 1`` of document ``d``
    renamed ``d__k`` (the first copy keeps its id)."""
    lines = []
    for i in range(n):
        doc = docs[i % len(docs)]
        old = doc[0].split()[1]
        k = i // len(docs)
        if not k:
            lines += doc
            continue
        new = f"{old}__{k}"
        for ln in doc:
            if ln.startswith("#BeginOfDocument"):
                ln = f"#BeginOfDocument {new}"
            elif not ln.startswith("#") and ln.count("\t") >= 1:
                fields = ln.split("\t")  # mention and relation lines: field 2 is the id
                if fields[1] == old:
                    fields[1] = new
                ln = "\t".join(fields)
            lines.append(ln)
    return lines


def synthetic_tbf(n_docs: int, seed: int, per_doc: int = 17) -> tuple[str, str]:
    """``(gold, system)`` TBF texts (character mode) of ``n_docs`` seeded documents shaped like
    the ACE-2005 dev sample (:func:`experiments.nugget_gap.synthetic_gold`'s layout: about
    ``per_doc`` triggers of 3-9 characters, 8 types); the system keeps 80% of the triggers
    (a quarter of them shifted by 1-2 characters, 15% of types and 15% of realis values
    changed) and adds 10% spurious ones."""
    rng = np.random.default_rng([seed, 2015, n_docs])
    types = ["lifedie", "lifeinjure", "conflictattack", "movementtransport", "contactmeet",
             "justicearrestjail", "transactiontransfermoney", "personnelelect"]
    realis = ("Actual", "Actual", "Generic", "Other")
    gold, system = [], []
    for d in range(n_docs):
        doc = f"doc{d:05d}"
        gold.append(f"#BeginOfDocument {doc}")
        system.append(f"#BeginOfDocument {doc}")
        pos, s = int(rng.integers(50, 200)), 0
        for k in range(per_doc):
            n = int(rng.integers(3, 10))
            t, r = types[int(rng.integers(len(types)))], realis[int(rng.integers(4))]
            gold.append("\t".join(["gold", doc, f"T{k + 1}", f"{pos},{pos + n}", "x", t, r]))
            if rng.random() < 0.8:
                a = pos + (int(rng.integers(-2, 3)) if rng.random() < 0.25 else 0)
                t2 = types[int(rng.integers(len(types)))] if rng.random() < 0.15 else t
                r2 = realis[int(rng.integers(4))] if rng.random() < 0.15 else r
                s += 1
                system.append("\t".join(["sys", doc, f"E{s}", f"{max(0, a)},{a + n}", "x",
                                         t2, r2]))
            if rng.random() < 0.1:
                s += 1
                b = pos + n + 2
                system.append("\t".join(["sys", doc, f"E{s}", f"{b},{b + 4}", "x",
                                         types[int(rng.integers(len(types)))], "Actual"]))
            pos += n + int(rng.integers(8, 120))
        gold.append("#EndOfDocument")
        system.append("#EndOfDocument")
    return "\n".join(gold) + "\n", "\n".join(system) + "\n"


def nugget_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(gold, system, source)`` TBF files of ``n`` documents: the pilot ACE-2005 dev pair's
    30 documents in turn, copies renamed (:func:`cycled`), else :func:`synthetic_tbf`."""
    g, s = work / "gold.tbf", work / "system.tbf"
    data = resolve_data_dir()
    ace = data.path / "nugget" / "ace-dev" if data.available else None
    if ace is not None and (ace / "gold.tbf").is_file():
        gd, sd = _tbf_documents(ace / "gold.tbf"), _tbf_documents(ace / "system.tbf")
        by_id = {d[0].split()[1]: d for d in sd}
        # the system's documents in the gold's order (an id missing there: an empty one)
        sd = [by_id.get(d[0].split()[1], [d[0], "#EndOfDocument"]) for d in gd]
        g.write_text("\n".join(cycled(gd, n)) + "\n", encoding="utf-8")
        s.write_text("\n".join(cycled(sd, n)) + "\n", encoding="utf-8")
        return g, s, "ace-dev-cycled"
    gold, system = synthetic_tbf(n, seed)
    g.write_text(gold, encoding="utf-8")
    s.write_text(system, encoding="utf-8")
    return g, s, "synthetic"


def coref_corpus(n: int, mentions: int, seed: int, work: Path) -> tuple[Path, Path, Path, Path]:
    """``(key, response, scorch key dir, scorch response dir)``: a CoNLL-2012 file of ``n``
    documents (``doc00000``, ...), each :func:`coref_clusters` of ``mentions`` key mentions
    seeded ``[seed, n, d]``, and the same documents as scorch's input (one JSON file per
    document; scorch reads a directory and sums over its files)."""
    key_lines, resp_lines = [], []
    dirs = work / "scorch-key", work / "scorch-response"
    for d in dirs:
        d.mkdir(exist_ok=True)
    tokens = mentions + mentions // 20
    for d in range(n):
        name = f"doc{d:05d}"
        k, r = coref_clusters(mentions, int(np.random.SeedSequence([seed, n, d])
                                            .generate_state(1)[0]))
        for ents, out, folder in ((k, key_lines, dirs[0]), (r, resp_lines, dirs[1])):
            col = ["-"] * tokens
            for eid, ent in enumerate(ents, start=1):
                for m in ent:
                    col[m] = f"({eid})"
            out += ([f"#begin document ({name}); part 000"] + [f"{name} {c}" for c in col]
                    + ["", "#end document"])
            clusters = {str(i): [f"{m}-{m}" for m in e] for i, e in enumerate(ents)}
            (folder / f"{name}.json").write_text(
                json.dumps({"type": "clusters", "clusters": clusters}), encoding="utf-8")
    key, resp = work / "key.conll", work / "response.conll"
    key.write_text("\n".join(key_lines) + "\n", encoding="utf-8")
    resp.write_text("\n".join(resp_lines) + "\n", encoding="utf-8")
    return key, resp, dirs[0], dirs[1]


def _amr_blocks(path: Path) -> list[str]:
    """The graphs of an AMR file as text blocks (comments kept), in file order."""
    return [b.strip("\n") for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
            if any(ln.strip() and not ln.lstrip().startswith("#") for ln in b.splitlines())]


def smatch_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(test, gold, source)`` AMR files of ``n`` pairs: the pilot bamboo STS test pairs
    (1,380) in turn, else ``n`` synthetic trees (:func:`~experiments.smatch_gap.synthetic_bank`)
    against their ``relabel`` perturbation (rate 0.3)."""
    test, gold = work / "test.amr", work / "gold.amr"
    data = resolve_data_dir()
    bamboo = data.path / "amr" / "bamboo-sts-test" if data.available else None
    if bamboo is not None and (bamboo / "src.test.amr").is_file():
        t, g = _amr_blocks(bamboo / "src.test.amr"), _amr_blocks(bamboo / "tgt.test.amr")
        test.write_text("\n\n".join(t[i % len(t)] for i in range(n)) + "\n", encoding="utf-8")
        gold.write_text("\n\n".join(g[i % len(g)] for i in range(n)) + "\n", encoding="utf-8")
        return test, gold, "bamboo-cycled"
    from .smatch_gap import perturb, synthetic_bank
    from .smatch_walltime import amr_text

    bank = synthetic_bank(n, seed)
    rng = random.Random(f"{seed}-perf-corpus-{n}")
    concepts = sorted({c for g in bank for _, _, c in g.instances})
    roles = sorted({r for g in bank for r, _, _ in g.relations})
    test.write_text(amr_text([perturb(g, "relabel", 0.3, rng, concepts, roles) for g in bank]),
                    encoding="utf-8")
    gold.write_text(amr_text(bank), encoding="utf-8")
    return test, gold, "synthetic"


_RELTYPE = re.compile(r'relType="([A-Z_]+)"')


def _relabel_fourth(text: str, labels: list[str]) -> str:
    """``text`` with every fourth TLINK relation that is one of ``labels`` replaced by the
    next label of the list."""
    seen = 0

    def swap(m):
        nonlocal seen
        if m.group(1) not in labels:
            return m.group(0)
        seen += 1
        if seen % 4:
            return m.group(0)
        return f'relType="{labels[(labels.index(m.group(1)) + 1) % len(labels)]}"'

    return _RELTYPE.sub(swap, text)


def te3_corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(gold dir, system dir, source)`` of ``n`` TimeML documents: the pilot TE3-Platinum
    gold and ``sys_ning17_SP+ILP`` files in turn, copies renamed (file and ``DOCID``
    ``name__k``), else seeded :func:`exactalign.synthetic.random_timeml` documents (10-30
    events, 2-4 timexes, 20-60 links) against a copy with every fourth TLINK's relation
    replaced."""
    from exactalign import synthetic

    gdir, sdir = work / "gold", work / "system"
    gdir.mkdir(exist_ok=True)
    sdir.mkdir(exist_ok=True)
    data = resolve_data_dir()
    te3 = data.path / "temporal" / "te3-platinum" if data.available else None
    if te3 is not None and (te3 / "gold").is_dir():
        names = sorted(p.name for p in (te3 / "gold").iterdir() if p.suffix == ".tml")
        names = [x for x in names if (te3 / "sys_ning17_SP+ILP" / x).is_file()]
        for i in range(n):
            name, k = names[i % len(names)], i // len(names)
            stem = name[:-len(".tml")]
            new = f"{stem}__{k}" if k else stem
            for src, dst in ((te3 / "gold", gdir), (te3 / "sys_ning17_SP+ILP", sdir)):
                text = (src / name).read_text(encoding="utf-8")
                if k:
                    text = text.replace(f"<DOCID>{stem}</DOCID>", f"<DOCID>{new}</DOCID>")
                (dst / f"{new}.tml").write_text(text, encoding="utf-8")
        return gdir, sdir, "te3-platinum-cycled"
    rng = np.random.default_rng([seed, 8, n])
    others = ["BEFORE", "AFTER", "INCLUDES", "IS_INCLUDED", "SIMULTANEOUS"]
    for k in range(n):
        doc = f"synthetic{k:05d}"
        text = synthetic.random_timeml(doc, int(rng.integers(10, 31)), int(rng.integers(2, 5)),
                                       int(rng.integers(20, 61)), seed=[seed, 8, n, k])
        (gdir / f"{doc}.tml").write_text(text, encoding="utf-8")
        (sdir / f"{doc}.tml").write_text(_relabel_fourth(text, others), encoding="utf-8")
    return gdir, sdir, "synthetic"


def amr_triples(path: Path) -> int:
    from exactalign.io.amr import read_amr

    return sum(g.num_triples for g in read_amr(path))


# --------------------------------------------------------------------------------------------
# DRS (family ``drs``): a system's DRS file against the gold one
# --------------------------------------------------------------------------------------------
#: The pilot files of the ``drs`` family: PMB 3.0.0 ``bert_only`` run 1 against the gold dev
#: set (885 DRS pairs; Counter's published score of the run is F 0.8775).
DRS_PILOT = ("drs/systems/pmb-3.0.0/en/dev/bert_only/output1.txt", "drs/gold/pmb-3.0.0/dev.txt")


def drs_source(data=None) -> str:
    """Where the ``drs`` family's pairs come from: ``bert_only-output1`` (the pilot files,
    :data:`DRS_PILOT`) when present, else ``synthetic``."""
    data = data or resolve_data_dir()
    if data.available and all((data.path / p).is_file() for p in DRS_PILOT):
        return "bert_only-output1"
    return "synthetic"


def drs_corpus(n: int | None, seed: int, work: Path) -> tuple[Path, Path, str]:
    """``(produced, gold, source)`` DRS files (clause format) of ``n`` pairs (``None``: the
    whole pilot file, or 885 synthetic pairs): the first ``n`` DRSs of the pilot files
    (:data:`DRS_PILOT`), else seeded :func:`~experiments.drs_gap.synthetic_drs` gold DRSs
    against their :func:`~experiments.drs_gap.perturbed` copies."""
    from exactalign.io.drs import read_drs_file, write_drs_file

    pred, gold = work / "produced.txt", work / "gold.txt"
    data = resolve_data_dir()
    source = drs_source(data)
    if source != "synthetic":
        for src, dst in zip(DRS_PILOT, (pred, gold), strict=True):
            drss = read_drs_file(data.path / src)
            write_drs_file(drss if n is None else drss[:n], dst)
        return pred, gold, source
    from .drs_gap import perturbed, synthetic_drs

    rng = random.Random(f"{seed}-perf-drs-{n}")
    golds = [synthetic_drs(rng) for _ in range(885 if n is None else n)]
    preds = [perturbed(g, rng) or [list(g[0])] for g in golds]  # never an empty DRS
    for drss, dst in ((preds, pred), (golds, gold)):
        dst.write_text("\n".join("\n".join(" ".join(c) for c in d) + "\n" for d in drss),
                       encoding="utf-8")
    return pred, gold, source
