"""Control flow of the abstract run: frames, early exits, and the truth of partly known values."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING, Any

from .values import UNKNOWN, Sym

if TYPE_CHECKING:
    from .source_tree import Function, Module


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
