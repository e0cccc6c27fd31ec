"""Reading the source tree: modules parsed with ast (never imported), and what their names refer to."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .values import _MAX_DEPTH, UNKNOWN, Warnings, sym

if TYPE_CHECKING:
    from .classes import ClassInfo


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
        from .classes import ClassInfo  # classes need the tree, the tree hands out classes

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
        from .classes import ClassInfo

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
