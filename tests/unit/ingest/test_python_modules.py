"""Python module names from paths, relative imports and name collisions."""

from __future__ import annotations

from rhumbline.ingest.languages.python.modules import ModuleIndex

PATHS = [
    "setup.py",
    "src/shop/__init__.py",
    "src/shop/models.py",
    "src/shop/util/__init__.py",
    "src/shop/util/text.py",
    "tests/conftest.py",
    "tests/app/__init__.py",
    "tests/app/tests.py",
    "tools/setup.py",
    "stubs/shop_stub.pyi",
    "src/shop/models.pyi",
]


def test_module_names_follow_the_package_chain():
    index = ModuleIndex("repo", PATHS)
    assert index.name_of == {
        "setup.py": "setup",
        "src/shop/__init__.py": "shop",  # src/ is not a package: a source root
        "src/shop/models.py": "shop.models",
        "src/shop/models.pyi": "shop.models",
        "src/shop/util/__init__.py": "shop.util",
        "src/shop/util/text.py": "shop.util.text",
        "stubs/shop_stub.pyi": "shop_stub",
        "tests/app/__init__.py": "app",
        "tests/app/tests.py": "app.tests",
        "tests/conftest.py": "conftest",
        "tools/setup.py": "setup",
    }


def test_a_contested_name_goes_to_the_py_file_then_the_shallowest_path():
    index = ModuleIndex("repo", PATHS)
    assert index.path_of["shop.models"] == "src/shop/models.py"
    assert index.path_of["setup"] == "setup.py"
    assert not index.owns_module("tools/setup.py")
    assert not index.owns_module("src/shop/models.pyi")
    assert index.owns_module("stubs/shop_stub.pyi")


def test_a_root_that_is_a_package_prefixes_its_own_name():
    index = ModuleIndex("django", ["__init__.py", "db/__init__.py", "db/models/__init__.py", "db/models/query.py"])
    assert index.name_of["db/models/query.py"] == "django.db.models.query"
    assert index.name_of["__init__.py"] == "django"


def test_relative_imports_resolve_against_the_package():
    index = ModuleIndex("repo", PATHS)
    assert index.absolute("src/shop/util/text.py", "", 1) == "shop.util"
    assert index.absolute("src/shop/util/text.py", "models", 2) == "shop.models"
    assert index.absolute("src/shop/util/__init__.py", "text", 1) == "shop.util.text"
    assert index.absolute("src/shop/models.py", "x", 2) is None  # beyond the top-level package
    assert index.absolute("src/shop/models.py", "abs.mod", 0) == "abs.mod"


def test_package_prefixes_count_as_in_the_repository():
    index = ModuleIndex("repo", ["a/b/__init__.py", "a/b/c.py"])  # a/ has no __init__: namespace
    assert index.name_of["a/b/c.py"] == "b.c"
    assert index.in_repository("b") and index.in_repository("b.c")
    assert not index.in_repository("os")
