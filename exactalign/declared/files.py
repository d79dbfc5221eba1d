"""Declared metrics on disk: spec files (TOML or JSON) and the JSONL document format.

Spec file
---------
One metric, as the keys of :meth:`Metric.from_dict` (``name``, ``field``, ``average``,
``transform``, ``recall_denominator``, ``precision_denominator``, ``spec``), or several under
``[[metrics]]``. The similarity tree is written as
tables with a ``type`` (``match``, ``record``, ``eq``, ``span``, ``hierarchy``, ``func``,
``latent``) and the node's options::

    name = "trigger classification"
    field = "events"

    [spec]
    type = "match"
    constraint = "1:1"

    [spec.element]
    type = "record"
    fields.trigger = { type = "span", measure = "exact" }
    fields.type = { type = "eq" }

Documents (JSONL)
-----------------
One JSON object per line: a document with an ``id`` (any string; default: the line number) and
the field the metric names. Blank lines are skipped. The reference and the system file are
paired by ``id``: a reference document missing from the system file is scored against an
empty prediction; a system document without a reference document is an error (the two files
most likely do not belong together). :func:`document_schema` derives the JSON Schema a
declaration's documents must follow (``exactalign score --schema``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.errors import InputError
from .metric import Metric
from .nodes import Eq, Func, Hierarchy, Latent, Match, Node, Record, Span


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


def load_spec(path: str | Path) -> list[Metric]:
    """The metrics of a spec file (``.toml``, or ``.json``)."""
    path = Path(path)
    text = path.read_bytes()
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text.decode("utf-8-sig"))
        else:
            data = _toml().loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 ({e.reason} at byte {e.start})", path=path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg}", path=path, line=e.lineno) from None
    except ValueError as e:  # tomllib.TOMLDecodeError: "... (at line 3, column 5)"
        raise InputError(f"not valid TOML: {e}", path=path) from None
    if not isinstance(data, dict):
        raise InputError("a spec file holds a table (one metric) or 'metrics' (a list)",
                         path=path)
    entries = data["metrics"] if "metrics" in data else [data]
    if not isinstance(entries, list) or not entries:
        raise InputError("'metrics' must be a non-empty list of metric tables", path=path)
    out = []
    for k, entry in enumerate(entries):
        where = "metric" if "metrics" not in data else f"metrics[{k}]"
        try:
            out.append(Metric.from_dict(entry, where))
        except InputError as e:
            raise InputError(e.message, path=path) from None
    return out


def read_jsonl(path: str | Path) -> list[tuple[str, int, object]]:
    """``(id, line, document)`` per non-blank line of a JSONL file ('-': stdin)."""
    if str(path) == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        raw = Path(path).read_bytes()
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise InputError("is UTF-16; save it as UTF-8", path=path)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 ({e.reason} at byte {e.start})", path=path) from None
        name = str(path)
    docs, seen = [], {}
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"not a JSON document: {e.msg} (column {e.colno})", path=name,
                             line=line_no) from None
        except RecursionError:
            raise InputError("JSON nested too deeply", path=name, line=line_no) from None
        doc_id = str(line_no)
        if isinstance(doc, dict) and "id" in doc:
            if not isinstance(doc["id"], str | int):
                raise InputError(f"'id' must be a string, not {doc['id']!r}", path=name,
                                 line=line_no)
            doc_id = str(doc["id"])
        if doc_id in seen:
            raise InputError(f"document id {doc_id!r} already used on line {seen[doc_id]}",
                             path=name, line=line_no)
        seen[doc_id] = line_no
        docs.append((doc_id, line_no, doc))
    if not docs:
        raise InputError("no documents (the file is empty)", path=name)
    return docs


def pair_documents(metric: Metric, reference: list, system: list, ref_path: str,
                   sys_path: str) -> tuple[list[str], list, list]:
    """Pair the two files' documents by id (reference order). Missing system documents become
    empty predictions; a system document without reference is an :class:`InputError`."""
    by_id = {doc_id: (line, doc) for doc_id, line, doc in system}
    ref_ids = {doc_id for doc_id, _, _ in reference}
    for doc_id, line, _ in system:
        if doc_id not in ref_ids:
            raise InputError(f"document {doc_id!r} is not in the reference file {ref_path}",
                             path=sys_path, line=line)
    ids, preds, refs = [], [], []
    for doc_id, _, doc in reference:
        ids.append(doc_id)
        refs.append(doc)
        preds.append(by_id[doc_id][1] if doc_id in by_id else empty_document(metric))
    return ids, preds, refs


def empty_document(metric: Metric):
    """A document with nothing predicted."""
    if isinstance(metric.spec, Latent):
        return {metric.spec.triples: [], metric.spec.variables: []}
    return [] if metric.field is None else {metric.field: []}


# --------------------------------------------------------------------------------------------
# JSON Schema of a declaration's documents
# --------------------------------------------------------------------------------------------
def _schema(node: Node) -> dict:
    if isinstance(node, Match):
        inner = {"type": "array", "items": _schema(node.element)}
        if node.order == "dag":  # {field: items, edges: [[from, to], ...]}
            edges = {"type": "array", "description": "DAG edges between item indices",
                     "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2,
                               "maxItems": 2}}
            return {"type": "object", "properties": {str(node.field): inner,
                                                     str(node.edges): edges},
                    "required": [str(node.field), str(node.edges)]}
        return _wrap(node.field, inner)
    if isinstance(node, Record):
        props = {str(k): _schema(v) for k, v in node.fields.items()}
        return {"type": "object", "properties": props, "required": list(props)}
    if isinstance(node, Span):
        span = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                "description": "[start, end]" + (" (inclusive)" if node.inclusive else
                                                 " (end exclusive)")}
        return _wrap(node.field, span)
    if isinstance(node, Hierarchy):
        path = {"oneOf": [{"type": "string", "description": f"levels joined by {node.sep!r}"},
                          {"type": "array"}]}
        return _wrap(node.field, path)
    if isinstance(node, Eq):
        return _wrap(node.field, {"description": "any JSON value, compared by equality"})
    if isinstance(node, Latent):
        return {"type": "object", "required": [node.triples, node.variables], "properties": {
            node.triples: {"type": "array", "items": {"type": "array", "minItems": 3,
                                                      "maxItems": 3}},
            node.variables: {"type": "array"}}}
    if isinstance(node, Func):
        return {"description": f"any value {node.name} accepts"}
    return {}


def _wrap(field, schema: dict) -> dict:
    if field is None:
        return schema
    return {"type": "object", "properties": {str(field): schema}, "required": [str(field)]}


def document_schema(metric: Metric) -> dict:
    """The JSON Schema (draft 2020-12) of one JSONL line for ``metric``."""
    root = _schema(metric.spec)
    if metric.transform is not None:
        root = {"description": f"the input of transform {metric.to_dict()['transform']}"}
    doc = {"type": "object", "properties": {"id": {"type": ["string", "integer"]}}}
    if metric.field is not None:
        doc["properties"][metric.field] = root
        doc["required"] = [metric.field]
    elif root.get("type") == "object":  # the document is the root's record (Latent, a DAG)
        doc = {**root, "properties": {**root["properties"], **doc["properties"]}}
    else:  # the document is the root's list itself (no room for an id)
        doc = root
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"exactalign document for metric {metric.name}", **doc}
