"""A tool module used only by the runtime tests: it echoes its arguments, or fails on request."""

from __future__ import annotations

from pydantic import BaseModel

from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field


class EchoInput(StrictInput):
    project: str | None = project_field()
    text: str
    explode: bool = False


class EchoOutput(BaseModel):
    text: str
    principal: str


def run(arguments: EchoInput, context) -> EchoOutput:
    if arguments.explode:
        raise RuntimeError("secret internals that must not reach the caller")
    return EchoOutput(text=arguments.text, principal=context.caller.principal)


SPEC = ToolSpec(name="echo", title="Echo", description="Echo.", input_model=EchoInput, output_model=EchoOutput, run=run)
