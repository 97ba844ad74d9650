"""The GitHub webhook endpoint (`POST /webhooks/github`): signed deliveries in, PRs and reviews out.

handler.py is the Lambda entry (functions/github_webhook); the rest is one concept per module:
http (event in, response out), secrets and signature (who may send), payloads (what GitHub sends),
events (what each event changes), reingest (push → a new ingest). See docs/reviews.md.
"""
