"""Which Go files a default build leaves out: a file's build constraint (`//go:build expr`, or the
older `// +build` lines, above the package clause) and its name (`x_windows.go`, `x_arm64.go`).

Two files of one package often define the same function under opposite constraints (`//go:build
go1.22` / `//go:build !go1.22`, `jsoniter` / `!jsoniter`); the compiler sees one of them. Phase 2
keeps the one a default build compiles: linux on amd64 with cgo and the newest Go release, no
custom tags, the machine most projects are built and tested on.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_GOOS = frozenset(
    "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 "
    "solaris wasip1 windows zos".split()
)
_GOARCH = frozenset(
    "386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 "
    "mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm".split()
)
_DEFAULT_TAGS = frozenset({"linux", "amd64", "unix", "gc", "cgo"})
_RELEASE = re.compile(r"go1\.\d+")  # every release tag holds on the newest toolchain
_TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[\w.]+)")
_HEADER_LINES = 64  # constraints must come before the package clause, after at most comments
_MAX_TOKENS = 256  # a longer expression is no real constraint: kept, and the parser's depth bounded


def excluded(path: str, source: str) -> bool:
    """Whether the default build leaves the file at `path` (whose text starts with `source`) out."""
    return not (_name_holds(path) and _constraint_holds(source))


def _holds(tag: str) -> bool:
    return tag in _DEFAULT_TAGS or _RELEASE.fullmatch(tag) is not None


def _name_holds(path: str) -> bool:
    """`*_GOOS`, `*_GOARCH`, `*_GOOS_GOARCH` (before `_test`) restrict a file as tags would."""
    parts = path.rsplit("/", 1)[-1].removesuffix(".go").removesuffix("_test").split("_")[1:]
    if len(parts) >= 2 and parts[-2] in _GOOS and parts[-1] in _GOARCH:
        return _holds(parts[-2]) and _holds(parts[-1])
    return not parts or parts[-1] not in _GOOS | _GOARCH or _holds(parts[-1])


def _constraint_holds(source: str) -> bool:
    plus: list[str] = []
    for line in source.splitlines()[:_HEADER_LINES]:
        text = line.strip()
        if text.startswith("package ") or text == "package":
            break
        if text.startswith("//go:build"):
            return _expression(text.removeprefix("//go:build"))
        if text.startswith("// +build"):
            plus.append(text.removeprefix("// +build"))
    # `// +build a,!b c`: lines AND, space-separated options OR, comma-separated terms AND.
    return all(
        any(all(_holds(t.removeprefix("!")) != t.startswith("!") for t in option.split(",")) for option in line.split())
        for line in plus
    )


def _expression(text: str) -> bool:
    """A `//go:build` expression: tags with `!`, `&&`, `||` and parentheses. One that does not
    parse holds (the file is kept, as before constraints were read)."""
    tokens = [m.group(1) for m in _TOKEN.finditer(text)]
    if len(tokens) > _MAX_TOKENS:
        return True
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def joined(operator: str, operand: Callable[[], bool]) -> bool:
        value = operand()
        while peek() == operator:
            take()
            right = operand()
            value = (value or right) if operator == "||" else (value and right)
        return value

    def either() -> bool:
        return joined("||", lambda: joined("&&", unary))

    def unary() -> bool:
        token = take()
        if token == "!":
            return not unary()
        if token == "(":
            value = either()
            if take() != ")":
                raise ValueError(text)
            return value
        if token in ("&&", "||", ")"):
            raise ValueError(text)
        return _holds(token)

    try:
        value = either()
    except (IndexError, ValueError):
        return True
    return value if position == len(tokens) else True
