"""Import and Decorator nodes of the tree-sitter languages: exact nodes and edges on the
tests/fixtures/ingest/statements tree (TypeScript decorators, Java/Kotlin annotations, C# and PHP
attributes, Rust attributes; imports of every family)."""

from __future__ import annotations


# id → (name, qualified name, start line, end line, language, signature)
NODES = {
    'decorator:cs/Service.cs:Service.Run@Logged': ('@Logged', 'Shop.Service.Run[@Logged]', 8, 8, 'csharp', '[Logged]'),
    'decorator:cs/Service.cs:Service@Logged': ('@Logged', 'Shop.Service[@Logged]', 6, 6, 'csharp', '[Logged]'),
    'decorator:cs/Service.cs:Service@Obsolete': ('@Obsolete', 'Shop.Service[@Obsolete]', 6, 6, 'csharp', '[Obsolete("old")]'),
    'decorator:java/com/shop/Cart.java:Cart.toString@Audited': ('@Audited', 'com.shop.Cart.toString[@Audited]', 8, 8, 'java', '@Audited'),
    'decorator:java/com/shop/Cart.java:Cart.toString@Override': ('@Override', 'com.shop.Cart.toString[@Override]', 7, 7, 'java', '@Override'),
    'decorator:java/com/shop/Cart.java:Cart@Audited': ('@Audited', 'com.shop.Cart[@Audited]', 5, 5, 'java', '@Audited'),
    'decorator:kt/Repo.kt:Repo.load@Tracked': ('@Tracked', 'shop.Repo.load[@Tracked]', 9, 9, 'kotlin', '@Tracked'),
    'decorator:kt/Repo.kt:Repo@Tracked': ('@Tracked', 'shop.Repo[@Tracked]', 7, 7, 'kotlin', '@Tracked'),
    'decorator:php/Routes.php:home@Route': ('@Route', 'App\\home[@Route]', 8, 8, 'php', '#[Route("/home")]'),
    'decorator:rs/src/lib.rs:Cart@derive': ('@derive', 'shop::Cart[@derive]', 4, 4, 'rust', '#[derive(Debug)]'),
    'decorator:rs/src/lib.rs:total@inline': ('@inline', 'shop::total[@inline]', 7, 7, 'rust', '#[inline]'),
    'decorator:ts/app.ts:App.title@Input': ('@Input', 'ts/app:App.title[@Input]', 6, 6, 'typescript', '@Input()'),
    'decorator:ts/app.ts:App@Component': ('@Component', 'ts/app:App[@Component]', 4, 4, 'typescript', '@Component({ tag: "app" })'),
    'import:c/main.c:stdio.h': ('#include <stdio.h>', 'c/main.c[#include <stdio.h>]', 1, 1, 'c', '#include <stdio.h>'),
    'import:c/main.c:util.h': ('#include "util.h"', 'c/main.c[#include "util.h"]', 2, 2, 'c', '#include "util.h"'),
    'import:cs/Service.cs:System.*': ('using System;', 'cs/Service.cs[using System;]', 1, 1, 'csharp', 'using System;'),
    'import:go/main.go:fmt': ('import "fmt"', 'go/main.go[import "fmt"]', 4, 4, 'go', 'import "fmt"'),
    'import:go/main.go:u': ('import u "example.com/shop/util"', 'go/main.go[import u "example.com/shop/util"]', 5, 5, 'go', 'import u "example.com/shop/util"'),
    'import:java/com/shop/Cart.java:List': ('import java.util.List;', 'java/com/shop/Cart.java[import java.util.List;]', 3, 3, 'java', 'import java.util.List;'),
    'import:kt/Repo.kt:max': ('import kotlin.math.max', 'kt/Repo.kt[import kotlin.math.max]', 3, 3, 'kotlin', 'import kotlin.math.max'),
    'import:php/Routes.php:R': ('use App\\Http\\Route as R;', 'php/Routes.php[use App\\Http\\Route as R;]', 4, 4, 'php', 'use App\\Http\\Route as R;'),
    'import:rb/cart.rb:json': ('require "json"', 'rb/cart.rb[require "json"]', 2, 2, 'ruby', 'require "json"'),
    'import:rb/cart.rb:pricing': ('require_relative "pricing"', 'rb/cart.rb[require_relative "pricing"]', 1, 1, 'ruby', 'require_relative "pricing"'),
    'import:rs/src/lib.rs:helper': ('use crate::util::helper;', 'rs/src/lib.rs[use crate::util::helper;]', 2, 2, 'rust', 'use crate::util::helper;'),
    'import:rs/src/lib.rs:util': ('mod util;', 'rs/src/lib.rs[mod util;]', 1, 1, 'rust', 'mod util;'),
    'import:ts/app.ts:Component': ('import { Component, Input } from "./deco"; (Component)', 'ts/app.ts[import { Component, Input } from "./deco"; (Component)]', 1, 1, 'typescript', 'import { Component, Input } from "./deco";'),
    'import:ts/app.ts:Input': ('import { Component, Input } from "./deco"; (Input)', 'ts/app.ts[import { Component, Input } from "./deco"; (Input)]', 1, 1, 'typescript', 'import { Component, Input } from "./deco";'),
    'import:ts/app.ts:path': ('import * as path from "path";', 'ts/app.ts[import * as path from "path";]', 2, 2, 'typescript', 'import * as path from "path";'),
}

# (source, relation, target, confidence) of CONTAINS edges to them, RESOLVES_TO, APPLIES_TO and
# DECORATES. External imports and decorators (`java.util.List`, `@Override`, `#[derive]`, `fmt`,
# `<stdio.h>`) resolve to nothing; C#'s `[Logged]` names `LoggedAttribute`.
EDGES = {
    ('class:cs/Service.cs:LoggedAttribute', 'DECORATES', 'class:cs/Service.cs:Service', 'EXTRACTED'),
    ('class:cs/Service.cs:LoggedAttribute', 'DECORATES', 'method:cs/Service.cs:Service.Run', 'EXTRACTED'),
    ('class:cs/Service.cs:Service', 'CONTAINS', 'decorator:cs/Service.cs:Service@Logged', 'EXTRACTED'),
    ('class:cs/Service.cs:Service', 'CONTAINS', 'decorator:cs/Service.cs:Service@Obsolete', 'EXTRACTED'),
    ('class:java/com/shop/Cart.java:Cart', 'CONTAINS', 'decorator:java/com/shop/Cart.java:Cart@Audited', 'EXTRACTED'),
    ('class:kt/Repo.kt:Repo', 'CONTAINS', 'decorator:kt/Repo.kt:Repo@Tracked', 'EXTRACTED'),
    ('class:kt/Repo.kt:Tracked', 'DECORATES', 'class:kt/Repo.kt:Repo', 'EXTRACTED'),
    ('class:kt/Repo.kt:Tracked', 'DECORATES', 'method:kt/Repo.kt:Repo.load', 'EXTRACTED'),
    ('class:php/Routes.php:Route', 'DECORATES', 'function:php/Routes.php:home', 'EXTRACTED'),
    ('class:ts/app.ts:App', 'CONTAINS', 'decorator:ts/app.ts:App@Component', 'EXTRACTED'),
    ('decorator:cs/Service.cs:Service.Run@Logged', 'APPLIES_TO', 'method:cs/Service.cs:Service.Run', 'EXTRACTED'),
    ('decorator:cs/Service.cs:Service.Run@Logged', 'RESOLVES_TO', 'class:cs/Service.cs:LoggedAttribute', 'EXTRACTED'),
    ('decorator:cs/Service.cs:Service@Logged', 'APPLIES_TO', 'class:cs/Service.cs:Service', 'EXTRACTED'),
    ('decorator:cs/Service.cs:Service@Logged', 'RESOLVES_TO', 'class:cs/Service.cs:LoggedAttribute', 'EXTRACTED'),
    ('decorator:cs/Service.cs:Service@Obsolete', 'APPLIES_TO', 'class:cs/Service.cs:Service', 'EXTRACTED'),
    ('decorator:java/com/shop/Cart.java:Cart.toString@Audited', 'APPLIES_TO', 'method:java/com/shop/Cart.java:Cart.toString', 'EXTRACTED'),
    ('decorator:java/com/shop/Cart.java:Cart.toString@Audited', 'RESOLVES_TO', 'interface:java/com/shop/Audited.java:Audited', 'INFERRED'),
    ('decorator:java/com/shop/Cart.java:Cart.toString@Override', 'APPLIES_TO', 'method:java/com/shop/Cart.java:Cart.toString', 'EXTRACTED'),
    ('decorator:java/com/shop/Cart.java:Cart@Audited', 'APPLIES_TO', 'class:java/com/shop/Cart.java:Cart', 'EXTRACTED'),
    ('decorator:java/com/shop/Cart.java:Cart@Audited', 'RESOLVES_TO', 'interface:java/com/shop/Audited.java:Audited', 'INFERRED'),
    ('decorator:kt/Repo.kt:Repo.load@Tracked', 'APPLIES_TO', 'method:kt/Repo.kt:Repo.load', 'EXTRACTED'),
    ('decorator:kt/Repo.kt:Repo.load@Tracked', 'RESOLVES_TO', 'class:kt/Repo.kt:Tracked', 'EXTRACTED'),
    ('decorator:kt/Repo.kt:Repo@Tracked', 'APPLIES_TO', 'class:kt/Repo.kt:Repo', 'EXTRACTED'),
    ('decorator:kt/Repo.kt:Repo@Tracked', 'RESOLVES_TO', 'class:kt/Repo.kt:Tracked', 'EXTRACTED'),
    ('decorator:php/Routes.php:home@Route', 'APPLIES_TO', 'function:php/Routes.php:home', 'EXTRACTED'),
    ('decorator:php/Routes.php:home@Route', 'RESOLVES_TO', 'class:php/Routes.php:Route', 'EXTRACTED'),
    ('decorator:rs/src/lib.rs:Cart@derive', 'APPLIES_TO', 'struct:rs/src/lib.rs:Cart', 'EXTRACTED'),
    ('decorator:rs/src/lib.rs:total@inline', 'APPLIES_TO', 'function:rs/src/lib.rs:total', 'EXTRACTED'),
    ('decorator:ts/app.ts:App.title@Input', 'APPLIES_TO', 'method:ts/app.ts:App.title', 'EXTRACTED'),
    ('decorator:ts/app.ts:App.title@Input', 'RESOLVES_TO', 'function:ts/deco.ts:Input', 'INFERRED'),
    ('decorator:ts/app.ts:App@Component', 'APPLIES_TO', 'class:ts/app.ts:App', 'EXTRACTED'),
    ('decorator:ts/app.ts:App@Component', 'RESOLVES_TO', 'function:ts/deco.ts:Component', 'INFERRED'),
    ('file:c/main.c', 'CONTAINS', 'import:c/main.c:stdio.h', 'EXTRACTED'),
    ('file:c/main.c', 'CONTAINS', 'import:c/main.c:util.h', 'EXTRACTED'),
    ('file:cs/Service.cs', 'CONTAINS', 'import:cs/Service.cs:System.*', 'EXTRACTED'),
    ('file:go/main.go', 'CONTAINS', 'import:go/main.go:fmt', 'EXTRACTED'),
    ('file:go/main.go', 'CONTAINS', 'import:go/main.go:u', 'EXTRACTED'),
    ('file:java/com/shop/Cart.java', 'CONTAINS', 'import:java/com/shop/Cart.java:List', 'EXTRACTED'),
    ('file:kt/Repo.kt', 'CONTAINS', 'import:kt/Repo.kt:max', 'EXTRACTED'),
    ('file:php/Routes.php', 'CONTAINS', 'import:php/Routes.php:R', 'EXTRACTED'),
    ('file:rb/cart.rb', 'CONTAINS', 'import:rb/cart.rb:json', 'EXTRACTED'),
    ('file:rb/cart.rb', 'CONTAINS', 'import:rb/cart.rb:pricing', 'EXTRACTED'),
    ('file:rs/src/lib.rs', 'CONTAINS', 'import:rs/src/lib.rs:helper', 'EXTRACTED'),
    ('file:rs/src/lib.rs', 'CONTAINS', 'import:rs/src/lib.rs:util', 'EXTRACTED'),
    ('file:ts/app.ts', 'CONTAINS', 'import:ts/app.ts:Component', 'EXTRACTED'),
    ('file:ts/app.ts', 'CONTAINS', 'import:ts/app.ts:Input', 'EXTRACTED'),
    ('file:ts/app.ts', 'CONTAINS', 'import:ts/app.ts:path', 'EXTRACTED'),
    ('function:php/Routes.php:home', 'CONTAINS', 'decorator:php/Routes.php:home@Route', 'EXTRACTED'),
    ('function:rs/src/lib.rs:total', 'CONTAINS', 'decorator:rs/src/lib.rs:total@inline', 'EXTRACTED'),
    ('function:ts/deco.ts:Component', 'DECORATES', 'class:ts/app.ts:App', 'INFERRED'),
    ('function:ts/deco.ts:Input', 'DECORATES', 'method:ts/app.ts:App.title', 'INFERRED'),
    ('import:c/main.c:util.h', 'RESOLVES_TO', 'file:c/util.h', 'EXTRACTED'),
    ('import:go/main.go:u', 'RESOLVES_TO', 'module:example.com/shop/util', 'EXTRACTED'),
    ('import:rb/cart.rb:pricing', 'RESOLVES_TO', 'file:rb/pricing.rb', 'EXTRACTED'),
    ('import:rs/src/lib.rs:helper', 'RESOLVES_TO', 'file:rs/src/util.rs', 'EXTRACTED'),
    ('import:rs/src/lib.rs:helper', 'RESOLVES_TO', 'function:rs/src/util.rs:helper', 'INFERRED'),
    ('import:rs/src/lib.rs:util', 'RESOLVES_TO', 'file:rs/src/util.rs', 'EXTRACTED'),
    ('import:ts/app.ts:Component', 'RESOLVES_TO', 'file:ts/deco.ts', 'EXTRACTED'),
    ('import:ts/app.ts:Component', 'RESOLVES_TO', 'function:ts/deco.ts:Component', 'INFERRED'),
    ('import:ts/app.ts:Input', 'RESOLVES_TO', 'file:ts/deco.ts', 'EXTRACTED'),
    ('import:ts/app.ts:Input', 'RESOLVES_TO', 'function:ts/deco.ts:Input', 'INFERRED'),
    ('interface:java/com/shop/Audited.java:Audited', 'DECORATES', 'class:java/com/shop/Cart.java:Cart', 'INFERRED'),
    ('interface:java/com/shop/Audited.java:Audited', 'DECORATES', 'method:java/com/shop/Cart.java:Cart.toString', 'INFERRED'),
    ('method:cs/Service.cs:Service.Run', 'CONTAINS', 'decorator:cs/Service.cs:Service.Run@Logged', 'EXTRACTED'),
    ('method:java/com/shop/Cart.java:Cart.toString', 'CONTAINS', 'decorator:java/com/shop/Cart.java:Cart.toString@Audited', 'EXTRACTED'),
    ('method:java/com/shop/Cart.java:Cart.toString', 'CONTAINS', 'decorator:java/com/shop/Cart.java:Cart.toString@Override', 'EXTRACTED'),
    ('method:kt/Repo.kt:Repo.load', 'CONTAINS', 'decorator:kt/Repo.kt:Repo.load@Tracked', 'EXTRACTED'),
    ('method:ts/app.ts:App.title', 'CONTAINS', 'decorator:ts/app.ts:App.title@Input', 'EXTRACTED'),
    ('struct:rs/src/lib.rs:Cart', 'CONTAINS', 'decorator:rs/src/lib.rs:Cart@derive', 'EXTRACTED'),
}


def test_statement_nodes_are_exact(build_fixture):
    built = build_fixture("statements")
    found = {
        n.id: (n.name, n.qualified_name, n.start_line, n.end_line, n.language, n.signature)
        for n in built.nodes
        if n.kind in ("Import", "Decorator")
    }
    assert found == NODES
    for n in built.nodes:
        if n.kind in ("Import", "Decorator"):
            assert n.kind == ("Import" if n.id.startswith("import:") else "Decorator")
            assert n.file == n.id.split(":")[1] and n.docstring is None and len(n.content_hash) == 64


def test_statement_edges_are_exact(build_fixture):
    built = build_fixture("statements")
    found = {
        (e.source, e.relation, e.target, e.confidence)
        for e in built.edges
        if e.relation in ("RESOLVES_TO", "APPLIES_TO", "DECORATES") or e.target.startswith(("import:", "decorator:"))
    }
    assert found == EDGES
    for e in built.edges:
        if e.relation in ("RESOLVES_TO", "APPLIES_TO"):
            assert e.explanation and e.file and e.line and e.confidence_score > 0, e


def test_explanations(build_fixture):
    edges = {(e.source, e.relation, e.target): e for e in build_fixture("statements").edges}
    binds = edges[("import:ts/app.ts:Input", "RESOLVES_TO", "function:ts/deco.ts:Input")]
    assert (binds.explanation, binds.confidence_score, binds.line) == (
        '`import { Component, Input } from "./deco"; (Input)` at ts/app.ts:1 binds `Input` to `ts/deco:Input`', 0.8, 1
    )
    annotation = edges[("decorator:java/com/shop/Cart.java:Cart@Audited", "RESOLVES_TO",
                        "interface:java/com/shop/Audited.java:Audited")]  # fmt: skip
    assert annotation.explanation == (
        "`@Audited` at java/com/shop/Cart.java:5 resolved in the same package `com.shop` to `com.shop.Audited`"
    )
    loads = edges[("import:go/main.go:u", "RESOLVES_TO", "module:example.com/shop/util")]
    assert loads.explanation == '`import u "example.com/shop/util"` at go/main.go:5 loads module `example.com/shop/util`'
