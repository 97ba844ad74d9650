"""The knowledge layer: Markdown and reStructuredText files → Document, WikiPage, Concept, Rule and
Decision nodes.

Phase 1 turns each document into DocFacts (facts.py): headings with their own text, links and
inline code spans. markdown.py reads `.md` (a line-based parser: no grammar wheel);
restructuredtext.py reads `.rst`, and `.txt` under a docs/ or doc/ directory (Sphinx projects
such as Django keep their reST there), through docutils, Sphinx's code roles (`:func:`,
`:class:`, ...) read as code spans and `:doc:` as a link. Phase 2 (graph.py) runs after every
language, so mentions can resolve to any code node.

Nodes (ids stable across rebuilds; a section's id is its kind, path and GitHub anchor, so the link
`guide.md#installation` and the node `wikipage:docs/guide.md#installation` name the same thing):
- Document `document:<path>` for every Markdown file: name = its title (front matter `title:`, or
  the only level-1 heading when it comes first), docstring = the text before the first section.
- Decision `decision:<path>` for an ADR: a Markdown file with a status (a "Status" section, a
  `Status:` line, or front matter `status:`) kept in a directory named adr/, adrs/, decisions/ or
  decision-records/ (docs/adr/, doc/decisions/, ...), or named `NNNN-title.md` (README, index
  and template files are not decisions). Its name is its title without the number it usually
  starts with ("1. Use SQLite" → "Use SQLite"), the number kept in its signature ("ADR 1; Status:
  Accepted"); docstring = its "Decision" section (else the intro). The ADR is one decision:
  it gets no section nodes, and every link or mention in it is the decision's.
- One node per heading of other documents (the title heading excepted), its docstring the
  section's own text (capped at 2,000 characters), its signature the heading trail
  ("Guide > Setup > Requirements"). The kind:
  - Rule: the heading names rules ("Rules", "Conventions", "Guidelines", "Policy",
    "Requirements", "Standards", "Constraints", "Do's and don'ts"), or the section lists an RFC 2119
    keyword in capitals (MUST, MUST NOT, SHALL, SHOULD, REQUIRED, NEVER, ALWAYS), or its parent
    section is a Rule;
  - Concept: a term defined under a glossary-like heading ("Glossary", "Terminology", "Concepts",
    "Definitions", "Vocabulary", "Key terms"), or a top-level section of a glossary file
    (glossary.md, terminology.md, concepts.md, ...);
  - WikiPage: any other section — a page of the project's written knowledge.

Edges:
- File DEFINES Document; Document DEFINES Decision or its top-level sections; a section DEFINES its
  subsections (EXTRACTED), so every knowledge node has one DEFINES parent, as code does.
- DOCUMENTS from the innermost section (the Document for text before any section, the Decision
  in an ADR) to the code it points at:
  - a relative link to a file of the graph → its File node (EXTRACTED); with a line anchor
    (`models.py#L42`) → the innermost definition around that line; to a directory → Directory;
  - an inline code span naming a path of the graph (`shop/models.py`) → that File or Directory;
  - an inline code span naming code (`QuerySet.filter`, `get_object_or_404()`, `@cached`,
    `Cart::add`) → the code node whose qualified name ends with it on a name boundary, when
    exactly one does: INFERRED (0.8 for a dotted name, 0.5 for a bare name); a name several
    definitions share (`save`) links nothing and counts as unresolved, as does a name nothing
    has. Keywords, builtins and bare names under three characters are never looked up.
- REFERENCES from a section to another document (or the section its anchor names); a link
  without a suffix (`:doc:`) may name a document by its path less `.rst`, `.txt` or `.md`, and
  one starting with `/` starts at the docs/ (or doc/) directory holding the document.
External links (with a scheme) are ignored; links and mentions that name nothing in the graph are
counted as unresolved references.
"""
