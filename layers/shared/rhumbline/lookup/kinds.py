"""Node kinds as the code-context tools group them."""

from __future__ import annotations

from rhumbline.tools.common import KNOWLEDGE_KINDS

CLASS_KINDS = ("Class", "Interface", "Trait", "Struct", "Enum")
CALLABLE_KINDS = ("Function", "Method")
# What a file defines, as `context` lists it: code definitions and knowledge-layer sections.
DEFINITION_KINDS = (*CLASS_KINDS, *CALLABLE_KINDS, "Variable", "Constant", *KNOWLEDGE_KINDS)
# Relations along which a class hierarchy is followed.
HIERARCHY_RELATIONS = ("INHERITS", "IMPLEMENTS")
