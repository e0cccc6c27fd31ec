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
from collections.abc import Mapping, Sequence

from . import shell
from .expansion import default_selection, offered, projected_commands, role_axes
from .model import Recipe, Strategy, Target

# One product: for each axis index, the allowed value indices (None: any value).
Product = tuple[frozenset[int] | None, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Variant:
    """One line (an env assignment or an argument) and when it is shown."""

    kind: str  # "env" or "arg"
    slot: tuple[int, ...] = ()  # where the line sits in its command (see expansion.Slot)
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
    """The offered selections of a target as bit sets: bit i stands for the i-th selection.

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

    def box(self, values: list[frozenset[int]]) -> int:
        """The offered selections in a box (a product of value sets)."""
        bits = -1
        for a, allowed in enumerate(values):
            row = self.masks[a]
            bits &= sum((row[v] for v in allowed), 0)
        return bits


def _decompose(chosen: int, universe: _Universe) -> list[Product]:
    """Split a set of selections (a bit set) into products that, among the offered ones, cover exactly it."""
    if not chosen:
        return []
    masks = universe.masks
    projections = [frozenset(v for v in domain if chosen & masks[a][v]) for a, domain in enumerate(universe.domains)]
    if universe.box(projections) == chosen:
        return [tuple(None if p >= universe.domains[a] else p for a, p in enumerate(projections))]
    axis = next(a for a, p in enumerate(projections) if len(p) > 1)
    products = []
    for value in sorted(projections[axis]):
        for product in _decompose(chosen & masks[axis][value], universe):
            products.append(tuple(frozenset({value}) if a == axis else p for a, p in enumerate(product)))
    return products


def build(recipe: Recipe, strategy: Strategy, target: Target, *, only_default: bool = False) -> Template:
    """The template of one target; with only_default, of its first selection only."""
    return build_checked(recipe, strategy, target, only_default=only_default)[0]


def build_checked(
    recipe: Recipe, strategy: Strategy, target: Target, *, only_default: bool = False
) -> tuple[Template, list[str]]:
    """The template, and the selections for which filtering it differs from expansion (none, always).

    A role's commands depend only on the values of the axes that have a delta for it, so
    each role is expanded once per distinct choice of those values, not once per
    selection. The proof is exact for every selection: for each line, the selections
    whose expansion holds it must be exactly those whose filtering shows it (kept as
    bit sets, one bit per offered selection), and within every command the lines must
    come in the order the template gives them.
    """
    grid = target.grid
    axes = tuple((axis, values) for axis, values in grid.axes.items())
    default = default_selection(grid)
    selections = [default] if only_default else list(offered(grid))
    positions = [{value: v for v, value in enumerate(values)} for _axis, values in axes]
    indexed = [tuple(positions[a][s[axis]] for a, (axis, _v) in enumerate(axes)) for s in selections]
    # per role: projection onto its axes -> [bit set of the selections having it, the commands]
    groups: list[dict[tuple[int, ...], list]] = []
    for role in grid.base:
        names = role_axes(grid, role.role)
        relevant = tuple(a for a, (axis, _v) in enumerate(axes) if axis in names)
        group: dict[tuple[int, ...], list] = {}
        for bit, index in enumerate(indexed):
            key = tuple(index[a] for a in relevant)
            entry = group.get(key)
            if entry is None:
                group[key] = [1 << bit, None]
            else:
                entry[0] |= 1 << bit
        for key, commands in projected_commands(grid, role, relevant, group).items():
            group[key][1] = commands
        groups.append(group)
    template, seen, disordered = _template(strategy, target, axes, indexed, groups, default)
    return template, _proof(template, selections, indexed, seen, disordered)


def _proof(
    template: Template,
    selections: list[dict[str, str]],
    indexed: list[tuple[int, ...]],
    seen: dict[tuple, int],
    disordered: int,
) -> list[str]:
    """Selections whose filtered template differs from their expansion."""
    every = (1 << len(indexed)) - 1
    masks = [[0] * len(values) for _axis, values in template.axes]
    for bit, index in enumerate(indexed):
        for a, v in enumerate(index):
            masks[a][v] |= 1 << bit
    shown: dict[tuple, int] = {}
    for block in template.blocks:
        for variant in block.lines:
            bits = every
            for a, allowed in variant._limits:
                bits &= sum((masks[a][v] for v in allowed), 0)
            key = (block.role, block.rank, variant.kind, variant.slot, variant.key, variant.text)
            shown[key] = shown.get(key, 0) | bits
    wrong = disordered
    for key in shown.keys() | seen.keys():
        wrong |= shown.get(key, 0) ^ seen.get(key, 0)
    return [
        ", ".join(f"{a}={v}" for a, v in selection.items())
        for bit, selection in enumerate(selections)
        if wrong >> bit & 1
    ]


def _template(
    strategy: Strategy,
    target: Target,
    axes: tuple[tuple[str, tuple[str, ...]], ...],
    indexed: list[tuple[int, ...]],
    groups: list[dict[tuple[int, ...], list]],
    default: dict[str, str],
) -> tuple[Template, dict[tuple, int], int]:
    grid = target.grid
    universe = _Universe.of(indexed, [len(values) for _axis, values in axes])
    seen: dict[tuple, dict[tuple, int]] = {}
    heads: dict[tuple, tuple[str, str]] = {}
    disordered = 0  # selections with a command whose lines are not in slot order
    for group in groups:
        for bits, commands in group.values():
            for command in commands:
                block = (command.role, command.rank)
                heads[block] = (command.launcher, command.model)
                variants = seen.setdefault(block, {})
                get = variants.get
                for kind, lines in (("env", command.env_lines), ("arg", command.arg_lines)):
                    previous: tuple = ()
                    for line in lines:
                        slot = line.slot
                        if slot <= previous:  # out of order, or two lines at one slot
                            disordered |= bits
                        previous = slot
                        # the same text at another slot is another variant: its place differs
                        variant = (kind, slot, line.key, line.text)
                        variants[variant] = get(variant, 0) | bits
    varies = {r.role: frozenset(r.varies or ()) for r in grid.base}
    blocks = []
    flat: dict[tuple, int] = {}
    for block, variants in seen.items():
        lines = []
        for variant in sorted(variants, key=lambda v: (v[0] != "env", v[1], v[2], v[3])):
            kind, slot, key, text = variant
            bits = variants[variant]
            flat[(*block, *variant)] = bits
            for product in _decompose(bits, universe):
                lines.append(Variant(kind=kind, slot=slot, key=key, text=text, when=product))
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
    template = Template(
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
    return template, flat, disordered
