"""Grids written once: a recipe's ``grids`` and the grids that extend them.

A recipe may name grid parts in ``grids``; a target's grid (or another part) that says
``"extends": "NAME"`` starts from that part and gives only what differs:

1. any grid field it gives (``model``, ``base``, ``modes``, ``options``, ``option_base``,
   ``deltas``, ``excluded``, ``recommended``, ``router``) replaces that field whole;
2. then its changes, in this order: ``change_base`` (per role: ``del_args``/``del_envs``
   remove keys, ``add_args``/``add_envs`` set keys, replaced where they stand or appended,
   as a delta changes a command; ``nodes``, ``scale`` and ``varies`` replace the role's own
   whole), ``del_deltas`` and ``add_deltas`` (whole ``axis=value``
   entries), ``del_excluded`` and ``add_excluded`` (entries), ``del_router_steps`` (by
   ``node``) and ``add_router_steps`` (appended).

``merge`` states these rules once. ``resolve`` writes every target out in full (the model
is built from that, as if the author had), and returns a document that places a problem
where its value was written: once, in the shared part, naming the targets it reaches
(``finish``), or at a target's own change.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..problems import Kind, Problem, pointer_join
from .source import Document

FIELDS = ("model", "base", "modes", "options", "option_base", "deltas", "excluded", "recommended", "router")
CHANGES = (
    "change_base",
    "del_deltas",
    "add_deltas",
    "del_excluded",
    "add_excluded",
    "del_router_steps",
    "add_router_steps",
)
# Fields of a role that change_base replaces whole when it gives them.
WHOLE_ROLE_FIELDS = ("nodes", "scale", "varies")
_TARGET = re.compile(r"^/strategies/(\d+)/options/(\d+)(?=/|$)")
# how many grids a chain of extensions may pass through: a recipe needs two or three; a longer
# chain is refused where it passes the bound (resolved step by step, never recursively)
MAX_CHAIN = 32

Origin = dict[str, str]  # a pointer inside the written-out grid ("/base/0/args/--x") -> where it was written


@dataclasses.dataclass
class _Grid:
    """A grid as far as it is resolved: its data and where each part of it was written."""

    data: dict[str, Any]
    origin: Origin


def _drop(origin: Origin, inner: str) -> None:
    for key in [k for k in origin if k == inner or k.startswith(inner + "/")]:
        del origin[key]


def real(origin: Mapping[str, str], inner: str) -> str | None:
    """Where the value at ``inner`` (a pointer inside a resolved grid) was written, or None if
    the grid itself wrote it."""
    probe = inner
    while probe:
        if probe in origin:
            return origin[probe] + inner[len(probe) :]
        probe = probe.rsplit("/", 1)[0]
    return None


def _items(grid: _Grid, inner: str, items: list[Any], where: str) -> list[str]:
    """Where each item of a list field was written (the list is about to change)."""
    found = [real(grid.origin, f"{inner}/{i}") or f"{where}{inner}/{i}" for i in range(len(items))]
    _drop(grid.origin, inner)
    return found


def _place(grid: _Grid, inner: str, places: list[str]) -> None:
    for i, place in enumerate(places):
        grid.origin[f"{inner}/{i}"] = place


def merge(
    parent: _Grid, part: Mapping[str, Any], ptr: str, parent_ptr: str, name: str
) -> tuple[_Grid, list[tuple[str, str, bool]]]:
    """The grid ``part`` (written at ``ptr``) makes of the grid it extends (``name``, resolved as
    ``parent``, written at ``parent_ptr``): whole fields first, then the changes. Returns the
    grid and the problems as (pointer, message, key) of what a change names that is not there."""
    grid = _Grid(copy.deepcopy(parent.data), dict(parent.origin))
    problems: list[tuple[str, str, bool]] = []
    for field in FIELDS:
        if field in part:
            grid.data[field] = copy.deepcopy(part[field])
            _drop(grid.origin, "/" + field)
            grid.origin["/" + field] = pointer_join(ptr, field)
    data = grid.data
    roles = {role["role"]: i for i, role in enumerate(data.get("base") or ())}
    for role_name, change in part.get("change_base", {}).items():
        where = pointer_join(ptr, "change_base", role_name)
        if role_name not in roles:
            problems.append(
                (where, f"role {role_name!r} is not in the base of grid {name!r} (roles: {', '.join(roles)})", True)
            )
            continue
        role, inner = data["base"][roles[role_name]], f"/base/{roles[role_name]}"
        for kind in ("args", "envs"):
            for i, key in enumerate(change.get(f"del_{kind}", ())):
                if key not in role[kind]:
                    problems.append(
                        (
                            pointer_join(where, f"del_{kind}", i),
                            f"{key!r} is not in role {role_name!r} of grid {name!r}, so it cannot be removed",
                            False,
                        )
                    )
                    continue
                del role[kind][key]
                _drop(grid.origin, pointer_join(inner, kind, key))
            for key, text in change.get(f"add_{kind}", {}).items():
                role[kind][key] = text  # replaced where it stands, or appended
                _drop(grid.origin, pointer_join(inner, kind, key))
                grid.origin[pointer_join(inner, kind, key)] = pointer_join(where, f"add_{kind}", key)
        for field in WHOLE_ROLE_FIELDS:  # a target that spans another number of nodes
            if field in change:
                role[field] = copy.deepcopy(change[field])
                _drop(grid.origin, pointer_join(inner, field))
                grid.origin[pointer_join(inner, field)] = pointer_join(where, field)
    if "del_deltas" in part or "add_deltas" in part:
        deltas = data.setdefault("deltas", {})
        for i, key in enumerate(part.get("del_deltas", ())):
            if key not in deltas:
                known = ", ".join(deltas) or "none"
                problems.append(
                    (
                        pointer_join(ptr, "del_deltas", i),
                        f"{key!r} is not a delta of grid {name!r} (its deltas: {known})",
                        False,
                    )
                )
                continue
            del deltas[key]
            _drop(grid.origin, pointer_join("/deltas", key))
        for key, entry in part.get("add_deltas", {}).items():
            deltas[key] = copy.deepcopy(entry)
            _drop(grid.origin, pointer_join("/deltas", key))
            grid.origin[pointer_join("/deltas", key)] = pointer_join(ptr, "add_deltas", key)
    if "del_excluded" in part or "add_excluded" in part:
        entries = data.setdefault("excluded", [])
        places = _items(grid, "/excluded", entries, parent_ptr)
        for i, entry in enumerate(part.get("del_excluded", ())):
            kept = [(e, p) for e, p in zip(entries, places, strict=True) if e != entry]
            if len(kept) == len(entries):
                problems.append((pointer_join(ptr, "del_excluded", i), f"grid {name!r} excludes no such entry", False))
            entries[:], places[:] = [e for e, _ in kept], [p for _, p in kept]
        for i, entry in enumerate(part.get("add_excluded", ())):
            entries.append(copy.deepcopy(entry))
            places.append(pointer_join(ptr, "add_excluded", i))
        _place(grid, "/excluded", places)
    if "del_router_steps" in part or "add_router_steps" in part:
        router = data.get("router")
        if router is None:
            key = "add_router_steps" if "add_router_steps" in part else "del_router_steps"
            problems.append(
                (pointer_join(ptr, key), f"grid {name!r} has no router steps to change; give router whole", True)
            )
        else:
            steps = router["nodes"]
            places = _items(grid, "/router/nodes", steps, parent_ptr)
            for i, node in enumerate(part.get("del_router_steps", ())):
                kept = [(s, p) for s, p in zip(steps, places, strict=True) if s["node"] != node]
                if len(kept) == len(steps):
                    names = ", ".join(s["node"] for s in steps)
                    problems.append(
                        (
                            pointer_join(ptr, "del_router_steps", i),
                            f"grid {name!r} has no router step {node!r} (its steps: {names})",
                            False,
                        )
                    )
                steps[:], places[:] = [s for s, _ in kept], [p for _, p in kept]
            for i, step in enumerate(part.get("add_router_steps", ())):
                steps.append(copy.deepcopy(step))
                places.append(pointer_join(ptr, "add_router_steps", i))
            _place(grid, "/router/nodes", places)
    for key in CHANGES:
        data.pop(key, None)
    data.pop("extends", None)
    return grid, problems


def _grid_of(data: Any, si: int, ti: int) -> Any:
    try:
        return data["strategies"][si]["options"][ti]["grid"]
    except (KeyError, IndexError, TypeError):
        return None


def _targets(data: Mapping[str, Any]) -> Iterator[tuple[int, int, str, str, Any]]:
    """(strategy index, target index, slug, target name, grid) of every target, leniently."""
    for si, strategy in enumerate(data.get("strategies") or ()):
        if not isinstance(strategy, dict):
            continue
        for ti, target in enumerate(strategy.get("options") or ()):
            if isinstance(target, dict):
                yield si, ti, str(strategy.get("slug")), str(target.get("target")), target.get("grid")


def _chain(parts: Mapping[str, Any], grid: Any) -> list[str]:
    """The names of the parts a grid extends, nearest first (stops at a cycle or an unknown name;
    linear in the chain's length, however long)."""
    names: list[str] = []
    seen: set[str] = set()
    while isinstance(grid, dict) and isinstance(grid.get("extends"), str):
        name = grid["extends"]
        if name in seen or name not in parts:
            break
        names.append(name)
        seen.add(name)
        grid = parts[name]
    return names


def reach(data: Any) -> dict[str, list[tuple[str, str]]]:
    """For each part of ``grids``, the (strategy slug, target) pairs whose grid extends it,
    directly or through other parts, in page order."""
    parts = data.get("grids") if isinstance(data, dict) else None
    if not isinstance(parts, dict):
        return {}
    found: dict[str, list[tuple[str, str]]] = {name: [] for name in parts}
    for _si, _ti, slug, target, grid in _targets(data):
        for name in _chain(parts, grid):
            found[name].append((slug, target))
    return found


def _shares(data: Mapping[str, Any]) -> bool:
    return "grids" in data or any(isinstance(grid, dict) and "extends" in grid for *_, grid in _targets(data))


def changes_without_extends(grid: Any, ptr: str) -> list[tuple[str, str, bool]]:
    """(pointer, message, at the key) of each change a grid gives without ``extends``: it would
    change nothing."""
    if not isinstance(grid, dict) or "extends" in grid:
        return []
    return [
        (
            pointer_join(ptr, key),
            f"{key} changes the grid this one extends, but it has no 'extends', so it would change nothing; "
            "name a grid of the recipe's grids in 'extends', or write the whole field",
            True,
        )
        for key in CHANGES
        if key in grid
    ]


class _Resolver:
    def __init__(self, data: Mapping[str, Any]) -> None:
        self.parts: Mapping[str, Any] = data.get("grids", {})
        self.done: dict[str, _Grid | None] = {}
        self.problems: list[tuple[str, str, bool]] = []
        self.cycles: set[frozenset[str]] = set()

    def _cycle(self, cycle: tuple[str, ...]) -> None:
        if frozenset(cycle) in self.cycles:
            return
        self.cycles.add(frozenset(cycle))
        first = min(cycle, key=list(self.parts).index)
        at = cycle.index(first)
        loop = (*cycle[at:], *cycle[:at], first)
        shown = (
            " → ".join(loop)
            if len(loop) <= 12
            else f"of {len(loop) - 1} grids, " + " → ".join((*loop[:5], "…", *loop[-5:]))
        )
        self.problems.append(
            (
                pointer_join("/grids", first, "extends"),
                f"grids extend each other in a cycle: {shown}; one of them must extend none",
                False,
            )
        )

    def _chain(self, written: Mapping[str, Any], ptr: str) -> list[str] | None:
        """The names of the parts a grid extends, nearest first, or None when the chain is broken
        (an unknown name, a cycle, a chain past MAX_CHAIN: said once, where it breaks)."""
        names: list[str] = []
        grid, where = written, ptr
        while isinstance(grid.get("extends"), str):
            name = grid["extends"]
            if name in self.done and self.done[name] is None:
                return None  # broken further up, said there
            if name in self.done:
                return [*names, name]
            if name not in self.parts:
                known = ", ".join(list(self.parts)[:20]) or "none: this recipe has no grids"
                self.problems.append(
                    (
                        pointer_join(where, "extends"),
                        f"{name!r} is not a grid of the recipe's grids (its grids: {known})",
                        False,
                    )
                )
                return None
            if name in names:
                self._cycle(tuple(names[names.index(name) :]))
                for broken in names[names.index(name) :]:
                    self.done[broken] = None
                return None
            names.append(name)
            if len(names) > MAX_CHAIN:
                self._too_long(names, where)
                return None
            grid, where = self.parts[name], pointer_join("/grids", name)
            if not isinstance(grid, dict):
                return None
        return names

    def _too_long(self, names: list[str], where: str) -> None:
        """A chain past MAX_CHAIN: a cycle further on is named as the cycle, else the chain is
        refused where it passes the bound; either way once, and every grid on it is broken."""
        seen = set(names)
        rest, grid = list(names), self.parts[names[-1]]
        while isinstance(grid, dict) and isinstance(grid.get("extends"), str) and grid["extends"] in self.parts:
            name = grid["extends"]
            if name in seen:
                self._cycle(tuple(rest[rest.index(name) :]))
                break
            if self.done.get(name, False) is None:
                break  # broken further on, said there
            seen.add(name)
            rest.append(name)
            grid = self.parts[name]
        else:
            self.problems.append(
                (
                    pointer_join(where, "extends"),
                    f"a chain of more than {MAX_CHAIN} grids extending each other ({names[0]} → … → {names[-1]}); "
                    "share fewer levels: a grid may extend one that extends another, a few levels deep",
                    False,
                )
            )
        for broken in rest:
            self.done[broken] = None

    def part(self, name: str) -> _Grid | None:
        if name not in self.done:
            self.grid(self.parts[name], pointer_join("/grids", name), name)
        return self.done.get(name)

    def grid(self, written: Mapping[str, Any], ptr: str, own: str | None = None) -> _Grid | None:
        """The resolved grid written at ``ptr`` (the part ``own`` of grids, if it is one), or None
        when what it extends is broken (said once, there). The parts it extends are resolved from
        the farthest one down, each once."""
        if "extends" not in written:
            self._changes_need_extends(written, ptr)
            data = {k: copy.deepcopy(v) for k, v in written.items() if k in FIELDS}
            resolved: _Grid | None = _Grid(data, {"/" + k: pointer_join(ptr, k) for k in data})
            if own is not None:
                self.done[own] = resolved
            return resolved
        chain = self._chain(written, ptr)
        if chain is None or (own is not None and own in chain):
            if own is not None:
                self.done.setdefault(own, None)
            return None
        parent: _Grid | None = None
        for name in reversed(chain):  # the farthest first
            if name in self.done:
                parent = self.done[name]
                continue
            part = self.parts[name]
            if "extends" not in part:
                self._changes_need_extends(part, pointer_join("/grids", name))
                data = {k: copy.deepcopy(v) for k, v in part.items() if k in FIELDS}
                parent = _Grid(data, {"/" + k: pointer_join("/grids", name, k) for k in data})
            elif parent is not None:
                parent, problems = merge(
                    parent, part, pointer_join("/grids", name), pointer_join("/grids", part["extends"]), part["extends"]
                )
                self.problems += problems
                parent = None if problems else parent
            self.done[name] = parent
            if parent is None:
                break
        result: _Grid | None = None
        if parent is not None:
            result, problems = merge(parent, written, ptr, pointer_join("/grids", chain[0]), chain[0])
            self.problems += problems
            result = None if problems else result
        if own is not None:
            self.done[own] = result
        return result

    def _changes_need_extends(self, written: Mapping[str, Any], ptr: str) -> None:
        self.problems += changes_without_extends(written, ptr)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Resolved:
    """The recipe written out in full, where each of its grids' values was written, and the
    problems of resolving it (located in the file as written)."""

    data: Any
    origin: Mapping[str, str]  # a pointer inside a written-out target grid -> where it was written
    problems: list[Problem]


def _written_out(data: Any, document: Document | None = None) -> Resolved:
    if not isinstance(data, dict):
        return Resolved(data=data, origin={}, problems=[])
    if not _shares(data):  # nothing to write out; a change with nothing to change is still refused
        resolver = _Resolver({})
        for si, ti, _slug, _target, grid in _targets(data):
            if isinstance(grid, dict):
                resolver._changes_need_extends(grid, pointer_join("/strategies", si, "options", ti, "grid"))
        problems = [document.problem(p, m, key=k) for p, m, k in resolver.problems] if document is not None else []
        return Resolved(data=data, origin={}, problems=problems)
    resolver = _Resolver(data)
    out = {k: v for k, v in data.items() if k != "grids"}
    out["strategies"] = copy.deepcopy(data["strategies"])
    origin: dict[str, str] = {}
    for si, ti, _slug, _target, grid in _targets(data):
        if not isinstance(grid, dict):
            continue
        ptr = pointer_join("/strategies", si, "options", ti, "grid")
        if "extends" not in grid:
            resolver._changes_need_extends(grid, ptr)
            continue
        resolved = resolver.grid(grid, ptr)
        if resolved is None:
            continue
        missing = [f for f in FIELDS if f not in resolved.data]
        if missing:
            chain = ", ".join(repr(n) for n in _chain(resolver.parts, grid)[:MAX_CHAIN])
            resolver.problems.append(
                (
                    ptr,
                    f"grid gives no {', '.join(repr(f) for f in missing)}; give it here or in a grid it extends ({chain})",
                    False,
                )
            )
            continue
        out["strategies"][si]["options"][ti]["grid"] = {f: resolved.data[f] for f in FIELDS}
        origin.update({ptr + inner: where for inner, where in resolved.origin.items()})
    for name in resolver.parts:  # a part no target reaches is still resolved: its own problems are found
        if name not in resolver.done and isinstance(resolver.parts[name], dict):
            resolver.part(name)
    for name, targets in reach(data).items():
        if not targets:
            resolver.problems.append(
                (
                    pointer_join("/grids", name),
                    f"grid {name!r} is extended by no target (directly or through another grid); use it or remove it",
                    True,
                )
            )
    problems = []
    if document is not None:
        problems = [document.problem(p, m, key=k) for p, m, k in resolver.problems]
    return Resolved(data=out, origin=origin, problems=problems)


def written_out(data: Any) -> Any:
    """A recipe's data with every grid written out in full (unchanged when it shares nothing)."""
    return _written_out(data).data


@dataclasses.dataclass(frozen=True, kw_only=True)
class SharedDocument(Document):
    """A recipe document whose data is written out in full; a problem at a pointer of that data
    is placed where its value was written. What it places in ``grids`` it remembers with the
    target it was found in, for ``finish``."""

    origin: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False, compare=False)
    written: Document = dataclasses.field(repr=False, compare=False)  # the document as written
    # (pointer, message) of a problem in a part of grids -> the (strategy, target) pairs it was found in
    found_in: dict[tuple[str, str], list[tuple[str, str]]] = dataclasses.field(
        default_factory=dict, repr=False, compare=False
    )

    def real(self, pointer: str) -> str:
        found = real(self.origin, pointer)
        return pointer if found is None else found

    def where(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        return self.written.where(self.real(pointer), key=key)

    def where_inside(self, pointer: str, index: int) -> tuple[int, int]:
        return self.written.where_inside(self.real(pointer), index)

    def _note(self, pointer: str, problem: Problem) -> Problem:
        target = _TARGET.match(pointer)
        if target and problem.pointer.startswith("/grids/"):
            si, ti = int(target.group(1)), int(target.group(2))
            strategy = self.data["strategies"][si]
            pair = (strategy["slug"], strategy["options"][ti]["target"])
            self.found_in.setdefault((problem.pointer, problem.message), []).append(pair)
        return problem

    def problem(self, pointer: str, message: str, *, kind: Kind = Kind.RULE, key: bool = False) -> Problem:
        return self._note(pointer, self.written.problem(self.real(pointer), message, kind=kind, key=key))

    def problem_inside(self, pointer: str, index: int, message: str, *, kind: Kind = Kind.RULE) -> Problem:
        return self._note(pointer, self.written.problem_inside(self.real(pointer), index, message, kind=kind))


def resolve(document: Document) -> tuple[Document, list[Problem]]:
    """A schema-valid document written out in full (itself when it shares nothing) and the
    problems of its sharing: an unknown or cyclic ``extends``, a change that names what the
    grid it extends does not have, a grid that lacks a field, a part no target uses."""
    resolved = _written_out(document.data, document)
    if not resolved.origin and resolved.data is document.data:
        return document, resolved.problems
    shared = SharedDocument(
        path=document.path,
        data=resolved.data,
        values=document.values,
        keys=document.keys,
        text=document.text,
        origin=resolved.origin,
        written=document,
    )
    return shared, finish(shared, resolved.problems, document.data)


def _targets_words(pairs: Iterable[tuple[str, str]]) -> str:
    by_strategy: dict[str, list[str]] = {}
    for slug, target in dict.fromkeys(pairs):
        by_strategy.setdefault(slug, []).append(target)
    count = sum(len(t) for t in by_strategy.values())
    groups = [f"{', '.join(targets)} of strategy {slug}" for slug, targets in by_strategy.items()]
    return f"({'shared by targets' if count > 1 else 'used by target'} {'; '.join(groups)})"


def finish(document: Document, problems: Iterable[Problem], data: Any = None) -> list[Problem]:
    """The problems, once each: one found in a part of ``grids`` names the targets it was found
    in (or, for a problem of the part as written, every target that extends the part)."""
    problems = sorted(set(problems))
    found_in = getattr(document, "found_in", {})
    written = getattr(document, "written", None) or document
    reached = reach(data if data is not None else written.data)
    out = []
    for problem in problems:
        if problem.pointer.startswith("/grids/"):
            part = problem.pointer.split("/")[2].replace("~1", "/").replace("~0", "~")
            pairs = found_in.get((problem.pointer, problem.message)) or reached.get(part)
            if pairs:
                problem = dataclasses.replace(problem, message=f"{problem.message} {_targets_words(pairs)}")
        out.append(problem)
    return sorted(set(out))
