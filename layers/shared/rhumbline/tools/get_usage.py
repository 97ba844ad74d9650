"""get_usage: the deployment's usage, from the daily rollups, for the admins who run and bill it.

The same report serves `rhumbline [--stack NAME] usage` (admin/commands.py), which pages it by
offset instead of a cursor. What counts as billable: stores/relational/usage.py.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, model_validator

from rhumbline.contract import ALL_PROJECTS
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput
from rhumbline.vocabulary import PROJECT_PATTERN

if TYPE_CHECKING:
    from sqlalchemy import Connection

MAX_LIMIT = 1000
Dimension = Literal["day", "token_id", "principal", "project", "tool"]


class UsageFilters(StrictInput):
    since: date | None = Field(default=None, description="First UTC day, YYYY-MM-DD (default: the 1st of this month).")
    until: date | None = Field(default=None, description="Last UTC day, inclusive (default: today).")
    principal: str | None = Field(default=None, min_length=1, max_length=200, description="Only this principal's calls.")
    project: str | None = Field(default=None, pattern=PROJECT_PATTERN, description="Only calls on this project.")
    tool: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,63}$", description="Only calls of this tool.")
    token_id: str | None = Field(default=None, min_length=1, max_length=16, description="Only this token's calls.")
    by: list[Dimension] = Field(
        default=["day"], min_length=1, max_length=5, description="What each row totals: one row per value of these."
    )

    @model_validator(mode="after")
    def _check(self) -> "UsageFilters":
        if len(set(self.by)) != len(self.by):
            raise ValueError("`by` names a dimension twice")
        if self.since and self.until and self.since > self.until:
            raise ValueError(f"`since` ({self.since}) is after `until` ({self.until})")
        return self

    def window(self, today: date) -> tuple[date, date]:
        """(since, until), the defaults filled in."""
        since = self.since or today.replace(day=1)
        until = self.until or max(today, since)
        return since, until


class GetUsageInput(UsageFilters):
    limit: int = Field(default=100, ge=1, le=MAX_LIMIT)
    cursor: str | None = Field(default=None, min_length=1, max_length=2000, description="`next_cursor` of a previous call.")


class UsageCounts(BaseModel):
    calls: int = Field(description="Every call: billable + denied + invalid + errors.")
    billable: int = Field(description="Calls that ran and answered (outcome ok).")
    denied: int = Field(description="Refused: scope, project, token, rate limit, quota.")
    invalid: int = Field(description="Requests the gateway or the tool found invalid.")
    errors: int = Field(description="Calls that failed: the tool's errors and ours (timeouts, outages).")
    duration_ms: float = Field(description="Summed time the gateway spent on the calls.")
    result_bytes: int = Field(description="Summed size of the answers.")


class UsageRow(UsageCounts):
    day: date | None = None
    token_id: str | None = None
    principal: str | None = None
    project: str | None = Field(default=None, description="Empty for calls that name no project.")
    tool: str | None = None


class GetUsageOutput(BaseModel):
    since: date
    until: date
    by: list[Dimension]
    rows: list[UsageRow] = Field(description="Ordered by the `by` dimensions.")
    total: int = Field(description="Rows in the whole report.")
    offset: int
    next_cursor: str | None = None
    totals: UsageCounts = Field(description="Sums over every row of the report, not only this page.")


def counts(values: dict[str, int]) -> dict[str, int | float]:
    out: dict[str, int | float] = {name: int(values[name]) for name in ("calls", "billable", "denied", "invalid", "errors")}
    out["duration_ms"] = values["duration_us"] / 1000
    out["result_bytes"] = int(values["result_bytes"])
    return out


def report(
    connection: "Connection", filters: UsageFilters, *, today: date, projects: tuple[str, ...] | None, limit: int, offset: int
) -> GetUsageOutput:
    """The report's page at `offset`. `projects`: the only projects it may show (None: all)."""
    from rhumbline.stores.relational import usage

    since, until = filters.window(today)
    query = usage.Filters(
        since=since, until=until, principal=filters.principal, project=filters.project, tool=filters.tool,
        token_id=filters.token_id, projects=projects,
    )  # fmt: skip
    rows, total, totals = usage.report(connection, query, filters.by, limit=limit, offset=offset)
    keys = [{dimension: row[dimension] for dimension in filters.by} for row in rows]
    return GetUsageOutput(
        since=since,
        until=until,
        by=filters.by,
        rows=[UsageRow(**key, **counts(row)) for key, row in zip(keys, rows)],
        total=total,
        offset=offset,
        totals=UsageCounts(**counts(totals)),
    )


def run(arguments: GetUsageInput, context: ToolContext) -> GetUsageOutput:
    from rhumbline.tools import cursors

    today = datetime.now(timezone.utc).date()
    since, until = arguments.window(today)
    # Bound to the window it was cut from, defaults resolved: a new day is another query.
    query = {**arguments.model_dump(mode="json", exclude={"cursor"}), "since": since.isoformat(), "until": until.isoformat()}
    offset = 0
    if arguments.cursor:
        offset = cursors.offset(cursors.read(context, "get_usage", query, arguments.cursor), "offset")
    # A token limited to some projects sees only their usage.
    projects = None if ALL_PROJECTS in context.caller.projects else context.caller.projects
    with context.read_db() as connection:
        output = report(connection, arguments, today=today, projects=projects, limit=arguments.limit, offset=offset)
    end = offset + len(output.rows)
    if end < output.total:
        output.next_cursor = cursors.issue(context, "get_usage", query, {"offset": end})
    return output


SPEC = ToolSpec(
    name="get_usage",
    families=("admin",),
    title="Get usage",
    description=(
        "Admins: the deployment's calls from the daily usage rollups, totalled per day, tool, principal, "
        "project or token (`by`), with billable calls (outcome ok), refusals, invalid calls, errors, time "
        "and answer bytes; filters by day range, principal, project, tool and token."
    ),
    input_model=GetUsageInput,
    output_model=GetUsageOutput,
    run=run,
    scope="admin",
)
