#!/usr/bin/env python3
"""Regenerate the `vllm serve` vocabulary file from the released vLLM and vllm-rbln source.

    python tools/vocabulary.py --vllm 0.30.0 --vllm-rbln 0.12.0
    make vocabulary VLLM=0.30.0 VLLM_RBLN=0.12.0

The two packages are fetched with ``pip download --no-deps`` (a wheel when there is
one, else the source distribution) and only their ``.py`` files are read, with
``ast``: nothing of vLLM is imported, so neither torch nor an accelerator is needed.
``--source DIR`` reads an already unpacked tree (``DIR/vllm``, ``DIR/vllm_rbln``)
instead, and ``--dist DIR`` unpacks wheels or sdists already downloaded there.

How ``vllm serve`` builds its parser, and so what this reads:

* ``vllm/entrypoints/cli/serve.py``: ``ServeSubcommand.subparser_init`` passes the
  subparser to ``make_arg_parser``, which adds a few flags itself and then calls
  ``FrontendArgs.add_cli_args`` and ``AsyncEngineArgs.add_cli_args``.
* Most flags are ``group.add_argument("--flag", **get_kwargs(SomeConfig)["field"])``:
  ``get_kwargs`` turns a config dataclass field into argparse keywords. The help is
  the field's docstring; a ``bool`` field gets ``BooleanOptionalAction`` (so also a
  ``--no-flag``); a ``Literal`` gives ``choices`` (or only a metavar when ``str`` is
  also allowed); a dataclass-typed field becomes a JSON-valued flag, validated into
  that dataclass, whose init fields are the accepted JSON keys.
* The frontend registers every field of its dataclass in a loop, with
  ``--{name.replace('_', '-')}``.
* ``AsyncEngineArgs.add_cli_args`` ends with the platform's
  ``pre_register_and_update(parser)``; for vllm-rbln (found through its
  ``vllm.platform_plugins`` entry point) that edits some actions and adds the
  ``--rbln-*`` flags, one per field of its config classes.

Rather than hard-code that list, the functions are interpreted abstractly: a small
evaluator runs their statements over a model of the parser, emulating ``get_kwargs``
from the dataclass source, and gives up (value "unknown") on anything else. What it
could not follow is reported on stderr.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import contextlib
import dataclasses
import inspect
import itertools
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

FORMAT = 2
ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "_ext" / "recipebook" / "data"

# Flags whose values come from a registry in the source rather than from argparse:
# (module, dict of registered names, flag through which a plugin adds more names).
REGISTRIES = {
    "--tool-call-parser": ("vllm.tool_parsers", "_TOOL_PARSERS_TO_REGISTER", "--tool-parser-plugin"),
    "--reasoning-parser": ("vllm.reasoning", "_REASONING_PARSERS_TO_REGISTER", "--reasoning-parser-plugin"),
}
REGISTRY_MANAGERS = {"--tool-call-parser": "ToolParserManager", "--reasoning-parser": "ReasoningParserManager"}

# MultiConnector builds one KVTransferConfig(**child) per kv_connector_extra_config["connectors"]
# entry (vllm/distributed/kv_transfer/kv_connector/v1/multi_connector.py): the children take the
# same JSON fields as the flag itself.
MULTI_CONNECTOR = (
    "--kv-transfer-config",
    "vllm.distributed.kv_transfer.kv_connector.v1.multi_connector",
    {"kv_connector": "MultiConnector"},
    ["kv_connector_extra_config", "connectors"],
)

_ENV_NAME = re.compile(r"^VLLM_[A-Z0-9_]+$")
_NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}
_BUILTIN_TYPES = {"bool", "int", "float", "str", "bytes", "dict", "list", "tuple", "set", "frozenset", "type", "object"}
_COLLECTIONS = {"list", "tuple", "set", "dict", "frozenset", "type"}
_TYPING_COLLECTIONS = {"List": "list", "Tuple": "tuple", "Set": "set", "Dict": "dict", "FrozenSet": "frozenset"}
_MAX_DEPTH = 40


# --------------------------------------------------------------------------- values


class _Unknown:
    """A value the evaluator could not work out."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclasses.dataclass(frozen=True)
class Sym:
    """Something outside the source tree (``argparse.BooleanOptionalAction``, ``json.loads``)."""

    name: str

    @property
    def last(self) -> str:
        return self.name.rsplit(".", 1)[-1]


_SYMS: dict[str, Sym] = {}


def sym(name: str) -> Sym:
    """Interned, so that ``is`` compares two references to the same outside object."""
    return _SYMS.setdefault(name, Sym(name))


@dataclasses.dataclass(frozen=True)
class LiteralType:
    """``typing.Literal[...]`` evaluated: its options."""

    values: tuple


class Spec(dict):
    """The argparse keywords ``get_kwargs`` gives for one dataclass field."""


class Kwargs(dict):
    """What ``get_kwargs(cls)`` returns: field name -> Spec."""


class Warnings:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, message: str) -> None:
        if message not in self.seen:
            self.seen.append(message)


# --------------------------------------------------------------------------- source tree


class Module:
    """One parsed module and the names bound at its top level."""

    def __init__(self, tree: Tree, name: str, path: Path, package: bool) -> None:
        self.tree = tree
        self.name = name
        self.path = path
        self.package = package
        self.node = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.runtime: dict[str, tuple] = {}
        self.type_checking: dict[str, tuple] = {}
        self._scan(self.node.body, self.runtime)
        self.values: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"<module {self.name}>"

    def _scan(self, body: list[ast.stmt], out: dict[str, tuple]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                if _is_type_checking(stmt.test):
                    self._scan(stmt.body, self.type_checking)
                    self._scan(stmt.orelse, out)
                else:
                    self._scan(stmt.body, out)
                    self._scan(stmt.orelse, out)
            elif isinstance(stmt, ast.Try):
                self._scan(stmt.body, out)
                for handler in stmt.handlers:
                    self._scan(handler.body, out)
                self._scan(stmt.orelse, out)
                self._scan(stmt.finalbody, out)
            elif isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                out[stmt.name] = ("def", stmt)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        out[target.id] = ("expr", stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    out[stmt.target.id] = ("expr", stmt.value)
                else:
                    out.setdefault(stmt.target.id, ("annotation", stmt.annotation))
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        out[alias.asname] = ("module", alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        out[top] = ("module", top)
            elif isinstance(stmt, ast.ImportFrom):
                base = self.absolute(stmt.module, stmt.level)
                for alias in stmt.names:
                    if alias.name != "*":
                        out[alias.asname or alias.name] = ("from", base, alias.name)

    def absolute(self, module: str | None, level: int) -> str:
        if not level:
            return module or ""
        parts = self.name.split(".")
        if not self.package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join([*parts, *([module] if module else [])])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class Tree:
    """The unpacked source of both packages, parsed on demand."""

    def __init__(self, root: Path, warn: Warnings) -> None:
        self.root = root
        self.warn = warn
        self._modules: dict[str, Module | None] = {}
        self._classes: dict[int, ClassInfo] = {}
        self._functions: dict[int, Function] = {}

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            base = self.root.joinpath(*name.split("."))
            found = None
            if (base / "__init__.py").is_file():
                found = Module(self, name, base / "__init__.py", True)
            elif base.with_suffix(".py").is_file():
                found = Module(self, name, base.with_suffix(".py"), False)
            self._modules[name] = found
        return self._modules[name]

    def class_info(self, module: Module, node: ast.ClassDef) -> ClassInfo:
        key = id(node)
        if key not in self._classes:
            self._classes[key] = ClassInfo(self, module, node)
        return self._classes[key]

    def function(self, module: Module, node: ast.FunctionDef, owner: ClassInfo | None = None) -> Function:
        key = id(node)
        if key not in self._functions:
            self._functions[key] = Function(module, node, owner)
        return self._functions[key]

    # name resolution -----------------------------------------------------

    def binding(self, module: Module, name: str) -> tuple | None:
        return module.runtime.get(name) or module.type_checking.get(name)

    def resolve(self, module: Module, name: str, _depth: int = 0) -> Any:
        """What a top-level name of a module refers to: ClassInfo, Function, Module, Sym,
        ("expr", module, node) for an assigned value, or UNKNOWN."""
        if _depth > _MAX_DEPTH:
            return UNKNOWN
        bound = self.binding(module, name)
        if bound is None:
            sub = self.module(f"{module.name}.{name}") if module.package else None
            return sub if sub is not None else UNKNOWN
        kind = bound[0]
        if kind == "def":
            node = bound[1]
            if isinstance(node, ast.ClassDef):
                return self.class_info(module, node)
            return self.function(module, node)
        if kind == "expr":
            return ("expr", module, bound[1])
        if kind == "annotation":
            return UNKNOWN
        if kind == "module":
            found = self.module(bound[1])
            return found if found is not None else sym(bound[1])
        return self.resolve_from(bound[1], bound[2], _depth + 1)

    def resolve_from(self, module_name: str, name: str, _depth: int = 0) -> Any:
        target = self.module(module_name)
        if target is None:
            return sym(f"{module_name}.{name}")
        found = self.resolve(target, name, _depth)
        if found is UNKNOWN:
            sub = self.module(f"{module_name}.{name}")
            if sub is not None:
                return sub
        return found

    def resolve_qualname(self, qualname: str) -> Any:
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = self.module(".".join(parts[:i]))
            if module is None:
                continue
            value = self.resolve(module, parts[i])
            for attr in parts[i + 1 :]:
                value = value.attribute(attr) if isinstance(value, ClassInfo) else UNKNOWN
            return value
        return UNKNOWN


@dataclasses.dataclass(eq=False)
class Function:
    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef
    owner: ClassInfo | None = None

    @property
    def name(self) -> str:
        return self.node.name

    def decorated(self, name: str) -> bool:
        return any(_decorator_name(d) == name for d in self.node.decorator_list)

    def __repr__(self) -> str:
        return f"<function {self.module.name}.{self.name}>"


@dataclasses.dataclass(eq=False)
class BoundMethod:
    function: Function
    receiver: Any


@dataclasses.dataclass(eq=False)
class SuperProxy:
    owner: ClassInfo
    receiver: Any  # a ClassInfo (classmethod) or UNKNOWN


@dataclasses.dataclass(eq=False)
class Native:
    """A Python callable the evaluator runs itself; a lenient one also takes unknown arguments."""

    call: Callable[..., Any]
    lenient: bool = False


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


@dataclasses.dataclass(eq=False)
class FieldInfo:
    """One dataclass field as written in its class body."""

    name: str
    owner: ClassInfo
    annotation: ast.expr
    value: ast.expr | None
    doc: str
    init: bool
    metadata: Any
    pseudo: str | None  # "ClassVar", "InitVar" or None


class ClassInfo:
    """A class of the source tree."""

    def __init__(self, tree: Tree, module: Module, node: ast.ClassDef) -> None:
        self.tree = tree
        self.module = module
        self.node = node
        self.name = node.name
        self._bases: list[Any] | None = None
        self._fields: list[FieldInfo] | None = None
        self._is_dataclass: bool | None = None

    def __repr__(self) -> str:
        return f"<class {self.module.name}.{self.name}>"

    @property
    def doc(self) -> str:
        return ast.get_docstring(self.node) or ""

    @property
    def bases(self) -> list[Any]:
        if self._bases is None:
            self._bases = []
            for base in self.node.bases:
                if isinstance(base, ast.Subscript):  # Generic[T], Protocol[...]
                    base = base.value
                self._bases.append(Evaluator(self.tree).static(self.module, base))
        return self._bases

    def mro(self) -> list[ClassInfo]:
        order: list[ClassInfo] = [self]
        for base in self.bases:
            if isinstance(base, ClassInfo):
                for cls in base.mro():
                    if cls not in order:
                        order.append(cls)
        return order

    def subclass_of(self, name: str) -> bool:
        """Whether an outside base class (by dotted name) is among the ancestors."""
        for cls in self.mro():
            for base in cls.bases:
                if isinstance(base, Sym) and base.name == name:
                    return True
        return False

    @property
    def is_dataclass(self) -> bool:
        if self._is_dataclass is None:
            self._is_dataclass = self._decorated_dataclass()
        return self._is_dataclass

    def _decorated_dataclass(self) -> bool:
        for cls in self.mro():
            for decorator in cls.node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                value = Evaluator(self.tree).static(cls.module, target)
                if isinstance(value, Sym) and value.name in (
                    "dataclasses.dataclass",
                    "pydantic.dataclasses.dataclass",
                ):
                    return True
                if isinstance(value, Function) and value.decorated("dataclass_transform"):
                    return True
        return False

    def own_fields(self) -> list[FieldInfo]:
        out = []
        body = self.node.body
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                continue
            doc = ""
            following = body[i + 1] if i + 1 < len(body) else None
            if (
                isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                doc = inspect.cleandoc(following.value.value)
            pseudo = _pseudo_field(self, stmt.annotation)
            if pseudo == "KW_ONLY":
                continue
            init, metadata = True, {}
            if isinstance(stmt.value, ast.Call) and _decorator_name(stmt.value) in ("field", "Field"):
                for keyword in stmt.value.keywords:
                    if keyword.arg == "init":
                        init = not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
                    elif keyword.arg == "metadata":
                        metadata = Evaluator(self.tree).static(self.module, keyword.value)
            out.append(
                FieldInfo(
                    name=stmt.target.id,
                    owner=self,
                    annotation=stmt.annotation,
                    value=stmt.value,
                    doc=doc,
                    init=init,
                    metadata=metadata,
                    pseudo=pseudo,
                )
            )
        return out

    def fields(self) -> list[FieldInfo]:
        """``dataclasses.fields(cls)``: base fields first, an override keeps its place."""
        if self._fields is None:
            merged: dict[str, FieldInfo] = {}
            for cls in reversed(self.mro()):
                if not cls.is_dataclass:
                    continue
                for f in cls.own_fields():
                    if f.pseudo is None:
                        merged[f.name] = f
            self._fields = list(merged.values())
        return self._fields

    def init_fields(self) -> list[str]:
        """The keyword arguments the constructor accepts: what a JSON object may hold."""
        names: dict[str, None] = {}
        for cls in reversed(self.mro()):
            if not cls.is_dataclass:
                continue
            for f in cls.own_fields():
                if f.pseudo == "ClassVar":
                    continue
                if f.init:
                    names[f.name] = None
                else:
                    names.pop(f.name, None)
        return list(names)

    def attribute(self, name: str) -> Any:
        if name == "__name__":
            return self.name
        if name == "__doc__":
            return self.doc
        for cls in self.mro():
            found = cls.own_attribute(name, self)
            if found is not None:
                return found
        return UNKNOWN

    def reassigned(self, name: str) -> bool:
        """Whether the module sets ``Class.name = ...`` at run time, outside the class body."""
        return any(
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and node.attr == name
            and isinstance(node.value, ast.Name)
            and node.value.id == self.name
            for node in ast.walk(self.module.node)
        )

    def own_attribute(self, name: str, receiver: Any) -> Any:
        for stmt in self.node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                function = self.tree.function(self.module, stmt, self)
                if function.decorated("classmethod"):
                    return BoundMethod(function, receiver)
                return function
        for stmt in self.node.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and self.reassigned(name):
                return UNKNOWN  # the class-body value is only where it starts
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                return Evaluator(self.tree).static(self.module, stmt.value)
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == name
                and stmt.value is not None
            ):
                return Evaluator(self.tree).static(self.module, stmt.value)
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                return self.tree.class_info(self.module, stmt)
        return None


def _pseudo_field(cls: ClassInfo, annotation: ast.expr) -> str | None:
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value.strip()
        for word in ("ClassVar", "InitVar"):
            if text.startswith((word, f"typing.{word}", f"dataclasses.{word}")):
                return word
        return None
    value = Evaluator(cls.tree).static(cls.module, node)
    if isinstance(value, Sym) and value.last in ("ClassVar", "InitVar", "KW_ONLY"):
        return value.last
    return None


# --------------------------------------------------------------------------- the parser model


class Action:
    def __init__(self, flags: list[str], kwargs: dict[str, Any], group: str | None) -> None:
        self.flags = flags
        self.kwargs = kwargs
        self.group = group

    @property
    def dest(self) -> str:
        dest = self.kwargs.get("dest")
        if isinstance(dest, str):
            return dest
        longs = [f for f in self.flags if f.startswith("--")]
        return (longs or self.flags or ["?"])[0].lstrip("-").replace("-", "_")

    def get(self, name: str) -> Any:
        if name == "dest":
            return self.dest
        if name == "option_strings":
            return list(self.flags)
        if name in ("choices", "default", "help", "nargs", "metavar", "type", "const", "required"):
            return self.kwargs.get(name)
        return UNKNOWN

    def set(self, name: str, value: Any) -> None:
        self.kwargs["action" if name == "__class__" else name] = value


class Group:
    def __init__(self, parser: Parser, title: Any, description: Any) -> None:
        self.parser = parser
        self.title = title if isinstance(title, str) else None
        self.description = description

    def add_argument(self, *args: Any, **kwargs: Any) -> Action:
        return self.parser.register(args, kwargs, self.title)


class Parser:
    def __init__(self) -> None:
        self.actions: list[Action] = []
        self.groups: list[Group] = []

    def add_argument(self, *args: Any, **kwargs: Any) -> Action:
        return self.register(args, kwargs, None)

    def add_argument_group(self, title: Any = None, description: Any = None, **_: Any) -> Group:
        group = Group(self, title, description)
        self.groups.append(group)
        return group

    def register(self, args: tuple, kwargs: dict[str, Any], group: str | None) -> Action:
        flags = [a for a in args if isinstance(a, str) and a.startswith("-")]
        action = Action(flags, dict(kwargs), group)
        if flags:
            self.actions.append(action)
        return action


class Subparsers:
    """``argparse._SubParsersAction``: ``add_parser`` gives the parser we are after."""

    def __init__(self) -> None:
        self.parsers: list[Parser] = []

    def add_parser(self, *_: Any, **__: Any) -> Parser:
        parser = Parser()
        self.parsers.append(parser)
        return parser


_TRACKED = (Parser, Group, Action, Subparsers, Spec, Kwargs, ClassInfo, FieldInfo)


# --------------------------------------------------------------------------- the evaluator


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Abort(Exception):
    """A ``raise`` was reached: the function does not return normally."""


@dataclasses.dataclass
class Frame:
    module: Module
    names: dict[str, Any]
    function: Function | None = None
    receiver: Any = None  # what self/cls is bound to, for super()


def _has_unknown(value: Any, depth: int = 0) -> bool:
    if value is UNKNOWN:
        return True
    if depth > 3:
        return False
    if isinstance(value, list | tuple | set | frozenset):
        return any(_has_unknown(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_has_unknown(v, depth + 1) for v in value.values())
    return False


def _truth(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    if value is None or isinstance(value, bool | int | float | str | list | tuple | dict | set | frozenset):
        return bool(value)
    if isinstance(value, Sym):
        return False if value.last == "TYPE_CHECKING" else UNKNOWN
    return True


def _escapes(body: list[ast.stmt]) -> bool:
    """Whether a block only leaves: return, continue, break or raise at its end."""
    return bool(body) and isinstance(body[-1], ast.Return | ast.Continue | ast.Break | ast.Raise)


def _mentions_add_argument(nodes: list[ast.stmt]) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr in ("add_argument", "add_cli_args")
        for stmt in nodes
        for n in ast.walk(stmt)
    )


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
_PLAIN = (type(None), bool, int, float, str, list, tuple, dict, set, frozenset)


class Evaluator:
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

    def _expr_Subscript(self, node: ast.Subscript, frame: Frame) -> Any:
        obj = self.expr(node.value, frame)
        if isinstance(obj, Sym):
            if obj.last == "Literal":
                return LiteralType(tuple(self.literal_values(frame.module, node.slice)))
            return UNKNOWN
        index = self.expr(node.slice, frame)
        if obj is UNKNOWN or index is UNKNOWN or not isinstance(obj, _PLAIN):
            return UNKNOWN
        return obj[index]

    def _expr_Slice(self, node: ast.Slice, frame: Frame) -> Any:
        parts = [None if p is None else self.expr(p, frame) for p in (node.lower, node.upper, node.step)]
        if any(p is UNKNOWN for p in parts):
            return UNKNOWN
        return slice(*parts)

    def _expr_List(self, node: ast.List, frame: Frame) -> Any:
        return self._sequence(node.elts, frame)

    def _expr_Tuple(self, node: ast.Tuple, frame: Frame) -> Any:
        value = self._sequence(node.elts, frame)
        return tuple(value) if isinstance(value, list) else value

    def _expr_Set(self, node: ast.Set, frame: Frame) -> Any:
        value = self._sequence(node.elts, frame)
        try:
            return set(value) if isinstance(value, list) else value
        except TypeError:
            return UNKNOWN

    def _sequence(self, elts: list[ast.expr], frame: Frame) -> Any:
        out: list[Any] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                value = self.expr(elt.value, frame)
                if not isinstance(value, list | tuple | set | frozenset):
                    return UNKNOWN
                out.extend(value)
            else:
                out.append(self.expr(elt, frame))
        return out

    def _expr_Dict(self, node: ast.Dict, frame: Frame) -> Any:
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                merged = self.expr(value, frame)
                if not isinstance(merged, dict):
                    return UNKNOWN
                out.update(merged)
                continue
            k = self.expr(key, frame)
            if k is UNKNOWN:
                return UNKNOWN
            out[k] = self.expr(value, frame)
        return out

    def _expr_JoinedStr(self, node: ast.JoinedStr, frame: Frame) -> Any:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            assert isinstance(value, ast.FormattedValue)
            inner = self.expr(value.value, frame)
            if not isinstance(inner, str | int | float) or value.format_spec is not None:
                return UNKNOWN
            parts.append(str(inner))
        return "".join(parts)

    def _expr_BinOp(self, node: ast.BinOp, frame: Frame) -> Any:
        left, right = self.expr(node.left, frame), self.expr(node.right, frame)
        if _has_unknown(left) or _has_unknown(right) or not isinstance(left, _PLAIN) or not isinstance(right, _PLAIN):
            return UNKNOWN
        op = {
            ast.Add: lambda a, b: a + b,
            ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b,
            ast.Mod: lambda a, b: a % b,
            ast.BitOr: lambda a, b: a | b,
            ast.FloorDiv: lambda a, b: a // b,
            ast.Div: lambda a, b: a / b,
        }.get(type(node.op))
        return UNKNOWN if op is None else op(left, right)

    def _expr_UnaryOp(self, node: ast.UnaryOp, frame: Frame) -> Any:
        value = self.expr(node.operand, frame)
        if isinstance(node.op, ast.Not):
            truth = _truth(value)
            return UNKNOWN if truth is UNKNOWN else not truth
        if isinstance(value, int | float) and isinstance(node.op, ast.USub):
            return -value
        return UNKNOWN

    def _expr_BoolOp(self, node: ast.BoolOp, frame: Frame) -> Any:
        is_and = isinstance(node.op, ast.And)
        result: Any = None
        for operand in node.values:
            result = self.expr(operand, frame)
            truth = _truth(result)
            if truth is UNKNOWN:
                return UNKNOWN
            if truth != is_and:
                return result
        return result

    def _expr_Compare(self, node: ast.Compare, frame: Frame) -> Any:
        left = self.expr(node.left, frame)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.expr(right_node, frame)
            outcome = self._compare(op, left, right)
            if outcome is UNKNOWN or outcome is False:
                return outcome
            left = right
        return True

    @staticmethod
    def _compare(op: ast.cmpop, left: Any, right: Any) -> Any:
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(op, ast.Is):
            return left is right
        if isinstance(op, ast.IsNot):
            return left is not right
        if isinstance(op, ast.In | ast.NotIn):
            if not isinstance(right, _PLAIN) or isinstance(right, type(None) | bool | int | float):
                return UNKNOWN
            try:
                found = left in right
            except TypeError:
                return UNKNOWN
            if not found and _has_unknown(right):
                return UNKNOWN
            return found if isinstance(op, ast.In) else not found
        if isinstance(op, ast.Eq | ast.NotEq):
            if isinstance(left, Sym) or isinstance(right, Sym):
                if left is right:
                    return isinstance(op, ast.Eq)
                return UNKNOWN
            equal = left == right
            return equal if isinstance(op, ast.Eq) else not equal
        if isinstance(left, int | float | str) and isinstance(right, type(left)):
            return {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right, ast.GtE: left >= right}.get(
                type(op), UNKNOWN
            )
        return UNKNOWN

    def _expr_IfExp(self, node: ast.IfExp, frame: Frame) -> Any:
        truth = _truth(self.expr(node.test, frame))
        if truth is UNKNOWN:
            return UNKNOWN
        return self.expr(node.body if truth else node.orelse, frame)

    def _expr_Lambda(self, node: ast.Lambda, frame: Frame) -> Any:
        return sym("<lambda>")

    def _comprehension(self, generators: list[ast.comprehension], element: Callable[[Frame], None], frame: Frame):
        def walk(index: int, names: dict[str, Any]) -> bool:
            if index == len(generators):
                element(Frame(frame.module, names, frame.function, frame.receiver))
                return True
            gen = generators[index]
            iterable = self.expr(gen.iter, Frame(frame.module, names, frame.function, frame.receiver))
            if not isinstance(iterable, list | tuple | set | frozenset | dict | str | range | type({}.items())):
                return False
            for item in list(iterable):
                inner = dict(names)
                if not self.bind(gen.target, item, inner):
                    return False
                keep = True
                for condition in gen.ifs:
                    truth = _truth(self.expr(condition, Frame(frame.module, inner, frame.function, frame.receiver)))
                    if truth is UNKNOWN:
                        return False
                    keep = keep and truth
                if keep and not walk(index + 1, inner):
                    return False
            return True

        return walk(0, dict(frame.names))

    def _expr_ListComp(self, node: ast.ListComp, frame: Frame) -> Any:
        out: list[Any] = []
        ok = self._comprehension(node.generators, lambda f: out.append(self.expr(node.elt, f)), frame)
        return out if ok else UNKNOWN

    _expr_GeneratorExp = _expr_ListComp

    def _expr_SetComp(self, node: ast.SetComp, frame: Frame) -> Any:
        value = self._expr_ListComp(node, frame)  # type: ignore[arg-type]
        try:
            return set(value) if isinstance(value, list) else UNKNOWN
        except TypeError:
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

    # statements --------------------------------------------------------------

    def block(self, body: list[ast.stmt], frame: Frame) -> None:
        for stmt in body:
            self.statement(stmt, frame)

    def statement(self, stmt: ast.stmt, frame: Frame) -> None:
        try:
            self._statement(stmt, frame)
        except (_Return, _Break, _Continue, _Abort):
            raise
        except Exception as error:  # a construct this evaluator does not model
            if _mentions_add_argument([stmt]):
                self.tree.warn(f"{frame.module.name}:{stmt.lineno}: could not follow ({type(error).__name__}: {error})")

    def _statement(self, stmt: ast.stmt, frame: Frame) -> None:
        if isinstance(stmt, ast.Expr):
            self.expr(stmt.value, frame)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, frame)
            for target in stmt.targets:
                self.assign(target, value, frame)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value, frame), frame)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, frame)
            change = self.expr(stmt.value, frame)
            if _has_unknown(current) or _has_unknown(change):
                self.assign(stmt.target, UNKNOWN, frame)
            elif isinstance(stmt.op, ast.Add) and isinstance(current, list) and isinstance(change, list | tuple):
                current += change  # in place, as Python does for lists
            else:
                fake = ast.BinOp(left=ast.Constant(current), op=stmt.op, right=ast.Constant(change))
                self.assign(stmt.target, self._expr_BinOp(fake, frame), frame)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    container = self.expr(target.value, frame)
                    key = self.expr(target.slice, frame)
                    if isinstance(container, dict) and key is not UNKNOWN:
                        container.pop(key, None)
                elif isinstance(target, ast.Name):
                    frame.names.pop(target.id, None)
        elif isinstance(stmt, ast.If):
            truth = _truth(self.expr(stmt.test, frame))
            if truth is UNKNOWN:
                if not _escapes(stmt.body):
                    self.block(stmt.body, frame)
                if not _escapes(stmt.orelse):
                    self.block(stmt.orelse, frame)
            else:
                self.block(stmt.body if truth else stmt.orelse, frame)
        elif isinstance(stmt, ast.For):
            self.loop(stmt, frame)
        elif isinstance(stmt, ast.Return):
            raise _Return(None if stmt.value is None else self.expr(stmt.value, frame))
        elif isinstance(stmt, ast.Raise):
            raise _Abort
        elif isinstance(stmt, ast.Break):
            raise _Break
        elif isinstance(stmt, ast.Continue):
            raise _Continue
        elif isinstance(stmt, ast.Try):
            with contextlib.suppress(_Abort):  # the handlers are not followed
                self.block(stmt.body, frame)
            self.block(stmt.orelse, frame)
            self.block(stmt.finalbody, frame)
        elif isinstance(stmt, ast.With):
            self.block(stmt.body, frame)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else name
                found = self.tree.module(target)
                frame.names[name] = found if found is not None else sym(target)
        elif isinstance(stmt, ast.ImportFrom):
            base = frame.module.absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if (base, alias.name) == ("vllm.platforms", "current_platform"):
                    frame.names[alias.asname or alias.name] = self.platform or UNKNOWN
                    continue
                found = self.tree.resolve_from(base, alias.name)
                if isinstance(found, tuple):
                    found = self.global_name(found[1], alias.name) if found[0] == "expr" else UNKNOWN
                frame.names[alias.asname or alias.name] = found
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            frame.names[stmt.name] = self.tree.function(frame.module, stmt)
        elif isinstance(stmt, ast.ClassDef):
            frame.names[stmt.name] = self.tree.class_info(frame.module, stmt)
        elif _mentions_add_argument([stmt]):
            self.tree.warn(f"{frame.module.name}:{stmt.lineno}: {type(stmt).__name__} not followed")

    def loop(self, stmt: ast.For, frame: Frame) -> None:
        iterable = self.expr(stmt.iter, frame)
        if isinstance(iterable, dict):
            iterable = list(iterable)
        if not isinstance(iterable, list | tuple | set | frozenset | str | range | type({}.items())):
            if _mentions_add_argument(stmt.body):
                self.tree.warn(f"{frame.module.name}:{stmt.lineno}: loop over {ast.unparse(stmt.iter)} not followed")
            return
        for item in list(iterable):
            self.bind(stmt.target, item, frame.names)
            try:
                self.block(stmt.body, frame)
            except _Continue:
                continue
            except _Break:
                return
        self.block(stmt.orelse, frame)

    def bind(self, target: ast.expr, value: Any, names: dict[str, Any]) -> bool:
        if isinstance(target, ast.Name):
            names[target.id] = value
            return True
        if isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, list | tuple) or len(value) != len(target.elts):
                for elt in target.elts:
                    self.bind(elt, UNKNOWN, names)
                return False
            return all(self.bind(elt, v, names) for elt, v in zip(target.elts, value, strict=True))
        return False

    def assign(self, target: ast.expr, value: Any, frame: Frame) -> None:
        if isinstance(target, ast.Name | ast.Tuple | ast.List):
            self.bind(target, value, frame.names)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            if isinstance(container, dict | list) and key is not UNKNOWN:
                container[key] = value
        elif isinstance(target, ast.Attribute):
            obj = self.expr(target.value, frame)
            if isinstance(obj, Action):
                obj.set(target.attr, value)

    # types -------------------------------------------------------------------

    def literal_values(self, module: Module, node: ast.expr) -> list[Any]:
        """The options of ``Literal[<node>]``, with nested Literal aliases flattened."""
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        out: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Constant):
                values = [element.value]
            else:
                value = self.static(module, element)
                values = list(value.values) if isinstance(value, LiteralType) else []
                if not isinstance(value, LiteralType):
                    self.tree.warn(f"{module.name}: Literal option {ast.unparse(element)} not followed")
            for value in values:
                if value not in out:
                    out.append(value)
        return out

    def hints(self, module: Module, node: ast.expr | None, depth: int = 0) -> list[tuple]:
        """``get_type_hints`` of arg_utils: the flattened members of a type annotation.

        Each is ("builtin", name), ("collection", origin, module, args), ("literal", values),
        ("dataclass", ClassInfo) or ("other", description).
        """
        if node is None or depth > _MAX_DEPTH:
            return [("other", "?")]
        if isinstance(node, ast.Constant):
            if node.value is None:
                return [("builtin", "NoneType")]
            if isinstance(node.value, str):
                try:
                    parsed = ast.parse(node.value.strip(), mode="eval").body
                except SyntaxError:
                    return [("other", node.value)]
                return self.hints(module, parsed, depth + 1)
            return [("other", repr(node.value))]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.hints(module, node.left, depth + 1) + self.hints(module, node.right, depth + 1)
        if isinstance(node, ast.Subscript):
            origin = self.type_ref(module, node.value, depth)
            args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            if isinstance(origin, Sym):
                last = origin.last
                if last == "Literal":
                    return [("literal", tuple(self.literal_values(module, node.slice)))]
                if last == "Union":
                    return [h for a in args for h in self.hints(module, a, depth + 1)]
                if last == "Optional":
                    return [*self.hints(module, args[0], depth + 1), ("builtin", "NoneType")]
                if last in ("Annotated", "SkipValidation", "Final", "Required", "NotRequired"):
                    return self.hints(module, args[0], depth + 1)
                if last in _TYPING_COLLECTIONS:
                    return [("collection", _TYPING_COLLECTIONS[last], module, args)]
                if origin.name.startswith("builtins.") and last in _COLLECTIONS:
                    return [("collection", last, module, args)]
                return [("other", origin.name)]
            if isinstance(origin, ClassInfo):
                return self.class_hint(origin)
            return [("other", ast.unparse(node))]
        ref = self.type_ref(module, node, depth)
        if isinstance(ref, tuple) and ref[0] == "expr":
            return self.hints(ref[1], ref[2], depth + 1)
        if isinstance(ref, ClassInfo):
            return self.class_hint(ref)
        if isinstance(ref, Sym):
            if ref.name.startswith("builtins."):
                if ref.last in _COLLECTIONS:
                    return [("collection", ref.last, module, [])]
                return [("builtin", ref.last)]
            if ref.last in _TYPING_COLLECTIONS:
                return [("collection", _TYPING_COLLECTIONS[ref.last], module, [])]
            return [("other", ref.name)]
        return [("other", ast.unparse(node))]

    def type_ref(self, module: Module, node: ast.expr, depth: int) -> Any:
        """What a name in an annotation refers to, without evaluating aliases."""
        if isinstance(node, ast.Name):
            found = self.tree.resolve(module, node.id)
            if found is UNKNOWN and node.id in _BUILTIN_TYPES:
                return sym(f"builtins.{node.id}")
            return found
        if isinstance(node, ast.Attribute):
            base = self.type_ref(module, node.value, depth + 1)
            if isinstance(base, Module):
                found = self.tree.resolve(base, node.attr)
                return found
            if isinstance(base, Sym):
                return sym(f"{base.name}.{node.attr}")
            if isinstance(base, ClassInfo):
                return base.attribute(node.attr)
        return UNKNOWN

    @staticmethod
    def class_hint(cls: ClassInfo) -> list[tuple]:
        if cls.is_dataclass:
            return [("dataclass", cls)]
        return [("other", f"{cls.module.name}.{cls.name}")]


# --------------------------------------------------------------------------- get_kwargs, emulated


def _kind(hint: tuple) -> str:
    return hint[1] if hint[0] in ("builtin", "collection") else hint[0]


def compute_kwargs(evaluator: Evaluator, cls: ClassInfo) -> Kwargs:
    """What ``vllm.engine.arg_utils.get_kwargs(cls)`` returns, from the dataclass source."""
    out = Kwargs()
    for f in cls.fields():
        out[f.name] = field_spec(evaluator, f)
    return out


def field_spec(evaluator: Evaluator, f: FieldInfo) -> Spec:
    hints = evaluator.hints(f.owner.module, f.annotation)
    kinds = {_kind(h) for h in hints}
    spec = Spec(default=UNKNOWN, help=f.doc.replace("%", "%%"))
    dataclass = next((h[1] for h in hints if h[0] == "dataclass"), None)
    literals = [v for h in hints if h[0] == "literal" for v in h[1]]
    if dataclass is not None:
        spec["type"] = sym("parse_dataclass")
        spec["_json_class"] = dataclass
    elif kinds == {"bool", "str", "NoneType"}:
        spec.update(type=sym("builtins.str"), nargs="?", const=True)
    elif "bool" in kinds:
        spec["action"] = sym("argparse.BooleanOptionalAction")
    elif "literal" in kinds:
        spec.update(_literal_kwargs(literals, "str" in kinds))
    elif kinds & {"tuple", "list", "set"}:
        origin = next(k for k in ("tuple", "list", "set") if k in kinds)
        collection = next(h for h in hints if h[0] == "collection" and h[1] == origin)
        args = [a for a in collection[3] if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
        nargs: Any = "+"
        if origin == "tuple" and len(args) == len(collection[3]) and args:
            nargs = len(args)
        spec["nargs"] = nargs
        element = evaluator.hints(collection[2], args[0]) if args else []
        element_literals = [v for h in element if h[0] == "literal" for v in h[1]]
        if element_literals and len(element) == 1:
            spec.update(_literal_kwargs(element_literals, False))
        else:
            spec["type"] = sym("builtins.str")
    elif "int" in kinds:
        parser = evaluator.int_parsers().get(f.name)
        spec["type"] = sym(parser) if parser else sym("builtins.int")
    elif "float" in kinds:
        spec["type"] = sym("builtins.float")
    elif "dict" in kinds and kinds & {"str", "other"}:
        spec["type"] = sym("union_dict_and_str")
        spec["_json"] = True
    elif "dict" in kinds:
        spec["type"] = sym("json.loads")
        spec["_json"] = True
    else:
        spec["type"] = sym("builtins.str")
    if "NoneType" in kinds and "bool" not in kinds and isinstance(spec.get("choices"), list):
        spec["choices"].append("None")
    if "NoneType" in kinds and "bool" not in kinds:
        spec["_optional"] = True
    bounds = field_bounds(f)
    if bounds:
        spec["_bounds"] = bounds
    return spec


_BOUND_WORDS = ("ge", "gt", "le", "lt")


def field_bounds(f: FieldInfo) -> dict[str, int | float]:
    """``Field(ge=1, le=...)`` of a pydantic field: the limits its validation enforces."""
    if not (isinstance(f.value, ast.Call) and _decorator_name(f.value) == "Field"):
        return {}
    bounds: dict[str, int | float] = {}
    for keyword in f.value.keywords:
        if keyword.arg in _BOUND_WORDS:
            node = keyword.value
            sign = 1
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                node, sign = node.operand, -1
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, int | float)
                and not isinstance(node.value, bool)
            ):
                bounds[keyword.arg] = sign * node.value
    return bounds


def field_type(evaluator: Evaluator, f: FieldInfo) -> dict[str, Any]:
    """The JSON a dataclass field accepts, from its annotation: {"types": [...], "choices"?, "bounds"?}.

    Types are JSON's: bool, int, float, str, null, object, array; "any" when the
    annotation names something else (an enum, a callable, a type the evaluator does not follow).
    """
    types: list[str] = []
    choices: list[Any] = []
    for hint in evaluator.hints(f.owner.module, f.annotation):
        kind = hint[0]
        if kind == "literal":
            choices += [v for v in hint[1] if v not in choices]
            types += [_JSON_KIND[type(v).__name__] for v in hint[1] if type(v).__name__ in _JSON_KIND]
        elif kind == "builtin":
            types.append(_JSON_KIND.get(hint[1], "any"))
        elif kind == "collection":
            types.append("object" if hint[1] == "dict" else "array")
        elif kind == "dataclass":
            types.append("object")
        else:
            types.append("any")
    out: dict[str, Any] = {"types": sorted(set(types))}
    if (
        choices
        and set(out["types"]) <= {"str", "int", "float", "bool", "null"}
        and all(_JSON_KIND.get(type(c).__name__) for c in choices)
    ):
        literal_types = {_JSON_KIND[type(c).__name__] for c in choices}
        if not (set(out["types"]) - literal_types - {"null"}):
            out["choices"] = [c for c in choices]
    bounds = field_bounds(f)
    if bounds:
        out["bounds"] = bounds
    return out


_JSON_KIND = {"bool": "bool", "int": "int", "float": "float", "str": "str", "NoneType": "null", "dict": "object"}


def _int_parsers(tree: Tree) -> dict[str, str]:
    module = tree.module("vllm.engine.arg_utils")
    function = next(
        (
            n
            for n in (module.node.body if module is not None else [])
            if isinstance(n, ast.FunctionDef) and n.name == "_compute_kwargs"
        ),
        None,
    )
    if function is None:
        return {}
    sets: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Set | ast.List | ast.Tuple)
        ):
            sets[node.targets[0].id] = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    out: dict[str, str] = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1):
            continue
        parser = next(
            (
                stmt.value.id
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Name)
                and isinstance(stmt.targets[0], ast.Subscript)
                and isinstance(stmt.targets[0].slice, ast.Constant)
                and stmt.targets[0].slice.value == "type"
            ),
            None,
        )
        if parser is None:
            continue
        op, right = node.test.ops[0], node.test.comparators[0]
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            out.setdefault(right.value, parser)
        elif isinstance(op, ast.In) and isinstance(right, ast.Name):
            for name in sets.get(right.id, []):
                out.setdefault(name, parser)
    return out


def _literal_kwargs(options: list[Any], with_str: bool) -> dict[str, Any]:
    try:
        ordered = sorted(options)
    except TypeError:
        ordered = list(options)
    if with_str:
        return {"metavar": ordered, "_values": list(ordered)}
    return {"choices": ordered}


# --------------------------------------------------------------------------- extraction


def _first_paragraph(text: Any) -> str:
    """The help's first paragraph, on one line; with the next one when it ends in a colon."""
    if not isinstance(text, str):
        return ""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text).replace("%%", "%").strip())
    kept = paragraphs[:2] if paragraphs[0].rstrip().endswith(":") else paragraphs[:1]
    return " ".join(" ".join(kept).split())


def _platform_class(tree: Tree, evaluator: Evaluator) -> ClassInfo | None:
    """The platform a ``vllm.platform_plugins`` entry point of the tree registers."""
    for entry_points in sorted(tree.root.glob("*.dist-info/entry_points.txt")):
        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read(entry_points, encoding="utf-8")
        if not parser.has_section("vllm.platform_plugins"):
            continue
        for _, target in sorted(parser.items("vllm.platform_plugins")):
            module_name, _, function_name = target.strip().partition(":")
            module = tree.module(module_name)
            if module is None:
                continue
            function = tree.resolve(module, function_name)
            if not isinstance(function, Function):
                continue
            returned = [
                evaluator.static(module, n.value)
                for n in ast.walk(function.node)
                if isinstance(n, ast.Return) and n.value is not None
            ]
            for qualname in returned:
                if isinstance(qualname, str):
                    found = tree.resolve_qualname(qualname)
                    if isinstance(found, ClassInfo):
                        return found
    return None


def build_parser(tree: Tree, evaluator: Evaluator) -> Parser:
    """Run the serve subcommand's ``subparser_init`` over a model parser."""
    module = tree.module("vllm.entrypoints.cli.serve")
    if module is None:
        raise SystemExit("vllm/entrypoints/cli/serve.py is missing: is this a vLLM source tree?")
    command = next(
        (
            tree.class_info(module, node)
            for node in module.node.body
            if isinstance(node, ast.ClassDef)
            and any(isinstance(s, ast.FunctionDef) and s.name == "subparser_init" for s in node.body)
        ),
        None,
    )
    if command is None:
        raise SystemExit("no class with subparser_init in vllm/entrypoints/cli/serve.py")
    init = command.attribute("subparser_init")
    subparsers = Subparsers()
    evaluator.call_function(init, [UNKNOWN, subparsers], {})
    if not subparsers.parsers or not subparsers.parsers[0].actions:
        raise SystemExit("subparser_init registered no flags; the parser layout is not understood")
    return subparsers.parsers[0]


def _takes_value(action: Action, warn: Warnings) -> tuple[str, Any, bool]:
    """("no" | "yes" | "optional", nargs, negatable) of an argparse action."""
    kind = action.kwargs.get("action")
    nargs = action.kwargs.get("nargs")
    if isinstance(kind, str) and kind in _NO_VALUE_ACTIONS:
        return "no", 0, False
    negatable = (isinstance(kind, Sym) and kind.last == "BooleanOptionalAction") or (
        isinstance(kind, ClassInfo) and kind.subclass_of("argparse.BooleanOptionalAction")
    )
    if negatable:
        return "no", 0, True
    if kind is UNKNOWN:
        warn(f"{action.flags[0]}: action not known; assumed to take a value")
    if nargs == "?":
        return "optional", "?", False
    if nargs == 0:
        return "no", 0, False
    if nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1):
        return "yes", nargs, False
    return "yes", None, False


_VALUE_TYPES = {
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.str": "str",
    "human_readable_int": "size",
    "human_readable_int_or_auto": "size_or_auto",
    "union_dict_and_str": "json_or_str",
    "json.loads": "json",
    "parse_dataclass": "object",
}


def _value_type(kw: dict[str, Any], json_class: Any, is_json: bool) -> str | None:
    """What vLLM's parser converts a flag's value with, as the data file names it (None: not known)."""
    if isinstance(json_class, ClassInfo):
        return "object"
    kind = kw.get("type")
    if kind is None:
        return "str"  # argparse's default: the text itself (choices, if any, are checked apart)
    if kind in (int, float, str):
        return kind.__name__
    if isinstance(kind, Sym) and kind.name in _VALUE_TYPES:
        return _VALUE_TYPES[kind.name]
    if isinstance(kind, Function) and kind.name in _VALUE_TYPES:
        return _VALUE_TYPES[kind.name]
    if isinstance(kind, Function) and isinstance(kind.node.returns, ast.Name):
        # a converter of vLLM's own, e.g. parse_reasoning_parser(val: str) -> str
        return {"str": "str", "int": "int", "float": "float"}.get(kind.node.returns.id)
    if is_json:
        return "json"
    return None


def json_field_types(evaluator: Evaluator, cls: ClassInfo) -> dict[str, dict[str, Any]]:
    """The JSON each init field of a config dataclass accepts."""
    wanted = set(cls.init_fields())
    return {f.name: field_type(evaluator, f) for f in cls.fields() if f.name in wanted}


def flag_entries(parser: Parser, warn: Warnings, evaluator: Evaluator) -> dict[str, dict[str, Any]]:
    """The data file's entry of every option string, --no- forms included."""
    flags: dict[str, dict[str, Any]] = {}
    for action in parser.actions:
        longs = [f for f in action.flags if f.startswith("--")]
        if not longs:
            continue
        kw = action.kwargs
        takes, nargs, negatable = _takes_value(action, warn)
        choices = kw.get("choices")
        open_choices = False
        if choices is UNKNOWN or _has_unknown(choices):
            warn(f"{longs[0]}: choices could not be worked out; none recorded")
            choices = None
        if choices is None and isinstance(kw.get("_values"), list) and kw["_values"]:
            choices, open_choices = kw["_values"], True
        json_class = kw.get("_json_class")
        is_json = isinstance(json_class, ClassInfo) or bool(kw.get("_json")) or kw.get("type") is sym("json.loads")
        entry: dict[str, Any] = {
            "aliases": [f for f in action.flags if f not in longs[:1]],
            "choices": None if choices is None else [str(c) for c in choices],
            "group": action.group,
            "help": _first_paragraph(kw.get("help")),
            "json": is_json,
            "json_class": json_class.name if isinstance(json_class, ClassInfo) else None,
            "json_fields": sorted(json_class.init_fields()) if isinstance(json_class, ClassInfo) else None,
            "takes_value": takes,
        }
        if choices is not None:
            entry["open_choices"] = open_choices
        if nargs not in (None, 0):
            entry["nargs"] = nargs
        if kw.get("deprecated") is True:
            entry["deprecated"] = True
        entry["type"] = None if takes == "no" else _value_type(kw, json_class, is_json)
        if kw.get("_optional") and takes != "no":
            entry["optional"] = True
        if kw.get("_bounds") and takes != "no":
            entry["bounds"] = dict(sorted(kw["_bounds"].items()))
        if isinstance(json_class, ClassInfo):
            entry["json_field_types"] = json_field_types(evaluator, json_class)
        for name in longs[:1]:
            flags[name] = entry
        if negatable:
            for name in longs:
                flags["--no-" + name[2:]] = {
                    "aliases": [],
                    "choices": None,
                    "group": action.group,
                    "help": f"Turns {longs[0]} off.",
                    "json": False,
                    "json_class": None,
                    "json_fields": None,
                    "negates": longs[0],
                    "takes_value": "no",
                    "type": None,
                }
    return flags


def registry_names(tree: Tree, evaluator: Evaluator, flag: str, warn: Warnings) -> list[str] | None:
    module_name, variable, _ = REGISTRIES[flag]
    module = tree.module(module_name)
    names: list[str] = []
    if module is not None:
        value = evaluator.global_name(module, variable)
        if isinstance(value, dict):
            names += [k for k in value if isinstance(k, str)]
    manager = REGISTRY_MANAGERS[flag]
    for path in sorted(tree.root.rglob("*.py")):  # names registered eagerly, by a constant
        text = path.read_text(encoding="utf-8", errors="replace")
        if manager not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("register_module", "register_lazy_module")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == manager
            ):
                continue
            candidates = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "name")]
            for candidate in candidates:
                if isinstance(candidate, ast.Constant) and isinstance(candidate.value, str):
                    names.append(candidate.value)
    if not names:
        warn(f"{flag}: no registered names found in {module_name}.{variable}")
        return None
    return sorted(set(names))


def multi_connector_rule(tree: Tree, flags: dict[str, dict[str, Any]], warn: Warnings) -> None:
    flag, module_name, when, path = MULTI_CONNECTOR
    if flag not in flags:
        return
    module = tree.module(module_name)
    text = module.path.read_text(encoding="utf-8") if module is not None else ""
    builds_children = "KVTransferConfig(" in text and f'"{path[-1]}"' in text
    if builds_children and flag in flags and flags[flag]["json_fields"]:
        flags[flag]["json_children"] = {"when": when, "path": path}
        return
    warn(f"{flag}: MultiConnector children not found in {module_name}; not recorded")


def _env_reads(node: ast.AST) -> Iterator[str]:
    """VLLM_* names read or written through os.environ / os.getenv in a module."""

    def environ(n: ast.expr) -> bool:
        return isinstance(n, ast.Attribute) and n.attr == "environ"

    for n in ast.walk(node):
        first: ast.expr | None = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args:
            if n.func.attr == "getenv" or (
                environ(n.func.value) and n.func.attr in ("get", "setdefault", "pop", "__contains__")
            ):
                first = n.args[0]
        elif isinstance(n, ast.Subscript) and environ(n.value):
            first = n.slice
        elif (
            isinstance(n, ast.Compare)
            and len(n.ops) == 1
            and isinstance(n.ops[0], ast.In | ast.NotIn)
            and environ(n.comparators[0])
        ):
            first = n.left
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and _ENV_NAME.match(first.value):
            yield first.value


def env_names(tree: Tree, package: str) -> list[str]:
    names: set[str] = set()
    module = tree.module(f"{package}.envs")
    if module is not None:
        for name in module.type_checking:
            if _ENV_NAME.match(name):
                names.add(name)
        bound = module.runtime.get("environment_variables")
        if bound and bound[0] == "expr" and isinstance(bound[1], ast.Dict):
            for key in bound[1].keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and _ENV_NAME.match(key.value):
                    names.add(key.value)
    for path in sorted((tree.root / package).rglob("*.py")):
        try:
            names.update(_env_reads(ast.parse(path.read_text(encoding="utf-8", errors="replace"))))
        except SyntaxError:
            continue
    return sorted(names)


def extract(root: Path, vllm_version: str, rbln_version: str | None) -> tuple[dict[str, Any], list[str]]:
    """The vocabulary of an unpacked source tree (``root/vllm``, ``root/vllm_rbln``)."""
    _SYMS.clear()
    warn = Warnings()
    tree = Tree(root, warn)
    evaluator = Evaluator(tree)
    evaluator.platform = _platform_class(tree, evaluator)
    if evaluator.platform is None and rbln_version:
        warn("no platform plugin found: platform flags (--rbln-*) are missing")
    parser = build_parser(tree, evaluator)
    flags = flag_entries(parser, warn, evaluator)
    for flag, (_, _, plugin_flag) in REGISTRIES.items():
        if flag not in flags:
            continue
        names = registry_names(tree, evaluator, flag, warn)
        if names:
            flags[flag]["choices"] = names
            flags[flag]["open_choices"] = True
            if plugin_flag in flags:
                flags[flag]["extended_by"] = plugin_flag
    multi_connector_rule(tree, flags, warn)
    envs = {"vllm": env_names(tree, "vllm")}
    if (root / "vllm_rbln").is_dir():
        envs["vllm-rbln"] = env_names(tree, "vllm_rbln")
    data = {
        "format": FORMAT,
        "generated_by": "tools/vocabulary.py",
        "vllm": vllm_version,
        "vllm_rbln": rbln_version,
        "flags": flags,
        "envs": envs,
    }
    return data, warn.seen


# --------------------------------------------------------------------------- fetching


def _unpack(archive: Path, into: Path) -> None:
    """Unpack only the Python source and the entry points of a wheel or an sdist."""
    sdist = not archive.name.endswith(".whl")

    def target(name: str) -> str | None:
        parts = name.split("/")[1:] if sdist else name.split("/")
        if ".." in parts or not parts:
            return None
        if not sdist and len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "entry_points.txt":
            return "/".join(parts)
        if parts[0] in ("vllm", "vllm_rbln") and parts[-1].endswith(".py"):
            return "/".join(parts)
        return None

    def write(name: str, data: bytes) -> None:
        path = into / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = target(info.filename)
                if name:
                    write(name, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                name = target(member.name)
                source = tf.extractfile(member) if name and member.isfile() else None
                if name and source is not None:
                    write(name, source.read())
        _sdist_entry_points(archive, into)


def _sdist_entry_points(archive: Path, into: Path) -> None:
    """An sdist keeps its entry points in pyproject.toml; write them out as a wheel would."""
    import tomllib

    with tarfile.open(archive) as tf:
        member = next(
            (m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("pyproject.toml")), None
        )
        if member is None:
            return
        source = tf.extractfile(member)
        if source is None:
            return
        project = tomllib.loads(source.read().decode("utf-8")).get("project", {})
    groups = project.get("entry-points", {})
    if not groups:
        return
    name = project.get("name", archive.name.split("-")[0]).replace("-", "_")
    info = into / f"{name}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    lines = []
    for group, entries in sorted(groups.items()):
        lines.append(f"[{group}]")
        lines += [f"{k} = {v}" for k, v in sorted(entries.items())]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


def download(requirements: list[str], into: Path) -> list[Path]:
    """``pip download --no-deps``: a wheel when there is one, else the source distribution.

    The vLLM wheel is built for Linux only; when none fits this machine, the Linux one is
    asked for explicitly (only its Python source is read, so any platform's wheel will do).
    """
    base = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-d", str(into)]
    linux = ["--platform", "manylinux_2_28_x86_64", "--platform", "manylinux1_x86_64", "--python-version", "3.12"]
    attempts = (["--only-binary", ":all:"], ["--only-binary", ":all:", *linux], ["--no-binary", ":all:"])
    for extra in attempts:
        result = subprocess.run([*base, *extra, *requirements], check=False)
        if result.returncode == 0:
            break
    else:
        raise SystemExit(f"pip could not download {' '.join(requirements)}")
    return sorted(p for p in into.iterdir() if p.name.endswith((".whl", ".tar.gz", ".zip")))


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", required=True, help="vLLM version, e.g. 0.30.0")
    parser.add_argument("--vllm-rbln", help="vllm-rbln version, e.g. 0.12.0")
    parser.add_argument("--source", type=Path, help="an unpacked tree holding vllm/ (and vllm_rbln/)")
    parser.add_argument("--dist", type=Path, help="a directory of already downloaded wheels or sdists")
    parser.add_argument("--output", type=Path, help="default: _ext/recipebook/data/vllm-VERSION.json")
    parser.add_argument("--strict", action="store_true", help="fail when something could not be followed")
    args = parser.parse_args(argv)
    output = args.output or DATA_DIR / f"vllm-{args.vllm}.json"

    with tempfile.TemporaryDirectory(prefix="vocabulary-") as scratch:
        root = args.source
        if root is None:
            root = Path(scratch) / "src"
            root.mkdir()
            archives = sorted(args.dist.iterdir()) if args.dist else None
            if archives is None:
                wanted = [f"vllm=={args.vllm}"] + ([f"vllm-rbln=={args.vllm_rbln}"] if args.vllm_rbln else [])
                archives = download(wanted, Path(scratch))
            for archive in archives:
                if archive.name.endswith((".whl", ".tar.gz", ".zip")):
                    _unpack(archive, root)
        data, warnings = extract(root, args.vllm, args.vllm_rbln)

    for message in warnings:
        print(f"vocabulary: warning: {message}", file=sys.stderr)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    envs = sum(len(v) for v in data["envs"].values())
    print(
        f"wrote {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}: "
        f"{len(data['flags'])} flags, {envs} environment names"
    )
    return 1 if args.strict and warnings else 0


if __name__ == "__main__":
    sys.exit(main())
