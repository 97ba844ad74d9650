"""Models shared by several tools' inputs and outputs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rhumbline.vocabulary import PROJECT_PATTERN


def project_field(required: bool = False):
    description = "Project slug, `owner/repo`."
    if not required:
        description += " May be omitted when the token can see exactly one project."
    return Field(default=... if required else None, description=description, pattern=PROJECT_PATTERN)


class StrictInput(BaseModel):
    """Base for tool inputs: unknown arguments are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

