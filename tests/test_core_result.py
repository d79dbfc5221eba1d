import json

import numpy as np
import pytest
import scipy.sparse as sp

from exactalign import Result, Status, VerificationError
from exactalign.core.model import binary_model
from exactalign.core.result import relative_gap, worst_status
from exactalign.core.solve import BackendOutcome, SolveOptions, verified_result


def test_result_is_frozen_and_derives_gap():
    r = Result(Status.TIME_LIMIT, 8.0, 10.0, np.zeros((0, 2)), "ilp")
    assert not r.proven_optimal
    assert r.gap == pytest.approx(2 / 8) and r.abs_gap == 2.0
    with pytest.raises(AttributeError):
        r.status = Status.OPTIMAL
    with pytest.raises(TypeError):
        r.details["x"] = 1


def test_replace_copies_and_pickle_round_trips():
    import pickle

    r = Result(Status.FEASIBLE, 3.0, 4.0, [(0, 1)], "exact", nodes=7, details={"k": 1})
    s = r.replace(status=Status.OPTIMAL, bound=3.0)
    assert (s.status, s.bound, s.objective, s.nodes, dict(s.details)) == (
        Status.OPTIMAL, 3.0, 3.0, 7, {"k": 1})
    assert r.status is Status.FEASIBLE and r.bound == 4.0  # the original is unchanged
    with pytest.raises(TypeError, match="no field 'bond'"):
        r.replace(bond=3.0)
    back = pickle.loads(pickle.dumps(s))
    assert [getattr(back, f) for f in ("status", "objective", "bound", "alignment", "method",
                                       "nodes", "components")] == [
        Status.OPTIMAL, 3.0, 3.0, [(0, 1)], "exact", 7, 1]
    assert dict(back.details) == {"k": 1}
    with pytest.raises(TypeError):
        back.details["k"] = 2
    with pytest.raises(AttributeError):
        del back.nodes


def test_to_dict_is_json_with_stable_keys():
    r = Result(Status.OPTIMAL, 1.4, 1.4, np.array([[0, 1], [1, 0]]), "exact", backend="highs")
    d = json.loads(json.dumps(r.to_dict(alignment=True)))
    assert d["status"] == "optimal" and d["proven_optimal"] is True
    assert d["gap"] == 0.0 and d["alignment"] == [[0, 1], [1, 0]]
    for key in ("objective", "bound", "gap", "method", "backend", "wall_time", "nodes"):
        assert key in d
    assert Result(Status.FEASIBLE, 1.0, None, None, "greedy").to_dict()["gap"] is None


def test_relative_gap_and_worst_status():
    assert relative_gap(0.0, 0.0) == 0.0
    assert relative_gap(0.0, 0.5) == 0.5  # max(1, |objective|) keeps empty alignments finite
    assert relative_gap(None, 1.0) is None
    assert worst_status([Status.OPTIMAL, Status.TIME_LIMIT, Status.FEASIBLE]) is Status.TIME_LIMIT
    assert worst_status([]) is Status.OPTIMAL


def _model():
    return binary_model([1.0, 2.0], sp.csr_array([[1.0, 1.0]]), [-np.inf], [1.0])


def _outcome(x, obj, bound, status=Status.OPTIMAL):
    return BackendOutcome(status, np.asarray(x, float), obj, bound, 0, 0.0, "fake", "fake 0",
                          "fake")


def _verify(outcome):
    return verified_result(outcome, _model(), decode=lambda x: tuple(np.flatnonzero(x)),
                           check=lambda al: float(sum((1.0, 2.0)[j] for j in al)),
                           method="ilp", seed=0)


def test_verified_result_accepts_consistent_outcome():
    r = _verify(_outcome([0, 1], 2.0, 2.0))
    assert r.proven_optimal and r.objective == 2.0 and r.alignment == (1,)


def test_verification_rejects_wrong_objective():
    with pytest.raises(VerificationError, match="reported objective 1.5"):
        _verify(_outcome([0, 1], 1.5, 2.0))


def test_verification_rejects_infeasible_solution():
    with pytest.raises(VerificationError, match="violates the model"):
        _verify(_outcome([1, 1], 3.0, 3.0))


def test_verification_rejects_bound_below_solution():
    with pytest.raises(VerificationError, match="bound 1.0"):
        _verify(_outcome([0, 1], 2.0, 1.0))


def test_optimal_claim_with_open_gap_is_downgraded():
    r = _verify(_outcome([1, 0], 1.0, 2.0))
    assert r.status is Status.FEASIBLE and r.bound == 2.0


@pytest.mark.parametrize("kwargs", [{"time_limit": -1}, {"mip_rel_gap": 1.0}, {"threads": 0}])
def test_solve_options_validation(kwargs):
    with pytest.raises(ValueError):
        SolveOptions(**kwargs)
