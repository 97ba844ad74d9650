"""The GitHub webhook function: authenticate, de-duplicate, apply, answer. It never raises.

Order matters: the signature is checked before anything is believed or stored (the body is parsed
first only to pick the sender's secret). Then: headers, payload shape, tracked action, and one
transaction that claims the delivery id and applies the event. The graph projection runs after
the commit and can only make the answer say "graph not updated", never lose the delivery.

Answers: 200 processed / duplicate / pong, 202 acknowledged but ignored (or re-ingest scheduled),
400 malformed, 401 unsigned or wrongly signed, 413 too large, 503 a backend is down (GitHub shows
the failure and the delivery can be redelivered), 500 a bug or a misconfiguration.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from typing import Any
from urllib.parse import parse_qs

from pydantic import ValidationError

from rhumbline.reviews.graph_projection import PullRequestSnapshot
from rhumbline.runtime.handler import describe_validation_error
from rhumbline.webhooks import events, payloads, pr_files, signature
from rhumbline.webhooks.http import Delivery, HttpError, delivery_from_event, error_response, response
from rhumbline.webhooks.secrets import DEFAULT_KEY, SecretsMisconfigured, SecretsUnavailable, choose, load_secrets

logger = logging.getLogger("rhumbline.webhooks")

EVENT_MODELS: dict[str, type[payloads.Envelope]] = {
    "pull_request": payloads.PullRequestEvent,
    "pull_request_review": payloads.PullRequestReviewEvent,
    "push": payloads.PushEvent,
}
DELIVERY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,99}$")
EVENT_NAME = re.compile(r"^[a-z_]{1,64}$")


def parse_document(delivery: Delivery) -> tuple[dict[str, Any] | None, str | None]:
    """(the JSON object, None) or (None, why it is not one). GitHub sends JSON, or a form with the
    JSON in its `payload` field when the webhook is set to application/x-www-form-urlencoded."""
    try:
        text = delivery.body.decode("utf-8")
    except UnicodeDecodeError:
        return None, "malformed payload: the body is not UTF-8"
    if delivery.content_type == "application/x-www-form-urlencoded":
        fields = parse_qs(text, max_num_fields=10)
        if "payload" not in fields:
            return None, "malformed payload: a form-encoded delivery must carry the JSON in a `payload` field"
        text = fields["payload"][0]
    elif delivery.content_type != "application/json" and not delivery.content_type.endswith("+json"):
        return None, f"unsupported content type {delivery.content_type!r}: set the webhook's content type to application/json"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"malformed JSON payload: {error.msg} at line {error.lineno} column {error.colno}"
    except RecursionError:
        return None, "malformed payload: the JSON is nested too deeply"
    if not isinstance(document, dict):
        return None, "malformed payload: expected a JSON object"
    return document, None


def sender_of(document: dict[str, Any] | None) -> tuple[str | None, int | None]:
    """Repository full name and App installation id, read only to choose the secret."""
    if document is None:
        return None, None
    repository, installation = document.get("repository"), document.get("installation")
    name = repository.get("full_name") if isinstance(repository, dict) else None
    number = installation.get("id") if isinstance(installation, dict) else None
    return (
        name if isinstance(name, str) and name else None,
        number if isinstance(number, int) and not isinstance(number, bool) else None,
    )


def authenticate(delivery: Delivery) -> tuple[dict[str, Any], str]:
    """(the verified JSON document, the key of the secret that signed it); HttpError 401 for any
    signature problem, 400 for a signed bad body."""
    if not signature.well_formed(delivery.signature):
        raise HttpError(401, "missing or malformed X-Hub-Signature-256 header: expected sha256=<64 hex digits>")
    document, problem = parse_document(delivery)
    repository, installation = sender_of(document)
    chosen = choose(load_secrets(), repository, installation)
    if chosen is None:
        raise HttpError(401, f"no webhook secret is configured for {repository or 'this sender'} (nor a default one)")
    if not signature.verify(chosen[1], delivery.body, delivery.signature or ""):
        raise HttpError(401, "X-Hub-Signature-256 does not match the payload")
    if problem is not None:
        raise HttpError(400, problem)
    assert document is not None  # no problem means a document
    return document, chosen[0]


def _apply(
    delivery_id: str, body_sha256: str, event: str, payload: Any, *, may_create: bool
) -> tuple[events.EventResult, str] | None:
    """Claim the delivery and apply the event in one transaction; None for a replayed delivery."""
    from rhumbline.config import settings
    from rhumbline.reviews.recording import find_project
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import deliveries
    from rhumbline.stores.relational.session import session_scope

    name = payload.repository.full_name
    with session_scope(resources.relational_engine()) as session:
        claim = deliveries.claim(
            session, delivery_id, payload_sha256=body_sha256, event=event, action=payload.action, repository=name
        )
        if claim is None:
            return None
        # A PR or review of an unknown repository starts its project when a secret configured for
        # that repository or App installation signed it; a push only re-ingests a known one.
        project = find_project(session, name, create=may_create and event != "push")
        if project is None and event == "push":
            result = events.EventResult("ignored", f"{name} is not a project yet: nothing to re-ingest", status=202)
        elif project is None:
            detail = (
                f"{name} is not a project yet, and the default webhook secret does not create projects: "
                "ingest it first, or configure a webhook secret for this repository"
            )
            result = events.EventResult("ignored", detail, status=202)
        elif event == "pull_request":
            result = events.pull_request(session, project.id, payload)
        elif event == "pull_request_review":
            result = events.pull_request_review(session, project.id, payload)
        else:
            result = events.push(session, project, payload, delivery_id, hosted=settings().mode == "hosted")
        deliveries.finish(session, claim, outcome=result.outcome, detail=result.detail)
        return result, project.slug if project is not None else name


def _project_graph(project: str, snapshots: list[PullRequestSnapshot]) -> str:
    from rhumbline.reviews.graph_projection import project_pull_requests
    from rhumbline.runtime import resources
    from rhumbline.stores.graph.protocol import GraphUnavailable

    try:
        project_pull_requests(resources.graph_store(), project, snapshots)
    except GraphUnavailable as error:
        logger.warning("graph not updated for %s: %s", project, error)
        return f"not updated: the graph store is unavailable ({error}); the PR is recorded"
    return "updated"


def process(delivery: Delivery, document: dict[str, Any], secret_key: str = DEFAULT_KEY) -> dict[str, Any]:
    event = (delivery.event or "").strip()
    if not EVENT_NAME.match(event):
        raise HttpError(400, "missing or malformed X-GitHub-Event header")
    delivery_id = (delivery.delivery_id or "").strip()
    if not DELIVERY_ID.match(delivery_id):
        raise HttpError(400, "missing or malformed X-GitHub-Delivery header")
    body: dict[str, Any] = {"delivery": delivery_id, "event": event}
    if event == "ping":
        return response(200, {**body, "outcome": "pong", "detail": "signature verified: the webhook is set up"})
    model = EVENT_MODELS.get(event)
    if model is None:
        return response(202, {**body, "outcome": "ignored", "detail": f"'{event}' events are not used by Rhumbline"})
    try:
        payload = model.model_validate(document)
    except ValidationError as error:
        raise HttpError(400, f"malformed {event} payload: {describe_validation_error(error)}") from None
    action, repository = getattr(payload, "action", None), payload.repository
    assert repository is not None  # each event's model requires it
    body.update(action=action, repository=repository.full_name)
    tracked = events.TRACKED_ACTIONS.get(event)
    if tracked is not None and action not in tracked:
        return response(202, {**body, "outcome": "ignored", "detail": f"'{action}' {event} events are not tracked"})
    if not repository.is_project_slug:
        detail = f"repository {repository.full_name!r} cannot be named as a project (owner/repo of letters, digits, '_', '.', '-')"
        return response(202, {**body, "outcome": "ignored", "detail": detail})
    body_sha256 = hashlib.sha256(delivery.body).hexdigest()
    applied = _apply(delivery_id, body_sha256, event, payload, may_create=secret_key != DEFAULT_KEY)
    if applied is None:
        return response(200, {**body, "outcome": "duplicate", "detail": "this delivery was already processed: nothing changed"})
    result, project = applied
    body.update(outcome=result.outcome, detail=result.detail)
    if result.graph:
        body["graph"] = _project_graph(project, result.graph)
    if event == "pull_request" and result.outcome == "processed" and action in pr_files.ACTIONS:
        from rhumbline.config import settings

        assert isinstance(payload, payloads.PullRequestEvent)  # the event's model
        pr = payload.pull_request
        job = pr_files.job_for(project, repository.full_name, pr.number, pr.head.sha.lower())
        body["files"] = pr_files.schedule(job, hosted=settings().mode == "hosted")
    return response(result.status, body)


def handle(event: Any) -> dict[str, Any]:
    from sqlalchemy.exc import InterfaceError, OperationalError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    if pr_files.is_job(event):  # this function invoked by itself, never through API Gateway
        return pr_files.run(event)
    try:
        delivery = delivery_from_event(event)
        return process(delivery, *authenticate(delivery))
    except HttpError as error:
        return error_response(error)
    except SecretsUnavailable as error:
        logger.error("webhook secrets unavailable: %s", error)
        return error_response(HttpError(503, "the webhook secrets could not be read: retry the delivery later"))
    except SecretsMisconfigured as error:
        logger.error("webhook secrets misconfigured: %s", error)
        return error_response(HttpError(500, f"the webhook secrets are misconfigured: {error}"))
    except (OperationalError, InterfaceError, PoolTimeout) as error:
        logger.error("database unavailable for a webhook delivery: %s", error)
        return error_response(HttpError(503, "the database is unavailable: retry the delivery later"))
    except Exception as error:  # noqa: BLE001 - GitHub gets an answer, never a stack trace
        from rhumbline.webhooks.reingest import ReingestFailed

        if isinstance(error, ReingestFailed):
            logger.error("re-ingest could not be scheduled: %s", error)
            return error_response(HttpError(503, f"{error}: retry the delivery later"))
        logger.exception("webhook delivery failed")
        return error_response(HttpError(500, "internal error while processing the delivery"))


def _lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle(event)


def _entry() -> Any:
    from rhumbline.observability import lambda_entry

    return lambda_entry(_lambda_handler, function="github_webhook")


handler = _entry()
