"""Phase 1 for Markdown: a small, careful line-based parser (no grammar wheel needed).

What it understands (CommonMark where it matters for a knowledge graph):
- ATX headings (`## Title ##`) and Setext headings (a paragraph underlined with `===` / `---`);
- fenced code blocks (``` and ~~~, any length, closed by a fence at least as long) and indented
  code blocks after a blank line outside lists: skipped — no headings, links or mentions there;
- YAML front matter (`---` … `---` on the first lines): `title:` and `status:` are read;
- HTML comments, link reference definitions (`[label]: url`);
- inline: code spans of any backtick length, inline links `[text](dest "title")`, reference links
  `[text][label]` / `[label][]` / `[label]`; images are not links.
What it does not try: nested block structure (a heading inside a list or quote is text), HTML
blocks, setext headings inside lists, links that span lines.
"""

from __future__ import annotations

import re
from hashlib import sha256

from rhumbline.ingest.languages.knowledge.facts import DocFacts, Reference, Section

MAX_TEXT = 2000
MAX_REFERENCES = 5000  # per document: a generated link farm must not flood the graph
_FRONT_MATTER_LINES = 200

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)>?(?:[ \t]+.*)?$")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_INLINE_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"
    r"\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_REF_LINK = re.compile(r"(!?)\[([^\[\]]+)\]\[([^\[\]]*)\]")
_SHORTCUT_LINK = re.compile(r"(?<![\]!\\])\[([^\[\]]+)\](?![\[(:])")
_RULE_WORDS = re.compile(r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|SHOULD(?: NOT)?|REQUIRED|NEVER|ALWAYS)\b")
_STATUS_LINE = re.compile(r"^[ \t>*_-]*status[*_]*[ \t]*:[*_]*[ \t]*(.+?)[ \t]*$", re.IGNORECASE)
_FRONT_FIELD = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_COMMENT = re.compile(r"<!--.*?-->")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def extract_markdown(data: bytes) -> DocFacts:
    return _Parser(data.decode("utf-8", "replace")).parse()


def plain(text: str) -> str:
    """Inline Markdown → its visible text: code spans, links, emphasis and tags unwrapped."""
    text = _CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = _INLINE_LINK.sub(lambda m: m.group(2), text)
    text = _REF_LINK.sub(lambda m: m.group(2), text)
    text = _TAG.sub("", text)
    for _ in range(2):
        text = _EMPHASIS.sub(lambda m: m.group(2), text)
    return " ".join(text.replace("\\", "").split())


def slug(title: str) -> str:
    """GitHub's heading anchor: lowercase, punctuation dropped, spaces to hyphens."""
    return _SLUG_DROP.sub("", title.strip().lower()).replace(" ", "-")


def _cap(lines: list[str]) -> str:
    text = "\n".join(lines).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1].rstrip() + "…"


def _label(label: str) -> str:
    return " ".join(label.lower().split())


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.definitions: dict[str, str] = {}
        self.front: dict[str, str] = {}
        self.sections: list[dict] = []
        self.stack: list[int] = []  # open sections, outermost first
        self.current = -1
        self.texts: dict[int, list[str]] = {-1: []}  # section index → own prose lines
        self.raw: dict[int, list[str]] = {-1: []}  # section index → own lines, code included
        self.rule_items: dict[int, int] = {}
        self.references: list[Reference] = []
        self.paragraph: list[tuple[int, str]] = []

    # -- driver ----------------------------------------------------------------------------

    def parse(self) -> DocFacts:
        start = self._front_matter()
        self._collect_definitions(start)
        fence: tuple[str, int] | None = None
        in_comment = False
        previous_blank = True
        in_list = False
        for index in range(start, len(self.lines)):
            number = index + 1
            line = self.lines[index]
            if fence is not None:
                self.raw[self.current].append(line)
                closing = _FENCE.match(line)
                if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= fence[1] \
                        and not closing.group(2).strip():
                    fence = None
                continue
            if in_comment:
                if "-->" in line:
                    in_comment = False
                continue
            opening = _FENCE.match(line)
            if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
                self._flush()
                fence = (opening.group(1)[0], len(opening.group(1)))
                self.raw[self.current].append(line)
                previous_blank = False
                continue
            if not line.strip():
                self._flush()
                previous_blank = True
                self.raw[self.current].append("")
                continue
            stripped = line.lstrip()
            if stripped.startswith("<!--"):
                self._flush()
                if "-->" not in stripped[4:]:
                    in_comment = True
                continue
            indented = line.startswith(("    ", "\t"))
            if indented and previous_blank and not in_list and not self.paragraph:
                self.raw[self.current].append(line)  # an indented code block
                continue
            if not self.paragraph and _REF_DEF.match(line):
                previous_blank = False
                continue
            atx = _ATX.match(line)
            if atx:
                self._flush()
                title = _ATX_CLOSE.sub("", (atx.group(2) or "").strip()).strip()
                self._open(len(atx.group(1)), title, number)
                previous_blank, in_list = False, False
                continue
            setext = _SETEXT.match(line)
            if setext and self.paragraph:
                first = self.paragraph[0][0]
                title = " ".join(text.strip() for _, text in self.paragraph)
                self.paragraph.clear()
                self._open(1 if setext.group(1)[0] == "=" else 2, title, first)
                previous_blank, in_list = False, False
                continue
            if _BREAK.match(line):
                self._flush()
                previous_blank = False
                continue
            if _LIST_ITEM.match(line):
                self._flush()
                in_list = True
                if _RULE_WORDS.search(line):
                    self.rule_items[self.current] = self.rule_items.get(self.current, 0) + 1
                self._text(number, line)
                previous_blank = False
                continue
            if previous_blank and not indented:
                in_list = False
            self.paragraph.append((number, line))
            previous_blank = False
        self._flush()
        return self._facts()

    # -- blocks ----------------------------------------------------------------------------

    def _front_matter(self) -> int:
        if not self.lines or self.lines[0].strip() != "---":
            return 0
        for index in range(1, min(len(self.lines), _FRONT_MATTER_LINES)):
            if self.lines[index].strip() in ("---", "..."):
                for line in self.lines[1:index]:
                    found = _FRONT_FIELD.match(line)
                    if found:
                        self.front.setdefault(found.group(1).lower(), found.group(2).strip("'\""))
                return index + 1
        return 0

    def _collect_definitions(self, start: int) -> None:
        fence: tuple[str, int] | None = None
        for line in self.lines[start:]:
            opening = _FENCE.match(line)
            if fence is not None:
                if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= fence[1]:
                    fence = None
                continue
            if opening:
                fence = (opening.group(1)[0], len(opening.group(1)))
                continue
            found = _REF_DEF.match(line)
            if found:
                self.definitions.setdefault(_label(found.group(1)), found.group(2))

    def _flush(self) -> None:
        for number, line in self.paragraph:
            self._text(number, line)
        self.paragraph.clear()

    def _text(self, number: int, line: str) -> None:
        self.texts[self.current].append(line.strip())
        self.raw[self.current].append(line)
        self._references(number, line)

    def _open(self, level: int, raw_title: str, number: int) -> None:
        while self.stack and self.sections[self.stack[-1]]["level"] >= level:
            self.stack.pop()
        parent = self.stack[-1] if self.stack else -1
        index = len(self.sections)
        self.sections.append(
            {"level": level, "title": plain(raw_title), "parent": parent, "start": number}
        )
        self.stack.append(index)
        self.current = index
        self.texts[index] = []
        self.raw[index] = [raw_title]
        self._references(number, raw_title)

    # -- inline ----------------------------------------------------------------------------

    def _references(self, number: int, line: str) -> None:
        if len(self.references) >= MAX_REFERENCES:
            return
        line = _COMMENT.sub(" ", line.replace("\\`", "\0"))
        for found in _CODE_SPAN.finditer(line):
            code = found.group(2).strip().replace("\0", "`")
            if code:
                self._reference(number, "code", code, code)
        rest = _CODE_SPAN.sub(" ", line)
        for found in _INLINE_LINK.finditer(rest):
            if not found.group(1):
                destination = found.group(3).strip("<>").strip()
                if destination:
                    self._reference(number, "link", destination, plain(found.group(2)))
        for found in _REF_LINK.finditer(rest):
            label = found.group(3) or found.group(2)
            destination = self.definitions.get(_label(label))
            if destination and not found.group(1):
                self._reference(number, "link", destination, plain(found.group(2)))
        rest = _REF_LINK.sub(" ", _INLINE_LINK.sub(" ", rest))
        for found in _SHORTCUT_LINK.finditer(rest):
            destination = self.definitions.get(_label(found.group(1)))
            if destination:
                self._reference(number, "link", destination, plain(found.group(1)))

    def _reference(self, number: int, kind: str, target: str, text: str) -> None:
        if len(self.references) < MAX_REFERENCES:
            self.references.append(Reference(self.current, number, kind, target, text))

    # -- result ----------------------------------------------------------------------------

    def _facts(self) -> DocFacts:
        total = max(len(self.lines), 1)
        levels_one = [i for i, s in enumerate(self.sections) if s["level"] == 1]
        # The only level-1 heading, first of all headings, is the document's title, not a section.
        titled = len(levels_one) == 1 and levels_one[0] == 0
        anchors: dict[str, int] = {}
        ends = self._ends(total)
        sections: list[Section] = []
        renumber: dict[int, int] = {-1: -1}
        for index, section in enumerate(self.sections):
            base = slug(section["title"])
            seen = anchors.get(base)
            anchors[base] = 0 if seen is None else seen + 1
            anchor = base if seen is None else f"{base}-{seen + 1}"
            if titled and index == 0:
                renumber[0] = -1
                continue
            renumber[index] = len(sections)
            own = "\n".join(self.raw[index])
            sections.append(
                Section(
                    level=section["level"],
                    title=section["title"],
                    anchor=anchor,
                    parent=renumber[section["parent"]],
                    start_line=section["start"],
                    end_line=ends[index],
                    text=_cap(self.texts[index]),
                    content_hash=sha256(own.encode("utf-8", "replace")).hexdigest(),
                    rule_items=self.rule_items.get(index, 0),
                )
            )
        intro_lines = list(self.texts[-1])
        if titled:
            intro_lines += self.texts[0]
        references = tuple(r._replace(section=renumber[r.section]) for r in self.references)
        title = self.front.get("title") or (self.sections[0]["title"] if titled else None)
        return DocFacts(
            title=title or None,
            intro=_cap(intro_lines),
            sections=tuple(sections),
            references=references,
            status=self._status(sections, intro_lines),
        )

    def _ends(self, total: int) -> list[int]:
        ends = []
        for index, section in enumerate(self.sections):
            end = total
            for later in self.sections[index + 1 :]:
                if later["level"] <= section["level"]:
                    end = later["start"] - 1
                    break
            ends.append(max(end, section["start"]))
        return ends

    def _status(self, sections: list[Section], intro: list[str]) -> str | None:
        if self.front.get("status"):
            return self.front["status"]
        for section in sections:
            if section.title.strip().lower() == "status":
                for line in section.text.splitlines():
                    if line.strip():
                        return plain(line.lstrip("-*+ \t")) or None
        for line in intro + [line for s in sections[:1] for line in s.text.splitlines()]:
            found = _STATUS_LINE.match(line)
            if found:
                return plain(found.group(1)) or None
        return None
