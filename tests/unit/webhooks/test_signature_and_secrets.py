"""X-Hub-Signature-256 and the choice of secret."""

from __future__ import annotations

import hashlib
import hmac

from rhumbline.webhooks.secrets import choose
from rhumbline.webhooks.signature import sign, verify, well_formed


def test_sign_matches_githubs_documented_example() -> None:
    # docs.github.com "Validating webhook deliveries": secret and payload below give this signature.
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign("It's a Secret to Everybody", b"Hello, World!") == expected
    assert verify("It's a Secret to Everybody", b"Hello, World!", expected)
    assert verify("It's a Secret to Everybody", b"Hello, World!", expected.upper().replace("SHA256=", "sha256="))


def test_verify_rejects_other_bodies_and_secrets() -> None:
    good = sign("s", b"body")
    assert not verify("s", b"body ", good)
    assert not verify("t", b"body", good)
    assert not verify("s", b"body", "sha1=" + hmac.new(b"s", b"body", hashlib.sha1).hexdigest())


def test_well_formed() -> None:
    assert well_formed("sha256=" + "a" * 64)
    assert not well_formed(None) and not well_formed("sha256=") and not well_formed("a" * 64)


def test_the_most_specific_secret_is_the_only_one() -> None:
    secrets = {"acme/shop": "repo", "installation:7": "app", "default": "fallback"}
    assert choose(secrets, "Acme/Shop", 7) == ("acme/shop", "repo")
    assert choose(secrets, "acme/other", 7) == ("installation:7", "app")
    assert choose(secrets, "acme/other", None) == ("default", "fallback")
    assert choose({"acme/shop": "repo"}, "acme/other", None) is None
