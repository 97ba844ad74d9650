"""The language table is the one place a language is declared: every parsed language has an
extractor that imports, a resolver that phase 2 runs and that resolves its fixture's calls, and a
grammar pinned where the product's dependencies are."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from rhumbline.ingest.build import BuiltGraph, build_graph
from rhumbline.ingest.languages import (
    DOCUMENT_GRAPH,
    LANGUAGES,
    PYTHON_GRAPH,
    extractor_for,
    families,
    language_of,
    load,
)
from rhumbline.ingest.languages.knowledge.graph import build_knowledge_graph
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.python.graph import build_python_graph

REPOSITORY = Path(__file__).parents[4]
FIXTURES = REPOSITORY / "tests" / "fixtures" / "ingest"
PARSED = [row for row in LANGUAGES if row.parsing is not None]
# What a resolver draws out of a language's nodes: calls for code, mentions for documents.
DRAWN = {DOCUMENT_GRAPH: "DOCUMENTS"}
# Documents naming the fixtures' Python code (the fixture trees hold code, one tree per language).
DOCUMENTS = {
    "docs/orders.md": "# Orders\n\n`shop.services.checkout` turns a cart into an `Order`.\n",
    "docs/guide.rst": "Shop guide\n==========\n\nThe cart is built by :func:`shop.services.checkout`.\n",
}


@pytest.fixture(scope="module")
def fixtures_graph(tmp_path_factory: pytest.TempPathFactory) -> BuiltGraph:
    root = tmp_path_factory.mktemp("languages") / "fixtures"
    shutil.copytree(FIXTURES, root)
    for path, text in DOCUMENTS.items():
        (root / path).parent.mkdir(exist_ok=True)
        (root / path).write_text(text)
    return build_graph(root, "fixtures/languages", workers=1, history=False)


def test_a_suffix_names_one_language():
    suffixes = [suffix for row in LANGUAGES for suffix in row.suffixes]
    assert len(suffixes) == len(set(suffixes))
    assert all(suffix == suffix.lower() and suffix.startswith(".") for suffix in suffixes)
    assert len({row.name for row in LANGUAGES}) == len(LANGUAGES)


@pytest.mark.parametrize("row", PARSED, ids=lambda row: row.name)
def test_every_parsed_language_has_a_resolver_phase_two_runs(row):
    assert callable(extractor_for(row.name))
    resolver = load(row.parsing.resolver)
    if row.parsing.resolver == PYTHON_GRAPH:
        assert resolver is build_python_graph
    elif row.parsing.resolver == DOCUMENT_GRAPH:
        assert resolver is build_knowledge_graph
    else:  # build_polyglot_graph resolves every family of the table
        assert issubclass(resolver, Family)
        assert row.name in families()[row.parsing.resolver]


@pytest.mark.parametrize("row", PARSED, ids=lambda row: row.name)
def test_every_parsed_language_has_a_fixture_whose_references_resolve(row, fixtures_graph):
    """A language whose resolver is missing or never reached parses and silently gets no edges:
    its fixture under tests/fixtures/ingest/ must come out with resolved ones."""
    relation = DRAWN.get(row.parsing.resolver, "CALLS")
    files = {node.file for node in fixtures_graph.nodes if node.kind == "File" and node.language == row.name}
    assert files, f"no fixture file in {row.name} under tests/fixtures/ingest/ (or in DOCUMENTS)"
    drawn = [
        edge for edge in fixtures_graph.edges
        if edge.relation == relation and edge.file in files
    ]  # fmt: skip
    assert drawn, f"no {relation} edge out of the {row.name} fixtures"


def test_every_grammar_is_pinned_for_the_product_and_its_layer():
    declared = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]["dependencies"]
    pinned = (REPOSITORY / "layers" / "shared" / "requirements.txt").read_text().splitlines()
    for row in PARSED:
        grammar = row.parsing.grammar
        if grammar is None:
            continue
        assert any(re.match(rf"{re.escape(grammar)}\s*[<>=~]", d) for d in declared), grammar
        assert any(line.startswith(f"{grammar}==") for line in pinned), grammar


def test_language_of_reads_the_table():
    for row in LANGUAGES:
        for suffix in row.suffixes:
            assert language_of(f"src/a{suffix.upper()}") == row.name
    assert language_of("docs/intro.txt") == "restructuredtext"  # Sphinx keeps .txt sources there
    assert language_of("Makefile") is None and language_of("a.") is None
