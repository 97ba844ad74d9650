"""Hostile OAuth access tokens, from a real local issuer (tests/oidc_issuer.py) through the real
gateway, which verifies them itself: every malformed or mismatched JWT is a 401 with `WWW-Authenticate`, never a
500, and claims are JSON lists of strings, never split strings.

The algorithm a signature is checked with comes from the issuer's key (its JWK), never from the
token's header: a header naming another algorithm than the key's is refused.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any

import jwt
import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st
from tests.functional.gateway.gateway_harness import call_legacy
from tests.oidc_issuer import LocalIssuer, running_issuer

from rhumbline.config import settings
from rhumbline.gateway import authentication
from rhumbline.gateway.oidc import OidcRefusal
from rhumbline.contract import ALL_PROJECTS
from rhumbline.stores.relational.projects import SLUG_PATTERN

AUDIENCE = "rhumbline"
FUZZ = hypothesis_settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with running_issuer() as running:
        yield running


@pytest.fixture
def oauth(issuer: LocalIssuer, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalIssuer]:
    """The deployment trusts `issuer` (audience `rhumbline`, projects `*` when the claim is absent)."""
    monkeypatch.setenv("RHUMBLINE_OIDC_ISSUER", issuer.url)
    monkeypatch.setenv("RHUMBLINE_OIDC_AUDIENCES", AUDIENCE)
    monkeypatch.setenv("RHUMBLINE_OIDC_DEFAULT_PROJECTS", "*")
    settings.cache_clear()
    monkeypatch.setattr(authentication, "_verifier", None)
    yield issuer
    settings.cache_clear()


@pytest.fixture
def request_with(oauth: LocalIssuer, make_gateway: Callable[..., Any]) -> Callable[[str], Any]:
    """A tools/list with `Authorization: Bearer <token>` through the gateway."""
    handler = make_gateway()

    def send(token: str) -> Any:
        return call_legacy(handler, "tools/list", token=token)

    return send


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(issuer: LocalIssuer, header: Any, claims: Any) -> str:
    """A compact JWT with exactly this header and payload (any JSON), signed RS256 by the issuer's key
    whatever the header says: only the header or the claims can be wrong."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}".encode()
    algorithm = jwt.algorithms.RSAAlgorithm(jwt.algorithms.RSAAlgorithm.SHA256)
    return f"{signing_input.decode()}.{b64(algorithm.sign(signing_input, issuer.keys[0].private))}"


def good_claims(issuer: LocalIssuer, **changes: Any) -> dict[str, Any]:
    claims = {
        "iss": issuer.url, "sub": "user-1", "aud": AUDIENCE, "exp": 9_999_999_999, "iat": 1_700_000_000,
        "token_use": "access", "scope": "read", "rhumbline_projects": ["acme/shop"],
    }  # fmt: skip
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def assert_refused(answer: Any) -> None:
    assert answer.status == 401, (answer.status, answer.text)
    challenge = answer.headers.get("www-authenticate", "")
    assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge, answer.headers


def test_a_well_formed_token_passes(request_with: Callable[[str], Any], oauth: LocalIssuer) -> None:
    # The control: the forging helper makes tokens the server accepts when nothing is wrong.
    assert request_with(signed(oauth, {"alg": "RS256", "kid": oauth.keys[0].kid, "typ": "JWT"}, good_claims(oauth))).status == 200


@pytest.mark.parametrize("alg", ["ES256", "ES384", "PS256", "HS256", "EdDSA", "none", "", None, 256, ["RS256"]])
def test_a_header_algorithm_other_than_the_keys_is_a_401(request_with: Callable[[str], Any], oauth: LocalIssuer, alg: Any) -> None:
    # ES256 with the issuer's RSA key id once raised TypeError in the authorizer: a 500 for anyone.
    assert_refused(request_with(signed(oauth, {"alg": alg, "kid": oauth.keys[0].kid}, good_claims(oauth))))


@pytest.mark.parametrize(
    "projects",
    [
        "acme/one,*",  # once split on commas: the projects acme/one and *
        ["acme/one,*"],
        "acme/one acme/two",
        ["acme/one", "*"],
        ["*", "*"],
        ["acme"],
        [""],
        [["acme/one"]],
        [{"project": "acme/one"}],
        [1],
        {"acme/one": True},
        [],
        7,
    ],
)
def test_a_projects_claim_that_is_not_a_list_of_slugs_is_a_401(
    request_with: Callable[[str], Any], oauth: LocalIssuer, projects: Any
) -> None:
    assert_refused(request_with(oauth.token(aud=AUDIENCE, scope="read", rhumbline_projects=projects)))


@pytest.mark.parametrize(
    ("claim", "value"),
    [
        ("aud", 7),
        ("aud", ["other", 7]),
        ("exp", "9999999999"),
        ("exp", [9_999_999_999]),
        ("sub", {"id": 1}),
        ("sub", 12),
        ("iss", ["issuer"]),
        ("scope", ["read"]),  # `scope` is RFC 9068's space-separated string
        ("scope", "read,write"),  # ... never split on commas: `read,write` names no scope
        ("scp", "read"),  # `scp` is a list
        ("scp", [["read"]]),
        ("rhumbline_toolsets", "code review"),
        ("rhumbline_toolsets", ["code", 3]),
        ("rhumbline_toolsets", ["no-such-toolset"]),
        ("client_id", {"id": "rhumbline"}),
        ("token_use", ["access"]),
    ],
)
def test_a_claim_of_the_wrong_type_is_a_401(request_with: Callable[[str], Any], oauth: LocalIssuer, claim: str, value: Any) -> None:
    header = {"alg": "RS256", "kid": oauth.keys[0].kid}
    assert_refused(request_with(signed(oauth, header, good_claims(oauth, **{claim: value}))))


@pytest.mark.parametrize(
    "token",
    [
        "a.b.c",
        "!!!.???.***",
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0",  # two parts: not a JWT, not an rhl_ token
        "eyJhbGciOiJSUzI1NiJ9.e30.",
        b64(b"[1, 2]") + ".e30.c2ln",  # a header that is JSON but no object
        b64(b'{"alg": "RS256"') + ".e30.c2ln",  # truncated JSON
        b64(b"\xff\xfe") + ".e30.c2ln",  # not UTF-8
        b64(b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}") + ".e30.c2ln",  # nested past any recursion limit
    ],
)
def test_a_malformed_jwt_is_a_401(request_with: Callable[[str], Any], token: str) -> None:
    assert_refused(request_with(token))


def test_a_payload_that_is_no_object_is_a_401(request_with: Callable[[str], Any], oauth: LocalIssuer) -> None:
    for payload in ([1, 2], "claims", 3, None):
        assert_refused(request_with(signed(oauth, {"alg": "RS256", "kid": oauth.keys[0].kid}, payload)))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
HEADER_VALUES = st.sampled_from(["RS256", "RS512", "ES256", "PS256", "HS256", "none", ""]) | JSON_VALUES


@FUZZ
@given(alg=HEADER_VALUES, kid=st.sampled_from(["key-1", "", "stranger", "x" * 300]) | JSON_VALUES, extra=JSON_VALUES)
def test_fuzzed_headers_are_refused_with_a_401_unless_they_name_the_keys_own_algorithm(
    request_with: Callable[[str], Any], oauth: LocalIssuer, alg: Any, kid: Any, extra: Any
) -> None:
    kid_of_key = oauth.keys[0].kid
    answer = request_with(signed(oauth, {"alg": alg, "kid": kid, "x-extra": extra}, good_claims(oauth)))
    if alg == "RS256" and kid == kid_of_key:
        assert answer.status == 200, answer.text
    else:
        assert_refused(answer)


CLAIMS = ("iss", "sub", "aud", "exp", "iat", "nbf", "token_use", "scope", "scp", "client_id", "rhumbline_projects", "rhumbline_toolsets")


def valid_projects(value: Any) -> bool:
    if not isinstance(value, list) or not value or not all(isinstance(item, str) for item in value):
        return False
    return value == [ALL_PROJECTS] or all(SLUG_PATTERN.match(item) for item in value)


@FUZZ
@given(changes=st.dictionaries(st.sampled_from(CLAIMS), JSON_VALUES, min_size=1, max_size=4))
def test_fuzzed_claims_are_a_401_or_a_caller_with_well_formed_projects(
    request_with: Callable[[str], Any], oauth: LocalIssuer, changes: dict[str, Any]
) -> None:
    claims = {**good_claims(oauth), **changes}
    token = signed(oauth, {"alg": "RS256", "kid": oauth.keys[0].kid}, claims)
    answer = request_with(token)
    verifier = authentication.oidc_verifier()
    assert verifier is not None
    try:
        caller = verifier.verify(token).caller
    except OidcRefusal:
        assert_refused(answer)
        return
    assert answer.status == 200, answer.text
    # Accepted: the projects claim was a list of slugs (or `*` alone), copied item for item.
    assert valid_projects(claims["rhumbline_projects"]), claims
    assert list(caller.projects) == list(dict.fromkeys(claims["rhumbline_projects"]))


@FUZZ
@given(token=st.text(st.sampled_from("ab.=-_!{}\"'é\x00/+ "), max_size=40).filter(lambda text: text.strip() == text and " " not in text))
def test_fuzzed_token_text_is_a_401(request_with: Callable[[str], Any], token: str) -> None:
    if not token:
        return
    answer = request_with(token)
    assert answer.status == 401, (token, answer.status, answer.text)
