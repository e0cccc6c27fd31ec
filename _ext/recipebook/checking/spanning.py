"""A role that spans nodes: one vLLM server run across machines, as the pinned release reads it.

vLLM 0.30.0 runs one server across nodes in two ways (``entrypoints/cli/serve.py``,
``EngineArgs.create_engine_config``): every node runs the same ``vllm serve`` with
``--nnodes``, its ``--node-rank`` and the head's ``--master-addr``, the followers
``--headless`` (tensor or pipeline parallel across nodes, torch.distributed rendezvous at the
head); or every node runs its own ``--data-parallel-size-local`` ranks of one
``--data-parallel-size``, each follower from its ``--data-parallel-start-rank``, all meeting at
the head's ``--data-parallel-address`` (data parallel across nodes). vllm-rbln 0.12.0 keeps
only the multiprocessing backend (``platform.check_and_update_config``): no Ray.

``check`` (rule 24) reads every node's command of every offered selection, each flag as vLLM's
parser reads its key (``-r`` is ``--node-rank``), and points at the line that says otherwise or
at the node entry that lacks one.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from .. import shell
from ..expanding.expansion import Command, Line, walkable
from ..expanding.page import grid_table
from ..memo import Memo, remembered
from ..problems import Problem, pointer_join
from ..reading import vocabulary
from ..reading.model import Grid, Recipe, Role
from ..reading.source import Document

LAUNCHER = vocabulary.LAUNCHER
# The backends vllm-rbln runs (vllm_rbln/platform/__init__.py keeps "mp" and "uni"; "uni" is one process).
BACKENDS = ("mp",)
# The sizes whose product is the world size vLLM divides among --nnodes nodes.
WORLD = (
    "--tensor-parallel-size",
    "--pipeline-parallel-size",
    "--data-parallel-size",
    "--prefill-context-parallel-size",
)
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class _Said(NamedTuple):
    """What one node's command says with one flag: the value words and the line (a tuple: a
    role's every selection makes one per line of each of its nodes)."""

    values: tuple[str, ...]
    line: Line


@dataclasses.dataclass(frozen=True)
class _Node:
    index: int  # in the role's nodes, from 0 (the head)
    command: Command
    said: Mapping[str, _Said]  # canonical flag -> what the command says with it (its first line)

    @property
    def head(self) -> bool:
        return self.index == 0

    def has(self, flag: str) -> bool:
        return flag in self.said

    def number(self, flag: str) -> int | None:
        """The flag's value as an integer; None when absent or not a plain integer (a placeholder)."""
        found = self.said.get(flag)
        if found is None or len(found.values) != 1:
            return None
        try:
            return int(found.values[0])
        except ValueError:
            return None

    def words(self, flag: str) -> tuple[str, ...] | None:
        found = self.said.get(flag)
        return None if found is None else found.values


@remembered(maxsize=1 << 14)
def _flag_said(known: vocabulary.Vocabulary, text: str) -> tuple[str, tuple[str, ...]] | None:
    """An arg text's flag as ``known``'s parser reads its key, and its value words; None for a
    text that does not split into words. Remembered: a role's selections share most lines."""
    try:
        flag, values = shell.flag_values(text)
    except ValueError:
        return None  # rule 4 says why
    reading = known.reading(flag)
    return (reading.flag if reading.flag and not reading.field else flag), tuple(values)


def _node(index: int, command: Command) -> _Node:
    said: dict[str, _Said] = {}
    known = vocabulary.pinned()
    for line in command.arg_lines:
        found = _flag_said(known, line.text)
        if found is not None and found[0] not in said:
            said[found[0]] = _Said(found[1], line)
    return _Node(index=index, command=command, said=said)


class _Places:
    """Where a role's lines are written: a node's entry, a delta of the role, or its base."""

    def __init__(self, grid: Grid, role: Role, heads: Mapping[str, str]) -> None:
        self.role = role
        self.deltas = [d for per_role in grid.deltas.values() if (d := per_role.get(role.role)) is not None]
        self.heads = heads  # head placeholder -> the node placeholder whose head value it is

    def as_head_says(self, words: tuple[str, ...]) -> set[tuple[str, ...]]:
        """The ways a follower may write what the head writes: the same words, or with the head's
        own node placeholder (<POD_IP>) written as a head placeholder of it (<HEAD_IP>)."""
        ways = {words}
        for head, of in self.heads.items():
            ways.add(tuple(word.replace(f"<{of}>", f"<{head}>") for word in words))
        return ways

    def entry(self, node: _Node) -> str:
        assert self.role.ranks is not None
        return self.role.ranks[node.index].ptr

    def line(self, node: _Node, line: Line) -> str:
        """The pointer of the recipe's text that gave a node's line."""
        assert self.role.ranks is not None
        own = self.role.ranks[node.index]
        mapping = own.args if line.kind == "arg" else own.envs
        kind = "args" if line.kind == "arg" else "envs"
        if mapping.get(line.key) == line.text:
            return pointer_join(own.ptr, kind, line.key)
        for delta in self.deltas:
            added = delta.add_args if line.kind == "arg" else delta.add_envs
            if added.get(line.key) == line.text:
                return pointer_join(delta.ptr, f"add_{kind}", line.key)
        return pointer_join(self.role.ptr, kind, line.key)

    def said(self, node: _Node, flag: str) -> str:
        return self.line(node, node.said[flag].line)


@remembered(maxsize=1 << 10)
def _is_loopback(words: tuple[str, ...]) -> bool:
    if len(words) != 1:
        return False
    word = words[0].strip("[]")
    if word.lower() in _LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(word)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _who(node: _Node) -> str:
    return "the head" if node.head else f"follower {node.index} (node {node.command.node})"


Found = tuple[str, str]  # (pointer, message)


def _same_everywhere(nodes: Sequence[_Node], places: _Places, flag: str, why: str) -> Iterator[Found]:
    """Every node gives ``flag`` with the same value as the head (``why``: what it is for)."""
    head = nodes[0]
    for node in nodes:
        if not node.has(flag):
            yield places.entry(node), f"{_who(node)} gives no {flag}: every node of the role gives {why}"
        elif head.has(flag) and not node.head and node.words(flag) not in places.as_head_says(head.words(flag) or ()):
            yield (
                places.said(node, flag),
                f"{flag} {' '.join(node.words(flag) or ())} on {_who(node)}, but "
                f"{' '.join(head.words(flag) or ())} on the head: every node gives {why}",
            )


def _address(nodes: Sequence[_Node], places: _Places, flag: str) -> Iterator[Found]:
    yield from _same_everywhere(nodes, places, flag, "the same head address")
    for node in nodes:
        words = node.words(flag)
        if words is not None and _is_loopback(words):
            yield (
                places.said(node, flag),
                f"{flag} {words[0]} is a loopback or unspecified address: the followers must reach the "
                "head there; give the head's own address (a placeholder such as '<HEAD_IP>')",
            )


def _optional_same(nodes: Sequence[_Node], places: _Places, flag: str, why: str) -> Iterator[Found]:
    """A flag that may be left out, but then on every node alike."""
    if any(node.has(flag) for node in nodes):
        yield from _same_everywhere(nodes, places, flag, why)


def _torch_nodes(nodes: Sequence[_Node], places: _Places) -> Iterator[Found]:
    """Tensor or pipeline parallel across nodes: --nnodes, --node-rank, --master-addr, --headless."""
    count = len(nodes)
    for node in nodes:
        given = node.number("--nnodes")
        if not node.has("--nnodes"):
            yield places.entry(node), f"{_who(node)} gives no --nnodes: every node of the role gives --nnodes {count}"
        elif given is not None and given != count:
            yield places.said(node, "--nnodes"), f"--nnodes {given}, but the role spans {count} nodes"
        rank = node.number("--node-rank")
        if not node.has("--node-rank"):
            if not node.head:
                yield (
                    places.entry(node),
                    f"{_who(node)} gives no --node-rank: write --node-rank {node.index} (node ranks count the "
                    "role's nodes from 0, the head first); without it vLLM takes 0, the head's",
                )
        elif rank is not None and rank != node.index:
            yield (
                places.said(node, "--node-rank"),
                f"--node-rank {rank} on {_who(node)}: node ranks count the role's nodes from 0, the head first, "
                f"so this node is --node-rank {node.index}",
            )
        if node.head and node.has("--headless"):
            yield (
                places.said(node, "--headless"),
                "the head runs --headless, so no node would serve the API: only followers are headless",
            )
        if not node.head and not node.has("--headless"):
            yield (
                places.entry(node),
                f"{_who(node)} has no --headless: with --nnodes only the head serves the API, so every follower "
                "runs --headless (add it to this node's entry)",
            )
    yield from _address(nodes, places, "--master-addr")
    yield from _optional_same(nodes, places, "--master-port", "the same --master-port")
    head, world = nodes[0], 1
    for flag in WORLD:
        if head.has(flag) and head.number(flag) is None:
            return  # a placeholder or a word vLLM's parser refuses: nothing to add up
        world *= head.number(flag) or 1
    if world % count and head.has("--nnodes"):
        yield (
            places.said(head, "--nnodes"),
            f"the world size (tensor x pipeline x data parallel: {world}) does not divide evenly among "
            f"{count} nodes, as vLLM requires of --nnodes: change a parallel size or the number of nodes",
        )


def _data_parallel_nodes(nodes: Sequence[_Node], places: _Places) -> Iterator[Found]:
    """Data parallel across nodes: local sizes, start ranks, the head's address."""
    locals_: list[int | None] = []
    for node in nodes:
        if not node.has("--data-parallel-size-local"):
            yield (
                places.entry(node),
                f"{_who(node)} gives no --data-parallel-size-local: every node says how many data-parallel "
                "ranks it runs",
            )
        locals_.append(node.number("--data-parallel-size-local"))
    yield from _same_everywhere(nodes, places, "--data-parallel-size", "the same --data-parallel-size (every rank)")
    total = nodes[0].number("--data-parallel-size")
    if total is not None and None not in locals_ and sum(locals_) != total:  # type: ignore[arg-type]
        sizes = " + ".join(str(n) for n in locals_)
        yield (
            places.said(nodes[0], "--data-parallel-size"),
            f"--data-parallel-size {total}, but the nodes' --data-parallel-size-local add up to {sizes} = "
            f"{sum(locals_)}",  # type: ignore[arg-type]
        )
    before = 0
    for node, local in zip(nodes, locals_, strict=True):
        start = node.number("--data-parallel-start-rank")
        if not node.has("--data-parallel-start-rank"):
            if not node.head:
                expected = f" {before}" if None not in locals_[: node.index] else ""
                yield (
                    places.entry(node),
                    f"{_who(node)} gives no --data-parallel-start-rank: write --data-parallel-start-rank{expected}, "
                    "the local sizes of the nodes before it",
                )
        elif start is not None and None not in locals_[: node.index] and start != before:
            yield (
                places.said(node, "--data-parallel-start-rank"),
                f"--data-parallel-start-rank {start} on {_who(node)}, but the nodes before it run {before} "
                f"data-parallel rank(s) (their --data-parallel-size-local): write --data-parallel-start-rank {before}",
            )
        before += local or 0
        if node.has("--headless") and node.has("--data-parallel-hybrid-lb"):
            yield (
                places.said(node, "--data-parallel-hybrid-lb"),
                f"{_who(node)} runs --headless and asks for --data-parallel-hybrid-lb, which vLLM refuses "
                "(hybrid load balancing serves the API on every node): drop one of them",
            )
        if node.head and node.has("--headless"):
            yield (
                places.said(node, "--headless"),
                "the head runs --headless, so no node would serve the API: only followers are headless",
            )
    yield from _address(nodes, places, "--data-parallel-address")
    yield from _optional_same(nodes, places, "--data-parallel-rpc-port", "the same --data-parallel-rpc-port")


def _backends(nodes: Sequence[_Node], places: _Places) -> Iterator[Found]:
    for node in nodes:
        for flag in ("--distributed-executor-backend", "--data-parallel-backend"):
            words = node.words(flag)
            if words and words[0] not in BACKENDS and not shell.PLACEHOLDER.fullmatch(words[0]):
                yield (
                    places.said(node, flag),
                    f"{flag} {words[0]}: vllm-rbln runs a server across nodes with vLLM's multiprocessing backend "
                    "only (mp; no Ray cluster): drop the flag or write mp",
                )


def node_problems(
    grid: Grid, role: Role, commands: Sequence[Command], heads: Mapping[str, str] | None = None
) -> Iterator[Found]:
    """What is wrong with the nodes' commands of one selection of a role that spans nodes
    (``heads``: the recipe's head placeholders, each with the node placeholder it takes)."""
    places = _Places(grid, role, heads or {})
    nodes = [_node(index, command) for index, command in enumerate(commands)]
    if role.launcher != LAUNCHER:
        yield (
            pointer_join(role.ptr, "launcher"),
            f"a role that spans nodes runs {LAUNCHER} (vLLM's multi-node flags join its nodes into one server); "
            f"this one runs {role.launcher!r}",
        )
        return
    yield from _backends(nodes, places)
    if any(node.has("--nnodes") for node in nodes):
        yield from _torch_nodes(nodes, places)
    elif any(node.has("--data-parallel-size-local") for node in nodes):
        yield from _data_parallel_nodes(nodes, places)
    else:
        yield (
            pointer_join(role.ptr, "nodes"),
            f"the role spans {len(nodes)} nodes, but no command says how they make one server: give every node "
            f"--nnodes {len(nodes)} with its --node-rank and --master-addr (tensor or pipeline parallel across "
            "nodes), or its --data-parallel-size-local with --data-parallel-start-rank and --data-parallel-address "
            "(data parallel across nodes); as written, each node would start a server of its own",
        )


def check(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """24. A role that spans nodes (its `nodes`) is one vLLM server run across them, as vLLM's
    own launcher reads its flags: it runs `vllm serve`, and its nodes meet in one of two ways.

    Tensor or pipeline parallel across nodes: every node gives `--nnodes` (the role's nodes) and
    the same `--master-addr` (the head's address, not a loopback one) and `--master-port`, if
    any; node k (from 0, the head first) gives `--node-rank k`; each follower runs
    `--headless`, the head does not; the world size (tensor × pipeline × data parallel) divides
    evenly among the nodes.

    Data parallel across nodes: every node gives its own `--data-parallel-size-local`, and these
    add up to the `--data-parallel-size` every node gives; each follower gives
    `--data-parallel-start-rank`, the sum of the local sizes of the nodes before it; every node
    gives the same `--data-parallel-address` (the head's) and `--data-parallel-rpc-port`, if
    any; the head is not `--headless`, and a `--headless` follower does not ask for
    `--data-parallel-hybrid-lb`.

    vllm-rbln runs both on vLLM's multiprocessing backend only, so `--distributed-executor-backend`
    and `--data-parallel-backend` say `mp` when given (no Ray cluster). Every offered selection
    is checked; each problem points at the line that says otherwise, or at the node entry that
    lacks a line."""
    for _strategy, target in recipe.targets():
        grid = target.grid
        spanning = [(r, role) for r, role in enumerate(grid.base) if role.span is not None]
        if not spanning or not walkable(grid):
            continue  # rule 11 refuses a target of too many selections
        table, wrong = grid_table(grid, memo)
        if wrong:
            continue  # rules 7 and 8 say why the table cannot be read
        found: dict[Found, None] = {}
        for r, role in spanning:
            seen: set[tuple[int, ...]] = set()
            rows = table.roles[r]
            for chosen in table.offered:
                key = tuple(chosen[a] for a in rows.relevant)
                if key in seen:
                    continue
                seen.add(key)
                for item in node_problems(grid, role, rows.commands(chosen), recipe.placeholder_heads):
                    found.setdefault(item)
        for pointer, message in found:
            yield doc.problem(pointer, message)
