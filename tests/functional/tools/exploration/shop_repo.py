"""A small git repository whose history the exploration tests ingest commit by commit.

Commit "one": Cart with add() and clear(), add() calls price_of(sku).
Commit "two": clear() removed; price_of gains a parameter and a new docstring; discount() added
and called from add().
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from rhumbline.runtime.context import Stores

ONE = {
    "shop/__init__.py": "",
    "shop/cart.py": '''"""Carts."""
from shop.pricing import price_of


class Cart:
    """A cart."""

    def add(self, sku):
        return price_of(sku)

    def clear(self):
        pass
''',
    "shop/pricing.py": '''def price_of(sku):
    """Unit price."""
    return 1
''',
}
TWO = {
    "shop/cart.py": '''"""Carts."""
from shop.pricing import discount, price_of


class Cart:
    """A cart."""

    def add(self, sku):
        return discount(price_of(sku))
''',
    "shop/pricing.py": '''def price_of(sku, currency="EUR"):
    """Unit price in a currency."""
    return 1


def discount(amount):
    return amount
''',
}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=dev@example.com", "-c", "user.name=Dev", *args],
        cwd=root, check=True, capture_output=True, timeout=30,
    )  # fmt: skip


def commit(root: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    commit(root, ONE, "one")
    return root


def ingest(stores: Stores, root: Path, project: str, **options: object):  # type: ignore[no-untyped-def]
    """Ingest through the real pipeline into `stores` (the world's, which its tools reach)."""
    from rhumbline.ingest.pipeline import ingest_local

    return ingest_local(
        root, project, store=stores.graph(), engine=stores.relational(), blobs=stores.blobs(), history=False,
        workers=1, **options,
    )  # fmt: skip
