"""A throwaway PostgreSQL cluster that accepts TLS connections only (like Aurora with
rds.force_ssl = 1), with a CA and a server certificate for `localhost` made here by openssl.

The PostgreSQL 15 server binaries (PG_BIN, default /usr/lib/postgresql/15/bin) and openssl must
be installed: without them the tests are skipped, and under CI (CI=true) they fail, following
tests/conftest.py. PostgreSQL refuses to run as root, so as root the cluster runs as `postgres`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
USER = "tls_user"
DATABASE = "postgres"


@dataclass(frozen=True)
class TlsCluster:
    port: int
    password: str
    ca: Path  # the CA that signed the server certificate
    wrong_ca: Path  # a CA that signed nothing here

    def url(self, host: str) -> str:
        return f"postgresql+pg8000://{USER}:{self.password}@{host}:{self.port}/{DATABASE}"


def require_tools() -> None:
    missing = [str(p) for p in (PG_BIN / "initdb", PG_BIN / "pg_ctl") if not p.exists()]
    if shutil.which("openssl") is None:
        missing.append("openssl")
    if not missing:
        return
    message = f"PostgreSQL server binaries / openssl missing: {', '.join(missing)} (set PG_BIN)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _as_server_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _run(argv: list[str], **options: object) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=60, cwd="/", **options)  # type: ignore[call-overload]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _certificates(directory: Path) -> None:
    """ca.crt signs server.crt (SAN DNS:localhost only); wrong-ca.crt is unrelated. Both carry the
    extensions a real CA's certificates do: Python 3.13 verifies with VERIFY_X509_STRICT."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ca = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
    for name in ("ca", "wrong-ca"):
        _run(["openssl", "req", "-x509", *ec, *ca, "-days", "2", "-subj", f"/CN=Rhumbline test {name}",
              "-keyout", str(directory / f"{name}.key"), "-out", str(directory / f"{name}.crt")])  # fmt: skip
    _run(["openssl", "req", "-new", *ec, "-subj", "/CN=localhost",
          "-keyout", str(directory / "server.key"), "-out", str(directory / "server.csr")])  # fmt: skip
    (directory / "san.ext").write_text(
        "subjectAltName=DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n"
    )
    _run(["openssl", "x509", "-req", "-days", "2", "-in", str(directory / "server.csr"),
          "-CA", str(directory / "ca.crt"), "-CAkey", str(directory / "ca.key"), "-CAcreateserial",
          "-extfile", str(directory / "san.ext"), "-out", str(directory / "server.crt")])  # fmt: skip


def start(work: Path) -> TlsCluster:
    """initdb + certificates + start; `work` must be reachable by the server's OS user."""
    _certificates(work)
    data = work / "data"
    if os.geteuid() == 0:
        _run(["chown", "-R", "postgres:postgres", str(work)])
    (work / "server.key").chmod(0o600)
    _run(_as_server_user([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"]))
    # TLS only over TCP, as with rds.force_ssl; the superuser reaches the unix socket (setup only).
    (data / "pg_hba.conf").write_text("local all postgres trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n")
    port = _free_port()
    options = (
        f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={work} -c ssl=on "
        f"-c ssl_cert_file={work}/server.crt -c ssl_key_file={work}/server.key"
    )
    _run(_as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-w", "-t", "30", "-l",
                          str(work / "server.log"), "-o", options, "start"]))  # fmt: skip
    password = secrets.token_hex(16)
    create = f"CREATE ROLE {USER} LOGIN PASSWORD '{password}'"
    _run(_as_server_user([str(PG_BIN / "psql"), "-h", str(work), "-p", str(port), "-U", "postgres",
                          "-d", DATABASE, "-v", "ON_ERROR_STOP=1", "-c", create]))  # fmt: skip
    return TlsCluster(port, password, work / "ca.crt", work / "wrong-ca.crt")


def stop(work: Path) -> None:
    subprocess.run(_as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(work / "data"), "-m", "immediate", "stop"]),
                   capture_output=True, timeout=60, cwd="/")  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)


def new_workdir() -> Path:
    # Not pytest's tmp_path: as root it sits in a 0700 directory the `postgres` user cannot enter.
    return Path(tempfile.mkdtemp(prefix="rhumbline-tls-pg-"))
