"""Fixtures of the review tools' tests (shared with tests/functional/webhooks)."""

from tests.functional.reviews.review_world import closed_port, fake_github, graph_down, review_world, reviews_database_url  # noqa: F401
