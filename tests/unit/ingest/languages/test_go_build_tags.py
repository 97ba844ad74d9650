"""Which Go files a default build (linux, amd64, cgo, the newest Go) compiles: `//go:build`
expressions, the older `// +build` lines, and GOOS/GOARCH file-name suffixes."""

from __future__ import annotations

import pytest

from rhumbline.ingest.languages.go.build_tags import excluded


@pytest.mark.parametrize(
    ("path", "source", "left_out"),
    [
        ("p/a.go", "package p\n", False),
        ("p/a.go", "//go:build go1.22\n\npackage p\n", False),
        ("p/a.go", "//go:build !go1.22\n\npackage p\n", True),
        ("p/a.go", "// Copyright.\n\n//go:build !jsoniter && !go_json\n\npackage p\n", False),
        ("p/a.go", "//go:build jsoniter\n\npackage p\n", True),
        ("p/a.go", "//go:build (linux || darwin) && !purego\npackage p\n", False),
        ("p/a.go", "//go:build !(sonic && (linux || windows) && amd64)\npackage p\n", False),
        ("p/a.go", "//go:build windows || (js && wasm)\npackage p\n", True),
        ("p/a.go", "// +build !appengine\n\npackage p\n", False),
        ("p/a.go", "// +build appengine\n\npackage p\n", True),
        ("p/a.go", "// +build linux,386 darwin\n\npackage p\n", True),
        ("p/a.go", "// +build linux,amd64 darwin\n\npackage p\n", False),
        ("p/a.go", "package p\n\n//go:build ignore\n", False),  # below the clause: a comment
        ("p/a.go", "//go:build (((\npackage p\n", False),  # unparsable: kept
        ("p/a.go", "//go:build " + "!" * 10_000 + "x\npackage p\n", False),  # bounded: kept
        ("p/sink_windows.go", "package p\n", True),
        ("p/sink_windows_test.go", "package p\n", True),
        ("p/sink_linux.go", "package p\n", False),
        ("p/cpu_arm64.go", "package p\n", True),
        ("p/cpu_linux_amd64.go", "package p\n", False),
        ("p/cpu_darwin_amd64.go", "package p\n", True),
        ("p/windows.go", "package p\n", False),  # a bare name is no suffix
        ("p/path_value_fallback.go", "package p\n", False),
    ],
)
def test_default_build(path: str, source: str, left_out: bool) -> None:
    assert excluded(path, source) is left_out
