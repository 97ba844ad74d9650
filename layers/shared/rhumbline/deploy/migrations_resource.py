"""CloudFormation custom resource `Custom::Migrations`: bring the database schema up to date.

CloudFormation sends Create / Update / Delete and then waits for an answer PUT to a pre-signed S3
URL. A handler that crashes or times out without answering leaves the stack waiting (up to the
resource's ServiceTimeout). So this module:

- imports only the standard library at load time: the migration code, SQLAlchemy and the secret
  lookup are imported inside the try block, and a failure there becomes a FAILED answer;
- runs the migration with a time budget below the Lambda timeout, so there is always time left
  to answer;
- keeps the PhysicalResourceId stable, so an Update never looks like a replacement (which would
  make CloudFormation send a Delete for the "old" resource).

Delete does nothing: the schema belongs to the data, and the data outlives this resource (a
rollback of a failed Update also arrives as an Update with the previous properties; migrations
only move forward, so that re-run is a no-op).

The same function backs the resources of a stack that shares its backends (`Custom::BranchDatabase`,
`Custom::GraphNamespace`: deploy/branch_storage.py), with the same guarantees.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from typing import Any

logger = logging.getLogger("rhumbline.deploy.migrations")
logger.setLevel(logging.INFO)

MIGRATIONS = "Custom::Migrations"
PHYSICAL_RESOURCE_ID = "rhumbline-database-migrations"
# Seconds kept back from the Lambda's remaining time to send the answer to CloudFormation.
RESPONSE_MARGIN_SECONDS = 15.0
# The whole answer must stay under CloudFormation's 4 KiB limit.
MAX_REASON_CHARS = 1500
PUT_ATTEMPTS = 3


def run_migrations() -> Any:
    """Upgrade the schema to head. Imported lazily: see the module docstring."""
    from rhumbline.runtime.resources import relational_engine
    from rhumbline.stores.relational.migrate import upgrade

    return upgrade(relational_engine())


class MigrationTimeout(TimeoutError):
    pass


def run_with_deadline(work: Any, budget_seconds: float) -> Any:
    """Run `work()` in a thread; raise MigrationTimeout if it has not finished within the budget.

    A migration left running is abandoned when the Lambda is frozen; PostgreSQL rolls back its
    transaction when the connection drops, and the next deploy runs it again.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = error

    thread = threading.Thread(target=target, name="migrations", daemon=True)
    thread.start()
    thread.join(timeout=max(budget_seconds, 0.0))
    if thread.is_alive():
        raise MigrationTimeout(f"migrations still running after {budget_seconds:.0f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def budget_seconds(context: Any) -> float:
    remaining_ms = context.get_remaining_time_in_millis() if context is not None else 300_000
    return max(remaining_ms / 1000.0 - RESPONSE_MARGIN_SECONDS, 1.0)


def storage_physical_id(event: dict[str, Any]) -> str:
    """A shared-backend resource's id: from its properties on Create and Update, as CloudFormation
    holds it on Delete (after a replacement, the old one's)."""
    from rhumbline.deploy import branch_storage

    if event["RequestType"] == "Delete":
        return str(event.get("PhysicalResourceId") or PHYSICAL_RESOURCE_ID)
    return branch_storage.physical_id(event["ResourceType"], event.get("ResourceProperties") or {})


def storage_request(event: dict[str, Any], physical: str, context: Any) -> tuple[str, dict[str, str]]:
    """Create, update or delete a shared-backend resource; the reason and its attributes."""
    from rhumbline.deploy import branch_storage

    request_type = event["RequestType"]
    if physical == PHYSICAL_RESOURCE_ID:
        # A Create that failed before it named anything: nothing to remove.
        return f"{request_type}: nothing was created", {}
    started = time.monotonic()
    properties = event.get("ResourceProperties") or {}
    reason, data = run_with_deadline(
        lambda: branch_storage.handle(request_type, event["ResourceType"], properties, physical), budget_seconds(context)
    )
    return f"{request_type}: {reason} in {time.monotonic() - started:.1f} s", data


def send_response(event: dict[str, Any], status: str, reason: str, physical_id: str, data: dict[str, str]) -> None:
    body = json.dumps(
        {
            "Status": status,
            "Reason": reason[:MAX_REASON_CHARS],
            "PhysicalResourceId": physical_id,
            "StackId": event.get("StackId", ""),
            "RequestId": event.get("RequestId", ""),
            "LogicalResourceId": event.get("LogicalResourceId", ""),
            "NoEcho": False,
            "Data": data,
        }
    ).encode()
    # The URL is pre-signed without a content type: sending one breaks the signature (403).
    request = urllib.request.Request(
        event["ResponseURL"], data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
    )
    for attempt in range(1, PUT_ATTEMPTS + 1):
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                logger.info("answered CloudFormation: %s (HTTP %s)", status, response.status)
                return
        except Exception:  # noqa: BLE001 - retried, then re-raised
            logger.exception("answering CloudFormation failed (attempt %d of %d)", attempt, PUT_ATTEMPTS)
            if attempt == PUT_ATTEMPTS:
                # Raising makes Lambda retry the asynchronous invocation: another chance to answer.
                raise
            time.sleep(attempt)


def handler(event: dict[str, Any], context: Any) -> None:
    request_type = event.get("RequestType")
    resource_type = event.get("ResourceType", MIGRATIONS)
    logger.info("%s %s %s", request_type, resource_type, event.get("LogicalResourceId"))
    if not event.get("ResponseURL"):
        # Not from CloudFormation (a hand-made test event): nobody to answer, do nothing.
        logger.error("no ResponseURL in the event; ignoring it")
        return
    physical_id = event.get("PhysicalResourceId") or PHYSICAL_RESOURCE_ID
    status, reason = "SUCCESS", f"{request_type}: nothing to do"
    data: dict[str, Any] = {}
    try:
        if request_type not in ("Create", "Update", "Delete"):
            raise ValueError(f"unknown RequestType {request_type!r}")
        if resource_type != MIGRATIONS:
            # Named before any work: a Create that fails half-way is then deleted by name.
            physical_id = storage_physical_id(event)
            reason, data = storage_request(event, physical_id, context)
        elif request_type in ("Create", "Update"):
            started = time.monotonic()
            revision = run_with_deadline(run_migrations, budget_seconds(context))
            reason = f"{request_type}: schema up to date in {time.monotonic() - started:.1f} s"
            if isinstance(revision, str):
                data["Revision"] = revision
    except Exception as error:  # noqa: BLE001 - every failure must become a FAILED answer
        logger.exception("%s failed", request_type)
        stream = getattr(context, "log_stream_name", "?")
        status = "FAILED"
        # The log stream first: the error text may be long and is cut to fit the answer.
        reason = f"log stream {stream}: {type(error).__name__}: {error}"
    send_response(event, status, reason, physical_id, data)
