"""The values the evaluator works with: what it could not work out, outside objects,
Literal types, get_kwargs' results, and the warnings it collects."""

from __future__ import annotations

import dataclasses

_BUILTIN_TYPES = {"bool", "int", "float", "str", "bytes", "dict", "list", "tuple", "set", "frozenset", "type", "object"}
_COLLECTIONS = {"list", "tuple", "set", "dict", "frozenset", "type"}
_TYPING_COLLECTIONS = {"List": "list", "Tuple": "tuple", "Set": "set", "Dict": "dict", "FrozenSet": "frozenset"}
_MAX_DEPTH = 40


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
