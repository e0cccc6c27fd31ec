"""The evaluator: runs functions of the source tree abstractly over the parser model.

Expressions, statements and type annotations are in their own modules, mixed in here;
this module holds the names, attributes and calls, which need all three.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from typing import Any

from .classes import ClassInfo, FieldInfo
from .expressions import _PLAIN, Expressions
from .flow import Frame, _Abort, _Break, _Continue, _has_unknown, _Return
from .get_kwargs import _int_parsers, compute_kwargs
from .hints import TypeHints
from .parser_model import Action, Group, Parser, Subparsers
from .source_tree import BoundMethod, Function, Module, Native, SuperProxy, Tree
from .statements import Statements
from .values import _BUILTIN_TYPES, _MAX_DEPTH, UNKNOWN, Kwargs, LiteralType, Spec, Sym, sym

# vLLM's wrappers around an argparse converter (vllm/engine/arg_utils.py): the value is still
# converted by the function they wrap.
_CONVERTER_WRAPPERS = frozenset({"optional_type", "parse_type"})
_TRACKED = (Parser, Group, Action, Subparsers, Spec, Kwargs, ClassInfo, FieldInfo)

_SAFE_BUILTINS: dict[str, Callable[..., Any]] = {
    "any": any,
    "all": all,
    "sorted": sorted,
    "len": len,
    "list": list,
    "tuple": tuple,
    "set": set,
    "frozenset": frozenset,
    "dict": dict,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "min": min,
    "max": max,
    "zip": zip,
    "enumerate": enumerate,
    "range": range,
    "reversed": reversed,
}


class Evaluator(Expressions, Statements, TypeHints):
    """Runs functions of the source tree abstractly over the parser model."""

    def __init__(self, tree: Tree, platform: ClassInfo | None = None) -> None:
        self.tree = tree
        self.platform = platform
        self.depth = 0
        self._int_parsers: dict[str, str] | None = None

    def int_parsers(self) -> dict[str, str]:
        """Fields ``_compute_kwargs`` gives a parser of its own instead of ``int``, by name.

        In arg_utils it reads ``if name == "max_model_len": kwargs[name]["type"] = X`` and
        ``elif name in some_set: ... = Y``; both are read from the function's source.
        """
        if self._int_parsers is None:
            self._int_parsers = _int_parsers(self.tree)
        return self._int_parsers

    # module-level values --------------------------------------------------

    def static(self, module: Module, node: ast.expr) -> Any:
        """Evaluate an expression in a module's top-level scope."""
        return self.expr(node, Frame(module, {}))

    def global_name(self, module: Module, name: str) -> Any:
        if name in module.values:
            return module.values[name]
        if self.tree.binding(module, name) == ("from", "vllm.platforms", "current_platform"):
            return self.platform if self.platform is not None else UNKNOWN
        found = self.tree.resolve(module, name)
        if isinstance(found, tuple) and found[0] == "expr":
            module.values[name] = UNKNOWN  # guards against cycles
            value = self.static(found[1], found[2])
            module.values[name] = value
            return value
        if found is UNKNOWN:
            if name in _SAFE_BUILTINS or name in _BUILTIN_TYPES:
                return _SAFE_BUILTINS.get(name, sym(f"builtins.{name}"))
            if name == "super":
                return sym("builtins.super")
            if name in ("getattr", "hasattr", "isinstance"):
                return sym(f"builtins.{name}")
        return found

    # expressions -----------------------------------------------------------

    def expr(self, node: ast.expr, frame: Frame) -> Any:
        method = getattr(self, f"_expr_{type(node).__name__}", None)
        if method is None:
            return UNKNOWN
        try:
            return method(node, frame)
        except (_Return, _Break, _Continue, _Abort):
            raise
        except Exception:
            return UNKNOWN

    def _expr_Constant(self, node: ast.Constant, frame: Frame) -> Any:
        return node.value

    def _expr_Name(self, node: ast.Name, frame: Frame) -> Any:
        if node.id in frame.names:
            return frame.names[node.id]
        return self.global_name(frame.module, node.id)

    def _expr_Attribute(self, node: ast.Attribute, frame: Frame) -> Any:
        return self.attribute(self.expr(node.value, frame), node.attr)

    def attribute(self, obj: Any, name: str) -> Any:
        if obj is UNKNOWN:
            return UNKNOWN
        if isinstance(obj, Module):
            found = self.global_name(obj, name)
            if found is UNKNOWN:
                sub = self.tree.module(f"{obj.name}.{name}")
                return sub if sub is not None else UNKNOWN
            return found
        if isinstance(obj, Sym):
            if obj.name == "vllm.platforms" and name == "current_platform":
                return self.platform if self.platform is not None else UNKNOWN
            return sym(f"{obj.name}.{name}")
        if isinstance(obj, ClassInfo):
            return obj.attribute(name)
        if isinstance(obj, SuperProxy):
            mro = obj.receiver.mro() if isinstance(obj.receiver, ClassInfo) else obj.owner.mro()
            after = mro[mro.index(obj.owner) + 1 :] if obj.owner in mro else []
            for cls in after:
                found = cls.own_attribute(name, obj.receiver)
                if found is not None:
                    return found
            return UNKNOWN
        if isinstance(obj, Parser):
            if name == "_actions":
                return list(obj.actions)
            if name == "_action_groups":
                return list(obj.groups)
            if name in ("add_argument", "add_argument_group"):
                return Native(getattr(obj, name), lenient=True)
            return UNKNOWN
        if isinstance(obj, Subparsers):
            return Native(obj.add_parser, lenient=True) if name == "add_parser" else UNKNOWN
        if isinstance(obj, Group):
            if name == "add_argument":
                return Native(obj.add_argument, lenient=True)
            if name == "title":
                return obj.title
            return UNKNOWN
        if isinstance(obj, Action):
            return obj.get(name)
        if isinstance(obj, FieldInfo):
            if name == "name":
                return obj.name
            if name == "metadata":
                return obj.metadata if isinstance(obj.metadata, dict) else {}
            if name == "init":
                return obj.init
            return UNKNOWN
        if isinstance(obj, LiteralType):
            return UNKNOWN
        if isinstance(obj, _PLAIN) and not name.startswith("_"):
            value = getattr(obj, name, UNKNOWN)
            return Native(value) if callable(value) else value
        return UNKNOWN

    def _expr_Call(self, node: ast.Call, frame: Frame) -> Any:
        callee = self.expr(node.func, frame)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                value = self.expr(arg.value, frame)
                if not isinstance(value, list | tuple):
                    return UNKNOWN
                args.extend(value)
            else:
                args.append(self.expr(arg, frame))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.expr(keyword.value, frame)
            if keyword.arg is None:
                if not isinstance(value, dict):
                    if isinstance(callee, Native):
                        self.tree.warn(
                            f"{frame.module.name}:{node.lineno}: could not follow **{ast.unparse(keyword.value)}"
                        )
                    return UNKNOWN
                kwargs.update(value)
            else:
                kwargs[keyword.arg] = value
        if isinstance(callee, Sym) and callee.name == "builtins.super" and frame.function is not None:
            owner = frame.function.owner
            return SuperProxy(owner, frame.receiver) if owner is not None else UNKNOWN
        return self.call(callee, args, kwargs, frame, node)

    def call(self, callee: Any, args: list[Any], kwargs: dict[str, Any], frame: Frame, node: ast.AST) -> Any:
        if callee is UNKNOWN:
            return UNKNOWN
        if isinstance(callee, Native):
            if not callee.lenient and (_has_unknown(args) or _has_unknown(kwargs)):
                return UNKNOWN
            try:
                return callee.call(*args, **kwargs)
            except Exception:
                return UNKNOWN
        if callable(callee) and callee in _SAFE_BUILTINS.values():
            if _has_unknown(args) or _has_unknown(kwargs):
                return UNKNOWN
            try:
                value = callee(*args, **kwargs)
            except Exception:
                return UNKNOWN
            return list(value) if isinstance(value, zip | enumerate | range | reversed) else value
        if isinstance(callee, Sym):
            return self.call_outside(callee, args, kwargs)
        if isinstance(callee, BoundMethod):
            return self.call_function(callee.function, [callee.receiver, *args], kwargs, receiver=callee.receiver)
        if isinstance(callee, Function) and callee.name in _CONVERTER_WRAPPERS and len(args) == 1 and not kwargs:
            return args[0]  # optional_type(json.loads) converts with json.loads (and takes "None")
        if isinstance(callee, Function):
            return self.call_function(callee, args, kwargs)
        if isinstance(callee, ClassInfo):
            return UNKNOWN
        return UNKNOWN

    def call_outside(self, callee: Sym, args: list[Any], kwargs: dict[str, Any]) -> Any:
        name = callee.name
        if name == "itertools.permutations" and not _has_unknown(args) and not _has_unknown(kwargs):
            return list(itertools.permutations(*args, **kwargs))
        if callee.last == "get_args" and len(args) == 1 and isinstance(args[0], LiteralType):
            return args[0].values
        if name == "dataclasses.fields" and len(args) == 1 and isinstance(args[0], ClassInfo):
            return list(args[0].fields())
        if name == "builtins.getattr" and len(args) >= 2 and isinstance(args[1], str):
            value = self.attribute(args[0], args[1])
            return args[2] if value is UNKNOWN and len(args) > 2 else value
        return UNKNOWN

    def call_function(
        self, function: Function, args: list[Any], kwargs: dict[str, Any], *, receiver: Any = None
    ) -> Any:
        """Run a function of the tree; ``receiver`` is the bound self/cls, passed as ``args[0]``."""
        if function.name in ("get_kwargs", "_compute_kwargs") and args and isinstance(args[-1], ClassInfo):
            return compute_kwargs(self, args[-1])
        explicit = args[1:] if receiver is not None else args
        if not any(isinstance(a, _TRACKED) for a in (*explicit, *kwargs.values())):
            return UNKNOWN  # only code that touches the parser or its keywords is followed
        if self.depth > _MAX_DEPTH:
            return UNKNOWN
        names = self.bind_arguments(function, args, kwargs)
        frame = Frame(function.module, names, function, receiver)
        self.depth += 1
        try:
            self.block(function.node.body, frame)
        except _Return as done:
            return done.value
        except _Abort:
            return UNKNOWN
        finally:
            self.depth -= 1
        return None

    def bind_arguments(self, function: Function, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        spec = function.node.args
        positional = [*spec.posonlyargs, *spec.args]
        names: dict[str, Any] = {}
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        for i, param in enumerate(positional):
            if i < len(args):
                names[param.arg] = args[i]
            elif param.arg in kwargs:
                names[param.arg] = kwargs[param.arg]
            elif defaults[i] is not None:
                names[param.arg] = self.static(function.module, defaults[i])
            else:
                names[param.arg] = UNKNOWN
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults, strict=True):
            if param.arg in kwargs:
                names[param.arg] = kwargs[param.arg]
            else:
                names[param.arg] = UNKNOWN if default is None else self.static(function.module, default)
        if spec.vararg:
            names[spec.vararg.arg] = tuple(args[len(positional) :])
        if spec.kwarg:
            names[spec.kwarg.arg] = {k: v for k, v in kwargs.items() if k not in names}
        return names
