"""reStructuredText (Sphinx) documents in the knowledge layer: docutils' doctree → DocFacts → nodes."""

from __future__ import annotations

from rhumbline.ingest.languages.knowledge.restructuredtext import extract_restructuredtext
from rhumbline.ingest.languages import language_of

GUIDE = b"""\
=============================
Password management in Shop
=============================

Shop stores passwords with :func:`~shop.auth.make_password`, never in clear.

How passwords are stored
========================

The format is ``algorithm$salt$hash``; see :class:`shop.auth.Hasher` and
:doc:`/topics/settings` or the `reference <https://example.org/ref>`_.

.. versionadded:: 5.0

    An unknown directive: left out quietly.

Rules
-----

- Passwords MUST be hashed.
- Never log them.
"""


def test_sections_text_and_references() -> None:
    facts = extract_restructuredtext(GUIDE)
    assert facts.title == "Password management in Shop"
    assert facts.language == "restructuredtext" and not facts.syntax_errors
    assert facts.intro.startswith("Shop stores passwords with shop.auth.make_password")
    assert [(s.title, s.level, s.parent, s.start_line) for s in facts.sections] == [
        ("How passwords are stored", 1, -1, 8),
        ("Rules", 2, 0, 18),
    ]
    assert facts.sections[1].rule_items == 1 and facts.sections[0].anchor == "how-passwords-are-stored"
    assert [(r.section, r.kind, r.target) for r in facts.references] == [
        (-1, "code", "shop.auth.make_password"),
        (0, "code", "algorithm$salt$hash"),
        (0, "code", "shop.auth.Hasher"),
        (0, "link", "/topics/settings"),
        (0, "link", "https://example.org/ref"),
    ]


def test_broken_markup_is_text_not_an_error() -> None:
    facts = extract_restructuredtext(b"Title\n===\n\n:unknownrole:`x` and `unclosed\n\n.. bogus::\n")
    assert not facts.syntax_errors
    assert extract_restructuredtext(b"").sections == ()


def test_sphinx_txt_files_under_docs_are_restructuredtext() -> None:
    assert language_of("docs/topics/auth/passwords.txt") == "restructuredtext"
    assert language_of("project/doc/intro.txt") == "restructuredtext"
    assert language_of("requirements.txt") == "text"
    assert language_of("README.rst") == "restructuredtext"


def test_a_section_ends_before_the_next_title_of_its_level() -> None:
    text = b"""\
Title
=====

:Status: Accepted

-----
First
-----

Uses :unknownrole:`x`.

.. frobnicate:: 4.0

    A directive nobody knows.

Nested
~~~~~~

Text.

--------
Second
--------

Last.
"""
    facts = extract_restructuredtext(text)
    assert facts.status == "Accepted"
    assert [(s.title, s.level, s.start_line, s.end_line) for s in facts.sections] == [
        ("First", 1, 8, 20),
        ("Nested", 2, 17, 20),
        ("Second", 1, 23, 25),
    ]
    # docutils' complaints about the unknown role and directive are not the section's text.
    assert facts.sections[0].text == "Uses :unknownrole:`x`."


def test_sphinx_directives_keep_their_prose_and_drop_their_code() -> None:
    text = b"""\
QuerySet API
============

.. class:: QuerySet(model=None)

    .. method:: filter(*args, **kwargs)
        :no-index:

        Returns a new ``QuerySet`` matching the lookups. See :ticket:`123`.

    .. code-block:: python

        Entry.objects.filter(pub_date__year=2006)

.. versionchanged:: 5.1

    Lookups may now span relations.
"""
    facts = extract_restructuredtext(text)
    assert facts.title == "QuerySet API"
    assert "filter\n\nReturns a new QuerySet matching the lookups. See 123." in facts.intro
    assert "Lookups may now span relations." in facts.intro and "5.1" in facts.intro
    assert "pub_date__year" not in facts.intro and "Unknown" not in facts.intro
    # Each signature is a code mention, as are the literals of the prose.
    assert [r.target for r in facts.references if r.kind == "code"] == ["QuerySet", "filter", "QuerySet"]
