"""Classes of the source tree: bases, dataclass fields (with their docstrings), attributes."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from typing import Any

from .source_tree import BoundMethod, Function, Module, Tree, _decorator_name
from .values import UNKNOWN, Sym


def _evaluator(tree: Tree) -> Any:
    """An evaluator for a class body's values (imported here: the evaluator needs these classes)."""
    from .evaluator import Evaluator

    return Evaluator(tree)


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
                self._bases.append(_evaluator(self.tree).static(self.module, base))
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
                value = _evaluator(self.tree).static(cls.module, target)
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
                        metadata = _evaluator(self.tree).static(self.module, keyword.value)
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
                return _evaluator(self.tree).static(self.module, stmt.value)
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == name
                and stmt.value is not None
            ):
                return _evaluator(self.tree).static(self.module, stmt.value)
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
    value = _evaluator(cls.tree).static(cls.module, node)
    if isinstance(value, Sym) and value.last in ("ClassVar", "InitVar", "KW_ONLY"):
        return value.last
    return None
