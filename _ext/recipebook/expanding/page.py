"""The page model: everything a recipe's page shows, computed once, in typed objects.

Every output is a rendering of this model: the HTML page (its directives and the explorer's
template), the text that search indexes, the Markdown view and ``llms.txt``, the site API
and the ready-to-run files. Per recipe: its facts, what the install section needs, the
flags it uses with vLLM's help, its catalogue entry. Per strategy: the subtitle its tab
shows. Per target: its axes, the line table of its commands (``table.py``: every line any
selection shows, with the axis values and ranks it shows under), the opening and base
selections, the exclusions with the choices that conflict, the serving groups (client
request, benchmark command, roles and nodes, health checks, per set of selections that
share them), the nodes and the placeholders.

``commands_of(target, selection)`` is the one way to get a selection's commands; ``expand``
and ``matrix`` here, the rules, the pages, the API and the files all use it. Meanings are
keys (``Placeholder.meaning``, ``Install``); the Sphinx adapter words them.
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
import types
from collections.abc import Iterator, Mapping, Sequence

from .. import shell
from ..memo import Memo
from ..memo import get as memo_get
from ..problems import SelectionError
from ..reading import vocabulary
from ..reading.model import Grid, Recipe, Role, Strategy, Target
from . import client, memory, table
from .client import RolePlan, Workload
from .expansion import (
    Command,
    Expansion,
    base_selection,
    by_role,
    default_selection,
    find,
    is_excluded,
    resolve,
)
from .memory import Fit
from .provenance import Provenance, provenance
from .table import Product, Table

ON_OFF = frozenset({"on", "off"})
# Axes whose values run through LMCache (KV offload) and the suffix-decoding method.
OFFLOAD_AXES = ("lmcache", "kv_connector")
SPEC_DECODE_AXIS, SUFFIX = "spec_decode", "suffix"
DISAGGREGATED_ROLES = frozenset({"prefill", "decode"})
# What a placeholder stands for; the adapter words each meaning. Others: "deployment".
PLACEHOLDER_MEANINGS = {"POD_IP": "pod-ip", "EPP_HOST": "epp-host", "ROUTER_HOST": "router-host"}
# Axes the recipe's axes catalogue may leave out: their title is a UI string (by key).
KNOWN_AXES = ("tool_calling", "reasoning_parser")
SCOPES = ("node", "shared")


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
    """A value the reader fills in, such as <POD_IP>."""

    name: str  # without angle brackets: POD_IP
    meaning: str  # a value of PLACEHOLDER_MEANINGS, or "deployment"
    scope: str  # "node": a value per node of a multi-node target; "head": see of; "shared": one value
    of: str | None = None  # scope "head": the node placeholder whose value on a role's head node it takes

    @property
    def text(self) -> str:
        return f"<{self.name}>"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Node:
    """A machine of the target: its number (from 1) and the roles it runs, in order."""

    number: int
    roles: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Conflict:
    """An exclusion entry of the recipe: the choices that do not go together."""

    choices: tuple[tuple[str, str], ...]  # (axis, value) pairs
    product: Product


@dataclasses.dataclass(frozen=True, kw_only=True)
class Serving:
    """What a reader does around the servers, for the selections that share it."""

    when: tuple[Product, ...]  # the selections it is for; () for every selection of the target
    endpoint: client.Endpoint
    client: str  # a chat request
    bench: str  # the benchmark script of the group's first selection (bench_head, its line, bench_tail)
    roles: tuple[RolePlan, ...]  # start order, nodes, NPUs, health checks
    bench_head: tuple[str, ...] = ()  # the benchmark script's lines before the selection's metadata line
    bench_tail: tuple[str, ...] = ()  # and after it: the end of the function, one call per workload
    runs: tuple[Workload, ...] = ()  # the standard workloads of these selections


@dataclasses.dataclass(frozen=True, kw_only=True)
class MemoryGroup:
    """The memory figures (``memory.fit``) the selections of ``when`` share."""

    when: tuple[Product, ...]  # () for every selection of the target
    fit: memory.Fit


@dataclasses.dataclass(frozen=True, kw_only=True)
class TargetPage:
    """The explorer of one strategy and target."""

    strategy: Strategy
    target: Target
    table: Table
    wrong: tuple[str, ...]  # selections the table would show wrongly (none, always)
    axes: tuple[Axis, ...]
    opening: tuple[int, ...]  # the selection the page opens on: the recommendation, else the base
    recommended: tuple[int, ...] | None
    base: tuple[int, ...] | None  # every axis at its neutral value, when that is offered
    conflicts: tuple[Conflict, ...]
    serving: tuple[Serving, ...]
    router: tuple[tuple[str, str], ...]  # (step name, command)
    nodes: tuple[Node, ...]
    placeholders: tuple[Placeholder, ...]
    provenance: Provenance  # with which releases it was verified, against the pinned ones
    memory: tuple[MemoryGroup, ...] = ()  # the memory figures per set of selections; () without facts

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(role.role for role in self.table.roles)

    @functools.cached_property
    def _offered(self) -> frozenset[tuple[int, ...]]:
        return frozenset(self.table.offered)

    def node_of(self, role: str) -> int:
        return self.role_nodes[role]

    @functools.cached_property
    def role_nodes(self) -> Mapping[str, int]:
        """Each role's node (from 1; the head's, for a role that spans nodes), read-only: every
        expansion of the target shares it."""
        first: dict[str, int] = {}
        for node in self.nodes:
            for role in node.roles:
                first.setdefault(role, node.number)
        return types.MappingProxyType(first)

    def nodes_of(self, role: str) -> tuple[int, ...]:
        """Every node a role runs on, in order (its head first)."""
        return tuple(node.number for node in self.nodes if role in node.roles)

    def index(self, selection: Mapping[str, str]) -> tuple[int, ...]:
        return self.table.index(selection)

    def selection(self, chosen: Sequence[int]) -> dict[str, str]:
        return self.table.selection(chosen)

    def offers(self, chosen: Sequence[int]) -> bool:
        return tuple(chosen) in self._offered

    def commands_at(self, chosen: Sequence[int]) -> tuple[Command, ...]:
        """The commands of an offered selection given as value indices (not checked)."""
        return self.table.commands(chosen)

    def opening_commands(self) -> tuple[Command, ...]:
        return self.commands_at(self.opening)

    def opening_selection(self) -> dict[str, str]:
        return self.selection(self.opening)

    def memory_at(self, chosen: Sequence[int]) -> Fit | None:
        """The memory figures of an offered selection (None when the recipe has no facts)."""
        return next((g.fit for g in self.memory if not g.when or any(table.admits(p, chosen) for p in g.when)), None)

    def serving_at(self, chosen: Sequence[int]) -> Serving:
        """The serving group of an offered selection."""
        return next(s for s in self.serving if not s.when or any(table.admits(p, chosen) for p in s.when))

    def commands_hash(self, chosen: Sequence[int]) -> str:
        """The hash of an offered selection's serve commands (what a stored result names)."""
        return client.commands_hash(self.commands_at(chosen))

    def bench_line(self, chosen: Sequence[int]) -> str:
        """The metadata line of the benchmark that names an offered selection and its commands."""
        return client.selection_line(self.selection(chosen), self.commands_at(chosen))

    def bench_at(self, chosen: Sequence[int]) -> str:
        """The whole benchmark script of an offered selection."""
        group = self.serving_at(chosen)
        return "\n".join([*group.bench_head, self.bench_line(chosen), *group.bench_tail])

    @functools.cached_property
    def other_lines(self) -> tuple[str, ...]:
        """Every line some selection shows that the opening selection does not (for text views)."""
        shown = {line.text for command in self.opening_commands() for line in (*command.env_lines, *command.arg_lines)}
        others = (line.text for role in self.table.roles for line in role.lines if line.text not in shown)
        return tuple(dict.fromkeys(others))


@dataclasses.dataclass(frozen=True, kw_only=True)
class StrategyPage:
    strategy: Strategy
    subtitle: str | None  # the tag, when it says more than the label
    targets: tuple[TargetPage, ...]


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
class Flag:
    """An engine flag a recipe uses, with vLLM's help for it."""

    name: str
    help: str | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class CatalogueEntry:
    """What the home page's catalogue says of a recipe."""

    strategies: tuple[str, ...]  # strategy labels, in recipe order
    npus: tuple[int, ...]
    skus: tuple[str, ...]
    verified: str  # the latest verification date of any target
    kinds: tuple[str, ...] = ()  # of CATALOGUE_KINDS: how its strategies serve
    features: tuple[str, ...] = ()  # of CATALOGUE_FEATURES: what some selection turns on


#: Kinds of strategy the catalogue can narrow to: one server role per target (aggregated), or
#: prefill and decode roles (disaggregated).
CATALOGUE_KINDS = ("aggregated", "disaggregated")
#: Features the catalogue can narrow to, each by the engine flag that turns it on.
CATALOGUE_FEATURES = {"speculative-decoding": "--speculative-config", "kv-offload": "--kv-transfer-config"}


def catalogue_kinds(recipe: Recipe) -> tuple[str, ...]:
    found = set()
    for _s, target in recipe.targets():
        roles = {role.role for role in target.grid.base}
        found.add("disaggregated" if {"prefill", "decode"} <= roles else "aggregated")
    return tuple(kind for kind in CATALOGUE_KINDS if kind in found)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RecipePage:
    recipe: Recipe
    context_length: int | None
    served: tuple[str, ...]  # checkpoints served other than the recipe's model
    install: Install
    flags: tuple[Flag, ...]  # every engine flag any command can carry, sorted
    catalogue: CatalogueEntry
    strategies: tuple[StrategyPage, ...]
    observations: tuple[memory.Seen, ...] = ()  # every observation held against the memory figures
    settled: tuple[memory.Settlement, ...] = ()  # the open questions the observations settle

    @property
    def targets(self) -> tuple[TargetPage, ...]:
        return tuple(t for s in self.strategies for t in s.targets)

    def target(self, slug: str, name: str) -> TargetPage:
        return next(t for t in self.targets if t.strategy.slug == slug and t.target.target == name)


# -- building ----------------------------------------------------------------------------


def _arg_texts(grid: Grid) -> Iterator[tuple[str, str]]:
    """(key, text) of every argument any command of a target can carry."""
    for role in grid.base:
        yield from role.args.items()
        for rank in role.ranks or ():
            yield from rank.args.items()
    for per_role in grid.deltas.values():
        for delta in per_role.values():
            yield from delta.add_args.items()


def flags_in_use(recipe: Recipe) -> frozenset[str]:
    """The flags of vllm serve a recipe's commands use; a command holding --omni is vLLM-Omni's,
    whose flags are not vLLM's (none of them has vLLM's help)."""
    return frozenset(
        key
        for _s, target in recipe.targets()
        if not any(vocabulary.OMNI in role.args for role in target.grid.base)
        for key, _text in _arg_texts(target.grid)
    )


def context_length(recipe: Recipe) -> int | None:
    """The longest --max-model-len any base command serves."""
    lengths = []
    for _s, target in recipe.targets():
        for role in target.grid.base:
            text = role.args.get("--max-model-len")
            try:
                parsed = shell.flag_values(text) if text else None
            except ValueError:
                parsed = None
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


def axes_of(recipe: Recipe, target: Target) -> tuple[Axis, ...]:
    grid = target.grid
    found = []
    for name, values in grid.axes.items():
        info = recipe.axes.get(name)
        found.append(
            Axis(
                name=name,
                values=values,
                toggle=is_toggle(values) and name in grid.options,
                mode=name in grid.modes or not is_toggle(values),
                title=info.title if info else None,
                labels=dict(info.labels) if info else {},
            )
        )
    return tuple(found)


def subtitle(strategy: Strategy) -> str | None:
    """A strategy tab's second line: its tag, unless the label already says it."""
    tag = strategy.tag.strip()
    return None if not tag or tag.casefold() in strategy.label.casefold() else tag


def _nodes(roles: tuple[Role, ...], count: int | None) -> tuple[Node, ...]:
    """The target's nodes and what runs on each (``client.placement``)."""
    numbers: dict[int, list[str]] = {}
    for role, where in zip(roles, client.placement([role.nodes for role in roles], count), strict=True):
        for number in where:
            numbers.setdefault(number, []).append(role.role)
    return tuple(Node(number=n, roles=tuple(r)) for n, r in sorted(numbers.items()))


def bench_meta(recipe: Recipe, strategy: Strategy, target: Target) -> tuple[str, ...]:
    """The metadata every selection of a target gives its benchmark results (KEY=VALUE words)."""
    pairs = (
        ("recipe", recipe.name),
        ("strategy", strategy.slug),
        ("target", target.target),
        ("sku", target.skus[0]),
        ("npus", str(target.npus)),
    )
    return tuple(shlex.quote(f"{key}={value}") for key, value in pairs)


# what a serving group's selections share: endpoint, client request, benchmark (the lines
# before and after a selection's metadata line, the workloads) and role plans
_Bench = tuple[tuple[str, ...], tuple[str, ...], tuple[client.Workload, ...]]
_ServingTexts = tuple[client.Endpoint, str, _Bench, tuple[RolePlan, ...]]


def _serving(lines: Table, router: bool, nodes: int | None, meta: tuple[str, ...] = ()) -> tuple[Serving, ...]:
    """The serving groups: the client, benchmark and role texts read only the lines of
    ``client.SERVING_FLAGS``, so selections that agree on the axes those lines depend on
    share them; each distinct set of texts is computed once."""
    read = sorted(
        {a for role in lines.roles for line in role.lines if line.key in client.SERVING_FLAGS for a, _v in line.limits}
    )
    groups: dict[tuple[int, ...], int] = {}
    first: dict[tuple[int, ...], tuple[int, ...]] = {}
    firsts: dict[_ServingTexts, tuple[int, ...]] = {}
    for bit, chosen in enumerate(lines.offered):
        key = tuple(chosen[a] for a in read)
        groups[key] = groups.get(key, 0) | 1 << bit
        first.setdefault(key, chosen)
    merged: dict[_ServingTexts, int] = {}
    for key, bits in groups.items():
        commands = lines.commands(first[key])
        head, tail = client.bench_lines(commands[0], router, meta)
        runs = client.workloads(commands)
        calls = [f"{client.BENCH_FUNCTION} {w.input_len} {w.output_len} {w.concurrency}" for w in runs]
        texts: _ServingTexts = (
            client.endpoint_of(commands[0], router),
            client.client_for(commands[0], router),
            (tuple(head), tuple([*tail, *calls]), runs),
            tuple(client.roles_for(by_role(commands), nodes)),
        )
        merged[texts] = merged.get(texts, 0) | bits
        firsts.setdefault(texts, first[key])
    return tuple(
        Serving(
            when=() if len(merged) == 1 else lines.products(bits),
            endpoint=endpoint,
            client=client_text,
            bench="\n".join(
                [
                    *bench[0],
                    client.selection_line(
                        lines.selection(firsts[(endpoint, client_text, bench, plans)]),
                        lines.commands(firsts[(endpoint, client_text, bench, plans)]),
                    ),
                    *bench[1],
                ]
            ),
            roles=plans,
            bench_head=bench[0],
            bench_tail=bench[1],
            runs=bench[2],
        )
        for (endpoint, client_text, bench, plans), bits in merged.items()
    )


def _memory(
    recipe: Recipe, strategy: Strategy, target: Target, lines: Table, seen: Reconciled
) -> tuple[MemoryGroup, ...]:
    """The memory figures of every offered selection, grouped: selections whose commands agree
    on what the figures read share one computation and one group (and so one verdict: a group
    is one selection as ``memory.selection_key`` names it, which an observation may settle)."""
    if recipe.facts is None:
        return ()
    settled, observations = seen
    figures: dict[tuple[tuple[str, str, str, memory.Flags], ...], memory.Fit] = {}
    bits: dict[memory.Fit, int] = {}
    for bit, chosen in enumerate(lines.offered):
        commands = lines.commands(chosen)
        key = tuple((c.role, c.launcher, c.model, memory.Flags.of(c)) for c in commands)
        if key not in figures:
            found = memory.fit(recipe.facts, target.skus, commands, settled=settled)
            selection = memory.selection_key(strategy.slug, target.target, found.sku, commands)
            figures[key] = memory.observed(found, selection, observations)
        fit = figures[key]
        bits[fit] = bits.get(fit, 0) | 1 << bit
    return tuple(
        MemoryGroup(when=() if len(bits) == 1 else lines.products(mask), fit=fit) for fit, mask in bits.items()
    )


def _placeholders(
    recipe: Recipe,
    lines: Table,
    router: tuple[tuple[str, str], ...],
    serving: tuple[Serving, ...],
    nodes: int,
) -> tuple[Placeholder, ...]:
    """The placeholders of a target's commands, router steps, client and health checks, in
    order of appearance; a head placeholder brings the node placeholder it takes its value
    from (the reader fills that one in). On several nodes the nodes' own address, which the
    health checks use, has a value per node unless the recipe says otherwise."""
    texts = [line.text for role in lines.roles for line in role.lines] + [cmd for _name, cmd in router]
    for group in serving:
        texts += [group.client, group.bench, *(check for plan in group.roles for check in plan.wait)]
    names = shell.placeholders("\n".join(texts))
    names += [of for name in names if (of := recipe.placeholder_heads.get(name)) and of not in names]
    default = {client.NODE_HOST[1:-1]: "node"} if nodes > 1 else {}
    return tuple(
        Placeholder(
            name=name,
            meaning=PLACEHOLDER_MEANINGS.get(name, "deployment"),
            scope=recipe.placeholder_scopes.get(name, default.get(name, "shared")),
            of=recipe.placeholder_heads.get(name),
        )
        for name in names
    )


def observation_selection(grid: Grid, given: Mapping[str, str] | None) -> dict[str, str] | None:
    """The selection an observation ran: the given axis values over the base selection (the
    recommended one when the base is not offered); None when it names an unknown or excluded
    choice (rule 24 says which)."""
    start = base_selection(grid) or default_selection(grid)
    chosen = {**start, **(given or {})}
    if set(chosen) != set(grid.axes) or any(v not in grid.axes[a] for a, v in chosen.items()):
        return None
    return None if is_excluded(grid, chosen) else chosen


def observation_runs(recipe: Recipe, memo: Memo | None = None) -> list[memory.Run]:
    """Every observation of a recipe as a run of commands: each target's verified date (its
    opening selection served on each SKU it names) and the recipe's recorded observations
    (the grids' tables kept in ``memo``)."""
    if recipe.facts is None:
        return []
    runs = []
    for s, strategy in enumerate(recipe.strategies):
        for t, target in enumerate(strategy.targets):
            lines = grid_table(target.grid, memo)[0]
            commands = lines.commands(lines.index(default_selection(target.grid)))
            for sku in target.skus:
                if sku in memory.SKUS:
                    runs.append(
                        memory.Run(
                            key=f"/strategies/{s}/options/{t}/verified",
                            kind="verified",
                            outcome="serves",
                            strategy=strategy.slug,
                            target=target.target,
                            sku=sku,
                            commands=commands,
                            model=None,
                            max_model_len=None,
                            max_num_seqs=None,
                            date=target.verified,
                        )
                    )
    for observation in recipe.facts.observations:
        strategy_ = recipe.strategy(observation.strategy)
        target_ = strategy_.target(observation.target) if strategy_ else None
        if target_ is None or observation.sku not in memory.SKUS:
            continue
        chosen = observation_selection(target_.grid, observation.selection)
        if chosen is None:
            continue
        lines = grid_table(target_.grid, memo)[0]
        runs.append(memory.Run.of(observation, lines.commands(lines.index(chosen))))
    return runs


Reconciled = tuple[dict[tuple[str, int], memory.Settlement], tuple[memory.Seen, ...]]


def _reconcile(recipe: Recipe, memo: Memo | None) -> Reconciled:
    return memory.reconcile(recipe.facts, observation_runs(recipe, memo))


def reconciled(recipe: Recipe, memo: Memo | None = None) -> Reconciled:
    """The recipe's observations held against the figures: the questions they settle (by
    kind and shape) and each observation seen; once per recipe object and memo."""
    return memo_get(memo, _reconcile, recipe, memo)


def target_page(
    recipe: Recipe,
    strategy: Strategy,
    target: Target,
    *,
    only_default: bool = False,
    pinned: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    figures: bool = True,
) -> TargetPage:
    """One target's part of the page model; ``figures=False`` leaves out the memory figures (and
    the observations they are held against), for a caller that reads commands only."""
    grid = target.grid
    lines, wrong = table.build(grid, only_default=only_default) if only_default else grid_table(grid, memo)
    index = lines.index
    base = base_selection(grid)
    router = tuple((step.node, step.cmd) for step in grid.router)
    serving = _serving(lines, bool(router), strategy.nodes, bench_meta(recipe, strategy, target))
    nodes = _nodes(grid.base, strategy.nodes)
    conflicts = tuple(
        Conflict(choices=tuple(entry.items()), product=product)
        for entry, product in zip(grid.excluded, lines.excluded, strict=True)
    )
    return TargetPage(
        strategy=strategy,
        target=target,
        table=lines,
        wrong=tuple(", ".join(f"{a}={v}" for a, v in s.items()) for s in wrong),
        axes=axes_of(recipe, target),
        opening=index(default_selection(grid)),
        recommended=None if grid.recommended is None else index(grid.recommended),
        base=None if base is None else index(base),
        conflicts=conflicts,
        serving=serving,
        router=router,
        nodes=nodes,
        placeholders=_placeholders(recipe, lines, router, serving, len(nodes)),
        provenance=provenance(target, pinned),
        memory=_memory(recipe, strategy, target, lines, reconciled(recipe, memo)) if figures else (),
    )


def grid_table(grid: Grid, memo: Memo | None = None) -> tuple[Table, list[dict[str, str]]]:
    """A grid's table and the selections it would show wrongly, built once per grid and memo
    (the rules and the page share it)."""
    return memo_get(memo, table.build, grid)


def build_page(
    recipe: Recipe,
    *,
    only_default: bool = False,
    pinned: Mapping[str, str] | None = None,
    memo: Memo | None = None,
    figures: bool = True,
) -> RecipePage:
    """Everything about one recipe that its page, API, Markdown view and files show; with
    only_default, each explorer holds the selection it opens on only; ``pinned``: the releases
    targets are measured against (the engine's own by default); ``memo``: where the grids'
    tables are kept (the rules built them already when it is the one the recipe was checked with);
    ``figures=False`` leaves out the memory figures and the observations held against them (for
    a caller that reads commands only: the rules)."""
    targets = list(recipe.targets())
    if memo is None:  # the observations and the targets share the grids' tables within this call
        memo = Memo()
    settled, seen = reconciled(recipe, memo) if figures else ({}, ())
    strategies = tuple(
        StrategyPage(
            strategy=strategy,
            subtitle=subtitle(strategy),
            targets=tuple(
                target_page(recipe, strategy, t, only_default=only_default, pinned=pinned, memo=memo, figures=figures)
                for t in strategy.targets
            ),
        )
        for strategy in recipe.strategies
    )
    return RecipePage(
        recipe=recipe,
        context_length=context_length(recipe),
        served=tuple(sorted({t.grid.model for _s, t in targets} - {recipe.model})),
        install=install_needs(recipe),
        flags=flags_of(recipe),
        catalogue=catalogue_of(recipe),
        strategies=strategies,
        observations=seen,
        settled=tuple(settled.values()),
    )


def flags_of(recipe: Recipe) -> tuple[Flag, ...]:
    """Every engine flag any command of the recipe can carry, with vLLM's help, sorted (read from
    the recipe alone: a page listing every recipe's flags needs no page model)."""
    return tuple(Flag(name=name, help=vocabulary.flag_help(name)) for name in sorted(flags_in_use(recipe)))


def catalogue_of(recipe: Recipe) -> CatalogueEntry:
    """What the landing page's catalogue lists of a recipe, read from the recipe alone (no
    selection expanded)."""
    targets = list(recipe.targets())
    return CatalogueEntry(
        strategies=tuple(s.label for s in recipe.strategies),
        npus=tuple(sorted({t.npus for _s, t in targets})),
        skus=tuple(sorted({sku for _s, t in targets for sku in t.skus})),
        verified=max(t.verified for _s, t in targets),
        kinds=catalogue_kinds(recipe),
        features=tuple(key for key, flag in CATALOGUE_FEATURES.items() if flag in flags_in_use(recipe)),
    )


def page_of(
    recipe: Recipe, memo: Memo | None = None, *, only_default: bool = False, figures: bool = True
) -> RecipePage:
    """The recipe's page model (with only_default, each explorer holding its opening selection
    only; with figures=False, no memory figures), built once per recipe object and memo (without
    a memo: built afresh)."""
    return memo_get(memo, build_page, recipe, only_default=only_default, memo=memo, figures=figures)


# -- commands ------------------------------------------------------------------------------


def commands_of(target: TargetPage, selection: Mapping[str, str]) -> tuple[Command, ...]:
    """The commands of a complete, offered selection: the one way to get them."""
    try:
        chosen = target.index(selection)
    except (KeyError, ValueError):
        raise SelectionError(f"not a selection of this target: {dict(selection)}") from None
    if not target.offers(chosen):
        pairs = ", ".join(f"{a}={v}" for a, v in target.selection(chosen).items())
        raise SelectionError(f"the recipe excludes this selection: {pairs}")
    return target.commands_at(chosen)


def checkpoint_bytes(recipe: Recipe, model: str) -> int | None:
    """The size of a served checkpoint, from the recipe's facts (None without them)."""
    checkpoint = recipe.facts.checkpoint(model) if recipe.facts else None
    return checkpoint.total if checkpoint else None


def expansion_at(recipe: Recipe, target: TargetPage, chosen: Sequence[int]) -> Expansion:
    return Expansion(
        recipe=recipe.name,
        strategy=target.strategy.slug,
        target=target.target.target,
        selection=target.selection(chosen),
        recommended=target.recommended is not None and tuple(chosen) == target.recommended,
        commands=target.commands_at(chosen),
        router=target.router,
        nodes=target.role_nodes,
        skus=target.target.skus,
        checkpoint=checkpoint_bytes(recipe, target.target.grid.model),
        heads=recipe.placeholder_heads,
    )


def expand_selection(
    recipe: Recipe, strategy: Strategy, target: Target, selection: Mapping[str, str], memo: Memo | None = None
) -> Expansion:
    """Expand a complete, offered selection (see ``expansion.resolve`` for partial ones); without
    a memo, only this target's commands are worked out (its line table, no memory figures: an
    expansion holds none)."""
    if memo is None:
        page = target_page(recipe, strategy, target, figures=False)
    else:
        page = page_of(recipe, memo).target(strategy.slug, target.target)
    commands_of(page, selection)  # refuses a selection that is not offered
    return expansion_at(recipe, page, page.index(selection))


def expand(
    recipe: Recipe, slug: str, target_name: str, given: Mapping[str, str] | None = None, memo: Memo | None = None
) -> Expansion:
    strategy, target = find(recipe, slug, target_name)
    return expand_selection(recipe, strategy, target, resolve(target.grid, given or {}), memo)


def matrix(recipe: Recipe, memo: Memo | None = None) -> Iterator[Expansion]:
    """Every offered selection of every strategy and target, in page order."""
    for target in page_of(recipe, memo).targets:
        for chosen in target.table.offered:
            yield expansion_at(recipe, target, chosen)
