"""Phase 1 for reStructuredText (Sphinx documentation): docutils' doctree → DocFacts.

What it keeps, as markdown.py does for Markdown: the title (the document's only top-level
section, docutils' own rule), the text before the first section, every section with its own text
(up to its first subsection) and its line, the references: hyperlinks and Sphinx's `:doc:`
(kind "link"), inline literals and Sphinx's code roles `:func:`, `:class:`, `:meth:`, ... (kind
"code", the target as written, `~` and `()` dropped), and an ADR's status (a "Status" section or
field). Sphinx roles and directives are not docutils' own; they are registered here: the code
and document roles as inline literals, the prose roles (`:ticket:`) as their text; the directives
describing code (`.. method:: filter(*args)`, Django's `.. setting::`) as their content, parsed,
after their signature as a code mention; the prose directives (`versionchanged`, `seealso`) as
their argument and content; the code and index directives (`code-block`, `toctree`) left out
unparsed. Any other unknown role or directive is left out quietly. Nothing is read from disk or the network (`include`, `raw` and file insertion are off).

Only docutils' parser runs (its documented `Parser().parse(text, new_document(...))`), not the
publisher's transforms: the knowledge layer needs the sections, their text and their references,
and the title is found by docutils' own rule (TitlePromoter.candidate_index) without moving nodes.
The doctree is then walked once.
"""

from __future__ import annotations

import gc
import re
from functools import cache
from hashlib import sha256
from typing import Any

from rhumbline.ingest.languages.knowledge.facts import DocFacts, Reference, Section
from rhumbline.ingest.languages.knowledge.markdown import MAX_REFERENCES, MAX_TEXT, slug

LANGUAGE = "restructuredtext"
# Sphinx roles naming code (their target is a code mention) and documents (a link).
CODE_ROLES = (
    "func", "class", "meth", "attr", "mod", "exc", "data", "obj", "const", "setting", "ref", "term", "option",
    "envvar", "py:func", "py:class", "py:meth", "py:attr", "py:mod", "py:exc", "py:data", "py:obj",
    "ttag", "tfilter", "lookup", "fieldlookup", "djadmin", "file", "program", "command",
)  # fmt: skip
DOC_ROLES = ("doc",)
# Sphinx's roles (and Django's) whose text is plain prose: `:ticket:` 123 reads "123".
TEXT_ROLES = (
    "ticket", "commit", "cve", "pypi", "bpo", "source", "keyword", "mimetype", "menuselection", "kbd",
    "guilabel", "samp", "abbr", "dfn", "model", "template", "rst:role", "py:ref", "py:term", "numref",
    "any", "download", "manpage", "regexp",
)  # fmt: skip
# Sphinx's directives (and Django's) that describe one piece of code: their content is the
# documentation of `signature`, parsed like any text; the signature is kept as a code mention.
DESCRIPTION_DIRECTIVES = (
    "function", "method", "attribute", "class", "data", "exception", "decorator", "decoratormethod",
    "classmethod", "staticmethod", "property", "py:function", "py:method", "py:class", "py:attribute",
    "py:data", "py:exception", "py:decorator", "py:property", "describe", "object", "envvar", "option",
    "setting", "django-admin", "django-admin-option", "templatetag", "templatefilter", "fieldlookup",
)  # fmt: skip
# Sphinx's directives whose argument and content are prose (a version's note, "see also").
PROSE_DIRECTIVES = ("versionadded", "versionchanged", "versionremoved", "deprecated", "seealso", "glossary", "only", "hlist", "centered")
# Directives whose content is code, a table of contents or an index: left out unparsed (docutils
# would otherwise look each unknown name up in its language modules and report it).
SKIPPED_DIRECTIVES = (
    "code-block", "sourcecode", "console", "toctree", "highlight", "literalinclude", "index", "module",
    "currentmodule", "py:module", "py:currentmodule", "productionlist", "program", "autosummary",
    "automodule", "autoclass", "autofunction", "doctest", "testcode", "testsetup", "testoutput", "graphviz",
)  # fmt: skip
_SETTINGS = {
    "report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
    "warning_stream": False, "input_encoding": "unicode", "syntax_highlight": "none", "character_level_inline_markup": False,
}  # fmt: skip
_ROLE_TARGET = re.compile(r"^(?:.*<(.+)>|(.+))$", re.DOTALL)
# A title's over- or underline: one punctuation character repeated.
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_RULE_WORDS = re.compile(r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|SHOULD(?: NOT)?|REQUIRED|NEVER|ALWAYS)\b")


def extract_restructuredtext(data: bytes) -> DocFacts:
    try:
        return _extract(data.decode("utf-8", "replace"))
    finally:
        _release()


def _extract(text: str) -> DocFacts:
    from docutils import nodes
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    try:
        tree = new_document("<document>", _settings())
        # A parser per document: it keeps the last document it parsed, which must become garbage too.
        Parser().parse(text, tree)
    except Exception:  # noqa: BLE001 - docutils raises many kinds on broken input: the file stays a File
        return DocFacts(None, "", (), (), None, syntax_errors=True, language=LANGUAGE)
    # docutils' complaints (an unknown role or directive, broken markup) are not the document's text.
    for message in list(tree.findall(nodes.system_message)):
        message.parent.remove(message)
    return _Walker(text.splitlines()).facts(tree)


def _release() -> None:
    """Free the document just parsed. A doctree is a web of reference cycles (parent <-> children),
    and an ingest runs with the cyclic collector off (ingest/pipeline.py): left alone, every document
    parsed would stay in memory to the end. docutils keeps the nested state machines of the last
    document (RSTState.nested_sm_cache), which hold it: they are unlinked (docutils' own
    cycle breaking), then only the youngest generation is collected: this document, not the heap."""
    from docutils.parsers.rst.states import RSTState

    while RSTState.nested_sm_cache:
        RSTState.nested_sm_cache.pop().unlink()
    gc.collect(0)


@cache
def _settings() -> Any:
    """docutils' reST parser settings, built once per process, Sphinx's roles and directives registered."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    _register_roles()
    _register_directives()
    settings = get_default_settings(Parser)
    for name, value in _SETTINGS.items():
        setattr(settings, name, value)
    return settings


def _register_roles() -> None:
    """Sphinx's roles, as docutils inline literals tagged with their role."""
    from docutils import nodes
    from docutils.parsers.rst import roles

    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
        node = nodes.literal(rawtext, text if name in DOC_ROLES else _target(text))
        node["rhumbline_role"] = name
        return [node], []

    def text_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
        return [nodes.inline(rawtext, text)], []

    for name in (*CODE_ROLES, *DOC_ROLES):
        roles.register_local_role(name, role)
    for name in TEXT_ROLES:
        roles.register_local_role(name, text_role)


def _register_directives() -> None:
    """Sphinx's directives: descriptions and prose parsed, code and tables of contents skipped."""
    from collections import defaultdict

    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class Skipped(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        # Sphinx directives take options docutils does not know: any is accepted, none is used.
        option_spec = defaultdict(lambda: directives.unchanged, {"noindex": directives.flag})

        def run(self) -> list[Any]:
            return []

    class Prose(Skipped):
        def run(self) -> list[Any]:
            node = nodes.container()
            if self.arguments:
                inline, _ = self.state.inline_text(self.arguments[0], self.lineno)
                node += nodes.paragraph(self.arguments[0], "", *inline)
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class Description(Skipped):
        def run(self) -> list[Any]:
            node = nodes.container()
            if self.arguments:
                signature = " ".join(self.arguments[0].split())
                mention = nodes.literal(signature, _target(signature.partition("(")[0]))
                mention["rhumbline_role"] = self.name
                node += nodes.paragraph(signature, "", mention)
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    for names, kind in ((SKIPPED_DIRECTIVES, Skipped), (PROSE_DIRECTIVES, Prose), (DESCRIPTION_DIRECTIVES, Description)):
        for name in names:
            directives.register_directive(name, kind)


def _target(text: str) -> str:
    """A role's target: `Label <target>` → target; `~a.b` → a.b; `f()` → f."""
    found = _ROLE_TARGET.match(text.strip())
    target = (found.group(1) or found.group(2) or "").strip() if found else text.strip()
    return target.lstrip("~!.").removesuffix("()")


def _cap(text: str) -> str:
    text = re.sub(r"\n{3,}", "\n\n", text.strip())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1].rstrip() + "…"


def _title_section(tree: Any) -> Any:
    """The section docutils would lift into the document (its title the document's): the only
    element after comments, targets and the like. None when there is none."""
    from docutils import nodes

    index = tree.first_child_not_matching_class(nodes.PreBibliographic)
    if index is None or len(tree) > index + 1 or not isinstance(tree[index], nodes.section):
        return None
    return tree[index]


class _Walker:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.sections: list[Section] = []
        self.references: list[Reference] = []
        self.anchors: dict[str, int] = {}
        self.status: str | None = None

    def facts(self, tree: Any) -> DocFacts:
        from docutils import nodes

        top = _title_section(tree)
        title = top.next_node(nodes.title) if top is not None else None
        children = list(tree.children) if top is None else [*tree.children[:-1], *top.children]
        intro, _ = self._part(children, -1)
        for child in children:
            if isinstance(child, nodes.section):
                self._section(child, 1, -1)
        status = self.status
        if status is None:
            status = next((s.text.strip().splitlines()[0] for s in self.sections
                           if s.title.strip().lower() == "status" and s.text.strip()), None)  # fmt: skip
        return DocFacts(
            title=title.astext() if title is not None else None, intro=_cap(intro),
            sections=tuple(self._ended()), references=tuple(self.references), status=status, language=LANGUAGE,
        )  # fmt: skip

    def _section(self, node: Any, level: int, parent: int) -> None:
        """Records the section, then its subsections (end lines: _ended)."""
        from docutils import nodes

        title_node = node.next_node(nodes.title)
        title = title_node.astext() if title_node is not None else ""
        line = self._line(title_node)
        base = slug(title)
        seen = self.anchors.get(base)
        self.anchors[base] = 0 if seen is None else seen + 1
        index = len(self.sections)
        self.sections.append(None)  # type: ignore[arg-type]  # its place, filled below
        text, rule_items = self._part(node.children, index)
        self.sections[index] = Section(
            level=level, title=title, anchor=base if seen is None else f"{base}-{seen + 1}", parent=parent,
            start_line=line, end_line=line, text=_cap(text),
            content_hash=sha256(text.encode("utf-8", "replace")).hexdigest(), rule_items=rule_items,
        )  # fmt: skip
        for child in node.children:
            if isinstance(child, nodes.section):
                self._section(child, level + 1, index)

    def _part(self, children: Any, section: int) -> tuple[str, int]:
        """One pass over the children before the first subsection: their text (uncapped) and rule
        items; their references and the status field recorded."""
        from docutils import nodes

        texts, rule_items = [], 0
        for child in children:
            if isinstance(child, nodes.section):
                break
            if not isinstance(child, (nodes.title, nodes.comment, nodes.target)):
                text = child.astext()
                if text.strip():
                    texts.append(text)
            for found in child.findall():
                if isinstance(found, (nodes.literal, nodes.reference)):
                    self._reference(found, section)
                elif isinstance(found, nodes.list_item):
                    rule_items += bool(_RULE_WORDS.search(found.astext()))
                elif isinstance(found, nodes.field) and self.status is None:
                    self.status = _status_field(found)
        return "\n\n".join(texts), rule_items

    def _ended(self) -> list[Section]:
        """The sections with their end lines: the line before the next title of the same or a
        higher level (its over- or underline included), else the document's last line."""
        ended = list(self.sections)
        open_sections: list[int] = []
        for index, section in enumerate(self.sections):
            while open_sections and self.sections[open_sections[-1]].level >= section.level:
                self._end(ended, open_sections.pop(), self._heading_start(section.start_line) - 1)
            open_sections.append(index)
        for index in open_sections:
            self._end(ended, index, len(self.lines))
        return ended

    @staticmethod
    def _end(ended: list[Section], index: int, line: int) -> None:
        ended[index] = ended[index]._replace(end_line=max(line, ended[index].start_line))

    def _heading_start(self, line: int) -> int:
        """The first line of the title whose last adornment line is `line` (docutils' title line)."""
        start = line - 1  # the title's text, above its underline
        if start >= 2 and _ADORNMENT.match(self.lines[start - 2]):
            start -= 1
        return max(start, 1)

    def _reference(self, found: Any, section: int) -> None:
        from docutils import nodes

        if len(self.references) >= MAX_REFERENCES:
            return
        line = self._line(found)
        if isinstance(found, nodes.reference):
            uri = found.get("refuri")
            if uri:
                self.references.append(Reference(section, line, "link", uri, found.astext()))
            return
        role = found.get("rhumbline_role")
        text = found.astext()
        if role in DOC_ROLES:
            self.references.append(Reference(section, line, "link", _target(text), text))
        elif text.strip():
            target = _target(text) if role else text.strip()
            self.references.append(Reference(section, line, "code", target, text))

    def _line(self, node: Any) -> int:
        while node is not None:
            line = getattr(node, "line", None)
            if line:
                return max(1, min(int(line), len(self.lines) or 1))
            node = node.parent
        return 1


def _status_field(field: Any) -> str | None:
    """A `:Status: Accepted` field's first line; None for any other field."""
    from docutils import nodes

    name = field.next_node(nodes.field_name)
    if name is None or name.astext().strip().lower() != "status":
        return None
    body = field.next_node(nodes.field_body)
    text = body.astext().strip() if body is not None else ""
    return text.splitlines()[0] if text else None
