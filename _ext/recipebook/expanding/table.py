"""The line table of one target: every line any selection shows, with when it shows.

A page cannot carry one copy of each command per selection (A.X-K2 has 216), so each
role's commands are kept once, as lines with conditions: ``when``, a product naming per
axis the values under which the line shows, and ``ranks``, the ranks whose command holds
it (a role's ranks share every line but the few keys each rank sets). Reading the lines a
selection and a rank admit, in order, gives that command: ``Table.commands`` is how the
page model (``page.commands_of``), the pages, the API and the files get every command.

``build`` makes the table from the delta rules (``expansion.walk_role``, each role laid out
once per choice of the axes that change it) and proves it: for every offered selection,
the lines the table shows are exactly those the rules give, in the order they give them,
and every rank's keys sit where the rules put them.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import compress, islice, pairwise

from .. import shell
from ..reading.model import Grid, Role
from .expansion import (
    Command,
    Line,
    Lines,
    Slot,
    apply_delta,
    base_lines,
    default_selection,
    first_node,
    offered,
    role_axes,
)

_DIGITS = bytes.maketrans(b"01", b"\x00\x01")


def _selectors(mask: int) -> bytes:
    """A bit set as selectors for itertools.compress: byte i is bit i (0 or 1)."""
    return bin(mask)[:1:-1].encode("ascii").translate(_DIGITS)


# One product: for each axis index, the allowed value indices (None: any value).
Product = tuple[frozenset[int] | None, ...]
Axes = tuple[tuple[str, tuple[str, ...]], ...]


@dataclasses.dataclass(frozen=True)
class _Universe:
    """The selections of a table as bit sets: bit i stands for the i-th selection.

    ``masks[a][v]`` holds the selections choosing value v on axis a.
    """

    masks: tuple[tuple[int, ...], ...]
    domains: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, selections: list[tuple[int, ...]], sizes: list[int]) -> _Universe:
        masks = [[0] * size for size in sizes]
        for bit, index in enumerate(selections):
            for a, v in enumerate(index):
                masks[a][v] |= 1 << bit
        domains = tuple(frozenset(v for v, mask in enumerate(row) if mask) for row in masks)
        return cls(masks=tuple(tuple(row) for row in masks), domains=domains)

    def box(self, values: Sequence[frozenset[int]]) -> int:
        """The selections in a box (a product of value sets)."""
        bits = -1
        for a, allowed in enumerate(values):
            row = self.masks[a]
            bits &= sum((row[v] for v in allowed), 0)
        return bits

    def shown(self, limits: tuple[tuple[int, frozenset[int]], ...], every: int) -> int:
        bits = every
        for a, allowed in limits:
            row = self.masks[a]
            bits &= sum((row[v] for v in allowed), 0)
        return bits


@dataclasses.dataclass(frozen=True, kw_only=True)
class TableLine(Line):
    """A line of a role's table and when it shows."""

    when: Product  # a line shown under a union of products appears once per product
    ranks: frozenset[int] | None = None  # the ranks that hold it; None: every rank

    @functools.cached_property
    def limits(self) -> tuple[tuple[int, frozenset[int]], ...]:
        """Only the axes that restrict the line; most lines depend on one axis or none."""
        return tuple((a, allowed) for a, allowed in enumerate(self.when) if allowed is not None)

    def shown(self, chosen: Sequence[int]) -> bool:
        return all(chosen[axis] in allowed for axis, allowed in self.limits)

    def in_rank(self, rank: int | None) -> bool:
        return self.ranks is None or rank in self.ranks


@dataclasses.dataclass(frozen=True, kw_only=True)
class RoleTable:
    """Every line of one role's commands (each rank's, for a role with ranks)."""

    role: str
    launcher: str
    model: str
    ranks: int | None  # how many ranks; None: the role is one command
    varies: frozenset[str]  # the keys whose text differs between ranks
    relevant: tuple[int, ...]  # the axes (indices) some delta of the role names: its lines depend on no other
    sizes: tuple[int, ...]  # how many values each axis has
    lines: tuple[TableLine, ...]
    first_node: int | None = None  # a role that spans nodes: the node of its head (its ranks are its nodes)

    @property
    def rank_numbers(self) -> tuple[int | None, ...]:
        return (None,) if self.ranks is None else tuple(range(self.ranks))

    @property
    def spans(self) -> bool:
        """Whether the role spans nodes: one command per node, its ranks."""
        return self.first_node is not None

    @property
    def nodes(self) -> tuple[int, ...]:
        """The nodes (from 1) of a role that spans nodes, the head first; () otherwise."""
        return () if self.first_node is None else tuple(self.first_node + k for k in range(self.ranks or 0))

    @functools.cached_property
    def _masks(self) -> tuple[tuple[tuple[TableLine, ...], tuple[str, ...], int, dict[int, list[int]], list[int]], ...]:
        """Per kind (env, arg): its lines and their texts, the bit set of them all, per
        restricting axis the lines shown at each of its values, per rank the lines it holds."""
        out = []
        for kind in ("env", "arg"):
            lines = tuple(line for line in self.lines if line.kind == kind)
            every = (1 << len(lines)) - 1
            by_axis: dict[int, list[int]] = {}
            for i, line in enumerate(lines):
                for a, allowed in line.limits:
                    masks = by_axis.setdefault(a, [every] * self.sizes[a])
                    for v in range(len(masks)):
                        if v not in allowed:
                            masks[v] &= ~(1 << i)
            ranks = [sum(1 << i for i, line in enumerate(lines) if line.in_rank(rank)) for rank in self.rank_numbers]
            out.append((lines, tuple(line.text for line in lines), every, by_axis, ranks))
        return tuple(out)

    @functools.cached_property
    def _pairs(self) -> tuple[tuple[tuple[str, frozenset[int] | None], ...], ...]:
        """Per kind, each line's text and ranks: what a command of the role is made of."""
        return tuple(tuple((line.text, line.ranks) for line in lines) for lines, *_rest in self._masks)

    def shown(self, chosen: Sequence[int]) -> tuple[int, int]:
        """Which of the role's env and arg lines a selection shows, for every rank, each kind a bit
        set: two selections that show the same lines have the same commands (``commands``)."""
        (_e, _et, env_shown, env_axes, _er), (_a, _at, arg_shown, arg_axes, _ar) = self._masks
        for a, masks in env_axes.items():
            env_shown &= masks[chosen[a]]
        for a, masks in arg_axes.items():
            arg_shown &= masks[chosen[a]]
        return env_shown, arg_shown

    def lines_where(self, keep: Callable[[TableLine], bool]) -> tuple[int, int]:
        """The env and arg lines that ``keep`` admits, as bit sets in the order of ``shown``'s:
        ``shown(chosen)`` masked by them is which of those lines a selection shows."""
        (envs, *_e), (args, *_a) = self._masks
        return (
            sum(1 << i for i, line in enumerate(envs) if keep(line)),
            sum(1 << i for i, line in enumerate(args) if keep(line)),
        )

    def digest(self, chosen: Sequence[int]) -> int:
        """A hash of the role's commands at a selection: equal digests, equal lines in every
        rank (the texts and ranks of the lines shown), without writing the commands."""
        env_shown, arg_shown = self.shown(chosen)
        env_pairs, arg_pairs = self._pairs
        return hash(
            (tuple(compress(env_pairs, _selectors(env_shown))), tuple(compress(arg_pairs, _selectors(arg_shown))))
        )

    def commands(self, chosen: Sequence[int]) -> tuple[Command, ...]:
        """The role's commands at an offered selection (value indices), one per rank: the
        lines it admits, in order. Made when asked and not kept: what a caller keeps is its own."""
        (envs, env_texts, _e, _ea, env_ranks), (args, arg_texts, _a, _aa, arg_ranks) = self._masks
        env_shown, arg_shown = self.shown(chosen)
        head = f"{self.launcher} {shlex.quote(self.model)}"
        commands = []
        for rank, env_rank, arg_rank in zip(self.rank_numbers, env_ranks, arg_ranks, strict=True):
            env_pick, arg_pick = _selectors(env_shown & env_rank), _selectors(arg_shown & arg_rank)
            texts = (tuple(compress(env_texts, env_pick)), tuple(compress(arg_texts, arg_pick)))
            text = shell.join_command(texts[0], head, ()) + shell.join_command((), "", texts[1])
            commands.append(
                Command(
                    role=self.role,
                    rank=rank,
                    launcher=self.launcher,
                    model=self.model,
                    env_lines=(envs, env_pick),
                    arg_lines=(args, arg_pick),
                    shell=text,
                    texts=texts,
                    node=None if self.first_node is None or rank is None else self.first_node + rank,
                )
            )
        return tuple(commands)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Table:
    """The line tables of one target's roles, over its axes."""

    axes: Axes
    roles: tuple[RoleTable, ...]
    excluded: tuple[Product, ...]  # the recipe's exclusion entries as products
    offered: tuple[tuple[int, ...], ...]  # the selections the table holds (value indices), in axis order
    universe: _Universe = dataclasses.field(compare=False, repr=False)

    @property
    def selections(self) -> int:
        return len(self.offered)

    def products(self, bits: int) -> tuple[Product, ...]:
        """A set of the table's selections (bit i: the i-th of ``offered``) as products."""
        return tuple(decompose(bits, self.universe))

    def index(self, selection: Mapping[str, str]) -> tuple[int, ...]:
        return tuple(values.index(selection[axis]) for axis, values in self.axes)

    def selection(self, chosen: Sequence[int]) -> dict[str, str]:
        return {axis: values[v] for (axis, values), v in zip(self.axes, chosen, strict=True)}

    def commands(self, chosen: Sequence[int]) -> tuple[Command, ...]:
        """Every command of an offered selection, role by role, rank by rank."""
        return tuple(command for role in self.roles for command in role.commands(chosen))


def admits(product: Product, chosen: Sequence[int]) -> bool:
    """Whether a selection (value indices) lies in a product: the one test behind a line's
    condition and an exclusion entry alike."""
    return all(allowed is None or chosen[a] in allowed for a, allowed in enumerate(product))


def exclusion_products(grid: Grid, axes: Axes) -> tuple[Product, ...]:
    """The exclusion entries as products (a value the axis lacks matches nothing)."""
    return tuple(
        tuple(
            (frozenset({values.index(entry[axis])}) if entry[axis] in values else frozenset())
            if axis in entry
            else None
            for axis, values in axes
        )
        for entry in grid.excluded
    )


def decompose(chosen: int, universe: _Universe) -> list[Product]:
    """Split a set of selections (a bit set) into products that, among the table's selections,
    cover exactly it."""
    if not chosen:
        return []
    masks = universe.masks
    projections = [frozenset(v for v in domain if chosen & masks[a][v]) for a, domain in enumerate(universe.domains)]
    if universe.box(projections) == chosen:
        return [tuple(None if p >= universe.domains[a] else p for a, p in enumerate(projections))]
    axis = next(a for a, p in enumerate(projections) if len(p) > 1)
    products = []
    for value in sorted(projections[axis]):
        for product in decompose(chosen & masks[axis][value], universe):
            products.append(tuple(frozenset({value}) if a == axis else p for a, p in enumerate(product)))
    return products


Variant = tuple[str, Slot, str, str]  # kind, slot, key, text


def _rank_lines(role: Role) -> tuple[dict[Variant, set[int]], dict[str, dict[str, Slot]]]:
    """Each rank's lines (kind, slot, key, text) with the ranks holding them, and per kind the
    keys ranks set with the slot the delta rules give them: a base key's own slot (replaced in
    place), else appended after every delta's lines."""
    variants: dict[Variant, set[int]] = {}
    places: dict[str, dict[str, Slot]] = {"arg": {}, "env": {}}
    base = {"arg": list(role.args), "env": list(role.envs)}
    for number, rank in enumerate(role.ranks or ()):
        for kind, values in (("arg", rank.args), ("env", rank.envs)):
            for n, (key, text) in enumerate(values.items()):
                slot = (0, base[kind].index(key)) if key in base[kind] else (2, n)
                places[kind].setdefault(key, slot)
                variants.setdefault((kind, slot, key, text), set()).add(number)
    return variants, places


def _presence(
    grid: Grid,
    role: Role,
    relevant: tuple[int, ...],
    groups: Mapping[tuple[int, ...], int],
    places: Mapping[str, Mapping[str, Slot]],
) -> tuple[dict[Variant, int], int]:
    """Per line (kind, slot, key, text): the selections (bits) whose commands hold it by the
    delta rules; and the selections whose commands the table could not give.

    The rules are applied as ``expansion.reference_role`` applies them, one delta per step of
    a walk over the role's axes, so selections that share their first values share that work.
    A line's presence toggles only where a step changes its key, so it is the XOR of the
    selections below each such step (and below the start, for the base lines): work in
    proportion to what the deltas change, not to every line of every selection. Each step
    also checks what the table relies on: a line a delta appends sorts after every line before
    it (so slot order is command order), and no delta touches a key the ranks set.
    """
    axes = list(grid.axes.items())
    prefixes = {key[:k] for key in groups for k in range(len(relevant) + 1)}
    seen: dict[Variant, int] = {}
    wrong = 0

    def toggle(variant: Variant, bits: int) -> None:
        seen[variant] = seen.get(variant, 0) ^ bits

    def step(kind: str, before: Lines, after: Lines, keys: Iterator[str], bits: int) -> None:
        nonlocal wrong
        appended = []
        for key in keys:
            old, new = before.get(key), after.get(key)
            if old == new:
                continue
            if key in places[kind]:
                wrong |= bits  # a delta touches a key the ranks set (rule 8)
            if old is not None:
                toggle((kind, old[0], key, old[1]), bits)
            if new is not None:
                toggle((kind, new[0], key, new[1]), bits)
                if old is None or old[0] != new[0]:
                    appended.append(key)
        if appended:
            # the lines a step appends end the command, after every line before them, in slot order
            last = next(reversed(before.values()))[0] if before else ()
            tail = list(islice(reversed(after.items()), len(appended)))[::-1]
            slots = [last, *(slot for _key, (slot, _text) in tail)]
            if {key for key, _line in tail} != set(appended) or any(a >= b for a, b in pairwise(slots)):
                wrong |= bits

    def walk(depth: int, key: tuple[int, ...], args: Lines, envs: Lines) -> int:
        if depth == len(relevant):
            return groups[key]
        a = relevant[depth]
        axis, values = axes[a]
        below = 0
        for v, value in enumerate(values):
            if (*key, v) not in prefixes:
                continue
            delta = grid.delta(axis, value).get(role.role)
            if delta is None:
                below |= walk(depth + 1, (*key, v), args, envs)
                continue
            new_args, new_envs = apply_delta(args, envs, delta, (1, a, v))
            bits = walk(depth + 1, (*key, v), new_args, new_envs)
            step("arg", args, new_args, iter(dict.fromkeys((*delta.del_args, *delta.add_args))), bits)
            step("env", envs, new_envs, iter(dict.fromkeys((*delta.del_envs, *delta.add_envs))), bits)
            below |= bits
        return below

    args, envs = base_lines(role)
    if not groups:
        return {}, 0
    every = walk(0, (), args, envs)
    for kind, lines in (("arg", args), ("env", envs)):
        for key, (slot, text) in lines.items():
            toggle((kind, slot, key, text), every)
    return {variant: bits for variant, bits in seen.items() if bits}, wrong


def _role_table(
    grid: Grid,
    role: Role,
    axes: Axes,
    indexed: list[tuple[int, ...]],
    universe: _Universe,
    every: int,
    known: dict[int, list[Product]],
) -> tuple[RoleTable, int]:
    """One role's table, and the selections (bits) where it would differ from the delta rules."""
    names = role_axes(grid, role.role)
    relevant = tuple(a for a, (axis, _values) in enumerate(axes) if axis in names)
    groups: dict[tuple[int, ...], int] = {}
    for bit, index in enumerate(indexed):
        own = tuple(index[a] for a in relevant)
        groups[own] = groups.get(own, 0) | (1 << bit)
    rank_variants, places = _rank_lines(role)
    seen, wrong = _presence(grid, role, relevant, groups, places)
    ranks = frozenset(range(len(role.ranks))) if role.ranks is not None else None
    setters: dict[tuple[str, str], set[int]] = {}  # (kind, key) -> the ranks that set it
    for (kind, _slot, key, _text), numbers in rank_variants.items():
        setters.setdefault((kind, key), set()).update(numbers)
    lines: list[TableLine] = []
    for variant in sorted(seen, key=lambda v: (v[0] != "env", v[1], v[2], v[3])):
        kind, slot, key, text = variant
        holders = None
        if ranks is not None and (kind, key) in setters:
            holders = ranks - setters[(kind, key)]
            if not holders:
                continue  # every rank sets this key: the role's own text never shows
        # the proof: the selections the line's products show it in are exactly those whose
        # lines, by the delta rules, hold it
        shown = 0
        bits = seen[variant]
        products = known.get(bits)
        if products is None:
            products = known[bits] = decompose(bits, universe)
        for product in products:
            line = TableLine(kind=kind, slot=slot, key=key, text=text, when=product, ranks=holders)
            shown |= universe.shown(line.limits, every)
            lines.append(line)
        wrong |= shown ^ bits
    anywhere: Product = (None,) * len(axes)
    lines += [
        TableLine(kind=kind, slot=slot, key=key, text=text, when=anywhere, ranks=frozenset(numbers))
        for (kind, slot, key, text), numbers in rank_variants.items()
    ]
    lines.sort(key=lambda line: (line.kind != "env", line.slot, line.key, line.text))
    table = RoleTable(
        role=role.role,
        launcher=role.launcher,
        model=grid.model,
        ranks=None if role.ranks is None else len(role.ranks),
        varies=frozenset(role.varies or ()),
        relevant=relevant,
        sizes=tuple(len(values) for _axis, values in axes),
        lines=tuple(lines),
        first_node=first_node(grid, role),
    )
    return table, wrong


def build(grid: Grid, *, only_default: bool = False) -> tuple[Table, list[dict[str, str]]]:
    """The table of a target's grid, and the selections it would show wrongly (none, always).

    With only_default, the table holds the selection the target opens on only.
    """
    axes = tuple(grid.axes.items())
    selections = [default_selection(grid)] if only_default else list(offered(grid))
    positions = [{value: v for v, value in enumerate(values)} for _axis, values in axes]
    indexed = [tuple(positions[a][s[axis]] for a, (axis, _v) in enumerate(axes)) for s in selections]
    universe = _Universe.of(indexed, [len(values) for _axis, values in axes])
    every = (1 << len(indexed)) - 1
    roles, wrong = [], 0
    known: dict[int, list[Product]] = {every: [(None,) * len(axes)]} if indexed else {}  # bit set -> products
    for role in grid.base:
        role_table, role_wrong = _role_table(grid, role, axes, indexed, universe, every, known)
        roles.append(role_table)
        wrong |= role_wrong
    table = Table(
        axes=axes,
        roles=tuple(roles),
        excluded=exclusion_products(grid, axes),
        offered=tuple(indexed),
        universe=universe,
    )
    return table, [selection for bit, selection in enumerate(selections) if wrong >> bit & 1]
