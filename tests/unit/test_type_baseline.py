"""The type checker's configuration (pyproject.toml, [tool.mypy]): strict by default, a baseline
that names single modules (so a new module is checked in full), and the modules that hold the
contracts never in it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
