"""The GTT-format reader (:mod:`exactalign.io.gtt`): GTT's reading rules and clear errors."""

from __future__ import annotations

import json

import pytest

from exactalign import InputError
from exactalign.io import gtt


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _gold_line(docid, templates):
    return json.dumps({"docid": docid, "doctext": "", "templates": templates})


def test_normalize_string_is_gtts_rule():
    assert gtt.normalize_string("The  Shining Path.") == "shining path"
    assert gtt.normalize_string("an FMLN-led attack") == "fmlnled attack"


def test_docids_numeric_and_long_forms():
    assert gtt.gtt_docid("30001") == "TST3-MUC4-0001"
    assert gtt.gtt_docid("40100") == "TST4-MUC4-0100"
    assert gtt.gtt_docid("TST3-MUC4-0007") == "TST3-MUC4-0007"
    with pytest.raises(InputError, match="neither"):
        gtt.gtt_docid("doc7")


def test_gold_drops_empty_entities_and_repeated_templates(tmp_path):
    t = {"incident_type": "attack", "PerpInd": [[["The Army", 3]], []], "PerpOrg": [],
         "Target": [], "Victim": [], "Weapon": []}
    p = _write(tmp_path, "g.json", _gold_line("TST3-MUC4-0001", [t, t]) + "\n")
    docs = gtt.read_gold(p)
    (temp,) = docs["TST3-MUC4-0001"]
    assert temp.incident_type == "attack"
    assert temp.role("PerpInd") == (("army",),)
    assert temp.num_entities == 1


def test_predictions_gtt_object_and_iterx_lines(tmp_path):
    pred = {"30001": {"pred_templates": [
        {"incident_type": ["x"], "PerpInd": [["army"]], "PerpOrg": [], "Target": [],
         "Victim": [], "Weapon": []},
        {"incident_type": "*", "PerpInd": [], "PerpOrg": [], "Target": [], "Victim": [],
         "Weapon": []}]}}
    p = _write(tmp_path, "p.out", json.dumps(pred, indent=2))
    (t,) = gtt.read_predictions(p)["TST3-MUC4-0001"]  # the "*" template is dropped
    assert t.incident_type == "attack"  # a non-string type is read as "attack", as GTT does
    lines = [{"TST3-MUC4-0002": [{"incident_type": "bombing", "Victim": [["A Man"]]}]},
             {"TST3-MUC4-0002": []},
             {"TST3-MUC4-0002": [{"incident_type": "attack"}]}]
    q = _write(tmp_path, "p.jsonlines", "\n".join(json.dumps(x) for x in lines))
    temps = gtt.read_predictions(q)["TST3-MUC4-0002"]
    assert [t.incident_type for t in temps] == ["bombing", "attack"]
    assert temps[0].role("Victim") == (("man",),)


@pytest.mark.parametrize("text,match", [
    ('{"docid": "TST3-MUC4-0001", "templates": [{"incident_type": "attack", "Perp": []}]}',
     "unknown role"),
    ('{"docid": "TST3-MUC4-0001", "templates": [{"incident_type": "attack", '
     '"PerpInd": [["army"]]}]}', r"gold mention must be \[string, offset\]"),
    ('{"docid": "TST3-MUC4-0001"}', "needs 'docid' and 'templates'"),
    ('{"docid": "TST3-MUC4-0001", "templates": [{"incident_type": 3}]}', "must be a string"),
])
def test_gold_errors_name_file_and_line(tmp_path, text, match):
    p = _write(tmp_path, "g.json", _gold_line("TST3-MUC4-0009", []) + "\n" + text + "\n")
    with pytest.raises(InputError, match=match) as e:
        gtt.read_gold(p)
    assert e.value.line == 2 and str(p) in str(e.value)


def test_broken_json_and_repeated_document(tmp_path):
    p = _write(tmp_path, "g.json", _gold_line("TST3-MUC4-0001", []) + "\n{oops\n")
    with pytest.raises(InputError, match="not valid JSON") as e:
        gtt.read_gold(p)
    assert e.value.line == 2
    q = _write(tmp_path, "h.json", (_gold_line("TST3-MUC4-0001", []) + "\n") * 2)
    with pytest.raises(InputError, match="given twice"):
        gtt.read_gold(q)
    r = _write(tmp_path, "p.out", json.dumps({"30001": {"doctext": ""}}))
    with pytest.raises(InputError, match="no 'pred_templates'"):
        gtt.read_predictions(r)
