import math

import numpy as np
import pytest

from nl2fix.core.domain import Verdict
from nl2fix.report import metrics
from nl2fix.report.metrics import RegressionStatus, SampleOutcome
from tests.helpers.report_run import human_eval_estimator


@pytest.mark.parametrize(
    "n, c, k, expected",
    [
        (5, 2, 1, 0.4),
        (10, 1, 5, 0.5),  # 1 - C(9,5)/C(10,5) = 1 - 126/252
        (10, 0, 5, 0.0),
        (4, 2, 3, 1.0),  # n - c < k: every 3-subset holds a correct sample
        (100, 1, 1, 0.01),
        (100, 100, 100, 1.0),
        (6, 2, 2, 1 - 6 / 15),  # 1 - C(4,2)/C(6,2)
    ],
)
def test_hand_computed_values(n, c, k, expected):
    assert metrics.estimate_pass_at_k(n, [c], k)[0] == pytest.approx(expected, abs=1e-12)


def test_agrees_with_human_eval_and_binomials_on_random_values():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(1, 201))
        c = int(rng.integers(0, n + 1))
        k = int(rng.integers(1, n + 1))
        ours = metrics.estimate_pass_at_k([n], [c], k)[0]
        assert ours == pytest.approx(human_eval_estimator(n, c, k), rel=1e-12, abs=1e-12)
        assert ours == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), rel=1e-9, abs=1e-12)


def test_vectorised_with_one_or_many_sample_counts():
    assert metrics.estimate_pass_at_k(5, [0, 2, 5], 1).tolist() == pytest.approx([0.0, 0.4, 1.0])
    assert metrics.estimate_pass_at_k([5, 10], [2, 1], 1).tolist() == pytest.approx([0.4, 0.1])


def test_stable_where_binomials_overflow_floats():
    # C(1000, 500) is beyond float range; the product form stays finite and in [0, 1]
    value = metrics.estimate_pass_at_k(1000, [3], 500)[0]
    assert 0.0 < value < 1.0
    assert value == pytest.approx(1 - math.comb(997, 500) / math.comb(1000, 500), rel=1e-9)


def test_rejects_impossible_inputs():
    with pytest.raises(ValueError):
        metrics.estimate_pass_at_k(5, [6], 1)
    with pytest.raises(ValueError):
        metrics.estimate_pass_at_k(5, [1], 0)
    with pytest.raises(ValueError):
        metrics.estimate_pass_at_k(3, [1], 5)
    with pytest.raises(ValueError):
        metrics.estimate_pass_at_k([3, 4], [1], 1)


def test_pass_at_k_over_bugs_only_for_k_every_bug_reaches():
    result = metrics.pass_at_k([5, 5, 20], [2, 0, 20], ks=(1, 5, 10))
    assert set(result) == {1, 5}
    assert result[1] == pytest.approx((0.4 + 0 + 1) / 3)
    assert result[5] == pytest.approx((1 + 0 + 1) / 3)
    assert metrics.pass_at_k([], []) == {}
    assert metrics.reportable_ks([100, 100]) == [1, 5, 10, 20, 100]
    assert metrics.reportable_ks([100, 0]) == []


def test_pass_at_k_curve_rises_to_the_share_of_fixed_bugs():
    curve = metrics.pass_at_k_curve([10, 10], [1, 0])
    assert len(curve) == 10
    assert curve[0] == pytest.approx(0.05)
    assert curve[-1] == pytest.approx(0.5)
    assert all(a <= b for a, b in zip(curve, curve[1:]))


def test_ranked_pass_at_k():
    ranks = [1, 3, None, 6]
    assert metrics.ranked_pass_at_k(ranks, 1) == 0.25
    assert metrics.ranked_pass_at_k(ranks, 5) == 0.5
    assert metrics.ranked_pass_at_k(ranks, 10) == 0.75
    assert metrics.ranked_pass_at_k([], 1) == 0.0
    assert metrics.first_plausible_rank(["x", "y", "z"], {"z", "y"}) == 2
    assert metrics.first_plausible_rank(["x"], set()) is None


def test_exact_match_ignores_whitespace_and_comments_only():
    fix = "int f(int a) {\n  return a + 1;\n}"
    assert metrics.exact_matches(
        [
            "int f(int a){return a+1;}",
            "int f(int a) { // add\n return a + 1; }",
            "int f(int a) { return a + 2; }",
            'String g() { return "a b"; }',
        ],
        fix,
    ) == [True, True, False, False]
    assert metrics.exact_matches(['String g() { return "a  b"; }'], 'String g() { return "a b"; }') == [False]


def test_regression_status():
    triggers = ["t.ATest::testBug"]
    assert metrics.regression_status(Verdict.PLAUSIBLE, [], triggers) is RegressionStatus.PASSED
    assert metrics.regression_status(Verdict.WRONG, ["t.ATest::testBug"], triggers) is RegressionStatus.NOT_REACHED
    assert metrics.regression_status(Verdict.WRONG, ["t.ATest::testOld"], triggers) is RegressionStatus.FAILED
    assert (
        metrics.regression_status(Verdict.WRONG, ["t.ATest::testBug"], triggers, all_tests_ran=True)
        is RegressionStatus.PASSED
    )
    assert (
        metrics.regression_status(Verdict.WRONG, ["t.ATest::testOld"], triggers, all_tests_ran=True)
        is RegressionStatus.FAILED
    )
    assert metrics.regression_status(Verdict.UNCOMPILABLE, [], triggers) is RegressionStatus.FAILED
    assert metrics.regression_status(Verdict.TIMEOUT, [], triggers) is RegressionStatus.FAILED


def test_candidate_rates_and_their_mean_over_bugs():
    p = SampleOutcome(extracted=True, verdict=Verdict.PLAUSIBLE, regression=RegressionStatus.PASSED)
    dup = SampleOutcome(extracted=True, duplicate=True, verdict=Verdict.PLAUSIBLE, regression=RegressionStatus.PASSED)
    wrong = SampleOutcome(extracted=True, verdict=Verdict.WRONG, regression=RegressionStatus.NOT_REACHED)
    none = SampleOutcome(extracted=False)
    pending = SampleOutcome(extracted=True)
    error = SampleOutcome(extracted=True, verdict=Verdict.ERROR, regression=RegressionStatus.FAILED)
    a = metrics.candidate_rates([p, dup, wrong, none])
    assert (
        a.samples,
        a.duplicates,
        a.unextractable,
        a.compile,
        a.regression_pass,
        a.regression_not_reached,
        a.plausible,
        a.unvalidated,
    ) == (4, 0.25, 0.25, 0.75, 0.5, 0.25, 0.5, 0.0)
    b = metrics.candidate_rates([pending, error])
    assert (b.compile, b.plausible, b.unvalidated) == (0.0, 0.0, 1.0)
    mean = metrics.mean_rates([a, b, metrics.candidate_rates([])])
    assert mean["plausible"] == pytest.approx(0.25)
    assert mean["unvalidated"] == pytest.approx(0.5)
    assert mean["duplicates"] == pytest.approx(0.125)


def test_intervals():
    low, high = metrics.wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert metrics.wilson_interval(0, 0) == (0.0, 1.0)
    assert metrics.wilson_interval(0, 20)[0] == 0.0
    values = [0.0] * 50 + [1.0] * 50
    low, high = metrics.bootstrap_mean_interval(values)
    assert low < 0.5 < high and high - low < 0.3
    assert metrics.bootstrap_mean_interval(values) == (low, high)
    assert metrics.bootstrap_mean_interval([0.3, 0.3]) == pytest.approx((0.3, 0.3))
