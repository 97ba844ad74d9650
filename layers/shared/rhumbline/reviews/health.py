"""Repository health from recorded PRs and reviews: coverage, merge time, review outcomes.

The formula (also in get_repo_health's description and docs/reviews.md):

- PRs considered: open, merged, and those known only from a review. PRs closed without merging
  are left out: abandoned work needs no review.
- review_coverage_pct = 100 × reviewed / considered, where reviewed = considered PRs with at least
  one completed, undismissed review.
- merge time of a merged PR = merged_at − opened_at (GitHub's timestamps), in hours; average and
  median over every merged PR. merge_score = 100 when the median is ≤ 24 h, 0 when ≥ 168 h (a
  week), linear in between.
- approval_pct = 100 × APPROVED / (APPROVED + CHANGES_REQUESTED) over the verdicts of reviewed
  PRs (each PR counted once, with the verdict get_pr_verdict reports among completed reviews).
- health_score = (0.5 × coverage + 0.3 × merge_score + 0.2 × approval_pct) / (sum of the weights
  of the parts that have data), rounded half up to an integer 0–100; null when no part has data.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

WEIGHT_COVERAGE = 0.5
WEIGHT_MERGE_TIME = 0.3
WEIGHT_OUTCOMES = 0.2
FAST_MERGE_HOURS = 24.0
SLOW_MERGE_HOURS = 168.0

FORMULA = (
    "health_score = (0.5×review_coverage_pct + 0.3×merge_score + 0.2×approval_pct) ÷ (sum of the "
    "weights of the parts with data), rounded to an integer 0–100. merge_score: 100 when the median "
    "merge time is ≤ 24 h, 0 when ≥ 168 h, linear between. approval_pct: APPROVED ÷ (APPROVED + "
    "CHANGES_REQUESTED) over reviewed PRs' verdicts. PRs closed without merging are not considered."
)


@dataclass(frozen=True)
class RepoHealth:
    review_coverage_pct: float | None
    avg_merge_time_hours: float | None
    median_merge_time_hours: float | None
    open_prs: int
    open_prs_indexed: int
    open_prs_with_files: int
    reviewed_prs: int
    considered_prs: int
    merged_prs: int
    approval_pct: float | None
    health_score: int | None
    note: str


def merge_score(median_hours: float) -> float:
    if median_hours <= FAST_MERGE_HOURS:
        return 100.0
    if median_hours >= SLOW_MERGE_HOURS:
        return 0.0
    return 100.0 * (SLOW_MERGE_HOURS - median_hours) / (SLOW_MERGE_HOURS - FAST_MERGE_HOURS)


def health_score(coverage_pct: float | None, median_hours: float | None, approval_pct: float | None) -> int | None:
    parts = [
        (WEIGHT_COVERAGE, coverage_pct),
        (WEIGHT_MERGE_TIME, merge_score(median_hours) if median_hours is not None else None),
        (WEIGHT_OUTCOMES, approval_pct),
    ]
    present = [(weight, value) for weight, value in parts if value is not None]
    if not present:
        return None
    score = sum(weight * value for weight, value in present) / sum(weight for weight, _ in present)
    # Half up, not Python's half-to-even: 72.5 is 73 whatever the parity.
    return max(0, min(100, math.floor(score + 0.5)))


def _hours(intervals: list[tuple[datetime, datetime]]) -> list[float]:
    return [(merged - opened).total_seconds() / 3600.0 for opened, merged in intervals]


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 2) if whole else None


def compute(session: "Session", project_id: int) -> RepoHealth:
    # Imported here: the gateway loads this module (for FORMULA) without needing the database code.
    from rhumbline.stores.relational import pull_requests, reviews

    by_state = pull_requests.count_by_state(session, project_id)
    open_prs, merged_prs = by_state.get("open", 0), by_state.get("merged", 0)
    considered = open_prs + merged_prs + by_state.get(None, 0)
    verdicts = reviews.verdicts_of_prs(session, project_id, skip_states=("closed",))
    approved = sum(1 for verdict in verdicts.values() if verdict == "APPROVED")
    decisive = approved + sum(1 for verdict in verdicts.values() if verdict == "CHANGES_REQUESTED")
    hours = _hours(pull_requests.merge_intervals(session, project_id))
    # A merge before the open is a clock or data error: left out rather than averaged in.
    bogus = sum(1 for value in hours if value < 0)
    hours = [value for value in hours if value >= 0]
    coverage = _pct(len(verdicts), considered)
    median = round(statistics.median(hours), 2) if hours else None
    approval = _pct(approved, decisive)
    notes = [FORMULA]
    if considered == 0:
        notes.append("No PRs recorded for this repo yet (GitHub pull_request events or record_review add them): coverage is null.")
    if not hours:
        notes.append("No PR has merged yet: merge times are null and left out of the score.")
    if bogus:
        notes.append(f"{bogus} merged PR(s) have merged_at before opened_at and were left out of merge times.")
    if considered and decisive == 0:
        notes.append("No APPROVED or CHANGES_REQUESTED verdict yet: review outcomes are left out of the score.")
    return RepoHealth(
        review_coverage_pct=coverage,
        avg_merge_time_hours=round(statistics.fmean(hours), 2) if hours else None,
        median_merge_time_hours=median,
        open_prs=open_prs,
        open_prs_indexed=reviews.count_open_reviewed(session, project_id),
        open_prs_with_files=pull_requests.count_open_with_files(session, project_id),
        reviewed_prs=len(verdicts),
        considered_prs=considered,
        merged_prs=merged_prs,
        approval_pct=approval,
        health_score=health_score(coverage, median, approval),
        note=" ".join(notes),
    )
