"""Reading a stored file of a graph version: `read_file`, and `include_source` of `function` and
`class` (the definition's line span). Capped, with the file's exact size and line count."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from rhumbline.errors import InvalidArguments, NotFound
from rhumbline.runtime.context import ToolContext

MAX_LINES = 2000
MAX_BYTES = 256 * 1024  # of the text returned, UTF-8


class SourceText(BaseModel):
    path: str
    version: int = Field(description="The graph version whose file this is.")
    start_line: int = Field(description="First line returned (1-based).")
    end_line: int = Field(description="Last line returned; less than asked when `truncated`.")
    total_lines: int = Field(description="Lines in the whole file.")
    size: int = Field(description="Bytes in the whole file.")
    sha256: str
    truncated: bool = Field(description=f"The lines asked for did not fit: at most {MAX_LINES} lines and {MAX_BYTES} bytes.")
    next_start_line: int | None = Field(default=None, description="Pass as `start_line` to read on, when truncated.")
    text: str


def served_version(context: ToolContext, project: str) -> int:
    """The version the graph serves, or the specific NotFound of a project without one."""
    from rhumbline.lookup.project_state import empty_project_failure

    version = context.graph.graph_version(project)
    if version is None:
        raise empty_project_failure(context, project) or NotFound(
            f"project '{project}' has no ingested graph version, so no stored files: run `ingest` first",
            details={"project": project, "reason": "not_ingested"},
        )
    return version


def normalized(path: str) -> str:
    """The path as the manifest keys it: posix, relative to the project root."""
    cleaned = path.replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    if not cleaned or cleaned.startswith("/"):
        raise InvalidArguments(
            f"`path` must be relative to the project root (as `file` in other answers), not {path!r}"
        )
    return cleaned


def read(
    context: ToolContext, project: str, path: str, *, version: int | None = None,
    start_line: int = 1, end_line: int | None = None,
) -> SourceText:  # fmt: skip
    """Lines `start_line`..`end_line` (default: to the end) of `path` as stored with `version`
    (default: the served one)."""
    from rhumbline.ingest.discover.skiprules import holds_secrets
    from rhumbline.stores.relational import sources

    if end_line is not None and end_line < start_line:
        raise InvalidArguments(f"`end_line` ({end_line}) is before `start_line` ({start_line})")
    path = normalized(path)
    number = version if version is not None else served_version(context, project)
    with context.read_db() as connection:
        found = sources.find(connection, project, number, path)
        if found is None:
            if not sources.version_exists(connection, project, number):
                raise NotFound(
                    f"project '{project}' has no completed graph version {number}",
                    details={"project": project, "version": number, "reason": "no_version"},
                )
            if not sources.has_manifest(connection, project, number):
                raise NotFound(
                    f"version {number} of '{project}' kept no file contents (it was ingested before "
                    "they were stored): ingest the project again",
                    details={"project": project, "version": number, "reason": "no_sources"},
                )
    if found is None:
        secret = holds_secrets(path)
        why = (
            "its name matches a secret pattern, so its contents are never stored" if secret
            else "no such text file was ingested (binary, too large, ignored and excluded files are not kept)"
        )  # fmt: skip
        raise NotFound(
            f"no stored file '{path}' in version {number} of '{project}': {why}; "
            "`search` or `context` give the files' paths",
            details={"project": project, "version": number, "path": path,
                     "reason": "secret_pattern" if secret else "not_stored"},
        )  # fmt: skip
    data = found.content if found.content is not None else context.blobs.get(found.project_id, found.digest)
    return excerpt(found.path, number, found.digest, data, start_line, end_line)


def excerpt(path: str, version: int, digest: str, data: bytes, start_line: int, end_line: int | None) -> SourceText:
    from rhumbline.ingest.discover.read import text_of

    text = text_of(path, data)
    # Lines as the parsers count them (a line ends at "\n"), so node spans index them directly.
    lines = text.split("\n")
    ended = lines[-1] == ""  # the last line has its "\n"
    if ended:
        lines.pop()
    total = len(lines)
    if start_line > max(total, 1):
        raise InvalidArguments(f"`start_line` {start_line} is past the end of '{path}' ({total} lines)")
    last = total if end_line is None else min(end_line, total)
    taken: list[str] = []
    spent = 0
    truncated = False
    for number in range(start_line, last + 1):
        line = lines[number - 1] + ("\n" if number < total or ended else "")
        cost = len(line.encode("utf-8"))
        if len(taken) >= MAX_LINES or spent + cost > MAX_BYTES:
            truncated = True
            if not taken:  # one line longer than the cap: its first bytes
                taken.append(line.encode("utf-8")[:MAX_BYTES].decode("utf-8", errors="ignore"))
            break
        taken.append(line)
        spent += cost
    shown_end = start_line + len(taken) - 1
    return SourceText(
        path=path, version=version, start_line=start_line, end_line=shown_end, total_lines=total,
        size=len(data), sha256=digest, truncated=truncated,
        next_start_line=shown_end + 1 if truncated and shown_end + 1 <= last else None, text="".join(taken),
    )  # fmt: skip


INCLUDE_SOURCE_FIELD = Field(
    default=False,
    description=f"Also return its source text (its line span, at most {MAX_LINES} lines and {MAX_BYTES // 1024} KiB).",
)


class SourceMissing(BaseModel):
    reason: str


def of_span(
    context: ToolContext, project: str, file: str | None, line: int | None, end_line: int | None
) -> SourceText | SourceMissing:
    """A definition's text by its node's span, or why it cannot be had (the rest of the answer
    stands without it)."""
    if not file or not line:
        return SourceMissing(reason="the node has no file and line span")
    try:
        return read(context, project, file, start_line=line, end_line=end_line or line)
    except NotFound as missing:
        return SourceMissing(reason=str(missing))


def markdown_block(source: SourceText | SourceMissing | None) -> list[str]:
    """A `## Source` section: the text in a fence longer than any backtick run in it."""
    if source is None:
        return []
    if isinstance(source, SourceMissing):
        return ["## Source", f"not available: {source.reason}"]
    fence = "`" * max(3, max(map(len, re.findall("`+", source.text)), default=0) + 1)
    cut = f"\n(truncated: continue with read_file start_line={source.next_start_line})" if source.truncated else ""
    return [f"## Source ({source.path}:{source.start_line}-{source.end_line})", f"{fence}\n{source.text.rstrip()}\n{fence}{cut}"]

