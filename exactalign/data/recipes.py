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
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import NamedTuple

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


class Recipe(NamedTuple):
    repo: str
    reads: tuple[str, ...]  # paths in ``repo``, each a registry download
    build: Callable[[Callable[[str], bytes]], dict[str, bytes]]


RECIPES: dict[str, Recipe] = {
    "ace-dev": Recipe("hunterhector/EvmEval",
                      tuple(f"{ACE_SPAN_DIR}/{doc}_{suffix}.json"
                            for _, suffix, _ in ACE_SIDES for doc in ACE_DOCS), ace_dev),
}
