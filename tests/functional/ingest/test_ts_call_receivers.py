"""TypeScript call targets as the compiler sees them, one rule per caller of
tests/fixtures/ingest/ts_calls, through a real ingest into the SQLite and the Neo4j graph stores
and read back as the tools read it (`edges_of`): a callback's untyped parameters typed by the
parameter it is passed for (a function's, a constructor's), a returned arrow's typed parameters,
a union (with `null`, of classes), a callback in a conditional argument, a method of a function's declared result, a cast, a non-null assertion, locals typed by `this`, its fields or a call's result, a declared `this`, a variable aliasing a function, a callback as an object's property or for a parameter typed by a function type's alias (in the file, imported, re-exported), passed to an
outside function, or in module-level code, the name match of an unknown
receiver among at most two methods, a class expression, and receivers of the runtime's own types
(`Response`, `Object`) that share a method name with the project."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.call_rules import fixture_problems

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "ts_calls"
STREAM, OPS, SHAPES, SOURCE, TOP = "src/stream.ts", "src/ops.ts", "src/shapes.ts", "src/source.ts", "src/top.ts"
HANDLERS = "src/handlers.ts"
CALLBACK = "through callback parameter"

# caller → {target: (confidence, what its explanation says)}
RULES: dict[str, dict[str, tuple[str, str]]] = {
    # `operate((source, subscriber) => …)`: operate declares `init: (source: Observable,
    # subscriber: Subscriber) => void`, so neither call is matched by name (Subject has both)
    f"function:{OPS}:take": {
        f"function:{STREAM}:operate": ("INFERRED", "through `import { Observable, Subject, Subscriber, innerFrom, operate }"),
        f"method:{STREAM}:Observable.subscribe": ("INFERRED", f"{CALLBACK} `source`"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `subscriber`"),
    },
    # `new Observable((subscriber) => …)`: the constructor's parameter, `this` left out
    f"function:{OPS}:empty": {
        f"class:{STREAM}:Observable": ("INFERRED", "through `import { Observable, Subject, Subscriber, innerFrom, operate }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `subscriber`"),
    },
    # `res: Response` is the DOM's, not the project's only `arrayBuffer`; `Object.keys` neither
    f"function:{OPS}:download": {},
    # an untyped parameter: matched by name among two methods (AMBIGUOUS), not among three
    f"function:{OPS}:finish": {
        f"method:{STREAM}:Subscriber.complete": ("AMBIGUOUS", "(receiver type unknown) has 2 candidates"),
        f"method:{STREAM}:Subject.complete": ("AMBIGUOUS", "(receiver type unknown) has 2 candidates"),
    },
    # a returned arrow function's typed parameters type its receivers
    f"function:{OPS}:lift": {
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", "receiver `subscriber` declared as `Subscriber`"),
    },
    # `sub: Subscriber | null`: a union with null is its other member
    f"function:{OPS}:stop": {
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", "receiver `sub` declared as `Subscriber`"),
    },
    # `innerFrom(1).subscribe()`: the method of the class innerFrom declares it returns
    f"function:{OPS}:chain": {
        f"function:{STREAM}:innerFrom": ("INFERRED", "through `import { Observable, Subject, Subscriber, innerFrom, operate }"),
        f"method:{STREAM}:Observable.subscribe": ("INFERRED", "through the result of `innerFrom()`"),
    },
    # a cast's type types its receiver: `(x as Subject).m()`, `(<Subscriber>x).m()`
    f"function:{OPS}:cast": {
        f"method:{STREAM}:Subject.subscribe": ("INFERRED", "through the cast to `Subject`"),
        f"method:{STREAM}:Subscriber.arrayBuffer": ("INFERRED", "through the cast to `Subscriber`"),
    },
    # a non-null assertion keeps the receiver's declared type: `sub!.close()`
    f"function:{OPS}:asserted": {
        f"method:{STREAM}:Subscriber.close": ("INFERRED", "receiver `sub` declared as `Subscriber`"),
    },
    # a union is its first named member, as the compiler resolves a method called on it
    f"function:{OPS}:either": {
        f"method:{STREAM}:Subject.close": ("INFERRED", "receiver `sink` declared as `Subject`"),
    },
    # a callback written in a conditional argument is typed by the parameter all the same
    f"function:{OPS}:branch": {
        f"function:{STREAM}:operate": ("INFERRED", "through `import { Observable, Subject, Subscriber, innerFrom, operate }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `subscriber`"),
    },
    # locals typed by their value: `this`, a field read from `this`, a function's declared
    # result; and a method of `this.make()`'s declared result
    f"method:{SOURCE}:Source.pipe": {
        f"method:{SOURCE}:Source.close": ("EXTRACTED", "in the same file"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", "receiver `out` declared as `this.sink`"),
        f"function:{STREAM}:innerFrom": ("INFERRED", "through `import { Subscriber, innerFrom }"),
        f"method:{STREAM}:Observable.close": ("INFERRED", "receiver `made` typed by the result of `innerFrom()`"),
        f"method:{SOURCE}:Source.make": ("EXTRACTED", "in the same file"),
        f"method:{STREAM}:Subscriber.close": ("INFERRED", "through the result of `this.make()`"),
    },
    # a local holding a field read from `this`: the field's declared type
    f"method:{SOURCE}:Source.keep": {
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", "receiver `kept` declared as `this.sink`"),
    },
    # a function's `this` parameter types `this` in it, and is no place among the callback's
    f"function:{OPS}:bound": {
        f"function:{STREAM}:operate": ("INFERRED", "through `import { Observable, Subject, Subscriber, innerFrom, operate }"),
        f"method:{STREAM}:Subject.complete": ("INFERRED", "through `this` declared as `Subject`"),
        f"method:{STREAM}:Observable.subscribe": ("INFERRED", f"{CALLBACK} `source`"),
    },
    # a variable holding a function is a call of that function: the runtime's (no edge) or ours
    f"function:{OPS}:aliased": {
        f"function:{STREAM}:innerFrom": ("INFERRED", "which holds `innerFrom`"),
    },
    # a callback given as a property of an object argument: typed by that property of the
    # parameter's declared type (a field of function type, a method)
    f"function:{OPS}:configured": {
        f"function:{STREAM}:configure": ("INFERRED", "through `import { configure, getProto, register, start }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `sink`"),
        f"method:{STREAM}:Subject.complete": ("INFERRED", f"{CALLBACK} `subject`"),
    },
    # a callback passed to a function from outside the repository: its parameters are of
    # outside types, not matched by name
    f"function:{OPS}:outside": {},
    # so is a value such a function returned, and what a method of that value returned
    f"function:{OPS}:returned": {},
    # a variable holding what a function from outside the repository returned: its code is
    f"function:{OPS}:callsMocked": {},
    # a callback for a parameter declared by a type alias of a function type: the alias's
    # parameter types, declared in the callee's file, imported, or imported through a re-export
    f"function:{OPS}:registered": {
        f"function:{STREAM}:register": ("INFERRED", "through `import { configure, getProto, register, start }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `sink`"),
    },
    f"function:{OPS}:listened": {
        f"function:{HANDLERS}:listen": ("INFERRED", "through `import { listen, relay, use }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `sink`"),
    },
    f"function:{OPS}:relayed": {
        f"function:{HANDLERS}:relay": ("INFERRED", "through `import { listen, relay, use }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `sink`"),
    },
    # an alias from outside the repository is not read: no guess among two methods
    f"function:{OPS}:used": {
        f"function:{HANDLERS}:use": ("INFERRED", "through `import { listen, relay, use }"),
    },
    # a callback in module-level code is typed the same way, each by its own call (the second
    # `subscriber` is describe's, from outside: no edge)
    f"file:{TOP}": {
        f"function:{STREAM}:operate": ("INFERRED", "through `import { operate }"),
        f"method:{STREAM}:Subscriber.complete": ("INFERRED", f"{CALLBACK} `subscriber`"),
    },
    # `const Shape = class { area() … }`: a class expression is a class with its methods
    f"function:{SHAPES}:measure": {
        f"class:{SHAPES}:Shape": ("EXTRACTED", "in the same file"),
        f"method:{SHAPES}:Shape.area": ("EXTRACTED", "in the same file"),
    },
}


def test_every_typescript_rule_gives_its_edges(tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    problems = fixture_problems(FIXTURE, tmp_path, store, engine, unique_project, RULES)
    assert not problems, "\n".join(problems)
