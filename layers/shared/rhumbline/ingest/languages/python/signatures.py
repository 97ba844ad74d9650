"""Whether a call's arguments fit a method's signature: what narrows name matching (calls.py).

The call side is CallSite.arguments (`"2"`, `"1,timeout"`, `"0*,**"`); the method side its
signature as written (`def get(self, url, *, params=None)`), parsed once. Python's own binding
rules decide (inspect.Signature.bind). Anything unknown fits: a call with `*args` or `**kwargs`,
a signature cut short or that does not parse, a method a decorator may have changed.
"""

from __future__ import annotations

import ast
import inspect

_UNSET = object()


def fits(signature: inspect.Signature | None, arguments: str) -> bool:
    if signature is None or not arguments or "*" in arguments:
        return True
    positional, *keywords = arguments.split(",")
    try:
        bound = signature.bind(*range(int(positional)), **dict.fromkeys(keywords, 0))
    except (TypeError, ValueError):
        return False
    # Python 3.13's bind() lets a keyword named like a required positional-only parameter into
    # **kwargs and leaves that parameter unbound, where a real call fails: every required one must be bound.
    return all(name in bound.arguments for name in _required(signature))


def _required(signature: inspect.Signature) -> list[str]:
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.default is p.empty and p.kind not in variadic]


def parse(text: str, *, bound: bool) -> inspect.Signature | None:
    """The signature of a `def ...` header (`bound`: without its first parameter, the receiver);
    None when it cannot be read."""
    if text.endswith("…"):
        return None
    try:
        tree = ast.parse(text.strip() + ": pass")
    except (SyntaxError, ValueError):
        return None
    function = tree.body[0] if tree.body else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    parameters = _parameters(function.args)
    if bound and parameters and parameters[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    ):
        parameters = parameters[1:]
    try:
        return inspect.Signature(parameters)
    except ValueError:  # duplicate names and the like: broken code
        return None


def _parameters(arguments: ast.arguments) -> list[inspect.Parameter]:
    Parameter = inspect.Parameter
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [_UNSET] * (len(positional) - len(arguments.defaults)) + [0] * len(arguments.defaults)
    found = [
        Parameter(
            argument.arg,
            Parameter.POSITIONAL_ONLY if index < len(arguments.posonlyargs) else Parameter.POSITIONAL_OR_KEYWORD,
            default=Parameter.empty if default is _UNSET else default,
        )
        for index, (argument, default) in enumerate(zip(positional, defaults))
    ]
    if arguments.vararg is not None:
        found.append(Parameter(arguments.vararg.arg, Parameter.VAR_POSITIONAL))
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        found.append(Parameter(argument.arg, Parameter.KEYWORD_ONLY, default=Parameter.empty if default is None else 0))
    if arguments.kwarg is not None:
        found.append(Parameter(arguments.kwarg.arg, Parameter.VAR_KEYWORD))
    return found
