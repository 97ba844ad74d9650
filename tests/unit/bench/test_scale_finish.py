"""bench/harness/scale.py: the finish step's pieces of `ingest.py --scale`: which copies it
leaves out, its answer reader, and the fit and check of its two peaks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[3] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`

from harness import scale  # noqa: E402


def _finish(copies: int, before: float, whole: float) -> dict[str, float]:
    return {"copies": copies, "rss_before_write_mb": before, "rss_mb": whole}


def test_both_peaks_are_fitted_by_copies_and_extrapolated() -> None:
    resolved = [_finish(1, 1500.0, 3000.0), _finish(2, 2500.0, 5500.0)]
    fits = scale.fitted(resolved, ("rss_before_write_mb", "rss_mb"), 10)
    assert fits["rss_before_write_mb"] == pytest.approx((500.0, 1000.0, 10500.0))
    assert fits["rss_mb"] == pytest.approx((500.0, 2500.0, 25500.0))


def test_a_finish_step_run_on_every_copy_is_its_own_figure_not_the_lines() -> None:
    resolved = [_finish(1, 1500.0, 3000.0), _finish(2, 2500.0, 5500.0), _finish(6, 9000.0, 9100.0)]
    fits = scale.fitted(resolved, ("rss_before_write_mb", "rss_mb"), 6)
    assert fits["rss_before_write_mb"][2] == 9000.0 and fits["rss_mb"][2] == 9100.0
    assert scale.fitted(resolved, ("rss_mb",), 7)["rss_mb"][2] != 9100.0  # past every run: the line


def test_the_check_is_on_the_whole_peak_not_the_one_before_the_write() -> None:
    resolved = [_finish(1, 1000.0, 2000.0), _finish(2, 1500.0, 3500.0)]
    at = 8  # the whole peak: 500 + 1500 a copy; before the write: 500 + 500 a copy
    fits = scale.fitted(resolved, ("rss_before_write_mb", "rss_mb"), at)
    assert fits["rss_before_write_mb"][2] <= scale.FINISH_MB < fits["rss_mb"][2]
    assert not scale.finish_within(fits)
    assert scale.finish_within(scale.fitted(resolved, ("rss_before_write_mb", "rss_mb"), 6))


def test_the_copies_past_the_count_are_excluded(tmp_path: Path) -> None:
    for name in ("copy-02", "copy-00", "copy-01", "other"):
        (tmp_path / name).mkdir()
    assert scale.other_copies(tmp_path, 1) == ["/copy-01/", "/copy-02/"]
    assert scale.other_copies(tmp_path, 3) == []


def test_every_copy_is_read_from_the_one_answer(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for copy in ("copy-00", "copy-01"):
        (tree / copy).mkdir(parents=True)
        (tree / copy / "a.py").write_text("def f():\n    return 1\n")
    facts = tmp_path / "facts"
    scale.warm_facts(tree, facts, 1)
    (tree / "copy-01" / "a.py").write_text("broken (")  # read from the answer, never parsed
    read = scale.answer_reader(facts)(tree, ["copy-00/a.py", "copy-01/a.py"])
    assert [source.path for source, _ in read] == ["copy-00/a.py", "copy-01/a.py"]
    assert read[0][0].content_hash == read[1][0].content_hash
    assert all(blob is not None for _, blob in read)
