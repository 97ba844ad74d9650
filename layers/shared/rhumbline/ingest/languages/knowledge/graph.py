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
    resolver = _Resolver(sources, nodes, targets, documents)
    for source in documents:
        facts: DocFacts = source.code
        for reference in facts.references:
            owner = owners[source.path][reference.section + 1]
            if not resolver.add(source.path, owner, reference, edges):
                graph.unresolved_references += 1
    return graph


def line_linked_files(path: str, facts: DocFacts) -> set[str]:
    """Files a document links to a line of (`b.py#L10`): those edges land on whichever definition
    spans that line, so they depend on the target file's line numbers (partial.py), and are the
    only files whose definitions' spans the resolver keeps."""
    found = set()
    for reference in facts.references:
        target = _link_target(path, reference.target) if reference.kind == "link" else None
        if target is not None and _LINE_ANCHOR.match(target[1]):
            found.add(target[0])
    return found


def _mention_name(text: str) -> str | None:
    """The name a code mention looks up among definitions (`QuerySet::filter()` →
    `QuerySet.filter`), or None when it is no name or a bare word too common to name one."""
    match = _MENTION.match(text.strip())
    if match is None:
        return None
    name = _SEPARATORS.sub(".", match.group(1))
    if "." not in name and (len(name) < _MIN_BARE_LENGTH or name.lower() in _STOP_WORDS):
        return None
    return name


def _link_target(path: str, destination: str) -> tuple[str, str] | None:
    """The path (from the root, normalised) and fragment a link of document `path` points to;
    None for an external link or an anchor in the same document."""
    if _SCHEME.match(destination) or destination.startswith("//"):
        return None
    target_path, _, fragment = destination.partition("#")
    target_path = unquote(target_path.split("?", 1)[0])
    if not target_path:
        return None
    base = _root_of(path) if target_path.startswith("/") else posixpath.dirname(path)
    return posixpath.normpath(posixpath.join(base, target_path.lstrip("/"))), fragment


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
        self,
        sources: Sequence[SourceFile],
        nodes: Sequence[Node],
        targets: dict[str, dict[str, str]],
        documents: Sequence[SourceFile],
    ) -> None:
        self.files = {s.path for s in sources}
        self.directories = {
            parent for path in self.files for parent in _parents(path)
        }
        self.targets = targets
        # Only the names the documents' mentions look up and the files they link to a line of are
        # indexed: the code graph is in memory beside the resolver, and the documents reference
        # little of it.
        wanted: set[str] = set()
        linked: set[str] = set()
        for source in documents:
            facts: DocFacts = source.code
            linked |= line_linked_files(source.path, facts)
            # The same step as _mention's: a mention that turns out to name a file only adds a name
            # that is never looked up, and a path with a slash is never a name.
            mentions = (_mention_name(r.target) for r in facts.references if r.kind != "link")
            wanted.update(name for name in mentions if name is not None)
        # A wanted name → (id, qualified name) of the one node it names, None once it names several.
        self._names: dict[str, tuple[str, str] | None] = {}
        self._spans: dict[str, tuple[list[int], list[tuple[int, int, str]]]] = {}
        self._qualified: dict[str, str] = {}  # node id → qualified name, of the spans' nodes
        if wanted or linked:
            self._index(nodes, wanted, linked)

    def _index(self, nodes: Sequence[Node], wanted: set[str], linked: set[str]) -> None:
        """In one pass over the code nodes: which node each wanted name is a dotted suffix of the
        qualified name of (`QuerySet.filter` → `method:django/db/models/query.py:QuerySet.filter`),
        and the spans of the definitions in the `linked` files."""
        last_parts = {name.rpartition(".")[2] for name in wanted}
        spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        for node in nodes:
            if node.kind in NOT_CODE:
                continue
            if node.file in linked and node.kind != "Module" and node.start_line:
                spans[node.file].append((node.start_line, node.end_line or node.start_line, node.id))
                if node.qualified_name:
                    self._qualified[node.id] = node.qualified_name
            if not node.qualified_name:
                continue
            parts = _SEPARATORS.sub(".", node.qualified_name).split(".")
            # Every suffix ends with the last part: most nodes are passed before theirs are built.
            if parts[-1] not in last_parts:
                continue
            for name in wanted.intersection(".".join(parts[i:]) for i in range(len(parts))):
                known = self._names.get(name, (node.id, ""))
                # Only the one node a name picks out is worth keeping: a second one makes it a guess.
                self._names[name] = (node.id, node.qualified_name) if known and known[0] == node.id else None
        for file, found in spans.items():
            found.sort()
            self._spans[file] = ([s for s, _, _ in found], found)

    # -- links -----------------------------------------------------------------------------

    def add(self, path: str, owner: str, reference: Reference, edges: EdgeSet) -> bool:
        if reference.kind == "link":
            return self._link(path, owner, reference, edges)
        return self._mention(path, owner, reference, edges)

    def _link(self, path: str, owner: str, ref: Reference, edges: EdgeSet) -> bool:
        destination = ref.target
        pointed = _link_target(path, destination)
        if pointed is None:
            return True  # external, or an anchor in the same document: not a failure
        joined, fragment = pointed
        if joined == ".." or joined.startswith("../"):
            return False
        if joined not in self.targets and joined not in self.files:
            joined = next((joined + s for s in _DOCUMENT_SUFFIXES if joined + s in self.targets), joined)
        where = f"link [{ref.text}]({destination}) at {path}:{ref.line}"
        if joined in self.targets:
            anchors = self.targets[joined]
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
        name = _mention_name(text)
        if name is None:
            return True  # not a name (an expression, a shell command, a value), or a common word
        dotted = "." in name
        # Only a name that picks out one definition documents it: a guess between several
        # (`save`, `get`) would link prose to code it may not be about.
        named = self._names.get(name)
        if named is None:
            return False
        target, qualified = named
        how = "by qualified name" if dotted else "by name, the only definition so named"
        explanation = f"{where} resolves to `{qualified}` {how}"
        score = INFERRED_SCORE if dotted else NAME_MATCH_SCORE
        edges.add(owner, "DOCUMENTS", target, "INFERRED", score, explanation, path, ref.line)
        return True

    def _qualified_name(self, node_id: str) -> str:
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
