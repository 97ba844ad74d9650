"""The type checker's configuration (pyproject.toml, [tool.mypy]): strict by default, a baseline
that names single modules (so a new module is checked in full) and only shrinks, and the modules
that hold the contracts never in it.

mypy reports a `type: ignore` it does not need (strict includes warn_unused_ignores), but not a
baseline code a module no longer raises: the pins below make the baseline, and the ignores, a
ratchet that review sees move. To find the entries no longer needed, run mypy once with the
baseline's lines removed from the configuration and keep only the (module, code) pairs it reports.
"""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# (module, error code) pairs in the baseline, and `type: ignore` comments in the package: lower
# each to the new count when the code sheds one; neither may grow.
BASELINE_ENTRIES = 159
TYPE_IGNORES = 12
STRICT = (
    "rhumbline.contract",
    "rhumbline.runtime",
    "rhumbline.gateway",
    "rhumbline.cypher",
    "rhumbline.stores.graph.protocol",
    "rhumbline.stores.graph.model",
)


def _mypy() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _modules(override: dict) -> list[str]:
    module = override["module"]
    return [module] if isinstance(module, str) else list(module)


def _baseline() -> list[str]:
    return [m for o in _mypy()["overrides"] if "disable_error_code" in o for m in _modules(o)]


def test_every_module_is_strict_unless_listed():
    assert _mypy()["strict"] is True


def test_overrides_only_list_error_codes_or_untyped_libraries():
    for override in _mypy()["overrides"]:
        assert set(override) - {"module"} in ({"disable_error_code"}, {"ignore_missing_imports"}), override
        if "ignore_missing_imports" in override:
            assert not [m for m in _modules(override) if m.startswith("rhumbline")], override


def test_the_baseline_names_single_existing_modules():
    package = ROOT / "layers" / "shared"
    for module in _baseline():
        assert "*" not in module, f"{module}: a pattern would leave future modules unchecked"
        path = package / module.replace(".", "/")
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), module


def test_the_contract_modules_are_not_in_the_baseline():
    listed = [m for m in _baseline() if any(m == s or m.startswith(f"{s}.") for s in STRICT)]
    assert listed == []


def _pinned(found: int, pinned: int, what: str) -> None:
    assert found <= pinned, f"{found} {what}: the count may only shrink (pinned at {pinned})"
    assert found == pinned, f"{found} {what}, fewer than the {pinned} pinned: lower the pin to {found}"


def test_the_baseline_only_shrinks():
    entries = [(m, code) for o in _mypy()["overrides"] if "disable_error_code" in o
               for m in _modules(o) for code in o["disable_error_code"]]  # fmt: skip
    assert len(entries) == len(set(entries)), "a (module, code) pair is listed twice"
    _pinned(len(entries), BASELINE_ENTRIES, "baseline (module, code) entries")


def test_the_type_ignores_only_shrink():
    package = ROOT / "layers" / "shared" / "rhumbline"
    found = sum(len(re.findall(r"#\s*type:\s*ignore", path.read_text(encoding="utf-8"))) for path in package.rglob("*.py"))
    _pinned(found, TYPE_IGNORES, "`type: ignore` comments in the package")
