"""`rhumbline project delete` on the embedded store: a dry run without --yes, then the deletion."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.conftest import SHOP_SOURCE, run_cli


def test_project_delete_says_what_it_would_delete_then_deletes(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env["RHUMBLINE_HOME"] = str(tmp_path / "home")
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "shop.py").write_text(SHOP_SOURCE)
    assert run_cli(env, "ingest", str(tmp_path / "shop"), "--project", "acme/shop").returncode == 0

    missing_choice = run_cli(env, "project", "delete", "acme/shop")
    assert missing_choice.returncode == 2 and "--reviews" in missing_choice.stderr
    dry = run_cli(env, "project", "delete", "acme/shop", "--reviews", "drop")
    assert dry.returncode == 1
    assert "Would delete acme/shop: " in dry.stderr and "1 graph versions" in dry.stderr
    assert "nothing deleted: pass --yes to delete" in dry.stderr

    done = run_cli(env, "project", "delete", "acme/shop", "--reviews", "drop", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Deleted acme/shop: ") and "1 graph versions" in done.stdout
    again = run_cli(env, "project", "delete", "acme/shop", "--reviews", "drop", "--yes")
    assert (again.returncode, again.stderr.strip()) == (1, "rhumbline: error: no project 'acme/shop' in this store")
