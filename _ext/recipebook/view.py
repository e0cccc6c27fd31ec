"""The view of one recipe: everything its page, API, Markdown view and files need.

Computed once per recipe per build, by engine code, from one parse of each argument
text: the facts (context length, served checkpoints), what the install section must say
(connectors, the suffix-decoding package), the engine flags in use, and per strategy and
target the explorer's template, its axes (which are checkboxes, which are modes), roles
and placeholders. Meanings are given as keys (``PLACEHOLDER_MEANINGS``, ``Install``); the
adapter turns keys into translated words and holds no recipe knowledge of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from . import explorer, shell
from .explorer import Template
from .model import Grid, Recipe, Strategy, Target

ON_OFF = frozenset({"on", "off"})
# Axes whose values run through LMCache (KV offload) and the suffix-decoding method.
OFFLOAD_AXES = ("lmcache", "kv_connector")
SPEC_DECODE_AXIS, SUFFIX = "spec_decode", "suffix"
DISAGGREGATED_ROLES = frozenset({"prefill", "decode"})
# What a placeholder stands for; the adapter words each meaning. Others: "deployment".
PLACEHOLDER_MEANINGS = {"POD_IP": "pod-ip", "EPP_HOST": "epp-host"}
# Axes the recipe's axes catalogue may leave out: their title is a UI string (by key).
KNOWN_AXES = ("tool_calling", "reasoning_parser")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Axis:
    """One selector of an explorer."""

    name: str
    values: tuple[str, ...]
    toggle: bool  # an option with exactly on and off: one checkbox
    mode: bool  # shown with the modes (radio buttons); otherwise under "Options"
    title: str | None  # the recipe's English title, None for a KNOWN_AXES key or an unknown axis
    labels: Mapping[str, str]  # the recipe's English value labels (empty when it gives none)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Placeholder:
    name: str  # without angle brackets: POD_IP
    meaning: str  # a key of PLACEHOLDER_MEANINGS' values, or "deployment"

    @property
    def text(self) -> str:
        return f"<{self.name}>"


@dataclasses.dataclass(frozen=True, kw_only=True)
class TargetView:
    """The explorer of one strategy and target."""

    strategy: Strategy
    target: Target
    template: Template
    wrong: tuple[str, ...]  # selections the template would show wrongly (none, always)
    axes: tuple[Axis, ...]
    roles: tuple[str, ...]  # in the order the commands show them
    placeholders: tuple[Placeholder, ...]

    def opening_commands(self) -> Iterator[tuple[str, int | None, str]]:
        """(role, rank, shell text) of each command of the selection the page opens on."""
        for block in self.template.blocks:
            yield block.role, block.rank, block.text(self.template.default)

    def opening_selection(self) -> dict[str, str]:
        return {name: values[i] for (name, values), i in zip(self.template.axes, self.template.default, strict=True)}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Install:
    """What the install section must add for this recipe's features."""

    offload: bool  # KV offload through LMCache: the kv_connectors extra
    disaggregated: bool  # prefill/decode: the kv_connectors extra
    suffix: bool  # suffix speculative decoding: arctic-inference

    @property
    def connectors(self) -> bool:
        return self.offload or self.disaggregated


@dataclasses.dataclass(frozen=True, kw_only=True)
class RecipeView:
    recipe: Recipe
    context_length: int | None
    served: tuple[str, ...]  # checkpoints served other than the recipe's model
    install: Install
    flags: frozenset[str]  # every engine flag any command can carry
    targets: tuple[TargetView, ...]

    def target(self, slug: str, name: str) -> TargetView:
        return next(t for t in self.targets if t.strategy.slug == slug and t.target.target == name)


def _arg_texts(grid: Grid) -> Iterator[tuple[str, str]]:
    """(key, text) of every argument any command of a target can carry."""
    for role in grid.base:
        yield from role.args.items()
        for rank in role.ranks or ():
            yield from rank.args.items()
    for per_role in grid.deltas.values():
        for delta in per_role.values():
            yield from delta.add_args.items()


def _parsed(text: str) -> tuple[str, list[str]] | None:
    try:
        return shell.flag_values(text)
    except ValueError:
        return None


def flags_in_use(recipe: Recipe) -> frozenset[str]:
    return frozenset(key for _s, target in recipe.targets() for key, _text in _arg_texts(target.grid))


def context_length(recipe: Recipe) -> int | None:
    """The longest --max-model-len any base command serves."""
    lengths = []
    for _s, target in recipe.targets():
        for role in target.grid.base:
            text = role.args.get("--max-model-len")
            parsed = _parsed(text) if text else None
            if parsed and len(parsed[1]) == 1 and parsed[1][0].isdigit():
                lengths.append(int(parsed[1][0]))
    return max(lengths, default=None)


def install_needs(recipe: Recipe) -> Install:
    offload = disaggregated = suffix = False
    for _s, target in recipe.targets():
        grid = target.grid
        disaggregated |= {r.role for r in grid.base} >= DISAGGREGATED_ROLES
        offload |= any(v != "off" for axis in OFFLOAD_AXES for v in grid.modes.get(axis, ()))
        suffix |= SUFFIX in grid.modes.get(SPEC_DECODE_AXIS, ())
    return Install(offload=offload, disaggregated=disaggregated, suffix=suffix)


def is_toggle(values: tuple[str, ...]) -> bool:
    """Option axes with exactly the values on and off show as one checkbox."""
    return len(values) == 2 and set(values) == ON_OFF


def axes(recipe: Recipe, target: Target) -> tuple[Axis, ...]:
    grid = target.grid
    found = []
    for name, values in grid.axes.items():
        toggle = is_toggle(values) and name in grid.options
        info = recipe.axes.get(name)
        found.append(
            Axis(
                name=name,
                values=values,
                toggle=toggle,
                mode=name in grid.modes or not is_toggle(values),
                title=info.title if info else None,
                labels=dict(info.labels) if info else {},
            )
        )
    return tuple(found)


def placeholders(template: Template) -> tuple[Placeholder, ...]:
    texts = [v.text for block in template.blocks for v in block.lines] + [cmd for _, cmd in template.router]
    return tuple(
        Placeholder(name=name, meaning=PLACEHOLDER_MEANINGS.get(name, "deployment"))
        for name in shell.placeholders("\n".join(texts))
    )


def target_view(recipe: Recipe, strategy: Strategy, target: Target, *, only_default: bool = False) -> TargetView:
    template, wrong = explorer.build_checked(recipe, strategy, target, only_default=only_default)
    return TargetView(
        strategy=strategy,
        target=target,
        template=template,
        wrong=tuple(wrong),
        axes=axes(recipe, target),
        roles=tuple(dict.fromkeys(block.role for block in template.blocks)),
        placeholders=placeholders(template),
    )


def recipe_view(recipe: Recipe, *, only_default: bool = False) -> RecipeView:
    """Everything about one recipe that its page, API, Markdown view and files show."""
    return RecipeView(
        recipe=recipe,
        context_length=context_length(recipe),
        served=tuple(sorted({t.grid.model for _s, t in recipe.targets()} - {recipe.model})),
        install=install_needs(recipe),
        flags=flags_in_use(recipe),
        targets=tuple(target_view(recipe, s, t, only_default=only_default) for s, t in recipe.targets()),
    )
