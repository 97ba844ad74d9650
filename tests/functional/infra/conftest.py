from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.infra.cfn import response_url


@pytest.fixture
def cloudformation() -> Iterator[dict[str, Any]]:
    """CloudFormation's pre-signed response URL, recording each answer (cfn.py)."""
    with response_url() as recorded:
        yield recorded
