"""The evaluator's expressions: constants, names, containers, operators, comprehensions."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .flow import Frame, _has_unknown, _truth
from .values import UNKNOWN, LiteralType, Sym, sym

if TYPE_CHECKING:
    pass

_PLAIN = (type(None), bool, int, float, str, list, tuple, dict, set, frozenset)


class Expressions:
    """Mixed into Evaluator: one ``_expr_<Node>`` method per kind of expression."""

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
