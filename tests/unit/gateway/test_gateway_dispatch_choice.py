from __future__ import annotations

import pytest

from rhumbline.config import load_settings
from rhumbline.gateway.dispatch import InProcessDispatcher, LambdaDispatcher, dispatcher_from_environment


@pytest.mark.parametrize(
    ("mode", "dispatch", "expected"),
    [("local", "", InProcessDispatcher), ("hosted", "", LambdaDispatcher), ("hosted", "inprocess", InProcessDispatcher),
     ("local", "lambda", LambdaDispatcher)],
)
def test_dispatch_follows_the_environment(monkeypatch: pytest.MonkeyPatch, mode: str, dispatch: str, expected: type) -> None:
    monkeypatch.setenv("RHUMBLINE_MODE", mode)
    monkeypatch.setenv("RHUMBLINE_DISPATCH", dispatch)
    monkeypatch.setenv("RHUMBLINE_TOOL_FUNCTION_PREFIX", "rhumbline-dev-tool-")
    assert type(dispatcher_from_environment(load_settings())) is expected


def test_an_unknown_dispatch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHUMBLINE_DISPATCH", "carrier-pigeon")
    with pytest.raises(RuntimeError, match="RHUMBLINE_DISPATCH must be 'lambda' or 'inprocess', not 'carrier-pigeon'"):
        dispatcher_from_environment(load_settings())
