"""Type annotations, as vLLM's get_type_hints flattens them: builtins, collections,
Literal options, dataclasses."""

from __future__ import annotations

import ast
from typing import Any

from .classes import ClassInfo
from .source_tree import Module
from .values import _BUILTIN_TYPES, _COLLECTIONS, _MAX_DEPTH, _TYPING_COLLECTIONS, UNKNOWN, LiteralType, Sym, sym


class TypeHints:
    """Mixed into Evaluator: reads annotations without running them."""

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
