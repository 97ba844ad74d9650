"""Phase 1 for reStructuredText (Sphinx documentation): docutils' doctree → DocFacts.

What it keeps, as markdown.py does for Markdown: the title (the document's only top-level
section, docutils' own rule), the text before the first section, every section with its own text
(up to its first subsection) and its line, the references: hyperlinks and Sphinx's `:doc:`
(kind "link"), inline literals and Sphinx's code roles `:func:`, `:class:`, `:meth:`, ... (kind
"code", the target as written, `~` and `()` dropped), and an ADR's status (a "Status" section or
field). Sphinx roles and directives are not docutils' own: the code and document roles are
registered here as plain inline literals; any other unknown role or directive is left out
quietly. Nothing is read from disk or the network (`include`, `raw` and file insertion are off).
"""

from __future__ import annotations

import re
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
_SETTINGS = {
    "report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
    "warning_stream": False, "input_encoding": "unicode", "syntax_highlight": "none", "character_level_inline_markup": False,
}  # fmt: skip
_ROLE_TARGET = re.compile(r"^(?:.*<(.+)>|(.+))$", re.DOTALL)
_RULE_WORDS = re.compile(r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|SHOULD(?: NOT)?|REQUIRED|NEVER|ALWAYS)\b")
_registered = False


def extract_restructuredtext(data: bytes) -> DocFacts:
    from docutils.core import publish_doctree

    _register_roles()
    text = data.decode("utf-8", "replace")
    try:
        tree = publish_doctree(text, settings_overrides=_SETTINGS)
    except Exception:  # noqa: BLE001 - docutils raises many kinds on broken input: the file stays a File
        return DocFacts(None, "", (), (), None, syntax_errors=True, language=LANGUAGE)
    return _Walker(text).facts(tree)


def _register_roles() -> None:
    """Sphinx's roles, as docutils inline literals tagged with their role (once per process)."""
    global _registered
    if _registered:
        return
    from docutils import nodes
    from docutils.parsers.rst import roles

    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None):  # type: ignore[no-untyped-def]
        node = nodes.literal(rawtext, text if name in DOC_ROLES else _target(text))
        node["rhumbline_role"] = name
        return [node], []

    for name in (*CODE_ROLES, *DOC_ROLES):
        roles.register_local_role(name, role)
    _registered = True


def _target(text: str) -> str:
    """A role's target: `Label <target>` → target; `~a.b` → a.b; `f()` → f."""
    found = _ROLE_TARGET.match(text.strip())
    target = (found.group(1) or found.group(2) or "").strip() if found else text.strip()
    return target.lstrip("~!.").removesuffix("()")


def _cap(text: str) -> str:
    text = re.sub(r"\n{3,}", "\n\n", text.strip())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1].rstrip() + "…"


class _Walker:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.sections: list[Section] = []
        self.references: list[Reference] = []
        self.anchors: dict[str, int] = {}

    def facts(self, tree: Any) -> DocFacts:
        from docutils import nodes

        title = tree.get("title") or None
        # docutils lifts a lone top-level section into the document: its title is the title.
        intro = self._own_text(tree)
        self._references(tree, -1)
        for child in tree.children:
            if isinstance(child, nodes.section):
                self._section(child, 1, -1)
        status = self._status(tree)
        return DocFacts(
            title=title, intro=intro, sections=tuple(self.sections), references=tuple(self.references),
            status=status, language=LANGUAGE,
        )  # fmt: skip

    def _section(self, node: Any, level: int, parent: int) -> None:
        from docutils import nodes

        title_node = node.next_node(nodes.title)
        title = title_node.astext() if title_node is not None else ""
        line = self._line(title_node)
        base = slug(title)
        seen = self.anchors.get(base)
        self.anchors[base] = 0 if seen is None else seen + 1
        anchor = base if seen is None else f"{base}-{seen + 1}"
        own = self._own_text(node)
        index = len(self.sections)
        self.sections.append(
            Section(
                level=level, title=title, anchor=anchor, parent=parent, start_line=line, end_line=line,
                text=own, content_hash=sha256(node.astext().encode("utf-8", "replace")).hexdigest(),
                rule_items=sum(1 for item in node.findall(nodes.list_item) if _RULE_WORDS.search(item.astext())),
            )
        )  # fmt: skip
        self._references(node, index)
        for child in node.children:
            if isinstance(child, nodes.section):
                self._section(child, level + 1, index)
        last = max((s.end_line for s in self.sections[index:]), default=line)
        end = self._last_line(node)
        self.sections[index] = self.sections[index]._replace(end_line=max(last, end, line))

    def _own_text(self, node: Any) -> str:
        """The text of a section (or the document) before its first subsection."""
        from docutils import nodes

        parts = []
        for child in node.children:
            if isinstance(child, nodes.section):
                break
            if isinstance(child, (nodes.title, nodes.system_message, nodes.comment, nodes.target)):
                continue
            parts.append(child.astext())
        return _cap("\n\n".join(p for p in parts if p.strip()))

    def _references(self, node: Any, section: int) -> None:
        """References in `node`'s own part (not its subsections')."""
        from docutils import nodes

        for child in node.children:
            if isinstance(child, nodes.section):
                break
            for found in child.findall(lambda n: isinstance(n, (nodes.literal, nodes.reference))):
                if len(self.references) >= MAX_REFERENCES:
                    return
                line = self._line(found)
                if isinstance(found, nodes.reference):
                    uri = found.get("refuri")
                    if uri:
                        self.references.append(Reference(section, line, "link", uri, found.astext()))
                    continue
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

    def _last_line(self, node: Any) -> int:
        lines = [n.line for n in node.findall() if getattr(n, "line", None)]
        return max(lines, default=1)

    def _status(self, tree: Any) -> str | None:
        from docutils import nodes

        for field in tree.findall(nodes.field):
            name = field.next_node(nodes.field_name)
            if name is not None and name.astext().strip().lower() == "status":
                body = field.next_node(nodes.field_body)
                return body.astext().strip().splitlines()[0] if body is not None and body.astext().strip() else None
        for section in self.sections:
            if section.title.strip().lower() == "status" and section.text.strip():
                return section.text.strip().splitlines()[0]
        return None
