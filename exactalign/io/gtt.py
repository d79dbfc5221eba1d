"""Reading MUC-4 templates in the GTT JSON format (Du, Rush & Cardie 2021, ``xinyadu/gtt``).

A *template* has an ``incident_type`` (a string) and five role slots, :data:`ROLES`; a slot is a
list of entities and an entity a list of coreferent mention strings. Files read here:

* **gold** (``test.json`` of GTT, ``test_ree.json`` of GRIT): JSON lines
  ``{"docid": "TST3-MUC4-0001", "templates": [...]}`` (or ``"extracts": {role: [...]}`` for
  role-filler entity extraction, REE), each gold mention a ``[string, offset]`` pair.
  As GTT's ``eval.py`` reads them: entities without mentions are dropped and a template equal to
  an earlier one of the same document is dropped.
* **predictions**: GTT/GRIT/DyGIE++/Das et al. (2022) output, one JSON object keyed by a numeric
  document id (``30001`` = ``TST3-MUC4-0001``; ``40007`` = ``TST4-MUC4-0007``) whose value holds
  ``pred_templates`` (or ``pred_extracts``), mentions as plain strings; or IterX output, JSON lines
  ``{"TST3-MUC4-0001": [template, ...]}`` (a document may come in several lines, one per template
  type: their templates are concatenated in file order). A role missing from a predicted template
  is an empty slot. Templates with incident type ``"*"`` (the 1992 mark of an irrelevant message,
  kept by Das et al.'s conversion) are dropped. A non-string predicted incident type becomes
  ``"attack"``, as GTT's ``eval.py`` does.

Every mention string is normalised with :func:`normalize_string` (GTT's and GRIT's rule: lower
case, punctuation removed, articles ``a an the`` removed, white space collapsed). Document ids
are returned in the ``TST3-MUC4-0001`` form.

Files are read as UTF-8 (a leading byte order mark is dropped); bytes that are not UTF-8,
malformed JSON (also JSON nested past Python's recursion limit) and a gold file without any
document are an :class:`~exactalign.InputError` naming the file (and the line where known).
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError
from .text import TOO_DEEP, read_text

#: The five role slots of a GTT template, in GTT's order.
ROLES = ("PerpInd", "PerpOrg", "Target", "Victim", "Weapon")

Entity = tuple[str, ...]

NO_DOCUMENT = "no document in the file (a gold file is JSON lines, one document per line)"

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = frozenset(string.punctuation)


def normalize_string(s: str) -> str:
    """GTT's ``normalize_string``: lower case, drop punctuation, drop articles, collapse spaces.

    >>> normalize_string("The  Shining-Path.")
    'shiningpath'
    """
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


@dataclass(frozen=True)
class Template:
    """One template: incident type and, per role of :data:`ROLES`, a tuple of entities."""

    incident_type: str
    slots: tuple[tuple[Entity, ...], ...]

    def role(self, name: str) -> tuple[Entity, ...]:
        return self.slots[ROLES.index(name)]

    @property
    def num_entities(self) -> int:
        return sum(len(s) for s in self.slots)


def gtt_docid(key: str, *, path: str | Path | None = None) -> str:
    """``TST3-MUC4-0001`` from GTT's numeric key ``30001`` (``int(set digit) * 10000 + number``);
    a key already in the long form is returned unchanged."""
    key = str(key)
    if key.isdigit() and len(key) == 5 and key[0] in "1234":
        return f"TST{key[0]}-MUC4-{key[1:]}"
    if re.fullmatch(r"(DEV|TST\d)-MUC\d-\d{4}", key):
        return key
    raise InputError(f"document id {key!r} is neither GTT's numeric form (30001) nor "
                     "TST3-MUC4-0001", path=path)


def _entity(raw, *, gold: bool, path, line, where) -> Entity:
    if not isinstance(raw, list):
        raise InputError(f"{where}: an entity must be a list of mentions, got {raw!r}",
                         path=path, line=line)
    out = []
    for m in raw:
        if gold:
            if not (isinstance(m, list) and len(m) == 2 and isinstance(m[0], str)):
                raise InputError(f"{where}: a gold mention must be [string, offset], got {m!r}",
                                 path=path, line=line)
            m = m[0]
        elif not isinstance(m, str):
            raise InputError(f"{where}: a predicted mention must be a string, got {m!r}",
                             path=path, line=line)
        out.append(normalize_string(m))
    return tuple(out)


def _slots(raw: dict, *, gold: bool, path, line, where) -> tuple[tuple[Entity, ...], ...]:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a template must be a JSON object, got {type(raw).__name__}",
                         path=path, line=line)
    unknown = set(raw) - set(ROLES) - {"incident_type"}
    if unknown:
        raise InputError(f"{where}: unknown role(s) {sorted(unknown)}; roles are "
                         + ", ".join(ROLES), path=path, line=line)
    slots = []
    for role in ROLES:
        value = raw.get(role, [])
        if not isinstance(value, list):
            raise InputError(f"{where}: role {role} must be a list of entities", path=path,
                             line=line)
        ents = [_entity(e, gold=gold, path=path, line=line, where=f"{where} {role}")
                for e in value]
        if gold:
            ents = [e for e in ents if e]
        slots.append(tuple(ents))
    return tuple(slots)


def _template(raw, *, gold: bool, path, line, where) -> Template:
    slots = _slots(raw, gold=gold, path=path, line=line, where=where)
    itype = raw.get("incident_type")
    if gold and not isinstance(itype, str):
        raise InputError(f"{where}: gold incident_type must be a string, got {itype!r}",
                         path=path, line=line)
    if not isinstance(itype, str):
        itype = "attack"  # GTT eval.py: a non-string predicted type is read as "attack"
    return Template(itype, slots)


def _read(path: Path) -> str:
    """The file's text: UTF-8 (a leading byte order mark dropped); bytes that are not UTF-8 are
    an :class:`InputError` naming file and line (:func:`~exactalign.io.text.read_text`)."""
    return read_text(path)[1]


def _loads(text: str, path, line=None):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON ({e.msg})", path=path,
                         line=e.lineno if line is None else line) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=path, line=line) from None


def _json_lines(path: Path, text: str | None = None):
    if text is None:
        text = _read(path)
    for lineno, line in enumerate(text.split("\n"), 1):  # as a file iterates its lines
        if line.strip():
            yield lineno, _loads(line, path, lineno)


def _is_json_lines(path: Path, text: str) -> bool:
    first = text.lstrip()[:1]
    if first != "{":
        raise InputError("neither a JSON object nor JSON lines", path=path)
    try:
        obj = json.loads(text[:1 << 16].split("\n", 1)[0])  # the first line (of a 64 KiB head)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(obj, dict) and len(obj) == 1 and isinstance(next(iter(obj.values())), list)


def _raw_key(raw: dict) -> tuple:
    """What GTT compares when it drops a repeated gold template: the incident type and the raw
    mention strings of the non-empty entities, role by role in the file's order."""
    return tuple((role, value if role == "incident_type" else
                  tuple(tuple(m[0] for m in e) for e in value if e))
                 for role, value in raw.items())


def read_gold(path: str | Path) -> dict[str, list[Template]]:
    """GTT gold templates per document (JSON lines with ``docid`` and ``templates``)."""
    path = Path(path)
    docs: dict[str, list[Template]] = {}
    for lineno, obj in _json_lines(path):
        if not isinstance(obj, dict) or "docid" not in obj or "templates" not in obj:
            raise InputError("a gold line needs 'docid' and 'templates'", path=path, line=lineno)
        docid = gtt_docid(obj["docid"], path=path)
        if docid in docs:
            raise InputError(f"document {docid} is given twice", path=path, line=lineno)
        temps: list[Template] = []
        seen = []
        for k, raw in enumerate(obj["templates"]):
            t = _template(raw, gold=True, path=path, line=lineno, where=f"{docid} template {k}")
            key = _raw_key(raw)
            if key not in seen:  # GTT eval.py drops repeated gold templates (before normalising)
                seen.append(key)
                temps.append(t)
        docs[docid] = temps
    if not docs:
        raise InputError(NO_DOCUMENT, path=path)
    return docs


def _add_pred(docs, docid, raws, path, line):
    if not isinstance(raws, list):
        raise InputError(f"{docid}: predicted templates must be a list", path=path, line=line)
    temps = docs.setdefault(docid, [])
    for raw in raws:
        k = len(temps)
        t = _template(raw, gold=False, path=path, line=line, where=f"{docid} template {k}")
        if t.incident_type != "*":
            temps.append(t)


def read_predictions(path: str | Path) -> dict[str, list[Template]]:
    """Predicted templates per document, from a GTT-style ``.out`` object or IterX JSON lines."""
    path = Path(path)
    docs: dict[str, list[Template]] = {}
    text = _read(path)
    if _is_json_lines(path, text):
        for lineno, obj in _json_lines(path, text):
            if not isinstance(obj, dict) or len(obj) != 1:
                raise InputError("an IterX line must be {docid: [templates]}", path=path,
                                 line=lineno)
            (key, raws), = obj.items()
            _add_pred(docs, gtt_docid(key, path=path), raws, path, lineno)
        return docs
    for key, value in _load_object(path, text).items():
        if not isinstance(value, dict) or "pred_templates" not in value:
            raise InputError(f"document {key}: no 'pred_templates'", path=path)
        _add_pred(docs, gtt_docid(key, path=path), value["pred_templates"], path, None)
    return docs


def _load_object(path: Path, text: str | None = None) -> dict:
    obj = _loads(_read(path) if text is None else text, path)
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object keyed by document id", path=path)
    return obj


def read_ree_gold(path: str | Path) -> dict[str, tuple[tuple[Entity, ...], ...]]:
    """REE gold (GRIT ``test_ree.json``): per document the five role slots of ``extracts``."""
    path = Path(path)
    docs = {}
    for lineno, obj in _json_lines(path):
        if not isinstance(obj, dict) or "docid" not in obj or "extracts" not in obj:
            raise InputError("a REE gold line needs 'docid' and 'extracts'", path=path,
                             line=lineno)
        docid = gtt_docid(obj["docid"], path=path)
        docs[docid] = _slots(obj["extracts"], gold=True, path=path, line=lineno, where=docid)
    if not docs:
        raise InputError(NO_DOCUMENT, path=path)
    return docs


def read_ree_predictions(path: str | Path) -> dict[str, tuple[tuple[Entity, ...], ...]]:
    """REE predictions (GRIT ``preds_*.out``): per document the five slots of ``pred_extracts``."""
    path = Path(path)
    docs = {}
    for key, value in _load_object(path).items():
        if not isinstance(value, dict) or "pred_extracts" not in value:
            raise InputError(f"document {key}: no 'pred_extracts'", path=path)
        docid = gtt_docid(key, path=path)
        docs[docid] = _slots(value["pred_extracts"], gold=False, path=path, line=None,
                             where=docid)
    return docs
