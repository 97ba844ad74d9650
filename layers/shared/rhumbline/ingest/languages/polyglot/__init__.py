"""The tree-sitter languages other than Python: a small shared core, one subpackage per language.

Phase 1 (extract.py): one tree-sitter query per language finds definitions, calls, imports and
typed locals; a language module turns each matched node into facts through a few hooks, and the
engine assigns scopes by a sweep over byte offsets (like python/extract.py). Results are the shared
facts.py records, read with these conventions:

- Definition.kind: Class, Interface, Trait, Struct, Enum, Module (Ruby), Function or Method; the
  declared kind shows in the signature (`record Point`, `object Registry`, `type ID string`).
- Definition.qualname: the name inside the file, with the language's separator (see each
  language's extract module): `Cart.addItem` (JS/TS, Go, Java, Kotlin, C#), `Cart::add` (Rust,
  C++, PHP methods), `Shop::Cart#add` / `Shop::Cart.create` (Ruby instance / singleton methods).
  Namespaces that are block syntax (C++ `namespace`, Rust inline `mod`, TS `namespace`) are part
  of it; package declarations (Java, Kotlin, Go, C#, PHP) are not: they are CodeFacts.namespace.
- Definition.parent: the enclosing definition's qualname, or the owner type a method is declared
  on even when that type is defined elsewhere (Go receivers, Rust `impl`, C++ `Cart::add`).
- Definition.bases: base types as written, dotted (`Base`, `pkg.Base`), generics stripped. On a
  Rust method: the trait its `impl Trait for Type` block implements.
- Definition.parameters: names local to a function — parameters and declared locals — as
  `name` or `name:Type` when the type is written or obvious (`c = new Cart()`); on a class,
  its typed fields; `this.x:Type` for a field a method assigns (`this.x = new X()`, TS
  `constructor(private x: X)`), which types `this.x.m()`.
- CallSite.callee: a dotted path with `.` whatever the language's separator: `f`, `pkg.f`,
  `this.m` (any spelling of the receiver: `this`, `self`, `$this`, a Go/Rust receiver name),
  `super.m` (`super`, `base`, `parent::`), `new Cart` (a constructor: `new`, Ruby `Cart.new`).
- ImportFact: module = the import's path or specifier as written (`./cart`, `example.com/x`,
  `com.shop`), name = the imported name (None: the module itself, `*`: everything), alias = the
  local name; `level` is a per-language flag (1 = a JS re-export, a Ruby require_relative, a PHP
  file include, a Rust `mod` declaration, a C `#include "…"`).
- CodeFacts.exports (JS/TS): `exported=local` pairs (`default=Cart`).
- Definition.decorators: TS decorators, Java/Kotlin annotations, C#/PHP attributes, Rust
  attributes (the extractor's `decorators` hook, polyglot/decorators.py); `::` and `\\` read as dots.

Phase 2 (resolve.py; call resolution in calls.py, the shared vocabulary in symbols.py): each
language family (JavaScript + TypeScript, Java + Kotlin, C + C++, and the others alone) resolves
over all its files with a shared core — class table with bases and members, scope lookup,
`this`/`super`/constructor calls, typed receivers, by-name matching of methods on unknown
receivers — and language hooks for what names mean (imports, packages).
"""
