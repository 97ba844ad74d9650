"""Fixtures of the webhook tests: the review world of tests/functional/reviews."""

from tests.functional.reviews.review_world import closed_port, fake_github, review_world, reviews_database_url  # noqa: F401
