"""Selections and the delta rules: what a choice of axis values does to a role's command.

This module holds the one statement of the delta rules (``apply_delta``, ``lay_over``) and
the reference expansion built from them (``reference_role``), which the line table of a
target (``table.py``) is proved against. Commands themselves are read from that table:
``page.commands_of`` is the one way to get a selection's commands.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
from collections.abc import Iterable, Iterator, Mapping

from .. import shell as _shell
from ..problems import SelectionError
from ..reading.model import Delta, Grid, Recipe, Role, Selection, Strategy, Target

MAX_SELECTIONS = 4096
# Version of the JSON shapes the engine writes: an expansion, a matrix (command line) and the
# site API (portable.py; 2: per target the explorer template instead of every selection;
# 3: per role one line table, ranks as a condition of their lines; nodes, placeholders, serving).
API_VERSION = 4
MAX_COMBINATIONS = 16 * MAX_SELECTIONS  # combinations of axis values looked at to count them

# A slot says where a line sits in its command, whichever selection produced it:
# (0, i) the i-th key of the role's base; (1, axis, value, i) the i-th key set by an axis
# value's delta; (2, i) the i-th key set by a rank. Sorting slots gives the order of the
# lines in every selection (rules 7 and 8 keep it so; the table's proof checks it).
Slot = tuple[int, ...]
# The lines of one kind (args or envs) while the deltas are applied: key -> (slot, text),
# in command order (a dict keeps a replaced key in its place and appends a new one).
Lines = dict[str, tuple[Slot, str]]
_TEXT = operator.attrgetter("text")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Line:
    """One line of a command: an env assignment or an argument, where it sits, and its text."""

    kind: str  # "env" or "arg"
    slot: Slot
    key: str
    text: str


# A command's lines of one kind: the lines, or a role's lines and a selector byte per line.
LineSource = tuple[Line, ...] | tuple[tuple[Line, ...], bytes]


class Command:
    """One command of one role (and rank) for one selection: its lines and its text.

    Immutable. A command read from a line table keeps which of the role's lines it holds
    (a selector byte per line) and makes the tuples of its lines only when asked. A command
    of a role that spans nodes is one node's: ``rank`` is its place in the role (0: the head)
    and ``node`` the node (from 1) of the target it runs on; ``node`` is None for any other.
    """

    __slots__ = ("_arg_lines", "_args", "_env_lines", "_envs", "launcher", "model", "node", "rank", "role", "shell")
    role: str
    rank: int | None
    node: int | None
    launcher: str
    model: str
    shell: str
    _env_lines: LineSource
    _arg_lines: LineSource
    _envs: tuple[str, ...]  # the texts of the lines, made once (the shell text and the flags read them)
    _args: tuple[str, ...]

    def __init__(
        self,
        *,
        role: str,
        rank: int | None,
        launcher: str,
        model: str,
        env_lines: LineSource,
        arg_lines: LineSource,
        shell: str | None = None,
        node: int | None = None,
        texts: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
    ) -> None:
        """``texts``: the env and arg texts of the lines, when the caller has them already."""
        setattr_ = object.__setattr__
        setattr_(self, "role", role)
        setattr_(self, "rank", rank)
        setattr_(self, "node", node)
        setattr_(self, "launcher", launcher)
        setattr_(self, "model", model)
        setattr_(self, "_env_lines", env_lines)
        setattr_(self, "_arg_lines", arg_lines)
        if texts is None:
            texts = (tuple(map(_TEXT, self.env_lines)), tuple(map(_TEXT, self.arg_lines)))
        setattr_(self, "_envs", texts[0])
        setattr_(self, "_args", texts[1])
        if shell is None:
            shell = _shell.command_text(self._envs, launcher, model, self._args)
        setattr_(self, "shell", shell)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Command is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Command):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Command(role={self.role!r}, rank={self.rank!r}, node={self.node!r}, shell={self.shell!r})"

    def _key(self) -> tuple[object, ...]:
        return (self.role, self.rank, self.node, self.launcher, self.model, self.env_lines, self.arg_lines)

    @staticmethod
    def _lines(source: LineSource) -> tuple[Line, ...]:
        if len(source) == 2 and isinstance(source[1], bytes):
            lines, selectors = source
            return tuple(itertools.compress(lines, selectors))
        return source

    @property
    def env_lines(self) -> tuple[Line, ...]:
        return self._lines(self._env_lines)

    @property
    def arg_lines(self) -> tuple[Line, ...]:
        return self._lines(self._arg_lines)

    @property
    def envs(self) -> tuple[str, ...]:
        return self._envs

    @property
    def args(self) -> tuple[str, ...]:
        return self._args

    @property
    def name(self) -> str:
        """``decode-rank3``, ``main-node2``, ``main``: how files and headings name the command."""
        if self.node is not None:
            return f"{self.role}-node{self.node}"
        return self.role if self.rank is None else f"{self.role}-rank{self.rank}"

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "node": self.node,
            "launcher": self.launcher,
            "model": self.model,
            "envs": list(self.envs),
            "args": list(self.args),
            "shell": self.shell,
        }


def by_role(commands: Iterable[Command]) -> list[tuple[str, list[Command]]]:
    """Commands grouped by role, the roles in the order their first command comes."""
    grouped: dict[str, list[Command]] = {}
    for command in commands:
        grouped.setdefault(command.role, []).append(command)
    return list(grouped.items())


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
    nodes: Mapping[str, int] = dataclasses.field(default_factory=dict)  # role -> the node (from 1) it runs on
    skus: tuple[str, ...] = ()  # the devices the target is verified on (kubernetes.py schedules by them)
    checkpoint: int | None = None  # the served checkpoint's bytes, from the facts (kubernetes.py sizes its cache)
    heads: Mapping[str, str] = dataclasses.field(default_factory=dict)  # head placeholder -> the node one it takes

    def roles(self) -> list[tuple[str, list[Command]]]:
        return by_role(self.commands)

    def node_of(self, command: Command) -> int | None:
        """The node (from 1) a command runs on: its own, for a node of a role that spans nodes,
        else its role's."""
        return command.node if command.node is not None else self.nodes.get(command.role)

    def to_json(self) -> dict[str, object]:
        return {
            "recipe": self.recipe,
            "strategy": self.strategy,
            "target": self.target,
            "selection": dict(self.selection),
            "recommended": self.recommended,
            "roles": [
                {
                    "role": role,
                    "node": self.nodes.get(role, 1),
                    "nodes": [c.node for c in commands] if commands[0].node is not None else None,
                    "commands": [c.to_json() for c in commands],
                }
                for role, commands in self.roles()
            ],
            "router": [{"node": node, "cmd": cmd} for node, cmd in self.router],
        }

    def shell(self) -> str:
        """Every command and router step as one text, in order, with a comment before each."""
        blocks = []
        for command in self.commands:
            if command.node is not None:
                rank = f", node {command.node}" + (" (head)" if command.rank == 0 else "")
            else:
                rank = "" if command.rank is None else f", rank {command.rank}"
            blocks.append(f"# {command.role}{rank}\n{command.shell}")
        blocks += [f"# router: {node}\n{cmd}" for node, cmd in self.router]
        return "\n\n".join(blocks) + "\n"


# -- selections -------------------------------------------------------------------------


def selection_count(grid: Grid) -> int:
    """How many selections the axes allow, before exclusions."""
    return math.prod(len(values) for values in grid.axes.values())


def _hits(entry: Mapping[str, str], selection: Selection) -> bool:
    """Whether a selection matches an exclusion entry: the one test of whether a combination is offered."""
    return all(selection.get(a) == v for a, v in entry.items())


def excluded_by(grid: Grid, selection: Selection) -> list[Mapping[str, str]]:
    """The exclusion entries a selection matches (empty when it is offered)."""
    return [entry for entry in grid.excluded if _hits(entry, selection)]


def is_excluded(grid: Grid, selection: Selection) -> bool:
    return any(_hits(entry, selection) for entry in grid.excluded)


def all_selections(grid: Grid) -> Iterator[dict[str, str]]:
    axes = grid.axes
    for values in itertools.product(*axes.values()):
        yield dict(zip(axes, values, strict=True))


def offered(grid: Grid) -> Iterator[dict[str, str]]:
    """Every offered selection in axis order (callers check the cap first)."""
    return (s for s in all_selections(grid) if not is_excluded(grid, s))


def offered_count(grid: Grid) -> int | None:
    """How many selections are offered (exclusions applied), counted without expanding any;
    None when the axes allow more than MAX_COMBINATIONS combinations, too many to go through."""
    if selection_count(grid) > MAX_COMBINATIONS:
        return None
    if not grid.excluded:
        return selection_count(grid)
    # Whether a selection is excluded depends only on the axes some exclusion entry names
    # (_hits reads nothing else; a name that is no axis is missing from every selection), so
    # the selections of those axes are gone through, each standing for every choice of the
    # other axes. Every rule that goes through a target's selections counts them first
    # (walkable), and an imported recipe's targets exclude many combinations of a few axes.
    named = {axis for entry in grid.excluded for axis in entry}
    read = {axis: values for axis, values in grid.axes.items() if axis in named}
    others = math.prod(len(values) for axis, values in grid.axes.items() if axis not in named)
    kept = sum(
        1 for values in itertools.product(*read.values()) if not is_excluded(grid, dict(zip(read, values, strict=True)))
    )
    return kept * others


def walkable(grid: Grid) -> bool:
    """Whether a target's offered selections may be gone through one by one: at most
    MAX_SELECTIONS of them (rule 11 refuses a target with more, and every rule that reads each
    selection leaves it alone, so a refused grid costs no more than counting it)."""
    count = offered_count(grid)
    return count is not None and count <= MAX_SELECTIONS


def neutral_value(grid: Grid, axis: str) -> str | None:
    """The value of an axis that leaves the base command unchanged, if there is one."""
    if axis in grid.options:
        return grid.option_base.get(axis)
    for value in grid.modes[axis]:
        if not any(d.touched() for d in grid.delta(axis, value).values()):
            return value
    return None


def base_selection(grid: Grid) -> dict[str, str] | None:
    """Every axis at the value that leaves the base command unchanged, when there is such a
    value for each axis and the combination is offered; else None."""
    chosen = {}
    for axis in grid.axes:
        value = neutral_value(grid, axis)
        if value is None:
            return None
        chosen[axis] = value
    return None if is_excluded(grid, chosen) else chosen


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
    defaults: dict[str, str] = {}
    if missing:
        try:
            defaults = default_selection(grid)
        except SelectionError as error:
            raise SelectionError(f"{error} (axes not given: {', '.join(missing)})") from None
    selection = {axis: given[axis] if axis in given else defaults[axis] for axis in axes}
    if is_excluded(grid, selection):
        pairs = ", ".join(f"{a}={v}" for a, v in selection.items())
        raise SelectionError(f"the recipe excludes this selection: {pairs}")
    return selection


# -- the delta rules -----------------------------------------------------------------------


def base_lines(role: Role) -> tuple[Lines, Lines]:
    """A role's argument and env lines before any delta."""
    args: Lines = {k: ((0, i), t) for i, (k, t) in enumerate(role.args.items())}
    envs: Lines = {k: ((0, i), t) for i, (k, t) in enumerate(role.envs.items())}
    return args, envs


def lay_over(lines: Lines, values: Mapping[str, str], slot_prefix: Slot) -> Lines:
    """Set keys (new lines): a present key is replaced where it stands, a new one is appended
    with the slot ``(*slot_prefix, n)``, n its place among the values."""
    out = dict(lines)
    for n, (key, text) in enumerate(values.items()):
        present = out.get(key)
        out[key] = (present[0] if present else (*slot_prefix, n), text)
    return out


def apply_delta(args: Lines, envs: Lines, delta: Delta, slot_prefix: Slot) -> tuple[Lines, Lines]:
    """The lines after one axis value's delta: deleted keys go, then added keys are set."""
    if delta.del_args:
        args = {k: v for k, v in args.items() if k not in delta.del_args}
    if delta.del_envs:
        envs = {k: v for k, v in envs.items() if k not in delta.del_envs}
    return lay_over(args, delta.add_args, slot_prefix), lay_over(envs, delta.add_envs, slot_prefix)


def reference_role(grid: Grid, role: Role, selection: Selection) -> list[Command]:
    """The commands of one role at one selection by the delta rules, step by step: the base,
    each axis's chosen delta in axis order, then each rank laid over. The line table is
    proved against these (``table.build``); pages read their commands from the table."""
    args, envs = base_lines(role)
    for a, (axis, values) in enumerate(grid.axes.items()):
        value = selection[axis]
        delta = grid.delta(axis, value).get(role.role)
        if delta is not None:
            args, envs = apply_delta(args, envs, delta, (1, a, values.index(value)))
    return _commands(grid, role, args, envs)


def first_node(grid: Grid, role: Role) -> int | None:
    """The node (from 1) a role that spans nodes starts on: the nodes of the roles before it,
    each taking its own (``client.placement``); None for a role on one node."""
    if role.span is None:
        return None
    before = 0
    for other in grid.base:
        if other is role:
            break
        before += other.nodes
    return before + 1


def _commands(grid: Grid, role: Role, args: Lines, envs: Lines) -> list[Command]:
    start = first_node(grid, role)

    def command(rank: int | None, args: Lines, envs: Lines) -> Command:
        return Command(
            role=role.role,
            rank=rank,
            launcher=role.launcher,
            model=grid.model,
            env_lines=tuple(Line(kind="env", slot=s, key=k, text=t) for k, (s, t) in envs.items()),
            arg_lines=tuple(Line(kind="arg", slot=s, key=k, text=t) for k, (s, t) in args.items()),
            node=None if start is None or rank is None else start + rank,
        )

    if role.ranks is None:
        return [command(None, args, envs)]
    return [
        command(number, lay_over(args, rank.args, (2,)), lay_over(envs, rank.envs, (2,)))
        for number, rank in enumerate(role.ranks)
    ]


def role_axes(grid: Grid, role: str) -> tuple[str, ...]:
    """The axes some value of which has a delta for this role: its commands depend on no other."""
    return tuple(axis for axis, values in grid.axes.items() if any(role in grid.delta(axis, v) for v in values))


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
