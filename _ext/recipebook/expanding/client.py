"""What a reader does around the server commands of one selection.

From a selection's commands: where it serves (the router for prefill/decode, else the
server's ``--port`` on the same host), a client request and a ``vllm bench serve`` command
against that endpoint, the roles with the node each runs on, how many NPUs each uses (from
its own arguments), the order to start them and what to wait for; a pre-filled "report a
result" issue URL; the lines a choice adds to or removes from the base command. The page
model (``page.py``) computes these once per distinct set of the lines they read.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import types
import urllib.parse
from collections.abc import Mapping, Sequence

from .. import shell
from ..memo import remembered
from .expansion import Command

REPORT_SELECTION = "{selection}"  # where a script puts the chosen selection into report_fields

# vLLM's default for --port when a command does not set it.
DEFAULT_PORT = 8000
# The router's address, which the recipe cannot know; the reader fills it in. A server of a
# single-node target is reached on its own host, as the recipe's client example does; a
# server of a multi-node target at its node's address.
ROUTER_HOST = "<ROUTER_HOST>"
LOCAL_HOST = "localhost"
NODE_HOST = "<POD_IP>"
CHAT_PATH = "/v1/chat/completions"
# The benchmark's prompts: random tokens (nothing to download), fixed lengths.
BENCH_INPUT_LEN = 1024
BENCH_OUTPUT_LEN = 128
BENCH_PROMPTS = 64


@dataclasses.dataclass(frozen=True, kw_only=True)
class Endpoint:
    host: str
    port: int | None  # None: the router's own (HTTP default) port
    router: bool

    @property
    def base_url(self) -> str:
        return f"http://{self.host}" + ("" if self.port is None else f":{self.port}")


# Every flag this module reads from a command: its results depend on these lines and on
# nothing else of a command but its role and model (a page groups its selections by them).
SERVING_FLAGS = frozenset(
    {
        "--port",
        "--served-model-name",
        "--trust-remote-code",
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--data-parallel-size",
        "--data-parallel-size-local",
        "--data-parallel-rank",
    }
)


def _flag(command: Command, name: str) -> list[str] | None:
    """The value words of a flag or env of a command, or None when it is absent."""
    if name not in SERVING_FLAGS:
        raise ValueError(f"{name} is read here but not listed in SERVING_FLAGS")
    values = _flags((*command.args, *command.envs)).get(name)
    return None if values is None else list(values)


@remembered(maxsize=1 << 12)
def _flags(texts: tuple[str, ...]) -> Mapping[str, tuple[str, ...]]:
    """Each flag or env name of a command's texts with the values of its first occurrence.

    Remembered: the selections of a page share most of their commands' argument lists.
    """
    found: dict[str, tuple[str, ...]] = {}
    for text in texts:
        try:
            flag, values = shell.flag_values(text)
        except ValueError:
            continue
        found.setdefault(flag, tuple(values))
    return types.MappingProxyType(found)


def _int_flag(command: Command, name: str, default: int) -> int:
    values = _flag(command, name)
    if not values:
        return default
    try:
        return int(values[0])
    except ValueError:
        return default


def port(command: Command) -> int:
    """The port a server command listens on."""
    return _int_flag(command, "--port", DEFAULT_PORT)


def served_model(command: Command) -> str:
    """The model name requests must give: --served-model-name if set, else the model."""
    values = _flag(command, "--served-model-name")
    return values[0] if values else command.model


def npus(command: Command) -> int:
    """NPUs one server process uses, from its own arguments.

    Tensor x pipeline parallel, times the data-parallel replicas this process runs: all of
    --data-parallel-size, unless it is one rank (--data-parallel-rank) or sets
    --data-parallel-size-local.
    """
    per_replica = _int_flag(command, "--tensor-parallel-size", 1) * _int_flag(command, "--pipeline-parallel-size", 1)
    if _flag(command, "--data-parallel-rank") is not None:
        replicas = 1
    else:
        replicas = _int_flag(command, "--data-parallel-size-local", _int_flag(command, "--data-parallel-size", 1))
    return per_replica * replicas


def endpoint_of(first: Command, router: bool) -> Endpoint:
    """Where requests go: the router, else the first server's port on its host."""
    if router:
        return Endpoint(host=ROUTER_HOST, port=None, router=True)
    return Endpoint(host=LOCAL_HOST, port=port(first), router=False)


def client_for(first: Command, router: bool) -> str:
    """A chat request to the endpoint of a first server command (or the router)."""
    body = json.dumps(
        {
            "model": served_model(first),
            "messages": [{"role": "user", "content": "Hello"}],
            "max_tokens": 32,
        },
        indent=2,
    )
    url = endpoint_of(first, router).base_url + CHAT_PATH
    lines = [f"curl -sS {shlex.quote(url)}", "-H 'Content-Type: application/json'", f"-d {shlex.quote(body)}"]
    return shell.CONTINUATION.join([lines[0], *(shell.ARG_INDENT + line for line in lines[1:])])


def bench_for(first: Command, router: bool) -> str:
    """``vllm bench serve`` against the endpoint of a first server command (or the router)."""
    args = [
        "--backend openai-chat",
        f"--base-url {shlex.quote(endpoint_of(first, router).base_url)}",
        f"--endpoint {CHAT_PATH}",
        f"--model {shlex.quote(served_model(first))}",
    ]
    if served_model(first) != first.model:
        args.append(f"--tokenizer {shlex.quote(first.model)}")
    if _flag(first, "--trust-remote-code") is not None:
        args.append("--trust-remote-code")
    args += [
        "--dataset-name random",
        f"--random-input-len {BENCH_INPUT_LEN}",
        f"--random-output-len {BENCH_OUTPUT_LEN}",
        f"--num-prompts {BENCH_PROMPTS}",
    ]
    return "vllm bench serve" + "".join(shell.arg_line(a) for a in args)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RolePlan:
    """One role of a selection: where it runs, what it uses, when to start it."""

    step: int  # 1-based start order
    role: str
    node: int  # 1-based node number
    servers: int  # processes (ranks) of the role
    npus_per_server: tuple[int, ...]
    ports: tuple[int, ...]
    wait: tuple[str, ...]  # commands that succeed once the role is ready

    @property
    def npus(self) -> int:
        return sum(self.npus_per_server)


def node_of(index: int, nodes: int | None) -> int:
    """The node (from 1) the index-th role runs on: with several nodes, one role per node in
    recipe order (the last node takes any further roles); else node 1."""
    return 1 if not nodes or nodes < 2 else min(index + 1, nodes)


def roles_for(grouped: Sequence[tuple[str, Sequence[Command]]], nodes: int | None) -> list[RolePlan]:
    """The roles in start order, each with its node, NPUs, ports and health checks.

    A role is ready when every one of its servers answers ``/health``; start the next role
    (and at last the router) only then. A check runs where the reader is: on a single node
    against localhost, across nodes against the node's own address.
    """
    plans = []
    for index, (role, commands) in enumerate(grouped):
        node = node_of(index, nodes)
        host = NODE_HOST if nodes and nodes > 1 else LOCAL_HOST
        ports = tuple(port(c) for c in commands)
        plans.append(
            RolePlan(
                step=index + 1,
                role=role,
                node=node,
                servers=len(commands),
                npus_per_server=tuple(npus(c) for c in commands),
                ports=ports,
                wait=tuple(f"curl -sf {shlex.quote(f'http://{host}:{p}/health')}" for p in ports),
            )
        )
    return plans


def issue_url(repository_url: str, title: str, body: str) -> str:
    query = urllib.parse.urlencode({"title": title, "body": body}, quote_via=urllib.parse.quote)
    return repository_url.rstrip("/") + "/issues/new?" + query


def report_fields(
    recipe: str, strategy: str, target: str, pairs: str, versions: Mapping[str, str], title_prefix: str = "Result"
) -> tuple[str, str]:
    """Title and body of a result report; ``pairs`` is the selection as ``axis=value, ...``."""
    title = f"{title_prefix}: {recipe} / {strategy} / {target} / {pairs}"
    body = "\n".join(
        [
            f"Recipe: {recipe}",
            f"Strategy: {strategy}",
            f"Target: {target}",
            f"Selection: {pairs}",
            f"vLLM: {versions.get('vllm', '')}",
            f"vllm-rbln: {versions.get('vllm-rbln', versions.get('vllm_rbln', ''))}",
            "",
            "## Results",
            "Hardware (server, NPUs): ",
            "Throughput (tokens/s): ",
            "Latency (TTFT / TPOT, ms): ",
            "Works (yes/no): ",
        ]
    )
    return title, body


def line_diff(base: Sequence[str], chosen: Sequence[str]) -> tuple[list[str], list[str]]:
    """Lines of a command the choice adds, and base lines it removes (as multisets, in order)."""
    return _without(chosen, base), _without(base, chosen)


def _without(lines: Sequence[str], other: Sequence[str]) -> list[str]:
    """The lines, in order, less one occurrence of each line of other (a multiset difference)."""
    remaining = list(other)
    left = []
    for line in lines:
        if line in remaining:
            remaining.remove(line)
        else:
            left.append(line)
    return left
