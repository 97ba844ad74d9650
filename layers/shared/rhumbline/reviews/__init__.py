"""Review data: pull requests and reviews (PostgreSQL/SQLite) and their projection into the graph.

Shared by the GitHub webhook function and the review tools (record_review, get_recent_reviews,
get_pr_verdict, get_repo_health, get_contributor_stats). See docs/reviews.md.
"""
