"""The tokens the TimeML-Normalizer labels: ``tokenize.pl`` (H. Schmid) as the normaliser runs
it, then its own ``Tokenizer.execute`` (:func:`toolkit_tokens`)."""

from __future__ import annotations

import re

__all__ = ["toolkit_tokens"]

# tokenize.pl (H. Schmid), as the normaliser runs it: English (-e), one line at a time
_P_CHAR = "\\[{(\u00b4`\"\u00bb\u00ab\x82\x84\x86\x87\x8b\x91-\x97\x9b"   # a regex class body
_F_CHAR = "\\]}'`\"),;:!?%\u00bb\u00ab\x82\x84\x85\x86\x87\x89\x8b\x91-\x97\x9b"
_TK = {
    "sgml": re.compile(r"(<[^<>]*>|&[^; \t\n\r]*;)"),
    "dots": re.compile(r"(\.\.\.)"),
    "punct": re.compile(r"([;!?/])([^ ])"),
    "comma": re.compile(r"(,)([^ 0-9.])"),
    "caps": re.compile("([a-zA-Z\u00c0-\u00ff][a-zA-Z\u00c0-\u00ff][.:])([A-Z\u00c0-\u00dd])"),
    "lead": re.compile(f"^([{_P_CHAR}])(.)"),
    "trail": re.compile(f"(.)([{_F_CHAR}])$"),
    "dot_after": re.compile(f"([{_F_CHAR}])\\.$"),
    "initials": re.compile("(?:[A-Za-z\u00c0-\u00ff]\\.)+"),
    "final_dot": re.compile(r"(..*)\."),
    "clitic": re.compile(r"(.)('(?:s|re|ve|d|m|em|ll)|n't)$"),
    # Perl's \s on character strings
    "space": re.compile("[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f"
                        "\u205f\u3000]+"),
    "hyphen": re.compile(r"[^-]+-[^-]+"),
}


# The words of the tokenizer's abbreviation list (``english-abbreviations``) that can end a
# time expression: kept whole, period included. The list's other words (titles, company and
# state abbreviations such as ``Mr.``, ``Inc.``, ``Calif.``) get their period split off here,
# which moves the boundary of no EVENT or TIMEX3 that matters; but a TIMEX3 such as ``the
# next few days`` written before the period of ``days.`` ends inside that token, and the
# normaliser then labels the token ``O`` (see ``merge_tok_n_tml`` in
# :mod:`exactalign.metrics.temporal.normaliser`).
_KEEP_PERIOD = frozenset({"days.", "Jan.", "Feb.", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."})


def _tokenize_word(word: str) -> list[str]:
    """One blank-separated word of tokenize.pl: brackets and punctuation cut off, a final
    period split unless the word is initials (``U.S.``) or in :data:`_KEEP_PERIOD`, English
    clitics cut off."""
    head, suffix = [], []
    while word not in _KEEP_PERIOD:
        if (m := _TK["lead"].match(word)) is not None:
            head.append(m.group(1))
            word = word[1:]
        elif _TK["trail"].search(word) is not None:
            suffix.insert(0, word[-1])
            word = word[:-1]
        elif (m := _TK["dot_after"].search(word)) is not None:
            word = word[:-2]
            suffix.insert(0, ".")
            if word == "":
                word = m.group(1)
            else:
                suffix.insert(0, m.group(1))
        else:
            break
    if word in _KEEP_PERIOD:
        return head + [word] + suffix
    if _TK["initials"].fullmatch(word):
        return head + [word] + suffix
    if word != "..." and (m := _TK["final_dot"].fullmatch(word)) is not None:
        word = m.group(1)
        suffix.insert(0, ".")
    while (m := _TK["clitic"].search(word)) is not None:
        suffix.insert(0, m.group(2))
        word = word[:m.start(2)]
    return head + [word] + suffix


def toolkit_tokens(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens the TimeML-Normalizer labels: ``tokenize.pl -e -a
    english-abbreviations`` (one line at a time; see :func:`_tokenize_word`) run on the text of
    ``<TEXT>``, then its ``Tokenizer.execute``: a token ``a-b`` with a single hyphen is split
    into ``a``, ``-``, ``b``. A token the text does not hold where expected (which the
    normaliser would reject with 'Distinct chars') is skipped."""
    words: list[str] = []
    for line in text.replace("\r", "").split("\n"):
        for seg in _TK["sgml"].split(line):
            if not seg:
                continue
            if seg.startswith("<") and seg.endswith(">"):
                words.append(seg)
                continue
            s = f" {seg} "
            for key, rep in (("dots", r" \1 "), ("punct", r"\1 \2"), ("comma", r"\1 \2"),
                             ("caps", r"\1 \2")):
                s = _TK[key].sub(rep, s)
            for w in _TK["space"].split(s):
                if w:
                    words.extend(_tokenize_word(w))
    spans: list[tuple[int, int]] = []
    pos = 0
    haystack = text.replace("|", "-")
    for w in words:
        w = re.sub(r"[ \t\n\x0b\f\r]+", " ", w).strip().replace("|", "-")
        if not w:
            continue
        parts = w.replace("-", "\n-\n").split("\n") if _TK["hyphen"].fullmatch(w) else [w]
        for part in parts:
            k = haystack.find(part, pos)
            if k < 0 or text[pos:k].strip():
                continue
            spans.append((k, k + len(part)))
            pos = k + len(part)
    return spans

