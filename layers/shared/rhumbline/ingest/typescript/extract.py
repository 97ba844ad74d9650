"""Phase 1 for TypeScript and TSX: the JavaScript extractor plus TypeScript's declarations.

Everything in javascript/extract.py applies (qualnames with `.`, imports, exports, CommonJS); plus
interfaces (kind Interface, `extends` as bases), enums (Enum), abstract classes, method signatures
of interfaces and abstract methods (Method), `implements` clauses as bases, `namespace X { }`
blocks prefixing qualnames (`X.inner`), `import x = require("m")`, and types of parameters and
locals (`c: Cart`) for receiver resolution. `.ts` files use the TypeScript grammar, `.tsx` files the
TSX one (they differ on `<T>x` casts versus JSX).
"""

from __future__ import annotations

from tree_sitter import Language

from rhumbline.ingest.javascript.extract import JavaScriptExtractor, TypeScriptMixin

TS_QUERY = """
(internal_module) @scope
(class_declaration) @definition
(abstract_class_declaration) @definition
(interface_declaration) @definition
(enum_declaration) @definition
(function_declaration) @definition
(generator_function_declaration) @definition
(method_definition) @definition
(method_signature) @definition
(abstract_method_signature) @definition
(variable_declarator
  value: [(arrow_function) (function_expression) (generator_function)]) @definition
(public_field_definition value: [(arrow_function) (function_expression)]) @definition
(export_statement value: [(function_expression) (arrow_function) (class)]) @definition
(assignment_expression
  left: (member_expression) right: [(function_expression) (arrow_function)]) @definition
(call_expression) @call
(new_expression) @call
(import_statement) @import
(export_statement source: (_)) @import
(call_expression function: (identifier) @_fn (#eq? @_fn "require")) @import
(variable_declarator name: (identifier)) @local
(assignment_expression left: (member_expression object: (this)) right: (new_expression)) @local
(public_field_definition) @local
"""


class TypeScriptExtractor(TypeScriptMixin, JavaScriptExtractor):
    query_text = TS_QUERY

    def language(self) -> Language:
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_typescript())


class TsxExtractor(TypeScriptExtractor):
    def language(self) -> Language:
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_tsx())


extract_typescript = TypeScriptExtractor()
extract_tsx = TsxExtractor()
