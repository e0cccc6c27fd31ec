"""Selections and expansion: from a grid and a choice of axis values to commands."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping

from . import shell
from .model import Delta, Grid, Recipe, Role, Selection, Strategy, Target
from .problems import SelectionError

MAX_SELECTIONS = 4096
# Version of the JSON shapes the engine writes: an expansion, a matrix (command line) and the
# site API (portable.py; 2: per target the explorer template instead of every selection).
API_VERSION = 2
MAX_COMBINATIONS = 16 * MAX_SELECTIONS  # combinations of axis values looked at to count them

# A slot says where a line sits in its command, whichever selection produced it:
# (0, i) the i-th key of the role's base; (1, axis, value, i) the i-th key appended by
# an axis value; (2, i) the i-th key appended by a rank. Sorting slots gives the order
# of the lines in every selection (see rules 7 and the rank rule in rules.py).
Slot = tuple[int, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Line:
    slot: Slot
    key: str
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Command:
    """One command of one role (and rank) for one selection."""

    role: str
    rank: int | None
    launcher: str
    model: str
    env_lines: tuple[Line, ...]
    arg_lines: tuple[Line, ...]

    @property
    def envs(self) -> tuple[str, ...]:
        return tuple(line.text for line in self.env_lines)

    @property
    def args(self) -> tuple[str, ...]:
        return tuple(line.text for line in self.arg_lines)

    @functools.cached_property
    def shell(self) -> str:
        """The command's text (kept: the selections that share this command share it too)."""
        return shell.command_text(self.envs, self.launcher, self.model, self.args)

    def to_json(self) -> dict:
        return {
            "rank": self.rank,
            "launcher": self.launcher,
            "model": self.model,
            "envs": list(self.envs),
            "args": list(self.args),
            "shell": self.shell,
        }


@dataclasses.dataclass(frozen=True, kw_only=True)
class Expansion:
    """All commands of one selection of one strategy and target."""

    recipe: str
    strategy: str
    target: str
    selection: Mapping[str, str]
    recommended: bool
    commands: tuple[Command, ...]
    router: tuple[tuple[str, str], ...]

    def roles(self) -> list[tuple[str, list[Command]]]:
        grouped: dict[str, list[Command]] = {}
        for command in self.commands:
            grouped.setdefault(command.role, []).append(command)
        return list(grouped.items())

    def to_json(self) -> dict:
        return {
            "recipe": self.recipe,
            "strategy": self.strategy,
            "target": self.target,
            "selection": dict(self.selection),
            "recommended": self.recommended,
            "roles": [{"role": role, "commands": [c.to_json() for c in commands]} for role, commands in self.roles()],
            "router": [{"node": node, "cmd": cmd} for node, cmd in self.router],
        }

    def shell(self) -> str:
        """Every command and router step as one text, in order, with a comment before each."""
        blocks = []
        for command in self.commands:
            rank = "" if command.rank is None else f", rank {command.rank}"
            blocks.append(f"# {command.role}{rank}\n{command.shell}")
        blocks += [f"# router: {node}\n{cmd}" for node, cmd in self.router]
        return "\n\n".join(blocks) + "\n"


def selection_count(grid: Grid) -> int:
    """How many selections the axes allow, before exclusions."""
    return math.prod(len(values) for values in grid.axes.values())


def offered_count(grid: Grid) -> int | None:
    """How many selections are offered (exclusions applied); None when the axes allow
    more than MAX_COMBINATIONS combinations, too many to go through."""
    if selection_count(grid) > MAX_COMBINATIONS:
        return None
    return sum(1 for _ in offered(grid))


def is_excluded(grid: Grid, selection: Selection) -> bool:
    return any(all(selection.get(a) == v for a, v in entry.items()) for entry in grid.excluded)


def all_selections(grid: Grid) -> Iterator[dict[str, str]]:
    axes = grid.axes
    for values in itertools.product(*axes.values()):
        yield dict(zip(axes, values, strict=True))


def offered(grid: Grid) -> Iterator[dict[str, str]]:
    """Every offered selection in axis order (callers check the cap first)."""
    return (s for s in all_selections(grid) if not is_excluded(grid, s))


def neutral_value(grid: Grid, axis: str) -> str | None:
    """The value of an axis that leaves the base command unchanged, if there is one."""
    if axis in grid.options:
        return grid.option_base.get(axis)
    for value in grid.modes[axis]:
        if not any(d.touched() for d in grid.delta(axis, value).values()):
            return value
    return None


def default_selection(grid: Grid) -> dict[str, str]:
    """The selection a reader sees first: the recommendation, else the base command."""
    if grid.recommended is not None:
        return {axis: grid.recommended[axis] for axis in grid.axes}
    chosen = {}
    for axis in grid.axes:
        value = neutral_value(grid, axis)
        if value is None:
            raise SelectionError(f"axis {axis!r} has no recommended or neutral value; choose one with --set")
        chosen[axis] = value
    return chosen


def resolve(grid: Grid, given: Mapping[str, str]) -> dict[str, str]:
    """Complete a partial selection with defaults; unknown or excluded choices raise."""
    axes = grid.axes
    for axis, value in given.items():
        if axis not in axes:
            raise SelectionError(f"unknown axis {axis!r}; this target has: {', '.join(axes)}")
        if value not in axes[axis]:
            raise SelectionError(f"unknown value {value!r} for axis {axis!r}; choose from: {', '.join(axes[axis])}")
    missing = [a for a in axes if a not in given]
    defaults = {}
    if missing:
        try:
            defaults = default_selection(grid)
        except SelectionError as error:
            raise SelectionError(f"{error} (axes not given: {', '.join(missing)})") from None
    selection = {axis: given.get(axis, defaults.get(axis)) for axis in axes}
    if is_excluded(grid, selection):
        pairs = ", ".join(f"{a}={v}" for a, v in selection.items())
        raise SelectionError(f"the recipe excludes this selection: {pairs}")
    return selection


def _set_keys(lines: list[Line], values: Mapping[str, str], slot_prefix: Slot) -> None:
    """Set keys: replace a present key in place, else append it."""
    if not values:
        return
    where = {line.key: i for i, line in enumerate(lines)}
    for n, (key, text) in enumerate(values.items()):
        if key in where:
            lines[where[key]] = Line(slot=lines[where[key]].slot, key=key, text=text)
        else:
            where[key] = len(lines)
            lines.append(Line(slot=(*slot_prefix, n), key=key, text=text))


def base_lines(role: Role) -> tuple[list[Line], list[Line]]:
    """A role's argument and env lines before any delta."""
    args = [Line(slot=(0, i), key=k, text=t) for i, (k, t) in enumerate(role.args.items())]
    envs = [Line(slot=(0, i), key=k, text=t) for i, (k, t) in enumerate(role.envs.items())]
    return args, envs


def apply_delta(args: list[Line], envs: list[Line], delta: Delta, slot_prefix: Slot) -> tuple[list[Line], list[Line]]:
    """The lines after one axis value's delta: deleted keys go, added keys are set (new lists)."""
    args = [line for line in args if line.key not in delta.del_args]
    envs = [line for line in envs if line.key not in delta.del_envs]
    _set_keys(args, delta.add_args, slot_prefix)
    _set_keys(envs, delta.add_envs, slot_prefix)
    return args, envs


def _apply_deltas(grid: Grid, role: Role, selection: Selection) -> tuple[list[Line], list[Line]]:
    args, envs = base_lines(role)
    for axis_index, (axis, values) in enumerate(grid.axes.items()):
        value = selection[axis]
        delta = grid.delta(axis, value).get(role.role)
        if delta is not None:
            args, envs = apply_delta(args, envs, delta, (1, axis_index, values.index(value)))
    return args, envs


def role_texts(grid: Grid, role: Role, selection: Selection) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The env and argument texts of a role after the deltas, before ranks: the texts of
    ``_apply_deltas`` in the same order, without building lines (what comparing selections
    needs). A dict keeps a set key in its place and appends a new one, as ``_set_keys`` does.
    """
    args, envs = dict(role.args), dict(role.envs)
    for axis in grid.axes:
        delta = grid.delta(axis, selection[axis]).get(role.role)
        if delta is None:
            continue
        for key in delta.del_args:
            args.pop(key, None)
        for key in delta.del_envs:
            envs.pop(key, None)
        args.update(delta.add_args)
        envs.update(delta.add_envs)
    return tuple(envs.values()), tuple(args.values())


def role_commands(grid: Grid, role: Role, args: list[Line], envs: list[Line]) -> list[Command]:
    """The commands of one role from its lines after the deltas: one, or one per rank."""

    def command(rank: int | None, args: list[Line], envs: list[Line]) -> Command:
        return Command(
            role=role.role,
            rank=rank,
            launcher=role.launcher,
            model=grid.model,
            env_lines=tuple(envs),
            arg_lines=tuple(args),
        )

    if role.ranks is None:
        return [command(None, args, envs)]
    commands = []
    for number, rank in enumerate(role.ranks):
        rank_args, rank_envs = list(args), list(envs)
        _set_keys(rank_args, rank.args, (2,))
        _set_keys(rank_envs, rank.envs, (2,))
        commands.append(command(number, rank_args, rank_envs))
    return commands


def projected_commands(
    grid: Grid, role: Role, relevant: tuple[int, ...], keys: Iterable[tuple[int, ...]]
) -> dict[tuple[int, ...], list[Command]]:
    """The commands of a role for each key: value indices on the axes ``relevant`` names
    (indices into ``grid.axes``, in order; every axis with a delta for the role, see
    ``role_axes``). One delta is applied per step of a walk over those axes, so keys that
    share their first values share that work; each key's commands equal ``expand_role``'s.
    """
    axes = list(grid.axes.items())
    wanted = set(keys)
    prefixes = {key[:k] for key in wanted for k in range(len(relevant) + 1)}
    found: dict[tuple[int, ...], list[Command]] = {}

    def walk(depth: int, key: tuple[int, ...], args: list[Line], envs: list[Line]) -> None:
        if depth == len(relevant):
            found[key] = role_commands(grid, role, args, envs)
            return
        a = relevant[depth]
        axis, values = axes[a]
        for v, value in enumerate(values):
            if (*key, v) not in prefixes:
                continue
            delta = grid.delta(axis, value).get(role.role)
            step = (args, envs) if delta is None else apply_delta(args, envs, delta, (1, a, v))
            walk(depth + 1, (*key, v), *step)

    walk(0, (), *base_lines(role))
    return found


def expand_role(grid: Grid, role: Role, selection: Selection) -> list[Command]:
    """The commands of one role: one, or one per rank laid over the role's."""
    return role_commands(grid, role, *_apply_deltas(grid, role, selection))


def expand_selection(recipe: Recipe, strategy: Strategy, target: Target, selection: Selection) -> Expansion:
    """Expand a complete, offered selection (see ``resolve`` for partial ones)."""
    grid = target.grid
    commands = [c for role in grid.base for c in expand_role(grid, role, selection)]
    recommended = grid.recommended is not None and all(grid.recommended[a] == v for a, v in selection.items())
    return Expansion(
        recipe=recipe.name,
        strategy=strategy.slug,
        target=target.target,
        selection=dict(selection),
        recommended=recommended,
        commands=tuple(commands),
        router=tuple((step.node, step.cmd) for step in grid.router),
    )


def find(recipe: Recipe, slug: str, target_name: str) -> tuple[Strategy, Target]:
    """Look up a strategy and target by name, with the choices in the error."""
    strategy = recipe.strategy(slug)
    if strategy is None:
        raise SelectionError(f"unknown strategy {slug!r}; choose from: {', '.join(s.slug for s in recipe.strategies)}")
    target = strategy.target(target_name)
    if target is None:
        names = ", ".join(t.target for t in strategy.targets)
        raise SelectionError(f"unknown target {target_name!r} for strategy {slug!r}; choose from: {names}")
    return strategy, target


def expand(recipe: Recipe, slug: str, target_name: str, given: Mapping[str, str] | None = None) -> Expansion:
    strategy, target = find(recipe, slug, target_name)
    return expand_selection(recipe, strategy, target, resolve(target.grid, given or {}))


def role_axes(grid: Grid, role: str) -> tuple[str, ...]:
    """The axes some value of which has a delta for this role: its commands depend on no other."""
    return tuple(axis for axis, values in grid.axes.items() if any(role in grid.delta(axis, v) for v in values))


def matrix(recipe: Recipe) -> Iterator[Expansion]:
    """Every offered selection of every strategy and target, in page order.

    A role's commands are expanded once per choice of the axes that change them (one walk,
    ``projected_commands``) and shared by the selections that make that choice; each
    result equals expand_selection's.
    """
    for strategy, target in recipe.targets():
        grid = target.grid
        axes = list(grid.axes)
        selections = list(offered(grid))
        indexed = [tuple(grid.axes[axis].index(s[axis]) for axis in axes) for s in selections]
        tables = []
        for role in grid.base:
            names = role_axes(grid, role.role)
            relevant = tuple(a for a, axis in enumerate(axes) if axis in names)
            keys = [tuple(index[a] for a in relevant) for index in indexed]
            tables.append((relevant, projected_commands(grid, role, relevant, keys)))
        router = tuple((step.node, step.cmd) for step in grid.router)
        for selection, index in zip(selections, indexed, strict=True):
            commands: list[Command] = []
            for relevant, table in tables:
                commands += table[tuple(index[a] for a in relevant)]
            recommended = grid.recommended is not None and all(grid.recommended[a] == v for a, v in selection.items())
            yield Expansion(
                recipe=recipe.name,
                strategy=strategy.slug,
                target=target.target,
                selection=selection,
                recommended=recommended,
                commands=tuple(commands),
                router=router,
            )
