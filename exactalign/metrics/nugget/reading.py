"""Reading a gold and a system file and pairing their documents as v1.8 does: gold documents in
sorted order, missing ones warned about, token ids checked, the type white list applied."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ...core.errors import InputError
from ...io.tbf import (
    DEFAULT_ATTRIBUTES,
    TOKEN_FILE_EXT,
    TOKEN_OFFSET_FIELDS,
    TbfFile,
    TbfWarning,
    TokenTable,
    canonical,
    check_token_ids,
    read_tbf,
    read_token_table,
    read_type_whitelist,
    token_table_path,
)
from .instances import attribute_combinations, combination_name

#: The most characters a mention may cover in character mode (the sum of its pieces' lengths).
#: v1.8's Dice, which we reproduce, expands a span into its characters: a span of ``0,10**30``
#: would allocate more memory than any machine has (v1.8 and we died of it, with a
#: MemoryError), and 10**5 characters of one mention already cost some 4 MB. An event nugget is
#: a few words; a span this wide is a typing error or an offset in the wrong unit.
MAX_MENTION_CHARS = 10**5


def _check_widths(tbf: TbfFile) -> None:
    """Raise :class:`InputError` at the first mention covering more than
    :data:`MAX_MENTION_CHARS` characters (character mode only)."""
    if tbf.mode != "char":
        return
    for doc in tbf.documents.values():
        for m in doc.mentions:
            if m.size > MAX_MENTION_CHARS:
                raise InputError(f"span {m.span!r} of mention {m.mention_id} covers {m.size} "
                                 f"characters, more than {MAX_MENTION_CHARS} (an offset in the "
                                 "wrong unit?)", path=tbf.path, line=m.line)


def read_pair(gold_path, system_path, *, token_dir=None, token_ext: str = TOKEN_FILE_EXT,
              offset_fields: tuple[int, int] = TOKEN_OFFSET_FIELDS,
              attributes: Sequence[str] = DEFAULT_ATTRIBUTES, type_whitelist=None,
              strict: bool = False):
    """Read a gold and a system file as :func:`evaluate_files` does: ``(gold, system, token
    tables or None, type white list or None)`` (the white list read when it is a path)."""
    mode = "char" if token_dir is None else "token"
    gold = read_tbf(gold_path, mode=mode, attributes=attributes, strict=strict)
    _check_widths(gold)
    if not gold.documents:  # v1.8 would score the system against nothing, silently
        raise InputError("the gold standard has no documents (no #BeginOfDocument line): "
                         "nothing to score against", path=str(gold_path))
    system = read_tbf(system_path, mode=mode, attributes=attributes, strict=strict)
    _check_widths(system)
    if system.documents and not set(system.documents) & set(gold.documents):
        first = next(iter(system.documents))
        raise InputError(f"none of its {len(system.documents)} document(s) is in the gold "
                         f"standard (first: {first}); are these the right files?",
                         path=str(system_path))
    tables = None
    if token_dir is not None:
        if not Path(token_dir).is_dir():
            raise InputError(f"token directory {token_dir} does not exist")
        tables = {}
        for doc_id in gold.documents:
            p = token_table_path(token_dir, doc_id, token_ext)
            tables[doc_id] = (read_token_table(p, offset_fields=offset_fields, strict=strict)
                              if p.is_file() else None)
        for t in tables.values():
            if t is not None:
                gold.warnings.extend(t.warnings)
    if isinstance(type_whitelist, str | Path):
        type_whitelist = read_type_whitelist(type_whitelist)
    return gold, system, tables, type_whitelist


def setup_evaluation(gold: TbfFile, system: TbfFile):
    """Attributes, combinations (indices and names) and the warning list of a scoring run."""
    if gold.mode != system.mode:
        raise ValueError(f"gold is read in {gold.mode} mode, system in {system.mode} mode")
    if tuple(gold.attributes) != tuple(system.attributes):
        raise ValueError("gold and system are read with different attribute lists")
    attributes = tuple(gold.attributes)
    combos = attribute_combinations(len(attributes))
    names = tuple(combination_name(c, attributes) for c in combos)
    return attributes, combos, names, list(gold.warnings) + list(system.warnings)


def document_pairs(gold: TbfFile, system: TbfFile, warnings: list, *,
                   token_tables: Mapping[str, TokenTable | None] | None = None,
                   type_whitelist: Iterable[str] | None = None, strict: bool = False):
    """Yield ``(doc_id, gold mentions, system mentions)`` for every gold document in sorted
    order, as v1.8 pairs them (see the module docstring), after the type white list; appends
    warnings (or raises :class:`InputError` when ``strict``) for documents missing on either
    side and missing token tables, and checks token ids against their tables."""

    def warn(message, path, line):
        if strict:
            raise InputError(message + " (an error under strict checking)", path=path,
                             line=line)
        warnings.append(TbfWarning(message, path, line))

    for doc_id, d in system.documents.items():
        if doc_id not in gold.documents:
            warn(f"system document {doc_id} is not in the gold standard; ignored (as v1.8 "
                 "does)", system.path, d.begin_line)
    for doc_id, d in gold.documents.items():
        if doc_id not in system.documents:
            warn(f"gold document {doc_id} has no system document; scored as empty (as v1.8 "
                 "does)", gold.path, d.begin_line)
    keep = type_filter(type_whitelist)
    if type_whitelist is not None and keep is None:
        warn("the type white list is empty: every type is scored (as v1.8 does)", None, None)
    for doc_id in sorted(gold.documents):
        g_doc = gold.documents[doc_id]
        s_doc = system.documents.get(doc_id)
        if token_tables is not None:
            table = token_tables.get(doc_id)
            if table is None:
                warn(f"no token table for document {doc_id}; its token ids are not checked",
                     gold.path, g_doc.begin_line)
            else:
                check_token_ids(g_doc, table, gold.path)
                if s_doc is not None:
                    check_token_ids(s_doc, table, system.path)
        g = [m for m in g_doc.mentions if keep is None or m.type in keep]
        s = [] if s_doc is None else [m for m in s_doc.mentions if keep is None or m.type in keep]
        yield doc_id, g, s


def type_filter(type_whitelist: Iterable[str] | None) -> frozenset[str] | None:
    """The canonical types to keep, or ``None`` for all: v1.8 tests its white-list set for
    truth, so an empty white list (a file without lines) filters nothing."""
    if type_whitelist is None:
        return None
    keep = frozenset(canonical(t) for t in type_whitelist)
    return keep or None
