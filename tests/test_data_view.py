"""A data directory whose derived files differ from what their recipes make today is read
through a view with the recipes' output (exactalign.data.view): a run on an old copy and a run
on a fetched cache read the same bytes."""

from __future__ import annotations

import hashlib

import pytest

from exactalign.data import ENV_VAR, resolve_data_dir
from exactalign.data.recipes import ace_perturbed_path, normal_conll_log
from exactalign.data.registry import load
from exactalign.data.view import stale_files
from exactalign.testing import pilot_path

REG = load()
GOLD = "nugget/ace-dev/gold.tbf"
LOG = "nugget/evmeval/official-v1.8/char_based.system_A.coref"


def _copy_with(tmp_path, stale: dict[str, bytes]):
    """A data directory holding the pilot's verified ACE gold and ``stale`` files."""
    gold = pilot_path(GOLD)
    if gold is None or hashlib.sha256(gold.read_bytes()).hexdigest() != REG.files[GOLD].sha256:
        pytest.skip("needs the pilot's ACE gold (nugget/ace-dev/gold.tbf)")
    root = tmp_path / "copy"
    (root / GOLD).parent.mkdir(parents=True)
    (root / GOLD).write_bytes(gold.read_bytes())
    for rel, data in stale.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def test_a_stale_derived_file_is_read_as_its_recipe_makes_it(tmp_path, capsys):
    system1 = ace_perturbed_path(1)
    root = _copy_with(tmp_path, {system1: b"an older generator's system\n"})
    env = {ENV_VAR: str(root), "EXACTALIGN_CACHE": str(tmp_path / "cache")}
    capsys.readouterr()  # what finding the pilot's gold said
    assert stale_files(root) == (system1,)
    d = resolve_data_dir(env)
    assert d.base == root.resolve() and d.path != root and d.rebuilt == (system1,)
    data = (d.path / system1).read_bytes()
    assert hashlib.sha256(data).hexdigest() == REG.files[system1].sha256
    assert (d.path / GOLD).read_bytes() == (root / GOLD).read_bytes()
    assert not (d.path / ace_perturbed_path(2)).exists()  # absent from the copy: absent here
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith("rebuilding 1 derived files with the recipe ace-perturbed "
                           f"({system1}) into {tmp_path / 'cache' / '.rebuilt' / 'files'}, once")
    assert len(err) == 2 and "1 derived files differ from what their recipes" in err[1]
    again = resolve_data_dir(env)  # the same view, said once
    assert again == d and capsys.readouterr().err == ""
    assert "as their recipes make them today" in d.describe()


def test_a_stale_file_whose_recipe_cannot_run_is_left_out(tmp_path, capsys):
    """The coref log's recipe needs EvmEval's scorer downloaded (none in this cache): the view
    leaves the stale log out, as a fetch that could not run the recipe would, and says so."""
    root = _copy_with(tmp_path, {LOG: b"version: 8.0 /somewhere/lib/CorScorer.pm\n"})
    capsys.readouterr()
    d = resolve_data_dir({ENV_VAR: str(root), "EXACTALIGN_CACHE": str(tmp_path / "cache")})
    assert d.left_out == (LOG,) and d.rebuilt == () and not (d.path / LOG).exists()
    assert "1 left out (their recipe cannot run here" in capsys.readouterr().err


def test_a_current_copy_is_used_as_it_is(tmp_path):
    root = _copy_with(tmp_path, {})
    d = resolve_data_dir({ENV_VAR: str(root), "EXACTALIGN_CACHE": str(tmp_path / "cache")})
    assert d.path == root.resolve() and d.base is None
    assert not (tmp_path / "cache").exists()  # nothing written


LOG_A = """version: 8.0 /tmp/run1/reference-coreference-scorers-8.01/lib/CorScorer.pm

METRIC muc:
====> (d2); part 000:
Entity 0: (0,0)
====> (d2); part 000:
Entity 0: (0,0)
(d2); part 000:
Recall: (0 / 0) 0%
--------------------------------------------------------------------------
====> (d1); part 000:
Entity 0: (1,1)
====> (d1); part 000:
Entity 0: (1,1)
(d1); part 000:
Recall: (1 / 1) 100%
--------------------------------------------------------------------------

====== TOTALS =======
METRIC blanc:
====> (d2); part 000:
====> (d2); part 000:
:
Total key mentions: 1
====> (d1); part 000:
====> (d1); part 000:
:
Total key mentions: 2

====== TOTALS =======
"""


#: LOG_A as another run writes it: another scorer folder, the documents in the other order.
LOG_B = LOG_A.replace("/tmp/run1/", "/var/x/")
_D2, _D1 = LOG_B.index("====> (d2)"), LOG_B.index("====> (d1)")
_END = LOG_B.index("\n\n====== TOTALS")
LOG_B = LOG_B[:_D2] + LOG_B[_D1:_END + 1] + LOG_B[_D2:_D1] + LOG_B[_END + 1:]


def test_the_conll_log_normal_form_is_the_same_for_either_hash_order():
    """Blocks of documents in another order (Perl's hash order) and another scorer folder give
    the same normal form; the lines themselves are kept."""
    assert LOG_B.index("====> (d1)") < LOG_B.index("====> (d2)")  # swapped in muc
    a, b = normal_conll_log(LOG_A, "/tmp/run1"), normal_conll_log(LOG_B, "/var/x")
    assert a == b
    assert a.startswith("version: 8.0 reference-coreference-scorers-8.01/lib/CorScorer.pm\n")
    assert sorted(a.splitlines()) == sorted(LOG_A.replace("/tmp/run1/", "").splitlines())
    # d1 before d2 in both sections now
    assert a.index("(d1)") < a.index("(d2)") and a.rindex("====> (d1)") < a.rindex("====> (d2)")


def test_a_recipe_that_fails_is_not_run_again_by_every_process(tmp_path, monkeypatch, capsys):
    from exactalign.data import recipes, view

    calls = []

    def broken(read, root):
        calls.append(root)
        raise ValueError("the generator changed")

    monkeypatch.setitem(recipes.RECIPES, "ace-perturbed",
                        recipes.RECIPES["ace-perturbed"]._replace(build=broken))
    system1 = ace_perturbed_path(1)
    root = _copy_with(tmp_path, {system1: b"old\n"})
    env = {ENV_VAR: str(root), "EXACTALIGN_CACHE": str(tmp_path / "cache")}
    d = resolve_data_dir(env)
    assert d.left_out == (system1,) and len(calls) == 1
    view._told.clear()  # as a new process would
    assert resolve_data_dir(env).left_out == (system1,) and len(calls) == 1
    assert "left out" in capsys.readouterr().err
