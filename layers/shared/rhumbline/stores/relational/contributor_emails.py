"""Commit e-mail addresses tied to GitHub logins, per project (table `contributor_emails`).

Written from push events, where GitHub names the account it matched each commit author's address
to (`author.username`); read by get_contributor_stats to merge git history, whose contributors are
e-mail addresses, with PR authors, who are logins.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.reviews import ContributorEmail
from rhumbline.stores.relational.session import added

# A push lists at most 2048 commits, mostly by a handful of people: the distinct pairs kept per event.
MAX_PER_EVENT = 100
# Addresses read per project for one contributor listing (the graph reads at most as many contributors).
MAX_READ = 5000
MAX_EMAIL = 320
MAX_LOGIN = 100


def record(session: Session, project_id: int, pairs: Iterable[tuple[str, str]]) -> int:
    """Store each (e-mail, login) pair, the newest login winning for an address; the number of
    distinct pairs stored. Pairs with an empty or over-long part are skipped."""
    wanted: dict[str, str] = {}
    for email, login in pairs:
        email, login = email.strip().lower(), login.strip()
        if email and login and len(email) <= MAX_EMAIL and len(login) <= MAX_LOGIN and "@" in email:
            wanted[email] = login
            if len(wanted) >= MAX_PER_EVENT:
                break
    if not wanted:
        return 0
    stored = {
        row.email: row
        for row in session.scalars(
            select(ContributorEmail).where(ContributorEmail.project_id == project_id, ContributorEmail.email.in_(wanted))
        )
    }
    for email, login in wanted.items():
        row = stored.get(email)
        if row is None:
            row = ContributorEmail(project_id=project_id, email=email, login=login, seen_at=utcnow())
            if added(session, row):
                continue
            # A concurrent delivery stored the address first: this one is as new, so it wins too.
            row = session.get(ContributorEmail, (project_id, email))
            if row is None:
                continue
        row.login, row.seen_at = login, utcnow()
    return len(wanted)


def logins_by_email(session: Session, project_id: int) -> dict[str, str]:
    """The project's known addresses (lower-cased) and their logins, the most recently seen first,
    at most MAX_READ."""
    found = session.execute(
        select(ContributorEmail.email, ContributorEmail.login)
        .where(ContributorEmail.project_id == project_id)
        .order_by(ContributorEmail.seen_at.desc(), ContributorEmail.email)
        .limit(MAX_READ)
    )
    return {email: login for email, login in found}
