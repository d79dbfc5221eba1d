"""``exactalign.drs``, the DRS family's Python front door: :func:`~exactalign.drs.score_files`
returns the report ``exactalign drs`` prints -- its ``to_dict()`` is the command's ``--json``
document after the envelope -- with the command's defaults and options."""

from __future__ import annotations

import json

import pytest
from test_bad_input import put, run
from test_json_every_command import DRS_GOLD, DRS_PRED

import exactalign
from exactalign import drs
from exactalign.metrics import drs_report


def _files(tmp_path):
    return put(tmp_path, "pred.drs", DRS_PRED), put(tmp_path, "gold.drs", DRS_GOLD)


def _timeless(obj):
    if isinstance(obj, dict):
        return {k: _timeless(v) for k, v in obj.items() if k != "wall_time"}
    if isinstance(obj, list):
        return [_timeless(v) for v in obj]
    return obj


@pytest.mark.parametrize("flags, kwargs", [
    ((), {}),
    (("--method", "hillclimb", "--smart", "no", "-r", "3", "--seed", "2", "--runs", "2"),
     {"method": "hillclimb", "smart": "no", "restarts": 3, "seed": 2, "runs": 2}),
    (("--method", "exact", "-ic", "-dse", "--no-signature", "-sig", "2"),
     {"method": "exact", "include_ref": True, "default_sense": True, "signature": False,
      "digits": 2}),
], ids=["defaults", "hillclimb", "exact-options"])
def test_score_files_is_what_the_command_prints(tmp_path, capsys, flags, kwargs):
    pred, gold = _files(tmp_path)
    code, out, _ = run(capsys, "drs", pred, gold, "--no-wordnet", "--json", *flags)
    assert code == 0
    doc = json.loads(out)
    for key in ("command", "version", "inputs", "options"):
        doc.pop(key)
    rep = drs.score_files(pred, gold, wordnet=False, **kwargs)
    assert isinstance(rep, drs.DrsReport)
    assert _timeless(json.loads(json.dumps(rep.to_dict()))) == _timeless(doc)
    assert list(rep.to_dict()) == list(doc)  # the same keys, in the same order


def test_the_facade_hands_on_the_family():
    assert exactalign.drs is drs
    assert exactalign.DrsScorer is drs.DrsScorer is drs_report.DrsScorer
    assert drs.score_drss is drs_report.score_drss
    assert "drs" in exactalign.__all__ and "DrsScorer" in exactalign.__all__
    for name in drs.__all__:
        assert getattr(drs, name) is not None
    d, = drs.parse_drs('b1 REF x1\nb1 dog "n.01" x1\n')
    assert d.clauses == (("b1", "REF", "x1"), ("b1", "dog", '"n.01"', "x1"))


def test_smart_takes_counters_values_or_a_bool(tmp_path):
    pred, gold = _files(tmp_path)
    kw = {"wordnet": False, "method": "hillclimb", "restarts": 1, "seed": 1}
    off = drs.score_files(pred, gold, smart="no", **kw)
    assert _timeless(off.to_dict()) == _timeless(drs.score_files(pred, gold, smart=False,
                                                                 **kw).to_dict())
    assert off.smart is False and drs.score_files(pred, gold, **kw).smart is True
    with pytest.raises(ValueError, match="unknown smart mapping 'yes'; choose one of conc, no"):
        drs.score_files(pred, gold, smart="yes", **kw)


def test_without_the_sense_map_a_warning_says_so(tmp_path, capsys, monkeypatch):
    pred, gold = _files(tmp_path)
    monkeypatch.setattr(drs, "load_sense_map", lambda: None)
    rep = drs.score_files(pred, gold, method="exact")
    assert rep.warnings == (drs.NOT_NORMALISED,)
    assert rep.to_dict()["warnings"] == [drs.NOT_NORMALISED]
    code, out, err = run(capsys, "drs", pred, gold, "--method", "exact")
    assert code == 0 and err == f"exactalign: warning: {drs.NOT_NORMALISED}\n"
    # the map, when there, normalises (here a map of one sense, eat.v.02 -> eat.v.01)
    monkeypatch.setattr(drs, "load_sense_map", lambda: {"eat.v.02": "eat.v.01"})
    rep = drs.score_files(pred, gold, method="exact")
    assert rep.warnings == () and rep.totals("exact") == (6.0, 7, 7)
