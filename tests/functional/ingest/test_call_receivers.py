"""Receiver typing (rhumbline/ingest/languages/python/receivers.py), one inference rule per caller
of tests/fixtures/ingest/receivers/shop/use.py, through a real ingest into the SQLite and the Neo4j
graph stores and read back as the tools read it (`edges_of`): the CALLS edges each caller has, their
confidence and the explanation that names the evidence."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.call_rules import call_problems, uncalled_problems

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "receivers"
USE = "shop/use.py"
CLIENT = "method:shop/client.py:Client"
ASYNC_CLIENT = "method:shop/client.py:AsyncClient"

# caller (in shop/use.py) → {target: (confidence, what its explanation says)}; `None` callers are
# the file's module-level code.
RULES: dict[str, dict[str, tuple[str, str]]] = {
    "constructed": {  # a constructor call assigned to a name
        "class:shop/client.py:Client": ("INFERRED", "resolved through `from shop.client import Client`"),
        f"{CLIENT}.get": ("INFERRED", "receiver `client` typed `shop.client.Client` by the assignment at line 17"),
    },
    "entered": {  # with ... as
        "class:shop/client.py:Client": ("INFERRED", "resolved through `from shop.client import Client`"),
        f"{CLIENT}.close": ("INFERRED", "receiver `client` typed `shop.client.Client` by the `as` at line 22"),
    },
    "annotated": {  # parameter annotations: Optional, Union, string and `|` forms
        f"{CLIENT}.update": ("INFERRED", "receiver `a` typed `shop.client.Client` by the annotation at line 26"),
        f"{ASYNC_CLIENT}.get": ("INFERRED", "receiver `b` typed `shop.client.AsyncClient` by the annotation"),
        f"{CLIENT}.close": ("INFERRED", "receiver `c` typed `shop.client.Client` by the annotation"),
    },
    "variable_annotation": {  # the declared type wins over the value
        f"{CLIENT}.update": ("INFERRED", "typed `shop.client.Client` by the annotation at line 33"),
    },
    "either": {  # flow-insensitive: both branches' classes, AMBIGUOUS between them
        "class:shop/client.py:Client": ("INFERRED", "call `Client(...)`"),
        "class:shop/client.py:AsyncClient": ("INFERRED", "call `AsyncClient(...)`"),
        f"{CLIENT}.get": ("AMBIGUOUS", "typed `shop.client.AsyncClient | shop.client.Client`"),
        f"{ASYNC_CLIENT}.get": ("AMBIGUOUS", "has 2 candidates"),
    },
    "returned": {  # a return annotation, Optional and quoted
        "function:shop/client.py:open_client": ("INFERRED", "resolved through `from shop.client import open_client`"),
        f"{CLIENT}.close": ("INFERRED", "receiver `open_client(...)` typed `shop.client.Client` by the return annotation in `shop.client.open_client`"),
        f"{CLIENT}.get": ("INFERRED", "receiver `client` typed `shop.client.Client` by the assignment at line 44"),
    },
    "aliased": {  # a module-level alias of a class, and a local one
        "class:shop/client.py:Client": ("INFERRED", "call `_C(...)`"),
        f"{CLIENT}.update": ("INFERRED", "receiver `_C(...)` is `shop.client.Client`"),
        f"{CLIENT}.make": ("INFERRED", "receiver `client` typed `shop.client.Client` by the assignment at line 50"),
    },
    "module_instance": {  # an imported module-level instance
        f"{CLIENT}.close": ("INFERRED", "receiver `DEFAULT` typed `shop.client.Client` by the assignment in `shop.client`"),
    },
    "caught": {  # except ... as
        "method:shop/client.py:ShopError.report": ("INFERRED", "typed `shop.client.ShopError` by the `as` at line 61"),
    },
    "external": {},  # re.Match.span, logging.Logger.info: never the project's Tokens.span / .info
    "unknown_receiver": {  # by name: the family's root; library code never reaches test code
        "method:shop/transports.py:BaseTransport.handle": ("INFERRED", "the 3 methods named `handle` in the repository all override `shop.transports.BaseTransport.handle`"),
        "method:shop/transports.py:BaseTransport.drain": ("INFERRED", "is the only method named `drain` outside the tests"),
    },
    "through_a_property": {  # a property's return annotation; calling a property links nothing
        f"{CLIENT}.close": ("INFERRED", "receiver `session.client` typed `shop.client.Client` by the return annotation in `shop.client.Session.client`"),
    },
    "Service.run": {  # __init__ and class-level attributes, a bound method held in a variable
        f"{CLIENT}.get": ("INFERRED", "receiver `self.client` typed `shop.client.Client` by the assignment at line 86"),
        f"{CLIENT}.close": ("INFERRED", "receiver `self.label` typed `shop.client.Client` by the annotation at line 83"),
        f"{CLIENT}.update": ("INFERRED", "`add` typed `shop.client.Client.update` by the assignment at line 92"),
        "method:shop/client.py:Session.name": ("INFERRED", "receiver `self.session` typed `shop.client.Session`"),
    },
    "iterated_attribute": {  # for over an attribute annotated list[Client]
        f"{CLIENT}.close": ("INFERRED", "receiver `client` typed `shop.client.Client` by the `for` at line 101"),
    },
    "iterated_class": {  # for over a class whose __iter__ is annotated Iterator["Client"]
        f"{CLIENT}.update": ("INFERRED", "typed `shop.client.Client` by the `for` at line 106"),
    },
    "item_of_class": {  # __getitem__'s return annotation
        f"{CLIENT}.close": ("INFERRED", "receiver `pool[...]` typed `shop.client.Client` by the return annotation in `shop.client.Pool.__getitem__`"),
    },
    "item_of_generic": {  # dict[str, Client]'s items
        f"{CLIENT}.get": ("INFERRED", "receiver `names[...]` is `shop.client.Client`"),
    },
    "mapping_values": {  # dict[str, AsyncClient].values()
        f"{ASYNC_CLIENT}.get": ("INFERRED", "typed `shop.client.AsyncClient` by the `for` at line 119"),
    },
    "comprehension": {
        f"{CLIENT}.close": ("INFERRED", "receiver `member` typed `shop.client.Client` by the `for` at line 124"),
    },
    "returns_self": {  # -> Self: both calls reach Pool.copy (the edge's first site speaks)
        "method:shop/client.py:Pool.copy": ("INFERRED", "receiver `pool` typed `shop.client.Pool` by the annotation at line 127 (and 1 more)"),
    },
    "managed": {  # a @contextmanager's Iterator[Client]; a type alias of Union[str, Client]
        "function:shop/use.py:opened": ("EXTRACTED", "in the same module"),
        f"{CLIENT}.update": ("INFERRED", "receiver `client` typed `shop.client.Client` by the `as` at line 137"),
        f"{CLIENT}.close": ("INFERRED", "receiver `like` typed `shop.client.Client` by the annotation at line 136"),
        # jar.clear(): an http.cookiejar.CookieJar or the project's Client: a type checker lists
        # Client.clear among its targets, so it is one (the outside member has none to link)
        f"{CLIENT}.clear": ("INFERRED", "receiver `jar` typed `shop.client.Client` by the annotation at line 136, or an outside value (from `import http.cookiejar`)"),
    },
    "overloaded": {  # @overload stubs and a property setter are nodes of their own (`~n`): the
        # implementation is the call target; platform branches: the first definition is
        "method:shop/client.py:Config.read": ("INFERRED", "receiver `config` typed `shop.client.Config` by the annotation at line 147"),
        "function:shop/client.py:newline": ("INFERRED", "resolved through `from shop.client import newline`"),
    },
    "Config.level~2": {  # the setter's own calls
        "method:shop/client.py:Config.read": ("EXTRACTED", "call `self.read(...)` at shop/client.py:95"),
    },
    "Service.forward": {  # a method's first parameter is its instance, whatever its name
        "method:shop/use.py:Service.run": ("INFERRED", "receiver `this` is `shop.use.Service`"),
    },
    "factory": {  # calling an object gives its __call__'s return annotation (a factory Protocol)
        f"{CLIENT}.close": ("INFERRED", "receiver `make_client(...)` typed `shop.client.Client` by the return annotation in `shop.client.ClientFactory.__call__`"),
    },
    "through_a_decorator": {  # a decorated function may be anything: matched by name again
        "method:shop/transports.py:BaseTransport.handle": ("INFERRED", "the receiver's type is unknown"),
    },
    "narrowed_by_arguments": {  # name matching keeps the methods the call's arguments fit
        "method:shop/transports.py:Courier.deliver": ("INFERRED", "is the only method named `deliver` in the repository that these arguments fit"),
        "method:shop/transports.py:Mailer.deliver": ("INFERRED", "is the only method named `deliver` in the repository that these arguments fit"),
    },
    "each_class": {  # for over a literal tuple of classes: either, AMBIGUOUS
        "class:shop/client.py:Client": ("AMBIGUOUS", "`kind` typed `shop.client.AsyncClient | shop.client.Client` by the assignment at line 176"),
        "class:shop/client.py:AsyncClient": ("AMBIGUOUS", "has 2 candidates"),
        f"{CLIENT}.get": ("AMBIGUOUS", "receiver `kind(...)` typed `shop.client.AsyncClient | shop.client.Client` by the assignment at line 176"),
        f"{ASYNC_CLIENT}.get": ("AMBIGUOUS", "has 2 candidates"),
    },
    # an outside value's item is outside too (`listener.accept()[0]` is a socket, a logger's
    # handler a logging.Handler): never the project's only `recv`, nor the `handle` family's root
    "external_item": {},
    "Handler.respond": {  # a class held in a class attribute, called through `self`
        f"{CLIENT}.close": ("INFERRED", "receiver `self.response_class(...)` typed `shop.client.Client` by the assignment at line 191"),
    },
    "Handler.respond_with": {  # a parameter annotated `type[Client]` holds the class
        "class:shop/client.py:Client": ("INFERRED", "`kind` typed `shop.client.Client` by the annotation at line 196"),
        f"{CLIENT}.close": ("INFERRED", "receiver `kind(...)` typed `shop.client.Client` by the annotation at line 196"),
    },
    "countdown": {  # a call of itself is an edge like any other
        "function:shop/use.py:countdown": ("EXTRACTED", "in the same module"),
    },
    "unpacked": {  # an unpacking target: an outside call's item is outside (a socket, never the
        # project's only `recv`); a project function's `tuple[A, B]` gives each target its own
        "function:shop/use.py:pair": ("EXTRACTED", "in the same module"),
        f"{CLIENT}.close": ("INFERRED", "receiver `first` typed `shop.client.Client` by the assignment at line 213"),
        f"{ASYNC_CLIENT}.get": ("INFERRED", "receiver `second` typed `shop.client.AsyncClient` by the assignment at line 213"),
    },
    "conditional_alias": {  # `try: Impl = Fast` / `except ImportError: Impl = Slow`: the try body's
        # binding is the name's, the fallback is not a second target
        "class:shop/use.py:Fast": ("INFERRED", "resolved through `Fast` to `shop.use.Fast`"),
        "method:shop/use.py:Fast.go": ("INFERRED", "receiver `Impl(...)` is `shop.use.Fast`"),
    },
    "closed": {  # contextlib.closing(x) and nullcontext(x) give x back as the `as` value
        "class:shop/client.py:Session": ("INFERRED", "resolved through `from shop.client import Session`"),
        "class:shop/client.py:AsyncClient": ("INFERRED", "resolved through `from shop.client import AsyncClient`"),
        "method:shop/client.py:Session.name": ("INFERRED", "receiver `session` typed `shop.client.Session` by the `as` at line 239"),
        f"{ASYNC_CLIENT}.get": ("INFERRED", "receiver `quiet` typed `shop.client.AsyncClient` by the `as` at line 241"),
    },
    "outside_union": {  # declared Union[...] and Optional[...] of an outside class and a project one
        "method:shop/client.py:Pool.copy": ("INFERRED", "receiver `other` typed `shop.client.Pool` by the annotation at line 245, or an outside value (from `import logging`)"),
        f"{ASYNC_CLIENT}.get": ("INFERRED", "receiver `third` typed `shop.client.AsyncClient` by the annotation at line 245, or an outside value (from `import logging`)"),
    },
    "assigned_union": {  # an assignment's outside value may be all the name holds where the call
        # runs (an `isinstance` branch): no edge to the project's Client.clear
        "class:shop/client.py:Client": ("INFERRED", "resolved through `from shop.client import Client`"),
    },
    None: {  # module-level `with ... as`
        "class:shop/client.py:Client": ("INFERRED", "resolved through `from shop.client import Client`"),
        f"{CLIENT}.get": ("INFERRED", "receiver `module_client` typed `shop.client.Client` by the `as` at line 143"),
    },
}


def test_every_rule_gives_its_edges(tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    root = tmp_path / "receivers"
    shutil.copytree(FIXTURE, root)
    pipeline.ingest_local(root, unique_project, store=store, engine=engine, history=False)
    problems = []
    for caller, expected in RULES.items():
        if caller is None:
            caller_id = f"file:{USE}"
        elif caller.startswith("Config."):
            caller_id = f"method:shop/client.py:{caller}"
        else:
            caller_id = f"{'method' if '.' in caller else 'function'}:{USE}:{caller}"
        problems.extend(call_problems(store, unique_project, str(caller), caller_id, expected))
    # An external receiver (re.Match, logging.Logger, a socket) never links to project code, and a
    # property is never a call target.
    uncalled = ["Tokens.span", "Tokens.info", "Conn.recv", "Session.client"]
    problems += uncalled_problems(store, unique_project, [
        f"method:{'shop/transports.py' if t.startswith(('Tokens', 'Conn')) else 'shop/client.py'}:{t}" for t in uncalled
    ])  # fmt: skip
    # every definition site is a node, DEFINES'd by its class or file
    for site in ("Config.read~1", "Config.read~2", "Config.level~2"):
        views, _ = store.edges_of(unique_project, f"method:shop/client.py:{site}", "in", limit=10)
        incoming = [(v.relation, v.other_id) for v in views if v.relation in ("DEFINES", "CALLS")]
        if incoming != [("DEFINES", "class:shop/client.py:Config")]:
            problems.append(f"{site}: {incoming}")
    assert not problems, "\n".join(problems)
