"""A real, local OAuth 2.1 / OIDC authorization server for tests: metadata, dynamic client
registration, an authorization endpoint that approves at once, a PKCE-checked token endpoint
issuing RS256 JWTs, and a JWKS whose keys can be rotated. No network beyond loopback."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa


@dataclass
class SigningKey:
    kid: str
    private: rsa.RSAPrivateKey = field(repr=False)

    @classmethod
    def generate(cls, kid: str) -> "SigningKey":
        return cls(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    def jwk(self) -> dict[str, Any]:
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key()))
        return {**public, "kid": self.kid, "use": "sig", "alg": "RS256"}


@dataclass
class LocalIssuer:
    url: str
    keys: list[SigningKey]
    claims: dict[str, Any] = field(default_factory=dict)  # added to every token the endpoint issues
    jwks_fetches: int = 0
    token_requests: list[dict[str, str]] = field(default_factory=list)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)

    def token(self, *, key: SigningKey | None = None, lifetime: int = 600, **claims: Any) -> str:
        key = key or self.keys[0]
        now = int(time.time())
        body = {"iss": self.url, "sub": "user-1", "iat": now, "exp": now + lifetime, "token_use": "access", **claims}
        return jwt.encode(body, key.private, algorithm="RS256", headers={"kid": key.kid})

    def rotate(self) -> SigningKey:
        """A new signing key, published in place of the old ones."""
        key = SigningKey.generate(f"key-{len(self.keys) + 1}")
        self.keys.insert(0, key)
        del self.keys[1:]
        return key

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "registration_endpoint": f"{self.url}/register",
            "jwks_uri": f"{self.url}/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            "scopes_supported": ["read", "write"],
        }


def handler_for(issuer: LocalIssuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass

        def answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def form(self) -> dict[str, str]:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            if self.headers.get("Content-Type", "").startswith("application/json"):
                return json.loads(raw)
            return {name: values[-1] for name, values in parse_qs(raw).items()}

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            url = urlsplit(self.path)
            if url.path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
                self.answer(200, issuer.metadata())
            elif url.path == "/jwks":
                issuer.jwks_fetches += 1
                self.answer(200, {"keys": [key.jwk() for key in issuer.keys]})
            elif url.path == "/authorize":
                query = {name: values[-1] for name, values in parse_qs(url.query).items()}
                code = secrets.token_urlsafe(16)
                issuer.codes[code] = query
                location = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state'], 'iss': issuer.url})}"
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.answer(404, {"error": "not_found"})

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            url = urlsplit(self.path)
            if url.path == "/register":
                metadata = self.form()
                self.answer(201, {**metadata, "client_id": f"client-{secrets.token_hex(4)}", "client_id_issued_at": int(time.time())})
            elif url.path == "/token":
                form = self.form()
                issuer.token_requests.append(form)
                asked = issuer.codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if asked is None or asked.get("code_challenge") != challenge:
                    self.answer(400, {"error": "invalid_grant"})
                    return
                claims = {"scope": asked.get("scope", ""), "client_id": form.get("client_id"), **issuer.claims}
                self.answer(200, {"access_token": issuer.token(**claims), "token_type": "Bearer", "expires_in": 600})
            else:
                self.answer(404, {"error": "not_found"})

    return Handler


@contextmanager
def running_issuer() -> Iterator[LocalIssuer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    issuer = LocalIssuer(url=f"http://127.0.0.1:{server.server_address[1]}", keys=[SigningKey.generate("key-1")])
    server.RequestHandlerClass = handler_for(issuer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
