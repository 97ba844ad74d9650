"""Go receivers and call targets as the compiler sees them, one rule per caller of
tests/fixtures/ingest/go_receivers, through a real ingest into the SQLite and the Neo4j graph
stores and read back as the tools read it (`edges_of`): a receiver typed by a call's result, a
bare call inside a method whose type is declared in another file, conversions, and receivers of
library types (a function literal's parameters among them, shadowing the function's own names
inside it, and what library methods return); a
method's result, a type assertion, `new(T)`, a conversion's value, a composite literal, a typed
package variable (called, or copied into a local), a struct's fields (embedded, or a chain of
them), a range over a collection, a map's element,
a named result, a typed constant, a package variable holding a function or method value and a
chain of calls; a method a type has from an embedded library
type; functions defined under opposite build constraints, an external test package, and
package variables holding function values; receivers of unknown type matched by name only among
the methods the call may reach, and only when at most two have that name."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.call_rules import fixture_problems, uncalled_problems

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "go_receivers"
ROUTER, APP = "router/router.go", "app/app.go"

# caller → {target: (confidence, what its explanation says)}
RULES: dict[str, dict[str, tuple[str, str]]] = {
    # `r := router.NewRouter()`: the struct the function's signature returns, not the interface
    # that has a method of that name too; `local, err := newLocal()`: its first result
    f"function:{APP}:Build": {
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `r` typed by the result of `router.NewRouter()`"),
        f"function:{APP}:newLocal": ("EXTRACTED", "in the same file"),
        f"method:{ROUTER}:Router.Close": ("INFERRED", "receiver `local` typed by the result of `newLocal()`"),
    },
    # `sub := r.Clone()`: a method's result; `m, ok := h.(*router.Router)`: the asserted type
    f"function:{APP}:Chain": {
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "receiver `r` typed by the result of `router.NewRouter()`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `sub` typed by the result of `r.Clone()`"),
        f"method:{ROUTER}:Router.Close": ("INFERRED", "receiver `m` declared as `router.Router`"),
    },
    # a handler literal's `w http.ResponseWriter` is the library's (not the project's only Write);
    # the function's own `r` keeps its type inside the literal
    f"function:{APP}:Serve": {
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `r` typed by the result of `router.NewRouter()`"),
    },
    # through fields: `s.router` declared `*router.Router`; `s.pool` is a library's sync.Pool
    f"method:{APP}:Server.Start": {
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through `s.router` declared as `router.Router`"),
    },
    # a chain: `router.NewRouter().Clone().Use(nil)`
    f"function:{APP}:Routes": {
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "through the result of `router.NewRouter()`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through the result of `router.NewRouter().Clone()`"),
    },
    # httptest.Server.Close and error.Error are the library's, never the project's methods
    f"function:{APP}:Probe": {},
    # `router.Middlewares(nil)` converts: no call
    f"function:{APP}:Convert": {},
    # `new(router.Router)` allocates a Router; `new(strings.Builder)` a library type (not Router.Write)
    f"function:{APP}:Allocate": {
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `r` declared as `router.Router`"),
    },
    # a conversion's value has the type converted to, held in a local or chained
    f"function:{APP}:Converted": {
        f"method:{ROUTER}:Middlewares.Len": ("INFERRED", "receiver `m` typed by the result of `router.Middlewares()`"),
    },
    f"function:{APP}:ConvertedChain": {
        f"method:{ROUTER}:Middlewares.Len": ("INFERRED", "through the result of `router.Middlewares()`"),
    },
    # `h := w.Header().Clone()`: a library method's result is the library's (not Router.Get)
    f"function:{APP}:Headers": {},
    # `router.Marshal` is a variable holding a function value: no definition is called
    f"function:{APP}:Encode": {},
    # `hash` is defined three times under build constraints: the one a default build compiles
    f"method:{ROUTER}:Router.Sum": {
        "function:router/hash.go:hash": ("INFERRED", "in the same package `router`"),
    },
    # an external test package (`package router_test`) has its own `fixture`, not router's
    "function:router/router_ext_test.go:TestUse": {
        "function:router/helpers_ext_test.go:fixture": ("INFERRED", "in the same package `router_test`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through the result of `fixture()`"),
    },
    # package variables typed by their values: `var Shared = NewRouter()`, `var Plain = Router{}`
    f"function:{APP}:Globals": {
        f"method:{ROUTER}:Router.Close": ("INFERRED", "through package variable `router.Shared` of type `NewRouter()`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "through package variable `router.Plain` of type `Router`"),
    },
    # `var scratch bytes.Buffer`: a library type's Write, not Router.Write
    f"method:{ROUTER}:Router.Dump": {},
    # `(&router.Router{}).Close()`: a method of a composite literal
    f"function:{APP}:Literal": {
        f"struct:{ROUTER}:Router": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Close": ("INFERRED", "through the result of `router.Router()`"),
    },
    # `e.Router` names the embedded field; `e.srv.router` a chain of declared fields; `e.req.Header`
    # a library type's field (not Router.Get)
    f"method:{APP}:Engine.Run": {
        f"method:{ROUTER}:Router.Close": ("INFERRED", "through `e.Router` declared as `router.Router`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through `e.srv.router` declared as `router.Router`"),
    },
    # a method's result reached through fields
    f"method:{APP}:Engine.Again": {
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "through `e.srv.router` declared as `router.Router`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through the result of `e.srv.router.Clone()`"),
    },
    # a named result `r *router.Router`, a map's element `byName["a"]`, a constant typed by the
    # one above it (`Loose` after `Strict Mode = iota`)
    f"function:{APP}:Named": {
        f"method:{ROUTER}:Router.Close": ("INFERRED", "receiver `r` declared as `router.Router`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "receiver `picked` declared as `byName`"),
        f"method:{ROUTER}:Mode.String": ("INFERRED", "through package variable `router.Loose` of type `Mode`"),
    },
    # `h.rec.Reset()`: Recorder has Reset from its embedded library type, not Router.Reset
    f"method:{APP}:Holder.Drain": {},
    # `var Make = NewRouter`, `var Copy = Shared.Clone`: what the values they hold return (the
    # variables themselves are not called definitions)
    f"function:{APP}:Held": {
        f"method:{ROUTER}:Router.Use": ("INFERRED", "through the result of `router.Make()`"),
        f"method:{ROUTER}:Router.Close": ("INFERRED", "receiver `c` typed by the result of `router.Copy()`"),
    },
    # literals' parameters shadow the function's own `r` inside them: `ctx := r.Context()` is the
    # library request's (not Mode.Value), `r.Clone()` the literal's router parameter's
    f"function:{APP}:Shadowed": {
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `r` typed by the result of `router.NewRouter()`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "receiver `r@219` declared as `router.Router`"),
    },
    # `sub := s.router.Clone()`: a local holding the result of a field's method
    f"method:{APP}:Server.Fork": {
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "through `s.router` declared as `router.Router`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `sub` typed by the result of `s.router.Clone()`"),
    },
    # `r := router.Shared`: the package variable's type
    f"function:{APP}:Copied": {
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "receiver `r` declared as `router.Shared`"),
    },
    # receivers of unknown type, by name: `j.serve()` not router's unexported serve, `f.Flush()`
    # not a test file's Flush, `c.Close()` none of three Close methods
    f"function:{APP}:Unknown": {
        f"method:{APP}:Job.serve": ("INFERRED", "is the only method named `serve`"),
    },
    # range variables: the elements of a slice, a map, a method's result (`[]*Router`); a library
    # slice's `b.Write` is not Router.Write
    f"function:{APP}:Ranges": {
        f"method:{ROUTER}:Router.Close": ("INFERRED", "receiver `r` declared as `routers`"),
        f"method:{ROUTER}:Router.Clone": ("INFERRED", "receiver `named` declared as `byName`"),
        f"function:{ROUTER}:NewRouter": ("INFERRED", "through `import \"example.com/web/router\"`"),
        f"method:{ROUTER}:Router.Children": ("INFERRED", "through the result of `router.NewRouter()`"),
        f"method:{ROUTER}:Router.Use": ("INFERRED", "receiver `child` typed by the result of `router.NewRouter().Children()`"),
    },
    # a bare `serve(...)` in method Router.serve (declared in another file than Router): the
    # package function, not the method itself
    "method:router/serve.go:Router.serve": {
        "function:router/helpers.go:serve": ("INFERRED", "in the same package `router`"),
    },
}


def test_every_go_rule_gives_its_edges(tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    problems = fixture_problems(FIXTURE, tmp_path, store, engine, unique_project, RULES)
    # nothing calls the interface's methods, nor Router.Write or Router.Get, nor the Middlewares
    # type (a conversion is no call), nor the definitions a default build leaves out or the
    # package's own `fixture`, nor a variable
    targets = [f"method:{ROUTER}:{t}" for t in ("Handler.Use", "Handler.Close", "Router.Write", "Router.Get", "Router.Reset", "Mode.Value")]
    targets += [f"class:{ROUTER}:Middlewares", "function:router/hash_purego.go:hash",
                "function:router/hash_windows.go:hash", "function:router/internal_test.go:fixture",
                "method:router/internal_test.go:fakeFlusher.Flush", f"method:{APP}:Job.Close",
                "variable:router/codec.go:Marshal"]  # fmt: skip
    problems += uncalled_problems(store, unique_project, targets)
    assert not problems, "\n".join(problems)
