"""Verdict vocabulary: GitHub review states → verdicts, and who counts as the review bot."""

from __future__ import annotations

import os

from rhumbline.stores.relational.schema.reviews import Verdict

BOT_LOGINS_VARIABLE = "RHUMBLINE_REVIEW_BOT_LOGINS"

# GitHub sends review states lower-case in webhooks ("approved") and upper-case in the REST API
# ("APPROVED"); both map the same way. "dismissed" is the state of a review after dismissal: what
# it decided before is unknown from that payload alone.
_GITHUB_STATES: dict[str, Verdict] = {
    "approved": "APPROVED",
    "changes_requested": "CHANGES_REQUESTED",
    "commented": "COMMENT",
    "dismissed": "UNKNOWN",
    "pending": "UNKNOWN",
}


def verdict_from_github(state: str) -> Verdict:
    """The verdict of a GitHub review state; UNKNOWN for a state GitHub may add later."""
    return _GITHUB_STATES.get(state.strip().lower(), "UNKNOWN")


def bot_logins() -> frozenset[str]:
    """Logins of the configured review bot(s), lower-cased (GitHub logins are case-insensitive).

    Read per call, not cached: it is one environment lookup, and tests change it."""
    raw = os.environ.get(BOT_LOGINS_VARIABLE, "")
    return frozenset(login.strip().lower() for login in raw.split(",") if login.strip())


def is_review_bot(login: str | None) -> bool:
    return login is not None and login.strip().lower() in bot_logins()
