"""Phase-1 extractors of the tree-sitter languages on awkward input: nothing raises, and the rules
that are easy to get wrong (doc comments, overloads, C++ headers named .h, minified bundles)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from rhumbline.ingest.facts import CodeFacts
from rhumbline.ingest.languages import extractor_for, families, has_extractor, language_in, language_of

FIXTURES = Path(__file__).parents[3] / "fixtures" / "ingest"
# Every tree-sitter language of the table's polyglot families.
LANGUAGES = sorted(language for members in families().values() for language in members)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_extractor_survives_empty_garbage_and_truncated_input(language):
    extract = extractor_for(language)
    samples = [b"", b"\n\n", b"}}} ((( class def fn func \xc3\xa9 {{{", b"class A extends {"]
    fixtures = [
        path.read_bytes()
        for path in sorted(FIXTURES.rglob("*"))
        if path.is_file() and language_of(path.name) == language
    ]
    samples.extend(data[: len(data) // 2] for data in fixtures)  # cut mid-definition
    for sample in samples:
        facts = extract(sample)
        assert isinstance(facts, CodeFacts)
        assert pickle.loads(pickle.dumps(facts)) == facts  # the pool sends them back pickled


def test_every_language_of_the_brief_has_an_extractor():
    brief = {"javascript", "typescript", "tsx", "go", "java", "kotlin", "rust", "c", "cpp", "csharp", "ruby", "php"}
    assert brief <= set(LANGUAGES)
    assert all(has_extractor(language) for language in LANGUAGES)
    assert language_of("a.tsx") == "tsx" and language_of("a.mts") == "typescript"


def test_a_cpp_header_named_h_is_cpp():
    cpp = b"namespace shop {\nclass Cart {\n  void add();\n  const Item& first() const { return items_[0]; }\n};\n}\n"
    assert (language_in("include/shop/cart.h", cpp), language_in("src/cart.c", cpp)) == ("cpp", "c")
    facts = extractor_for("cpp")(cpp)
    assert [(d.kind, d.qualname) for d in facts.definitions] == [
        ("Class", "shop::Cart"),
        ("Method", "shop::Cart::add"),
        ("Method", "shop::Cart::first"),  # returns a reference: `&first()`
    ]
    plain = b"struct cart { int n; };\nint total(struct cart *c) { return 0; }\n"
    assert language_in("cart.h", plain) == "c"
    assert [(d.kind, d.qualname) for d in extractor_for("c")(plain).definitions] == [
        ("Struct", "cart"),
        ("Function", "total"),
    ]


@pytest.mark.parametrize(
    ("content", "language"),
    [
        (b"#include <vector>\n", "cpp"), (b"  #  include <iostream>\n", "cpp"), (b"#include <stdio.h>\n", "c"),
        (b"template <typename T> T twice(T x);\n", "cpp"), (b"class Cart;\n", "cpp"), (b"using namespace std;\n", "cpp"),
        (b"struct s {\n  public:\n  int n;\n};\n", "cpp"), (b"  try {\n", "cpp"), (b"constexpr int n = 1;\n", "cpp"),
        (b"int n = std::max(a, b);\n", "cpp"),
        # where C headers speak of C++ without being it
        (b"/* From C++: std::string s = f(); */\n", "c"), (b" * std::string s = f();\n", "c"),
        (b"// std::vector<int> v;\n", "c"), (b"#if defined(__cplusplus) && (__cplusplus >= 201103L)\n#endif\n", "c"),
        (b"#if __has_cpp_attribute(nodiscard)\n#endif\n", "c"), (b"try_lock(m);\n", "c"), (b"int class_count;\n", "c"),
        # Objective-C comes first, as in linguist: we parse none, its headers stay C
        (b"@interface Cart : NSObject\n@end\nclass Bag;\n", "c"),
    ],
)  # fmt: skip
def test_a_header_s_language_is_its_content_s_as_linguist_decides(content, language):
    assert language_in("include/x.h", content) == language
    assert language_in("include/X.H", content) == language


@pytest.mark.parametrize("language", ["typescript", "tsx"])
def test_variance_annotations_parse_and_their_text_stays(language):
    source = (
        b"export interface Box<in out T, out> {\n  get(): T;\n}\n"  # `out` alone names a parameter
        b"export class Pair<in A, out B extends object = {}> {\n  left(a: A): void {}\n}\n"
        b"export type Fn<out R = () => void> = () => R;\n"
        b"for (const k in obj) { use(k); }\n"
    )
    facts = extractor_for(language)(source)
    assert not facts.syntax_errors
    assert [(d.kind, d.qualname, d.signature) for d in facts.definitions] == [
        ("Interface", "Box", "export interface Box<in out T, out>"), ("Method", "Box.get", "get(): T"),
        ("Class", "Pair", "export class Pair<in A, out B extends object = {}>"), ("Method", "Pair.left", "left(a: A): void"),
    ]  # fmt: skip


def test_a_minified_bundle_gives_no_definitions():
    bundle = b"function a(){return b()}" * 1000  # 24 kB on one line
    assert extractor_for("javascript")(bundle).definitions == ()


def test_doc_comments_skip_trailing_comments_and_blank_lines():
    source = (
        b"let x = 1; // about x, not f\n"
        b"function f() {}\n"
        b"\n"
        b"/** About g. */\n"
        b"\n"
        b"function g() {}\n"
        b"/**\n * About h.\n *\n * More.\n */\n"
        b"function h() {}\n"
    )
    docs = {d.name: d.docstring for d in extractor_for("javascript")(source).definitions}
    assert docs == {"f": None, "g": None, "h": "About h.\n\nMore."}


def test_overloads_and_declarations_keep_one_node_per_qualname():
    java = extractor_for("java")(
        b"class A {\n  void m(int a) { x(); }\n  void m(String s) { y(); }\n}\n"
    )
    assert [d.qualname for d in java.definitions] == ["A", "A.m"]
    # both bodies' calls belong to the one node
    assert [(c.scope, c.callee) for c in java.calls] == [("A.m", "x"), ("A.m", "y")]
    cpp = extractor_for("cpp")(b"class A {\n  void m();\n};\nvoid A::m() { z(); }\n")
    (method,) = [d for d in cpp.definitions if d.kind == "Method"]
    assert (method.signature, method.start_line) == ("void A::m()", 4)  # the definition wins


def test_go_methods_are_keyed_by_receiver_type_and_rust_trait_impls_apart():
    go = extractor_for("go")(
        b"package cart\n\ntype Cart[T any] struct{}\n\nfunc (c *Cart[T]) Add() { c.total() }\n"
    )
    add = next(d for d in go.definitions if d.name == "Add")
    assert (add.qualname, add.parent, add.parameters) == ("Cart.Add", "Cart", ("c:Cart",))
    rust = extractor_for("rust")(
        b"struct A;\nimpl Display for A { fn fmt(&self) {} }\nimpl Debug for A { fn fmt(&self) {} }\n"
    )
    assert [d.qualname for d in rust.definitions] == ["A", "<A as Display>::fmt", "<A as Debug>::fmt"]
