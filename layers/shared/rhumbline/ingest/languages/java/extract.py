"""Phase 1 for Java.

Qualnames use `.`: `Cart`, `Cart.add`, nested types `Cart.Line`, constructors `Cart.Cart`. Overloads
share one qualname: the first declaration is the node, later ones add their calls to it. Kinds:
class and record → Class (the signature says which), interface and `@interface` → Interface, enum
→ Enum; `extends` and `implements` are the bases. Doc comments: the Javadoc (or `//` block) above,
annotations and modifiers being part of the declaration.

Calls: `m()`, `obj.m()`, `a.b.m()`, `this.m()`, `Outer.this.m()`, `super.m()`, `a().b().m()`
(`a().b().m`: phase 2 reads each method's declared return type), `new Cart()` (`new Cart`),
`super(…)` in a constructor (`super`), `this(…)` (`new this`: the enclosing class).
Parameters, locals (`var x = new Cart()`, enhanced-for and catch variables included) and fields
(recorded as locals of their class) carry their declared types for receiver resolution; one
holding elements (`Item[] xs`, `List<Item> xs`, `Map<K, Item> xs`, `Optional<Item> xs`) also
records its element type as the local `xs[]`, and an indexed receiver `xs[0].m()` is the call
`xs[].m` (phase 2 reads `xs.get(0).m()` through `xs[]` too).
Imports: `import a.b.C` → module `a.b`, name `C`; `a.b.*` → name `*`; `import static a.b.C.m` →
module `a.b.C`, name `m`, level 1. CodeFacts.namespace = the package.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import DecoratorFact
from rhumbline.ingest.languages.polyglot.decorators import java_annotations
from rhumbline.ingest.languages.polyglot.extract import Context, DefSpec, LanguageExtractor
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(class_declaration name: (_) @name) @definition.class
(record_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(annotation_type_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(method_declaration name: (_) @name) @definition.method
(constructor_declaration name: (_) @name) @definition.method
(compact_constructor_declaration name: (_) @name) @definition.method
(method_invocation) @call
(object_creation_expression) @call
(explicit_constructor_invocation) @call
(import_declaration) @import
(local_variable_declaration) @local
(field_declaration) @local
(enhanced_for_statement) @local
(catch_formal_parameter) @local
"""


class JavaExtractor(LanguageExtractor):
    separator = "."
    query_text = QUERY
    comment_types = frozenset({"line_comment", "block_comment"})

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return java_annotations(x, spec.node)

    def language(self) -> Language:
        import tree_sitter_java

        return Language(tree_sitter_java.language())

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        if spec.kind == "Function":
            return spec._replace(parameters=self._parameters(x, spec.node.child_by_field_name("parameters")))
        return spec._replace(bases=self._bases(x, spec.node))

    def _bases(self, x: Context, node: Node) -> tuple[str, ...]:
        found: list[str] = []
        for child in node.named_children:
            if child.type in ("superclass", "super_interfaces", "extends_interfaces"):
                for part in child.named_children:
                    types = part.named_children if part.type == "type_list" else [part]
                    for written in types:
                        name = type_name(x.text(written))
                        if name:
                            found.append(name)
        return tuple(found)

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            if parameter.type in ("formal_parameter", "spread_parameter"):
                name = parameter.child_by_field_name("name")
                written = type_name(x.text(parameter.child_by_field_name("type")))
                if name is None:  # spread_parameter: the declarator holds the name
                    for child in parameter.named_children:
                        if child.type == "variable_declarator":
                            name = child.child_by_field_name("name")
                if name is not None:
                    found.append(f"{x.text(name)}:{written}" if written else x.text(name))
                    element = _element_type(x, parameter.child_by_field_name("type"))
                    if element:
                        found.append(f"{x.text(name)}[]:{element}")
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        if node.type == "object_creation_expression":
            written = type_name(x.text(node.child_by_field_name("type")))
            return f"new {written}" if written else None
        if node.type == "explicit_constructor_invocation":
            constructor = node.child_by_field_name("constructor")
            if constructor is not None and constructor.type == "super":
                return "super"
            # `this(…)`: another constructor of the class, i.e. the enclosing class.
            return "new this" if constructor is not None and constructor.type == "this" else ""
        name = node.child_by_field_name("name")
        if name is None:
            return None
        target = node.child_by_field_name("object")
        if target is None:
            return x.text(name)
        receiver = _dotted(x, target)
        if receiver is None and target.type == "array_access":  # `items[0].open()`
            array = target.child_by_field_name("array")
            held = _dotted(x, array) if array is not None else None
            receiver = f"{held}[]" if held else None
        if receiver is None and target.type == "method_invocation":  # `Cmd.builder().build()`
            inner = self.call(x, target)
            receiver = f"{inner}()" if inner else None
        return f"{receiver}.{x.text(name)}" if receiver else None

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        path = None
        star = static = False
        for child in node.children:
            if child.type in ("scoped_identifier", "identifier"):
                path = x.text(child)
            elif child.type == "asterisk":
                star = True
            elif child.type == "static":
                static = True
        if path is None:
            return ()
        level = 1 if static else 0
        if star:
            return ((path, "*", None, level),)
        module, _, name = path.rpartition(".")
        return ((module, name, None, level),)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "catch_formal_parameter":  # `catch (IOException | X e)`: one type or none
            name = node.child_by_field_name("name")
            types = [c for c in node.named_children if c.type == "catch_type"]
            caught = types[0].named_children if types else []
            written = type_name(x.text(caught[0])) if len(caught) == 1 else None
            return ((x.text(name), written),) if name is not None else ()
        if node.type == "enhanced_for_statement":  # `for (Map.Entry<K, V> e : entries)`
            name = node.child_by_field_name("name")
            written = type_name(x.text(node.child_by_field_name("type")))
            return ((x.text(name), None if written == "var" else written),) if name is not None else ()
        written = type_name(x.text(node.child_by_field_name("type")))
        element = _element_type(x, node.child_by_field_name("type"))
        found = []
        for declarator in node.children_by_field_name("declarator"):
            name = declarator.child_by_field_name("name")
            if name is None:
                continue
            type_text = written
            if type_text == "var":
                value = declarator.child_by_field_name("value")
                type_text = None
                if value is not None and value.type == "object_creation_expression":
                    type_text = type_name(x.text(value.child_by_field_name("type")))
            found.append((x.text(name), type_text))
            if element:
                found.append((f"{x.text(name)}[]", element))
        return found

    def module_facts(self, x: Context, root: Node):
        for child in root.named_children:
            if child.type == "package_declaration":
                for part in child.named_children:
                    if part.type in ("scoped_identifier", "identifier"):
                        return [], None, x.text(part)
        return [], None, None


# `java.util` types whose elements (the last type argument: a map's values) come back from
# `get`, `next`, `orElse`…: phase 2 types those results by the element.
_CONTAINERS = frozenset(
    """
    Collection List ArrayList LinkedList Vector Stack CopyOnWriteArrayList Set HashSet TreeSet
    LinkedHashSet SortedSet NavigableSet EnumSet Queue Deque ArrayDeque PriorityQueue BlockingQueue
    Iterable Iterator ListIterator Enumeration Optional Map HashMap TreeMap LinkedHashMap SortedMap
    NavigableMap ConcurrentMap ConcurrentHashMap EnumMap WeakHashMap IdentityHashMap
    """.split()
)
_CONTAINER_NAMES = _CONTAINERS | {f"java.util.{name}" for name in _CONTAINERS}


def _element_type(x: Context, node: Node | None) -> str | None:
    """The element type of a written array or `java.util` container type (`Item[]`,
    `List<Item>`, `Map<String, Item>`, `List<? extends Item>` → `Item`); None otherwise."""
    if node is None:
        return None
    if node.type == "array_type":
        element = node.child_by_field_name("element")
        dimensions = node.child_by_field_name("dimensions")
        if element is None or dimensions is None or x.text(dimensions).count("[") != 1:
            return None  # `Item[][]`: an element is an array
        return type_name(x.text(element))
    if node.type != "generic_type" or type_name(x.text(node)) not in _CONTAINER_NAMES:
        return None
    arguments = [c for c in node.named_children if c.type == "type_arguments"]
    written = arguments[0].named_children if arguments else []
    if not written:
        return None
    last = written[-1]
    if last.type == "wildcard":  # `? extends Item`: its bound
        bounds = last.named_children
        return type_name(x.text(bounds[-1])) if bounds and "super" not in x.text(last) else None
    return None if last.type in ("array_type", "generic_type") else type_name(x.text(last))


def _dotted(x: Context, node: Node) -> str | None:
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "this":
        return "this"
    if kind == "super":
        return "super"
    if kind == "field_access":
        target = node.child_by_field_name("object")
        field = node.child_by_field_name("field")
        base = _dotted(x, target) if target is not None else None
        if base is None or field is None:
            return None
        return f"{base}.{x.text(field)}"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(x, node.named_child(0))
    return None


extract_java = JavaExtractor()
