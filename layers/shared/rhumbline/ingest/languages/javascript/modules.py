"""JavaScript / TypeScript module-level facts: imports (ES `import`, `export … from`, CommonJS
`require`, TS `import x = require`) and exports (`export` declarations and clauses, CommonJS
`module.exports` / `exports.x`), with the module-level variables found on the same pass.

The shapes they take (ImportFact names, aliases, levels; `exported=local` pairs) are described in
javascript/extract.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from rhumbline.ingest.facts import Variable
from rhumbline.ingest.languages.javascript.syntax import (
    CALL_RESULT,
    DECLARATIONS,
    FUNCTION_VALUES,
    dotted,
    first_identifier,
    is_require,
    string_value,
)
from rhumbline.ingest.languages.polyglot.extract import Context, variable


# -- imports -------------------------------------------------------------------------------------
def import_bindings(x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
    if node.type == "call_expression":
        return require_bindings(x, node)
    source = node.child_by_field_name("source")
    if source is None:  # TS `import fs = require("fs")`: the source is in the clause
        for child in node.named_children:
            if child.type == "import_require_clause":
                source = child.child_by_field_name("source")
    module = string_value(x, source)
    if module is None:
        return []
    if node.type == "export_statement":
        return re_export_bindings(x, node, module)
    found: list[tuple[str, str | None, str | None, int]] = []
    for child in node.named_children:
        if child.type == "import_clause":
            for part in child.named_children:
                if part.type == "identifier":
                    found.append((module, "default", x.text(part), 0))
                elif part.type == "namespace_import":
                    alias = first_identifier(part)
                    found.append((module, "*", x.text(alias) if alias else None, 0))
                elif part.type == "named_imports":
                    for specifier in part.named_children:
                        if specifier.type == "import_specifier":
                            name = specifier.child_by_field_name("name")
                            alias = specifier.child_by_field_name("alias")
                            found.append(
                                (module, x.text(name), x.text(alias) if alias else None, 0)
                            )
        elif child.type == "import_require_clause":  # TS `import fs = require("fs")`
            alias = first_identifier(child)
            found.append((module, None, x.text(alias) if alias else None, 0))
    return found or [(module, None, None, 0)]

def import_statement(x: Context, node: Node) -> str:
    if node.type == "call_expression":  # require(): quote its declaration
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator" and parent.parent:
            return x.text(parent.parent)
    return x.text(node)

def re_export_bindings(x: Context, node: Node, module: str) -> list:
    found = []
    for child in node.named_children:
        if child.type == "export_clause":
            for specifier in child.named_children:
                if specifier.type == "export_specifier":
                    name = specifier.child_by_field_name("name")
                    alias = specifier.child_by_field_name("alias")
                    exported = x.text(alias) if alias is not None else x.text(name)
                    found.append((module, x.text(name), exported, 1))
        elif child.type == "namespace_export":  # `export * as ns from`
            alias = first_identifier(child)
            found.append((module, "*", x.text(alias) if alias else None, 1))
    return found or [(module, "*", None, 1)]

def require_bindings(x: Context, node: Node) -> list:
    arguments = node.child_by_field_name("arguments")
    argument = arguments.named_child(0) if arguments and arguments.named_child_count else None
    module = string_value(x, argument)
    if module is None:
        return []
    declarator = node.parent
    if declarator is None or declarator.type != "variable_declarator":
        return [(module, None, None, 0)]
    target = declarator.child_by_field_name("name")
    if target is None:
        return [(module, None, None, 0)]
    if target.type == "identifier":
        return [(module, None, x.text(target), 0)]
    found = []
    if target.type == "object_pattern":
        for part in target.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                found.append((module, x.text(part), None, 0))
            elif part.type == "pair_pattern":
                key = part.child_by_field_name("key")
                value = part.child_by_field_name("value")
                if key is not None and value is not None and value.type == "identifier":
                    found.append((module, x.text(key), x.text(value), 0))
    return found or [(module, None, None, 0)]


# -- module level: variables and exports --------------------------------------------------------
def module_level_facts(
    x: Context, root: Node
) -> tuple[list[Variable], tuple[str, ...] | None, None]:
    variables: dict[str, Variable] = {}
    exports: list[str] = []
    for child in root.named_children:
        statement = child
        exported = child.type == "export_statement"
        if exported:
            add_exports(x, child, exports)
            declaration = child.child_by_field_name("declaration")
            if declaration is None:
                continue
            child = declaration
        if child.type in DECLARATIONS:
            for declarator in child.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = declarator.child_by_field_name("name")
                value = declarator.child_by_field_name("value")
                if name is None or name.type != "identifier":
                    continue
                if value is not None and (
                    value.type in FUNCTION_VALUES or is_require(x, value)
                ):
                    continue
                text = x.text(name)
                variables.setdefault(text, variable(x, statement, text, _held(x, value)))
        elif child.type == "expression_statement":
            _commonjs_exports(x, child, exports)
    return list(variables.values()), tuple(dict.fromkeys(exports)) or None, None

def _held(x: Context, value: Node | None) -> str | None:
    """What a module-level variable holds when it says: a name (`g = f`, `Object.keys`), or a
    named function's result (`f()`)."""
    if value is not None and value.type == "call_expression":
        called = dotted(x, value.child_by_field_name("function"))
        return f"{called}{CALL_RESULT}" if called else None
    return dotted(x, value)


def add_exports(x: Context, node: Node, exports: list[str]) -> None:
    if node.child_by_field_name("source") is not None:
        return  # a re-export: an import fact
    default = any(child.type == "default" for child in node.children)
    declaration = node.child_by_field_name("declaration")
    value = node.child_by_field_name("value")
    if declaration is not None:
        names = _declared_names(x, declaration)
        if default:
            exports.extend(f"default={n}" for n in names[:1])
        else:
            exports.extend(f"{n}={n}" for n in names)
        return
    if value is not None:
        if value.type == "identifier":
            exports.append(f"default={x.text(value)}")
        elif value.type in FUNCTION_VALUES or value.type == "class":
            exports.append("default=default")
        return
    for child in node.named_children:
        if child.type == "export_clause":
            for specifier in child.named_children:
                if specifier.type == "export_specifier":
                    name = x.text(specifier.child_by_field_name("name"))
                    alias = specifier.child_by_field_name("alias")
                    exports.append(f"{x.text(alias) if alias else name}={name}")


def _declared_names(x: Context, declaration: Node) -> list[str]:
    if declaration.type in DECLARATIONS:
        names = []
        for declarator in declaration.named_children:
            if declarator.type == "variable_declarator":
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    names.append(x.text(name))
        return names
    name = declaration.child_by_field_name("name")
    return [x.text(name)] if name is not None else []


def _commonjs_exports(x: Context, statement: Node, exports: list[str]) -> None:
    assignment = statement.named_child(0) if statement.named_child_count else None
    if assignment is None or assignment.type != "assignment_expression":
        return
    target = dotted(x, assignment.child_by_field_name("left"))
    value = assignment.child_by_field_name("right")
    if target is None or value is None:
        return
    if target == "module.exports":
        if value.type == "identifier":
            exports.append(f"default={x.text(value)}")
        elif value.type == "object":
            for part in value.named_children:
                if part.type == "shorthand_property_identifier":
                    exports.append(f"{x.text(part)}={x.text(part)}")
                elif part.type == "pair":
                    key = part.child_by_field_name("key")
                    item = part.child_by_field_name("value")
                    if key is not None and item is not None and item.type == "identifier":
                        exports.append(f"{x.text(key)}={x.text(item)}")
        return
    parts = target.split(".")
    if len(parts) == 2 and parts[0] == "exports" or (
        len(parts) == 3 and parts[:2] == ["module", "exports"]
    ):
        name = parts[-1]
        if value.type == "identifier":
            exports.append(f"{name}={x.text(value)}")
        elif value.type in FUNCTION_VALUES:
            exports.append(f"{name}={name}")

