"""Phase 2 for Markdown: documents, sections and decisions, and what they document.

Runs after every language, since mentions resolve against all code nodes. See the package
docstring for the node kinds and the rules that choose them.
"""

from __future__ import annotations

import builtins
import keyword
import posixpath
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import unquote

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.graph.edges import INFERRED_SCORE, NAME_MATCH_SCORE, EdgeSet
from rhumbline.ingest.graph.ids import directory_id, file_id
from rhumbline.ingest.languages.knowledge.facts import DocFacts, Reference, Section
from rhumbline.stores.graph.model import Node
from rhumbline.vocabulary import KNOWLEDGE_KINDS

# Node kinds a code mention never resolves to.
NOT_CODE = frozenset(
    {"Repository", "Directory", "File", "Import", "Decorator", "Contributor", *KNOWLEDGE_KINDS}
)
ADR_DIRECTORIES = frozenset({"adr", "adrs", "decisions", "decision-records"})
_ADR_NAME = re.compile(r"^\d{3,5}-.+\.(?:md|rst|txt)$", re.IGNORECASE)
# The index and the template of an ADR directory are not decisions.
_NOT_ADR_NAME = re.compile(r"^(?:readme|index|template|adr-template)(?:[.-].*)?\.(?:md|rst|txt)$", re.IGNORECASE)
# An ADR's title usually carries its number: "1. Use SQLite", "ADR 0007: Cache tokens", "0003 - Queue".
_NUMBERED_TITLE = re.compile(r"^(?:ADR|Decision|RFC)?[\s#-]*(\d{1,5})\s*[.:)\-–—]?\s+(\S.*)$", re.IGNORECASE)
# A link without a suffix (Sphinx's :doc:, wiki links) names a document by its path less its suffix.
_DOCUMENT_SUFFIXES = (".rst", ".txt", ".md")
_RULE_HEADING = re.compile(
    r"\b(?:rules?|conventions?|guidelines?|polic(?:y|ies)|requirements?|standards?|musts?"
    r"|constraints?|do'?s and don'?ts)\b",
    re.IGNORECASE,
)
_GLOSSARY_HEADING = re.compile(
    r"\b(?:glossary|terminology|concepts?|definitions|vocabulary|key terms)\b", re.IGNORECASE
)
_GLOSSARY_FILE = re.compile(r"^(?:glossary|terminology|concepts|definitions|vocabulary)$", re.I)
_DECISION_SECTION = re.compile(r"^(?:the )?decision(?:s| outcome)?$", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_LINE_ANCHOR = re.compile(r"^L(\d+)(?:-L?\d+)?$")
_MENTION = re.compile(r"^@?([A-Za-z_]\w*(?:(?:\.|::|#)[A-Za-z_]\w*)*)(?:\(.*\))?$", re.DOTALL)
# `src/app/models.py`, `./setup.py`, `docs/`, `models.py` (the last also looks like `mod.attr`).
_PATH_MENTION = re.compile(
    r"^(?:\./|/)?[\w.\-]+(?:/[\w.\-]+)+/?$|^(?:\./|/)?[\w.\-]+/$|^[\w\-]+\.[A-Za-z0-9]{1,8}$"
)
_SEPARATORS = re.compile(r"::|#")
# Bare words too common to name one definition: keywords, builtins, receivers, literals.
_STOP_WORDS = frozenset(
    {w.lower() for w in (*keyword.kwlist, *dir(builtins))}
    | {"self", "cls", "this", "super", "true", "false", "null", "nil", "none", "undefined", "main"}
)
_MIN_BARE_LENGTH = 3


@dataclass
class KnowledgeGraph:
    nodes: list[Node] = field(default_factory=list)
    unresolved_references: int = 0  # links to nothing in the graph, mentions of nothing known


def document_id(path: str) -> str:
    return f"document:{path}"


def decision_id(path: str) -> str:
    return f"decision:{path}"


def section_id(kind: str, path: str, anchor: str) -> str:
    return f"{kind.lower()}:{path}#{anchor}"


def is_adr(path: str, facts: DocFacts) -> bool:
    """An architecture decision record: a Markdown file with a status, kept where ADRs live
    (a directory named adr/, adrs/, decisions/, decision-records/) or named `NNNN-title.md`."""
    if facts.status is None:
        return False
    pure = PurePosixPath(path)
    if _NOT_ADR_NAME.match(pure.name):
        return False
    in_adr_directory = any(part.lower() in ADR_DIRECTORIES for part in pure.parts[:-1])
    return in_adr_directory or bool(_ADR_NAME.match(pure.name))


def section_kind(section: Section, parent_kind: str | None, parent: Section | None, path: str) -> str:
    if _RULE_HEADING.search(section.title) or section.rule_items or parent_kind == "Rule":
        return "Rule"
    if parent is not None and _GLOSSARY_HEADING.search(parent.title):
        return "Concept"
    if parent is None and _GLOSSARY_FILE.match(PurePosixPath(path).stem):
        return "Concept"
    return "WikiPage"


def build_knowledge_graph(
    sources: Sequence[SourceFile], nodes: Sequence[Node], edges: EdgeSet
) -> KnowledgeGraph:
    documents = [s for s in sources if isinstance(s.code, DocFacts)]
    graph = KnowledgeGraph()
    if not documents:
        return graph
    # Where links can land: other documents (and their sections), files, directories.
    targets: dict[str, dict[str, str]] = {}  # doc path → {"": node id, anchor: section id}
    owners: dict[str, list[str]] = {}  # doc path → node id owning each reference's section
    for source in documents:
        own, owner_ids, section_ids = _document_nodes(source, edges)
        graph.nodes.extend(own)
        owners[source.path] = owner_ids
        targets[source.path] = section_ids
    resolver = _Resolver(sources, nodes, targets)
    for source in documents:
        facts: DocFacts = source.code
        for reference in facts.references:
            owner = owners[source.path][reference.section + 1]
            if not resolver.add(source.path, owner, reference, edges):
                graph.unresolved_references += 1
    return graph


def line_linked_files(path: str, facts: DocFacts) -> set[str]:
    """Files a document links to a line of (`b.py#L10`): those edges land on whichever definition
    spans that line, so they depend on the target file's line numbers (partial.py)."""
    found = set()
    for reference in facts.references:
        if reference.kind != "link" or _SCHEME.match(reference.target):
            continue
        target_path, _, fragment = reference.target.partition("#")
        if not _LINE_ANCHOR.match(fragment):
            continue
        target_path = unquote(target_path.split("?", 1)[0])
        base = "" if target_path.startswith("/") else posixpath.dirname(path)
        found.add(posixpath.normpath(posixpath.join(base, target_path.lstrip("/"))))
    return found


def _document_nodes(source: SourceFile, edges: EdgeSet) -> tuple[list[Node], list[str], dict[str, str]]:
    """Nodes and DEFINES edges of one document; the owner id of references per section index
    (+1: index 0 is the intro); link targets by anchor."""
    path, facts = source.path, source.code
    name = facts.title or PurePosixPath(path).name
    end = max(source.line_count, 1)
    language = facts.language
    doc = Node(
        id=document_id(path), kind="Document", name=name, qualified_name=path, file=path,
        start_line=1, end_line=end, language=language, docstring=facts.intro or None,
        content_hash=source.content_hash,
    )  # fmt: skip
    nodes = [doc]
    edges.extracted(file_id(path), "DEFINES", doc.id, f"{path} is the source of document `{name}`", path, 1)
    if is_adr(path, facts):
        decided = next((s.text for s in facts.sections if _DECISION_SECTION.match(s.title)), None)
        # Named by what was decided, so `explain` finds it by its title; the number stays in the
        # signature (and the path).
        numbered = _NUMBERED_TITLE.match(name)
        title, number = (numbered.group(2).strip(), numbered.group(1)) if numbered else (name, None)
        signature = f"ADR {number}; Status: {facts.status}" if number else f"Status: {facts.status}"
        decision = Node(
            id=decision_id(path), kind="Decision", name=title, qualified_name=path, file=path,
            start_line=1, end_line=end, language=language, signature=signature,
            docstring=decided or facts.intro or None, content_hash=source.content_hash,
        )  # fmt: skip
        nodes.append(decision)
        explanation = f"{path} records decision `{title}` (status: {facts.status})"
        edges.extracted(doc.id, "DEFINES", decision.id, explanation, path, 1)
        # An ADR is one decision: every reference in it is the decision's.
        anchors = {"": decision.id, **{s.anchor: decision.id for s in facts.sections}}
        return nodes, [decision.id] * (len(facts.sections) + 1), anchors
    kinds: list[str] = []
    ids: list[str] = []
    for section in facts.sections:
        parent = facts.sections[section.parent] if section.parent >= 0 else None
        kind = section_kind(section, kinds[section.parent] if parent else None, parent, path)
        node_id = section_id(kind, path, section.anchor)
        kinds.append(kind)
        ids.append(node_id)
        trail = [facts.sections[i].title for i in _ancestors(facts.sections, section)]
        nodes.append(
            Node(
                id=node_id, kind=kind, name=section.title, qualified_name=f"{path}#{section.anchor}",
                file=path, start_line=section.start_line, end_line=section.end_line,
                language=language, signature=" > ".join([name, *trail, section.title]),
                docstring=section.text or None, content_hash=section.content_hash,
            )
        )  # fmt: skip
        holder = ids[section.parent] if parent else doc.id
        holder_what = f"{kinds[section.parent].lower()} `{parent.title}`" if parent else f"document {path}"
        explanation = f"{holder_what} has {kind.lower()} `{section.title}` at line {section.start_line}"
        edges.extracted(holder, "DEFINES", node_id, explanation, path, section.start_line)
    anchors = {"": doc.id, **{s.anchor: i for s, i in zip(facts.sections, ids, strict=True)}}
    return nodes, [doc.id, *ids], anchors


def _ancestors(sections: tuple[Section, ...], section: Section) -> list[int]:
    chain = []
    parent = section.parent
    while parent >= 0:
        chain.append(parent)
        parent = sections[parent].parent
    return chain[::-1]


class _Resolver:
    def __init__(
        self, sources: Sequence[SourceFile], nodes: Sequence[Node], documents: dict[str, dict[str, str]]
    ) -> None:
        self.files = {s.path for s in sources}
        self.directories = {
            parent for path in self.files for parent in _parents(path)
        }
        self.documents = documents
        self.nodes = nodes
        self._names: dict[str, list[str]] | None = None
        self._qualified: dict[str, str] = {}
        self._spans: dict[str, tuple[list[int], list[tuple[int, int, str]]]] | None = None

    # -- links -----------------------------------------------------------------------------

    def add(self, path: str, owner: str, reference: Reference, edges: EdgeSet) -> bool:
        if reference.kind == "link":
            return self._link(path, owner, reference, edges)
        return self._mention(path, owner, reference, edges)

    def _link(self, path: str, owner: str, ref: Reference, edges: EdgeSet) -> bool:
        destination = ref.target
        if _SCHEME.match(destination) or destination.startswith("//"):
            return True  # external: not the graph's business, and not a failure
        target_path, _, fragment = destination.partition("#")
        target_path = unquote(target_path.split("?", 1)[0])
        if not target_path:
            return True  # an anchor in the same document
        base = _root_of(path) if target_path.startswith("/") else posixpath.dirname(path)
        joined = posixpath.normpath(posixpath.join(base, target_path.lstrip("/")))
        if joined == ".." or joined.startswith("../"):
            return False
        if joined not in self.documents and joined not in self.files:
            joined = next((joined + s for s in _DOCUMENT_SUFFIXES if joined + s in self.documents), joined)
        where = f"link [{ref.text}]({destination}) at {path}:{ref.line}"
        if joined in self.documents:
            anchors = self.documents[joined]
            target = anchors.get(fragment) or anchors[""]
            what = f"section `{fragment}` of {joined}" if fragment in anchors and fragment else joined
            edges.extracted(owner, "REFERENCES", target, f"{where} points to {what}", path, ref.line)
            return True
        if joined in self.files:
            line = _LINE_ANCHOR.match(fragment)
            inside = self._definition_at(joined, int(line.group(1))) if line else None
            if inside is not None:
                explanation = (
                    f"{where} points to line {line.group(1)} of {joined},"
                    f" inside `{self._qualified_name(inside)}`"
                )
                edges.extracted(owner, "DOCUMENTS", inside, explanation, path, ref.line)
            else:
                explanation = f"{where} points to file {joined}"
                edges.extracted(owner, "DOCUMENTS", file_id(joined), explanation, path, ref.line)
            return True
        if joined in self.directories:
            explanation = f"{where} points to directory {joined}"
            edges.extracted(owner, "DOCUMENTS", directory_id(joined), explanation, path, ref.line)
            return True
        return False

    def _definition_at(self, path: str, line: int) -> str | None:
        if self._spans is None:
            spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
            for node in self.nodes:
                if node.kind not in NOT_CODE and node.kind != "Module" and node.file and node.start_line:
                    spans[node.file].append((node.start_line, node.end_line or node.start_line, node.id))
            self._spans = {}
            for file, found in spans.items():
                found.sort()
                self._spans[file] = ([s for s, _, _ in found], found)
        starts, spans_of_file = self._spans.get(path, ([], []))
        best: tuple[int, str] | None = None
        for start, end, node_id in spans_of_file[: bisect_right(starts, line)]:
            if start <= line <= end and (best is None or end - start <= best[0]):
                best = (end - start, node_id)
        return best[1] if best else None

    # -- mentions --------------------------------------------------------------------------

    def _mention(self, path: str, owner: str, ref: Reference, edges: EdgeSet) -> bool:
        text = ref.target.strip()
        where = f"`{text}` mentioned at {path}:{ref.line}"
        if _PATH_MENTION.match(text):
            as_written = text.removeprefix("./").rstrip("/")
            relative = posixpath.normpath(posixpath.join(posixpath.dirname(path), as_written))
            for found in dict.fromkeys((as_written, relative)):
                if found in self.files:
                    explanation = f"{where} names file {found}"
                    edges.extracted(owner, "DOCUMENTS", file_id(found), explanation, path, ref.line)
                    return True
                if found in self.directories:
                    explanation = f"{where} names directory {found}"
                    edges.extracted(owner, "DOCUMENTS", directory_id(found), explanation, path, ref.line)
                    return True
            if "/" in text:
                return False  # a path to nothing in the graph
        match = _MENTION.match(text)
        if match is None:
            return True  # code that is not a name: an expression, a shell command, a value
        name = _SEPARATORS.sub(".", match.group(1))
        dotted = "." in name
        if not dotted and (len(name) < _MIN_BARE_LENGTH or name.lower() in _STOP_WORDS):
            return True
        candidates = self._names_index().get(name, [])
        # Only a name that picks out one definition documents it: a guess between several
        # (`save`, `get`) would link prose to code it may not be about.
        if len(candidates) != 1:
            return False
        (target,) = candidates
        how = "by qualified name" if dotted else "by name, the only definition so named"
        explanation = f"{where} resolves to `{self._qualified[target]}` {how}"
        score = INFERRED_SCORE if dotted else NAME_MATCH_SCORE
        edges.add(owner, "DOCUMENTS", target, "INFERRED", score, explanation, path, ref.line)
        return True

    def _names_index(self) -> dict[str, list[str]]:
        """Every dotted suffix of every code node's qualified name → node ids (`QuerySet.filter`
        → `method:django/db/models/query.py:QuerySet.filter`, ...)."""
        if self._names is None:
            index: dict[str, set[str]] = defaultdict(set)
            for node in self.nodes:
                if node.kind in NOT_CODE or not node.qualified_name:
                    continue
                qualified = _SEPARATORS.sub(".", node.qualified_name)
                self._qualified[node.id] = node.qualified_name
                parts = qualified.split(".")
                for start in range(len(parts)):
                    index[".".join(parts[start:])].add(node.id)
            self._names = {key: sorted(ids) for key, ids in index.items()}
        return self._names

    def _qualified_name(self, node_id: str) -> str:
        if not self._qualified:
            self._names_index()
        return self._qualified.get(node_id, node_id)


def _root_of(path: str) -> str:
    """Where a document's absolute links start: its docs/ (or doc/) directory, else the top."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in ("docs", "doc"):
            return "/".join(parts[: i + 1])
    return ""


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
