"""Verdict mapping, review-bot logins, and contributor identities."""

from __future__ import annotations

import pytest

from rhumbline.reviews.contributor_graph import identity_of
from rhumbline.reviews.verdicts import is_review_bot, verdict_from_github


@pytest.mark.parametrize(
    ("state", "verdict"),
    [
        ("approved", "APPROVED"),
        ("APPROVED", "APPROVED"),
        ("changes_requested", "CHANGES_REQUESTED"),
        ("commented", "COMMENT"),
        ("COMMENTED", "COMMENT"),
        ("dismissed", "UNKNOWN"),
        ("something_new", "UNKNOWN"),
    ],
)
def test_github_review_states(state: str, verdict: str) -> None:
    assert verdict_from_github(state) == verdict


def test_bot_logins_come_from_the_environment_case_insensitively(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHUMBLINE_REVIEW_BOT_LOGINS", " Rhumbline-Reviewer[bot] ,other-bot,")
    assert is_review_bot("rhumbline-reviewer[bot]") and is_review_bot("OTHER-BOT")
    assert not is_review_bot("octocat") and not is_review_bot(None) and not is_review_bot("")
    monkeypatch.delenv("RHUMBLINE_REVIEW_BOT_LOGINS")
    assert not is_review_bot("rhumbline-reviewer[bot]")


@pytest.mark.parametrize(
    ("node_id", "name", "identity"),
    [
        ("contributor:583231+Octocat@users.noreply.github.com", "The Octocat", ("octocat", "Octocat")),
        ("contributor:octocat@users.noreply.github.com", "x", ("octocat", "octocat")),
        ("contributor:Dev@Example.com", "Dev", ("dev@example.com", "Dev@Example.com")),
        ("contributor:Hubot", "Hubot", ("hubot", "Hubot")),
    ],
)
def test_contributor_identities(node_id: str, name: str, identity: tuple[str, str]) -> None:
    assert identity_of(node_id, name) == identity
