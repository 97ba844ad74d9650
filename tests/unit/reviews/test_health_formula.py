"""The documented health formula, on its own."""

from __future__ import annotations

import pytest

from rhumbline.reviews.health import health_score, merge_score


@pytest.mark.parametrize(
    ("hours", "score"), [(0.0, 100.0), (24.0, 100.0), (96.0, 50.0), (168.0, 0.0), (500.0, 0.0), (50.0, 100 * 118 / 144)]
)
def test_merge_score_is_linear_between_a_day_and_a_week(hours: float, score: float) -> None:
    assert merge_score(hours) == pytest.approx(score)


def test_all_three_parts() -> None:
    assert health_score(60.0, 50.0, 50.0) == 65  # 30 + 24.58 + 10 = 64.58


def test_missing_parts_are_left_out_and_the_weights_renormalised() -> None:
    assert health_score(50.0, None, 100.0) == 64  # (25 + 20) / 0.7 = 64.29
    assert health_score(80.0, None, None) == 80
    assert health_score(None, 24.0, None) == 100
    assert health_score(None, None, None) is None


def test_rounding_is_half_up() -> None:
    assert health_score(45.0, None, None) == 45
    assert health_score(0.0, None, 100.0) == 29  # 20 / 0.7 = 28.57
    assert health_score(None, 96.0, 75.0) == 60  # (15 + 15) / 0.5 = 60
    # 72.5 rounds to 73, not 72 (round half to even would say 72).
    assert health_score(72.5, None, None) == 73


def test_each_weight_on_its_own() -> None:
    # One part at 100 and the others at 0 isolates each weight: 50, 30 and 20 points.
    assert health_score(100.0, 168.0, 0.0) == 50
    assert health_score(0.0, 24.0, 0.0) == 30
    assert health_score(0.0, 168.0, 100.0) == 20
