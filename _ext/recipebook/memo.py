"""What the engine remembers between calls, in sight: two kinds of cache, and who owns each.

- A **memo** (``Memo``) keeps what the engine computes from objects: a recipe's page model, a
  grid's line table, a target's manifests. The caller makes one and hands it to the calls that
  should share their work (``page_of(recipe, memo)``); what it holds lives as long as the caller
  keeps it, and no longer. A call given no memo computes afresh and keeps nothing. Entries are
  found by the identity of their arguments, which the memo keeps alive (frozen objects holding
  read-only mappings do not hash, and hashing a whole recipe would cost more than it saves).
- A **remembered function** (``remembered``) is a pure function of plain values (a text, a
  flag's name, a data file's path) whose results are kept in a bounded table, for every caller
  of the process. Each one registers here, so ``forget`` empties them all, as a new process
  would start; no cache of the engine is written any other way (``tests/test_memo.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import NamedTuple, ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")


class _Table(NamedTuple):
    """A remembered function's table, as ``forget`` and the tests reach it."""

    name: str  # the function's qualified name
    clear: Callable[[], None]
    size: Callable[[], int]  # how many results it holds


# every remembered function's table, in the order they were made
_REMEMBERED: list[_Table] = []


def remembered(maxsize: int | None) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Keep a pure function's results (``functools.lru_cache`` of ``maxsize``; None: all) in a
    table ``forget`` empties."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        kept = functools.lru_cache(maxsize=maxsize)(function)
        name = f"{function.__module__}.{function.__qualname__}"
        _REMEMBERED.append(_Table(name, kept.cache_clear, lambda: kept.cache_info().currsize))
        # the table's wrapper takes the function's own arguments (they must hash)
        return cast(Callable[P, T], kept)

    return decorate


def forget() -> None:
    """Empty every remembered function's table."""
    for table in _REMEMBERED:
        table.clear()


def remembered_sizes() -> dict[str, int]:
    """Each remembered function (by qualified name) and how many results it holds now."""
    return {table.name: table.size() for table in _REMEMBERED}


class Memo:
    """Results of the engine's functions of objects, kept for the caller that owns this memo.

    ``memo.get(function, *args)`` is ``function(*args)``, computed once per function and
    arguments (compared by identity) while the memo is kept; ``drop(obj)`` forgets every result
    computed from ``obj``; ``clear()`` forgets everything.
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        # (function, ids of its arguments, keyword arguments) -> (the arguments, the result)
        self._kept: dict[Hashable, tuple[tuple[object, ...], object]] = {}

    def get(self, function: Callable[P, T], /, *args: P.args, **options: P.kwargs) -> T:
        key = (function, tuple(map(id, args)), tuple(sorted(options.items())))
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = (args, function(*args, **options))
        return cast(T, found[1])  # kept under this function's key: its result

    def drop(self, obj: object) -> None:
        """Forget every result computed from ``obj`` (one of its arguments)."""
        self._kept = {key: kept for key, kept in self._kept.items() if not any(a is obj for a in kept[0])}

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

    def __reduce__(self) -> tuple[type[Memo], tuple[()]]:
        # what holds a memo may be written to disk (Sphinx's environment): it is read back empty
        return (Memo, ())


def get(memo: Memo | None, function: Callable[P, T], /, *args: P.args, **options: P.kwargs) -> T:
    """``function(*args, **options)``, kept in ``memo`` when the caller gave one."""
    if memo is None:
        return function(*args, **options)
    return memo.get(function, *args, **options)
