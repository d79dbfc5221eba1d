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
One JSON object per line: a document with an ``id`` (a string or an integer) and the field the
metric names. Blank lines are skipped. A file gives every document an ``id`` or none (a file
mixing both is an error, as is an ``id`` used twice). When both files have ids they are paired
by ``id``: a reference document missing from the system file is scored against an empty
prediction (and named: :attr:`Pairing.missing`, a warning of ``exactalign score``); a system
document without a reference document is an error (the two files most likely do not belong
together). When neither has ids, the k-th document of one pairs with the k-th of the other
(blank lines do not count), a document is named by its line in the reference file, and the two
files must hold as many documents (a line missing in one would shift every later pair). One
file with ids and the other without is an error. :func:`document_schema` derives the JSON
Schema a declaration's documents must follow (``exactalign score --schema``).
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


class _NotJson(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a spec file: Python's decoder accepts them,
    JSON does not, and a weight or threshold of NaN compares false with everything."""


def _no_constant(name: str):
    raise _NotJson(name)


def load_spec(path: str | Path) -> list[Metric]:
    """The metrics of a spec file (``.toml``, or ``.json``)."""
    path = Path(path)
    text = path.read_bytes()
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text.decode("utf-8-sig"), parse_constant=_no_constant)
        else:
            data = _toml().loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 ({e.reason} at byte {e.start})", path=path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg}", path=path, line=e.lineno) from None
    except _NotJson as e:
        raise InputError(f"not valid JSON: {e} is not a JSON number", path=path) from None
    except ValueError as e:  # tomllib.TOMLDecodeError: "... (at line 3, column 5)"
        raise InputError(f"not valid TOML: {e}", path=path) from None
    except RecursionError:  # json and tomllib recurse once per nested list or table
        raise InputError("nested too deeply to read", path=path) from None
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


class Documents(list):
    """The ``(id, line, document)`` triples of one file (:func:`read_jsonl`), with the file's
    name and whether its documents carry ids (``named``; else ``id`` is the line number)."""

    def __init__(self, items=(), path: str = "", named: bool = True):
        super().__init__(items)
        self.path = path
        self.named = named


def read_jsonl(path: str | Path) -> Documents:
    """``(id, line, document)`` per non-blank line of a JSONL file ('-': stdin). Every document
    has an ``id`` (``named``) or none does (the id is then the line number)."""
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
    docs, seen = Documents(path=name), {}
    first_named = first_unnamed = None
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
            if isinstance(doc["id"], bool) or not isinstance(doc["id"], str | int):
                raise InputError(f"'id' must be a string or an integer, not {doc['id']!r}",
                                 path=name, line=line_no)
            doc_id = str(doc["id"])
            first_named = first_named or line_no
        else:
            first_unnamed = first_unnamed or line_no
        if first_named and first_unnamed:
            what = (f"has no 'id' but the one on line {first_named} has"
                    if first_unnamed == line_no else
                    f"has an 'id' but the one on line {first_unnamed} has none")
            raise InputError(f"this document {what}: give every document an 'id' (pairs by "
                             "id) or none (pairs by position)", path=name, line=line_no)
        if doc_id in seen:
            raise InputError(f"document id {doc_id!r} already used on line {seen[doc_id]}",
                             path=name, line=line_no)
        seen[doc_id] = line_no
        docs.append((doc_id, line_no, doc))
    if not docs:
        raise InputError("no documents (the file is empty)", path=name)
    docs.named = first_unnamed is None
    return docs


class Pairing(tuple):
    """``(ids, predictions, references)`` of two paired files (it unpacks as those three),
    with where each pair comes from: ``reference_lines`` and ``system_lines`` (the line of
    each pair's document in its file; ``None`` for a missing system document or a native
    format), the two file names, and ``missing``, the ids of the reference documents absent
    from the system file (scored against empty predictions)."""

    ids: list
    predictions: list
    references: list

    def __new__(cls, ids, predictions, references, *, reference_lines, system_lines,
                reference_path: str, system_path: str, missing: list):
        self = super().__new__(cls, (ids, predictions, references))
        self.ids, self.predictions, self.references = ids, predictions, references
        self.reference_lines, self.system_lines = reference_lines, system_lines
        self.reference_path, self.system_path = reference_path, system_path
        self.missing = missing
        return self

    def locate(self, error: InputError) -> InputError:
        """``error`` from :meth:`Metric.compute` (which names the document, its index and the
        side at fault when known) placed in its file and line: ``SYSTEM:5: document 'b':
        ...``. An error that is neither side's alone names the reference line and the system
        line."""
        k, side = getattr(error, "document", None), getattr(error, "side", None)
        if k is None or not 0 <= k < len(self.ids):
            return error
        ref = (self.reference_path, self.reference_lines[k])
        sys_ = (self.system_path, self.system_lines[k])
        if side == "prediction" and sys_[1] is not None:
            path, line, message = *sys_, error.message
        elif side == "reference" or sys_[1] is None:
            path, line, message = *ref, error.message
        else:
            path, line = ref
            message = error.message + f" (with its system document at {sys_[0]}:{sys_[1]})"
        if line is None:
            return error
        out = InputError(message, path=path, line=line)
        out.document, out.side = k, side
        return out


def pair_documents(metric: Metric, reference: list, system: list, ref_path: str,
                   sys_path: str) -> Pairing:
    """Pair the two files' documents (see the module's docstring): by id in reference order
    when both have ids, else by position. Missing system documents become empty predictions
    (:attr:`Pairing.missing`); a system document without reference is an
    :class:`InputError`."""
    ref_named, sys_named = (getattr(d, "named", True) for d in (reference, system))
    if ref_named != sys_named:
        named, unnamed = (ref_path, sys_path) if ref_named else (sys_path, ref_path)
        first = (system if ref_named else reference)[0][1]
        raise InputError(f"this document has no 'id' but the documents of {named} have "
                         "ids: give both files ids (pairs by id) or neither (pairs by "
                         "position)", path=unnamed, line=first)
    if not ref_named:
        if len(reference) != len(system):
            raise InputError(f"{sys_path} has {_documents(len(system))} and {ref_path} has "
                             f"{len(reference)}, and neither gives its documents an 'id', so "
                             "they pair by position: give every document an 'id' to score a "
                             "subset")
        return Pairing([i for i, _, _ in reference], [d for _, _, d in system],
                       [d for _, _, d in reference],
                       reference_lines=[line for _, line, _ in reference],
                       system_lines=[line for _, line, _ in system],
                       reference_path=ref_path, system_path=sys_path, missing=[])
    by_id = {doc_id: (line, doc) for doc_id, line, doc in system}
    ref_ids = {doc_id for doc_id, _, _ in reference}
    for doc_id, line, _ in system:
        if doc_id not in ref_ids:
            raise InputError(f"document {doc_id!r} is not in the reference file {ref_path}",
                             path=sys_path, line=line)
    ids, preds, refs, ref_lines, sys_lines, missing = [], [], [], [], [], []
    for doc_id, line, doc in reference:
        ids.append(doc_id)
        refs.append(doc)
        ref_lines.append(line)
        if doc_id in by_id:
            sys_lines.append(by_id[doc_id][0])
            preds.append(by_id[doc_id][1])
        else:
            sys_lines.append(None)
            preds.append(empty_document(metric))
            missing.append(doc_id)
    return Pairing(ids, preds, refs, reference_lines=ref_lines, system_lines=sys_lines,
                   reference_path=ref_path, system_path=sys_path, missing=missing)


def _documents(n: int) -> str:
    return f"{n} document" if n == 1 else f"{n} documents"


def missing_warning(pairing: Pairing, shown: int = 5) -> str | None:
    """The warning naming the reference documents absent from the system file, or None."""
    missing = pairing.missing
    if not missing:
        return None
    names = ", ".join(repr(i) for i in missing[:shown])
    if len(missing) > shown:
        names += f" and {len(missing) - shown} more"
    return (f"{len(missing)} of the {len(pairing.ids)} documents of {pairing.reference_path} "
            f"are not in {pairing.system_path} and are scored as empty predictions: {names}")


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
        span = {"type": "array", "items": {"type": "integer", "minimum": 0,
                                           "maximum": 2**53 - 1},
                "minItems": 2, "maxItems": 2,
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
