"""Every registered problem shows the same four faces (exact, heuristics, brute force, check)."""

import pytest

from exactalign.registry import problems

PROBLEMS = problems()


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_four_faces(name):
    p = PROBLEMS[name]
    for face in ("ilp_model", "brute_force", "check", "solve"):
        assert callable(getattr(p, face)), face
    assert p.heuristics and all(callable(h) for h in p.heuristics.values())
    assert set(p.heuristics) <= set(p.methods)
    assert {"exact", "ilp", "brute"} <= set(p.methods)
