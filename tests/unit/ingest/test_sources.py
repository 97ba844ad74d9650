"""rhumbline.ingest.discover.sources: safe extraction, GitHub tarballs from a local HTTP server, S3 with moto."""

from __future__ import annotations

import io
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rhumbline.ingest.discover import sources
from rhumbline.ingest.discover.sources import (
    SourceAuthFailed,
    SourceNotFound,
    SourceTooLarge,
    UnsafeArchive,
    commit_from,
    extract,
    fetched,
)

SHA = "0123456789abcdef0123456789abcdef01234567"


def tarball(files: dict[str, str], *, links: dict[str, str] | None = None, hard: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
        for name, target in (hard or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.LNKTYPE, target
            tar.addfile(info)
    return buffer.getvalue()


def write(tmp_path: Path, data: bytes, name: str = "archive") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_extract_strips_nothing_but_reports_the_single_top_level_directory(tmp_path: Path) -> None:
    archive = write(tmp_path, tarball({f"acme-shop-{SHA[:7]}/shop/cart.py": "x = 1\n", f"acme-shop-{SHA[:7]}/README.md": "hi"}))
    dest = tmp_path / "out"
    dest.mkdir()
    assert extract(archive, dest) == f"acme-shop-{SHA[:7]}"
    assert (dest / f"acme-shop-{SHA[:7]}" / "shop" / "cart.py").read_text() == "x = 1\n"


@pytest.mark.parametrize(
    "files,links,hard,fragment",
    [
        ({"top/../evil.py": "x"}, None, None, "leaving its directory"),
        ({"../evil.py": "x"}, None, None, "leaving its directory"),
        ({"/etc/evil.py": "x"}, None, None, "absolute path"),
        ({"top/a.py": "x"}, {"top/escape": "../../etc/passwd"}, None, "link leaving"),
        ({"top/a.py": "x"}, {"top/abs": "/etc/passwd"}, None, "link leaving"),
        ({"top/a.py": "x"}, None, {"top/hard": "../outside"}, "leaving its directory"),
    ],
)
def test_unsafe_archives_are_refused_whole(tmp_path: Path, files, links, hard, fragment) -> None:  # type: ignore[no-untyped-def]
    archive = write(tmp_path, tarball(files, links=links, hard=hard))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(UnsafeArchive, match=fragment):
        extract(archive, dest)
    assert list(dest.iterdir()) == [], "nothing may be extracted from a refused archive"
    assert not (tmp_path / "evil.py").exists()


def test_a_link_inside_the_tree_is_skipped_not_refused(tmp_path: Path) -> None:
    archive = write(tmp_path, tarball({"top/a.py": "x = 1\n"}, links={"top/b.py": "a.py"}))
    dest = tmp_path / "out"
    dest.mkdir()
    assert extract(archive, dest) == "top"
    assert (dest / "top" / "a.py").exists() and not (dest / "top" / "b.py").exists()


def test_zip_archives_are_extracted_and_checked(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("repo/pkg/mod.py", "def f():\n    return 1\n")
    dest = tmp_path / "out"
    dest.mkdir()
    assert extract(write(tmp_path, buffer.getvalue()), dest, fmt="zip") == "repo"
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as bundle:
        bundle.writestr("../evil.py", "x")
    dest2 = tmp_path / "out2"
    dest2.mkdir()
    with pytest.raises(UnsafeArchive):
        extract(write(tmp_path, evil.getvalue(), "evil.zip"), dest2, fmt="zip")


def test_file_count_and_size_caps(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sources, "MAX_FILES", 2)
    archive = write(tmp_path, tarball({"t/a": "1", "t/b": "2", "t/c": "3"}))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(SourceTooLarge, match="more than 2 files"):
        extract(archive, dest)


def test_limits_chosen_for_a_context_apply_there_only(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sources, "MAX_FILES", 2)
    archive = write(tmp_path, tarball({"t/a": "1", "t/b": "2", "t/c": "3"}))
    roomy = sources.FetchLimits(download_bytes=10**6, unpacked_bytes=10**6, files=3)
    with sources.fetch_limits(roomy):
        (tmp_path / "in").mkdir()
        assert extract(archive, tmp_path / "in") == "t"
        tight = sources.FetchLimits(download_bytes=10**6, unpacked_bytes=2, files=10)
        with sources.fetch_limits(tight), pytest.raises(SourceTooLarge, match="unpacks to more than 0 MB"):
            (tmp_path / "tight").mkdir()
            extract(archive, tmp_path / "tight")
    (tmp_path / "after").mkdir()
    with pytest.raises(SourceTooLarge, match="more than 2 files"):  # the module's limit again
        extract(archive, tmp_path / "after")


def test_commit_from_the_top_level_directory_or_the_ref() -> None:
    assert commit_from(f"acme-shop-{SHA[:7]}", None) == SHA[:7]
    assert commit_from(f"acme-shop-{SHA[:7]}", SHA) == SHA
    assert commit_from("whatever", SHA) == SHA
    assert commit_from("whatever", "main") is None


# GitHub through a local HTTP server ---------------------------------------------------------------


class FakeGitHub:
    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, dict[str, str]]] = {}
        self.requests: list[tuple[str, str | None]] = []


@pytest.fixture
def github(monkeypatch) -> Iterator[FakeGitHub]:  # type: ignore[no-untyped-def]
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            fake.requests.append((self.path, self.headers.get("Authorization")))
            status, body, headers = fake.routes.get(self.path, (404, b'{"message":"Not Found"}', {}))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv(sources.GITHUB_API_VARIABLE, f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv(sources.GITHUB_TOKEN_VARIABLE, raising=False)
    monkeypatch.delenv(sources.GITHUB_TOKEN_SECRET_VARIABLE, raising=False)
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


def test_github_tarball_follows_redirects_and_sends_the_token_only_to_the_api(github: FakeGitHub, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(sources.GITHUB_TOKEN_VARIABLE, "ghp_secret")
    github.routes[f"/repos/acme/shop/tarball/{SHA}"] = (302, b"", {"Location": "/codeload/acme/shop/legacy.tar.gz"})
    github.routes["/codeload/acme/shop/legacy.tar.gz"] = (200, tarball({f"acme-shop-{SHA[:7]}/shop/cart.py": "x = 1\n"}), {})
    with fetched(f"github:acme/shop@{SHA}") as tree:
        assert (tree.root / "shop" / "cart.py").read_text() == "x = 1\n"
        assert tree.commit == SHA
        parent = tree.root.parent.parent
    assert not parent.exists(), "the temporary directory is removed after use"
    assert github.requests == [
        (f"/repos/acme/shop/tarball/{SHA}", "Bearer ghp_secret"),
        ("/codeload/acme/shop/legacy.tar.gz", None),
    ]


def test_github_404_and_401_are_specific(github: FakeGitHub) -> None:
    with pytest.raises(SourceNotFound, match="GitHub has no repository acme/nope at ref 'main'"):
        with fetched("github:acme/nope@main"):
            pass
    github.routes["/repos/acme/private/tarball/main"] = (401, b'{"message":"Bad credentials"}', {})
    with pytest.raises(SourceAuthFailed, match=r"HTTP 401.*no token configured"):
        with fetched("github:acme/private@main"):
            pass


def test_github_download_over_the_size_cap(github: FakeGitHub, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sources, "MAX_DOWNLOAD_BYTES", 10)
    github.routes["/repos/acme/big/tarball/main"] = (200, tarball({"big-abc1234/a.py": "x" * 1000}), {})
    with pytest.raises(SourceTooLarge, match="too large"):
        with fetched("github:acme/big@main"):
            pass


def test_github_unsafe_tarball_is_refused(github: FakeGitHub) -> None:
    github.routes["/repos/acme/evil/tarball/main"] = (200, tarball({"acme-evil-abc1234/../../evil.py": "x"}), {})
    with pytest.raises(UnsafeArchive):
        with fetched("github:acme/evil@main"):
            pass


# S3 with moto -------------------------------------------------------------------------------------


@pytest.fixture
def s3(monkeypatch):  # type: ignore[no-untyped-def]
    from moto import mock_aws

    for name, value in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws():
        import boto3

        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="rhumbline-sources")
        yield client


def test_s3_tarball_is_fetched(s3) -> None:  # type: ignore[no-untyped-def]
    s3.put_object(Bucket="rhumbline-sources", Key="acme/shop.tar.gz", Body=tarball({"shop/cart.py": "x = 1\n"}))
    with fetched("s3://rhumbline-sources/acme/shop.tar.gz") as tree:
        assert (tree.root / "cart.py").read_text() == "x = 1\n"  # the single top-level directory is the root
        assert tree.commit is None


def test_s3_missing_object_is_not_found(s3) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SourceNotFound, match="does not exist"):
        with fetched("s3://rhumbline-sources/acme/missing.tar.gz"):
            pass
