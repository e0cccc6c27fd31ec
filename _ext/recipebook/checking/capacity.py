"""What a selection asks of the machines and of vLLM's scheduler, as they would answer it.

Rule 29: the NPUs each node is asked for, against the node's own device count when the target
states it (``npusPerNode``). No RBLN SKU has a node size of its own: a node holds whatever
cards its machine has (Kubernetes labels each node with ``rebellions.ai/npu.count``), so the
count is the target's statement, not the SKU table's.

Rule 30: vLLM 0.30.0's ``SchedulerConfig.verify_max_model_len`` (``vllm/config/scheduler.py``),
which ``EngineArgs.create_engine_config`` runs when the server starts, refuses
``max_num_batched_tokens < max_num_seqs``, and ``max_num_batched_tokens < max_model_len``
without chunked prefill. A value the command leaves to vLLM is not judged: vLLM picks its
defaults per hardware and model (``_set_default_max_num_seqs_and_batched_tokens_args`` lowers a
default ``max_num_seqs`` to the tokens given, and a model's own length is not known here).

Both read every offered selection through the target's line table (kept in the caller's memo),
each distinct set of the lines they read once, and point at the recipe text that gave the line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence

from .. import shell
from ..expanding import client
from ..expanding.expansion import Command, Line, walkable
from ..expanding.page import grid_table
from ..memo import Memo
from ..problems import Problem, pointer_join
from ..reading import vocabulary
from ..reading.model import Grid, Recipe
from ..reading.source import Document
from ..reading.valuetypes import parse_size

LAUNCHER = vocabulary.LAUNCHER
# The flags whose values give the NPUs a process uses (client.npus reads them).
PARALLEL = client.PARALLEL_FLAGS
BATCHED, SEQS, LENGTH = "--max-num-batched-tokens", "--max-num-seqs", "--max-model-len"
CHUNKED, NO_CHUNKED = "--enable-chunked-prefill", "--no-enable-chunked-prefill"
SCHEDULER = frozenset({BATCHED, SEQS, LENGTH, CHUNKED, NO_CHUNKED})


def _canonical(key: str) -> str:
    """The flag vLLM's parser reads a key as (``--max_num_seqs`` is ``--max-num-seqs``)."""
    reading = vocabulary.pinned().reading(key)
    return reading.flag if reading.flag and not reading.field else key


def _axes_reading(grid: Grid, keys: frozenset[str]) -> tuple[str, ...]:
    """The axes some delta of which sets or removes one of ``keys``: the lines the rule reads
    depend on no other axis."""
    found = []
    for name, per_role in grid.deltas.items():
        axis = name.split("=", 1)[0]
        for delta in per_role.values():
            touched = {*delta.add_args, *delta.del_args}
            if any(_canonical(key) in keys for key in touched) and axis not in found:
                found.append(axis)
    return tuple(found)


def _distinct(
    grid: Grid, memo: Memo | None, keys: frozenset[str]
) -> Iterator[tuple[dict[str, str], tuple[Command, ...]]]:
    """One offered selection (and its commands) per distinct choice of the axes that change the
    lines of ``keys``."""
    if not walkable(grid):
        return  # rule 11 refuses a target of too many selections
    table, wrong = grid_table(grid, memo)
    if wrong:
        return  # rules 7 and 8 say why the table cannot be read
    read = _axes_reading(grid, keys)
    seen: set[tuple[str, ...]] = set()
    for chosen in table.offered:
        selection = table.selection(chosen)
        key = tuple(selection[a] for a in read)
        if key in seen:
            continue
        seen.add(key)
        yield selection, table.commands(chosen)


def line_pointer(grid: Grid, command: Command, selection: Mapping[str, str], line: Line) -> str:
    """Where the recipe writes a line of a selection's command: the delta of a chosen axis value
    that sets it, else the rank's (or node's) entry, else the role's base."""
    kind = "args" if line.kind == "arg" else "envs"
    for axis, value in selection.items():
        delta = grid.deltas.get(f"{axis}={value}", {}).get(command.role)
        if delta is not None and (delta.add_args if kind == "args" else delta.add_envs).get(line.key) == line.text:
            return pointer_join(delta.ptr, f"add_{kind}", line.key)
    role = next(r for r in grid.base if r.role == command.role)
    if role.ranks is not None and command.rank is not None and command.rank < len(role.ranks):
        rank = role.ranks[command.rank]
        if (rank.args if kind == "args" else rank.envs).get(line.key) == line.text:
            return pointer_join(rank.ptr, kind, line.key)
    return pointer_join(role.ptr, kind, line.key)


def _words(selection: Mapping[str, str]) -> str:
    return ", ".join(f"{axis}={value}" for axis, value in selection.items()) or "the only selection"


# -- rule 29 -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Overload:
    """A node asked for more NPUs than it has at one offered selection: each server's role and
    NPUs on it."""

    node: int
    uses: tuple[tuple[str, int], ...]
    selection: Mapping[str, str]

    @property
    def total(self) -> int:
        return sum(n for _role, n in self.uses)

    def asked(self, *, at: bool = True) -> str:
        """What the node is asked for (``at``: at which selection)."""
        parts = ", ".join(f"{role} {n}" for role, n in self.uses)
        said = (
            f"node {self.node} is asked for {self.total} NPUs ({parts}: tensor x pipeline parallel x the "
            "data-parallel ranks of each process)"
        )
        return f"{said} at {_words(self.selection)}" if at else said


def overloads(grid: Grid, nodes: int | None, per_node: int, memo: Memo | None = None) -> Iterator[Overload]:
    """Each node that an offered selection of a grid (its strategy on ``nodes`` nodes) asks for more
    than ``per_node`` NPUs, once per distinct choice of the axes that change the parallel sizes."""
    places = client.placement([role.span or 1 for role in grid.base], nodes)
    home = {role.role: at[0] for role, at in zip(grid.base, places, strict=True)}
    for selection, commands in _distinct(grid, memo, PARALLEL):
        asked: dict[int, list[tuple[str, int]]] = {}
        for command in commands:
            if command.launcher.split()[:2] != LAUNCHER.split():
                continue
            node = command.node or home.get(command.role, 1)
            asked.setdefault(node, []).append((command.role, client.npus(command)))
        for node, uses in sorted(asked.items()):
            if sum(n for _role, n in uses) > per_node:
                yield Overload(node=node, uses=tuple(uses), selection=selection)


def node_npus(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """29. When a target says how many NPUs each of its nodes has (`npusPerNode`: the machine's
    device count, as Kubernetes labels a node `rebellions.ai/npu.count`; no SKU fixes it), no
    node is asked for more by any offered selection: the servers placed on a node (each role on
    its node, each node of a role that spans nodes its own command) use tensor x pipeline
    parallel x the data-parallel ranks each process runs, summed. A data-parallel server split
    over nodes asks each node for its `--data-parallel-size-local` ranks of tensor x pipeline
    parallel NPUs: a split that asks one node for more than it has cannot start there."""
    for strategy, target in recipe.targets():
        if target.npus_per_node is None:
            continue
        found: dict[int, str] = {}
        for over in overloads(target.grid, strategy.nodes, target.npus_per_node, memo):
            found.setdefault(
                over.node,
                f"{over.asked()}, but npusPerNode says its machine has {target.npus_per_node}: give a node fewer "
                "ranks (a smaller --data-parallel-size-local or tensor parallel size) or more nodes",
            )
        for message in found.values():
            yield doc.problem(pointer_join(target.ptr, "npusPerNode"), message)


# -- rule 30 -------------------------------------------------------------------------------------


def _counted(value: int) -> int | None:
    """A count as the scheduler's condition reads it: None below 1 (refused by the value's own rule)."""
    return value if value >= 1 else None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Scheduling:
    """What one command gives vLLM's SchedulerConfig (None: left to vLLM, or a value below 1,
    which the vocabulary rule refuses on its own: vLLM's fields take at least 1)."""

    batched: int | None = None
    seqs: int | None = None
    length: int | None = None  # an explicit --max-model-len of at least 1 (not -1 / auto)
    chunked: bool | None = None  # the last of --enable-chunked-prefill / --no-enable-chunked-prefill
    lines: Mapping[str, Line] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, lines: Sequence[Line]) -> Scheduling:
        batched = seqs = length = None
        chunked: bool | None = None
        said: dict[str, Line] = {}
        for line in lines:
            if line.kind != "arg":
                continue
            try:
                key, words = shell.flag_values(line.text)
            except ValueError:
                continue  # rule 4 says why
            flag = _canonical(key)
            if flag not in SCHEDULER:
                continue
            said[flag] = line
            try:
                if flag in (CHUNKED, NO_CHUNKED):
                    chunked = flag == CHUNKED  # argparse keeps the last one given
                elif flag == SEQS and words:
                    seqs = _counted(int(words[0]))
                elif flag == BATCHED and words:
                    batched = _counted(parse_size(words[0]))
                elif flag == LENGTH and words:
                    given = parse_size(words[0], auto=True)
                    length = given if given >= 1 else None
            except ValueError:
                continue  # a placeholder, or a value the vocabulary rule refuses
        return cls(batched=batched, seqs=seqs, length=length, chunked=chunked, lines=said)

    def refusals(self) -> list[tuple[tuple[str, str], str]]:
        """(the two flags whose values disagree, why) for each condition vLLM's SchedulerConfig
        refuses, the one to point at first unless an option brings the other."""
        out = []
        if self.batched is not None and self.seqs is not None and self.batched < self.seqs:
            out.append(
                (
                    (SEQS, BATCHED),
                    f"--max-num-batched-tokens {self.batched} is less than --max-num-seqs {self.seqs}: vLLM's "
                    "SchedulerConfig refuses it when the server starts (max_num_batched_tokens must be greater "
                    "than or equal to max_num_seqs); give at least as many batched tokens as sequences",
                )
            )
        if (
            self.chunked is False
            and self.batched is not None
            and self.length is not None
            and self.batched < self.length
        ):
            out.append(
                (
                    (BATCHED, LENGTH),
                    f"--max-num-batched-tokens {self.batched} is less than --max-model-len {self.length} with chunked "
                    "prefill off: vLLM's SchedulerConfig refuses it when the server starts (a prompt of the full "
                    "length must fit one step); raise it, lower --max-model-len, or leave chunked prefill on",
                )
            )
        return out


@dataclasses.dataclass(frozen=True)
class Refusal:
    """A command of an offered selection that vLLM's SchedulerConfig refuses: the two flags whose
    values disagree (the one to point at first) and why."""

    selection: Mapping[str, str]
    command: Command
    flags: tuple[str, str]
    why: str
    scheduling: Scheduling


def refusals(grid: Grid, memo: Memo | None = None) -> Iterator[Refusal]:
    """Every refusal of vLLM's SchedulerConfig among a grid's offered selections, once per distinct
    choice of the axes that change the scheduler's flags (each role, rank and node)."""
    for selection, commands in _distinct(grid, memo, SCHEDULER):
        for command in commands:
            if command.launcher.split()[:2] != LAUNCHER.split():
                continue
            asked = Scheduling.of(command.arg_lines)
            for flags, why in asked.refusals():
                yield Refusal(selection=selection, command=command, flags=flags, why=why, scheduling=asked)


def deciding(grid: Grid, selection: Mapping[str, str], keys: frozenset[str]) -> dict[str, str]:
    """A selection's values of the axes some delta of which sets or removes one of ``keys``: with
    the base, they decide the selection's lines of those keys (every selection that has them has
    the same lines)."""
    return {axis: selection[axis] for axis in _axes_reading(grid, keys) if axis in selection}


def scheduler_limits(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """30. What a `vllm serve` command gives vLLM's scheduler is what vLLM 0.30.0's
    `SchedulerConfig` accepts when the server starts: with both given, `--max-num-batched-tokens`
    is at least `--max-num-seqs`; with chunked prefill turned off (`--no-enable-chunked-prefill`)
    and `--max-model-len` given, `--max-num-batched-tokens` is at least `--max-model-len`. A value
    left to vLLM is not judged (its defaults depend on the hardware and the model). Every offered
    selection is checked (each role, rank and node); the problem points at the line that gives
    the value, in the option that brings it when one does."""
    for _strategy, target in recipe.targets():
        grid = target.grid
        found: dict[str, str] = {}
        for refusal in refusals(grid, memo):
            command, selection = refusal.command, refusal.selection
            # the line an option brings, when one does: the option is what makes the pair wrong
            places = [line_pointer(grid, command, selection, refusal.scheduling.lines[flag]) for flag in refusal.flags]
            pointer = next((p for p in places if "/deltas/" in p), places[0])
            found.setdefault(pointer, f"{refusal.why} ({command.role}, at {_words(selection)})")
        for pointer, message in found.items():
            yield doc.problem(pointer, message)
