"""The explorer template: every line any selection can show, each with the condition
under which it shows.

A page cannot carry one copy of each command per selection (A.X-K2 has 216), so
each command block is rendered once as a list of line variants. A variant carries
a condition: a union of products, each product naming, per axis, the values for
which the line is present. Filtering the lines by a selection must give exactly
the command that ``expansion`` produces; ``check`` proves it for every selection.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence

from . import shell
from .expansion import Command, default_selection, expand_selection, offered
from .model import Recipe, Strategy, Target

# One product: for each axis index, the allowed value indices (None: any value).
Product = tuple[frozenset[int] | None, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Variant:
    """One line (an env assignment or an argument) and when it is shown."""

    kind: str  # "env" or "arg"
    key: str
    text: str
    when: Product  # one product; a line shown under a union appears once per product

    @functools.cached_property
    def _limits(self) -> tuple[tuple[int, frozenset[int]], ...]:
        # only the axes that restrict the line; most lines depend on one axis or none
        return tuple((a, allowed) for a, allowed in enumerate(self.when) if allowed is not None)

    def shown(self, chosen: Sequence[int]) -> bool:
        return all(chosen[axis] in allowed for axis, allowed in self._limits)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Block:
    """Every variant of one command (a role, or one rank of it)."""

    role: str
    rank: int | None
    launcher: str
    model: str
    varies: frozenset[str]
    lines: tuple[Variant, ...]

    def text(self, chosen: Sequence[int]) -> str:
        shown = [v for v in self.lines if v.shown(chosen)]
        envs = [v.text for v in shown if v.kind == "env"]
        args = [v.text for v in shown if v.kind == "arg"]
        return shell.command_text(envs, self.launcher, self.model, args)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Template:
    """The explorer of one strategy and target."""

    strategy: Strategy
    target: Target
    axes: tuple[tuple[str, tuple[str, ...]], ...]
    default: tuple[int, ...]
    recommended: tuple[int, ...] | None
    excluded: tuple[Product, ...]
    blocks: tuple[Block, ...]
    router: tuple[tuple[str, str], ...]
    selections: int

    def index(self, selection: Mapping[str, str]) -> tuple[int, ...]:
        return tuple(values.index(selection[axis]) for axis, values in self.axes)


@dataclasses.dataclass(frozen=True)
class _Universe:
    """The offered selections of a target, and whether they are every combination."""

    selections: frozenset[tuple[int, ...]]
    domains: tuple[frozenset[int], ...]
    complete: bool

    @classmethod
    def of(cls, selections: list[tuple[int, ...]], width: int) -> _Universe:
        domains = tuple(frozenset(s[a] for s in selections) for a in range(width))
        complete = len(set(selections)) == math.prod(len(d) for d in domains)
        return cls(selections=frozenset(selections), domains=domains, complete=complete)

    def count(self, box: list[frozenset[int]]) -> int:
        """How many offered selections lie in a box (a product of value sets)."""
        if self.complete:  # no exclusions: every combination in the box is offered
            return math.prod(len(values) for values in box)
        return sum(1 for s in self.selections if all(s[a] in values for a, values in enumerate(box)))


def _decompose(chosen: set[tuple[int, ...]], universe: _Universe) -> list[Product]:
    """Split a set of selections into products that, among the offered ones, cover exactly it."""
    if not chosen:
        return []
    width = len(universe.domains)
    projections = [frozenset(s[a] for s in chosen) for a in range(width)]
    if universe.count(projections) == len(chosen):
        return [tuple(None if projections[a] >= universe.domains[a] else projections[a] for a in range(width))]
    axis = next(a for a in range(width) if len(projections[a]) > 1)
    products = []
    for value in sorted(projections[axis]):
        part = {s for s in chosen if s[axis] == value}
        for product in _decompose(part, universe):
            products.append(tuple(frozenset({value}) if a == axis else p for a, p in enumerate(product)))
    return products


def build(recipe: Recipe, strategy: Strategy, target: Target, *, only_default: bool = False) -> Template:
    """The template of one target; with only_default, of its first selection only."""
    return build_checked(recipe, strategy, target, only_default=only_default)[0]


def build_checked(
    recipe: Recipe, strategy: Strategy, target: Target, *, only_default: bool = False
) -> tuple[Template, list[str]]:
    """The template, and the selections for which filtering it differs from expansion (none, always).

    Each selection is expanded once: the same commands build the template and check it.
    """
    grid = target.grid
    axes = tuple((axis, values) for axis, values in grid.axes.items())
    default = default_selection(grid)
    selections = [default] if only_default else list(offered(grid))
    indexed = [tuple(values.index(s[axis]) for axis, values in axes) for s in selections]
    expansions = [expand_selection(recipe, strategy, target, s).commands for s in selections]
    template = _template(strategy, target, axes, indexed, expansions, default)
    wrong = [
        ", ".join(f"{a}={v}" for a, v in selection.items())
        for selection, index, commands in zip(selections, indexed, expansions, strict=True)
        if [block.text(index) for block in template.blocks] != [c.shell for c in commands]
    ]
    return template, wrong


def _template(
    strategy: Strategy,
    target: Target,
    axes: tuple[tuple[str, tuple[str, ...]], ...],
    indexed: list[tuple[int, ...]],
    expansions: list[tuple[Command, ...]],
    default: dict[str, str],
) -> Template:
    grid = target.grid
    universe = _Universe.of(indexed, len(axes))
    seen: dict[tuple, dict[tuple, set[tuple[int, ...]]]] = {}
    order: dict[tuple, dict[tuple, tuple]] = {}
    heads: dict[tuple, tuple[str, str]] = {}
    for index, commands in zip(indexed, expansions, strict=True):
        for command in commands:
            block = (command.role, command.rank)
            heads[block] = (command.launcher, command.model)
            lines = [("env", line) for line in command.env_lines] + [("arg", line) for line in command.arg_lines]
            for kind, line in lines:
                # the same text at another slot is another variant: its place differs
                variant = (kind, line.slot, line.key, line.text)
                seen.setdefault(block, {}).setdefault(variant, set()).add(index)
                order.setdefault(block, {}).setdefault(variant, (kind != "env", line.slot, len(order[block])))
    varies = {r.role: frozenset(r.varies or ()) for r in grid.base}
    blocks = []
    for block, variants in seen.items():
        lines = []
        for variant in sorted(variants, key=lambda v: order[block][v]):
            kind, _, key, text = variant
            for product in _decompose(variants[variant], universe):
                lines.append(Variant(kind=kind, key=key, text=text, when=product))
        launcher, model = heads[block]
        blocks.append(
            Block(
                role=block[0],
                rank=block[1],
                launcher=launcher,
                model=model,
                varies=varies[block[0]],
                lines=tuple(lines),
            )
        )
    excluded = tuple(
        tuple(frozenset({values.index(entry[axis])}) if axis in entry else None for axis, values in axes)
        for entry in grid.excluded
    )
    recommended = None if grid.recommended is None else tuple(values.index(grid.recommended[a]) for a, values in axes)
    return Template(
        strategy=strategy,
        target=target,
        axes=axes,
        default=tuple(values.index(default[a]) for a, values in axes),
        recommended=recommended,
        excluded=excluded,
        blocks=tuple(blocks),
        router=tuple((step.node, step.cmd) for step in grid.router),
        selections=len(indexed),
    )
