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
import hashlib
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
# The benchmark's prompts: random tokens (nothing to download), fixed lengths; the standard
# workloads (input and output tokens), each run at concurrency 1 and at the selection's capacity
# (--max-num-seqs times the data-parallel ranks that decode), with this many prompts per
# concurrent request.
WORKLOADS = ((1024, 128), (8192, 1024))
PROMPTS_PER_REQUEST = 8
RESULT_DIR = "bench-results"
BENCH_FUNCTION = "bench"
# What the metadata records of the run's software and time, as the machine that runs the
# benchmark (a server node, where vLLM and vllm-rbln are installed) reports them: read once,
# before the runs.
RUN_PREAMBLE = (
    "timezone=$(date +%z)",
    "vllm_version=$(python3 -c 'import importlib.metadata as m; print(m.version(\"vllm\"))')",
    "vllm_rbln_version=$(python3 -c 'import importlib.metadata as m; print(m.version(\"vllm-rbln\"))')",
)
# The benchmark function's arguments are counts, checked before anything reads them: the
# shell's arithmetic ($((8 * $3))) would evaluate an argument as an expression (a subscript
# such as a[$(cmd)] runs cmd; 010 is octal), so each must be 1 to 9 digits without a leading 0;
# anything else stops the function with a message (printf: the argument is never a format).
BENCH_GUARD = (
    '  for count in "$1" "$2" "$3"; do',
    "    case ${count} in",
    '      ""|0*|*[!0-9]*|??????????*)',
    f"        printf '{BENCH_FUNCTION}: %s is not a count from 1 to 999999999"
    ' (input tokens, output tokens, concurrent requests)\\n\' "${count}" >&2',
    "        return 2 ;;",
    "      *) ;;",
    "    esac",
    "  done",
)
RUN_METADATA = ('timezone="${timezone}"', 'vllm="${vllm_version}"', 'vllm_rbln="${vllm_rbln_version}"')


@dataclasses.dataclass(frozen=True, kw_only=True)
class Endpoint:
    host: str
    port: int | None  # None: the router's own (HTTP default) port
    router: bool
    node: int | None = None  # the node whose address the host is: the head of a server that spans nodes

    @property
    def base_url(self) -> str:
        return f"http://{self.host}" + ("" if self.port is None else f":{self.port}")


# The flags whose values give the NPUs a process uses (npus reads them, and nothing else).
PARALLEL_FLAGS = frozenset(
    {
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--data-parallel-size",
        "--data-parallel-size-local",
        "--data-parallel-rank",
        "--nnodes",
    }
)
# Every flag this module reads from a command: its results depend on these lines and on
# nothing else of a command but its role and model (a page groups its selections by them).
SERVING_FLAGS = PARALLEL_FLAGS | frozenset(
    {
        "--port",
        "--served-model-name",
        "--trust-remote-code",
        "--headless",
        "--max-num-seqs",
        "--max-model-len",
    }
)


def _flag(command: Command, name: str) -> list[str] | None:
    """The value words of a flag or env of a command, or None when it is absent."""
    if name not in SERVING_FLAGS:
        raise ValueError(f"{name} is read here but not listed in SERVING_FLAGS")
    values = flag_words((*command.args, *command.envs)).get(name)
    return None if values is None else list(values)


@remembered(maxsize=1 << 12)
def flag_words(texts: tuple[str, ...]) -> Mapping[str, tuple[str, ...]]:
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
    --data-parallel-size-local. A node of a server that spans --nnodes nodes holds its share
    (vLLM divides the world size evenly among the nodes).
    """
    per_replica = _int_flag(command, "--tensor-parallel-size", 1) * _int_flag(command, "--pipeline-parallel-size", 1)
    if _flag(command, "--data-parallel-rank") is not None:
        return per_replica
    if _flag(command, "--data-parallel-size-local") is not None:
        return per_replica * _int_flag(command, "--data-parallel-size-local", 1)
    world = per_replica * _int_flag(command, "--data-parallel-size", 1)
    return max(1, world // max(1, _int_flag(command, "--nnodes", 1)))


def serves(command: Command) -> bool:
    """Whether a server command answers HTTP requests: every one but a --headless follower."""
    return _flag(command, "--headless") is None


def endpoint_of(first: Command, router: bool) -> Endpoint:
    """Where requests go: the router, else the first server's port on its host; for a server
    that spans nodes, on its head (its followers answer no requests of their own), at the
    head's address."""
    if router:
        return Endpoint(host=ROUTER_HOST, port=None, router=True)
    if first.node is not None:
        return Endpoint(host=NODE_HOST, port=port(first), router=False, node=first.node)
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


@dataclasses.dataclass(frozen=True, kw_only=True)
class Workload:
    """One standard benchmark run: prompt and output tokens, and how many requests at once."""

    input_len: int
    output_len: int
    concurrency: int

    @property
    def prompts(self) -> int:
        return PROMPTS_PER_REQUEST * self.concurrency


def capacity(commands: Sequence[Command]) -> int:
    """How many sequences the servers batch at once: --max-num-seqs times the data-parallel
    ranks, over the commands of the role that decodes (decode, else every role)."""
    decoding = [c for c in commands if c.role == "decode"] or list(commands)
    total = 0
    for command in decoding:
        if _flag(command, "--data-parallel-rank") is not None:
            ranks = 1
        else:
            ranks = _int_flag(command, "--data-parallel-size-local", _int_flag(command, "--data-parallel-size", 1))
        total += _int_flag(command, "--max-num-seqs", 1) * max(1, ranks)
    return max(1, total)


def workloads(commands: Sequence[Command]) -> tuple[Workload, ...]:
    """The standard workloads that fit the commands' --max-model-len, at concurrency 1 and at
    the selection's capacity."""
    lengths = [_int_flag(c, "--max-model-len", 0) for c in commands]
    longest = min((n for n in lengths if n > 0), default=None)
    levels = sorted({1, capacity(commands)})
    return tuple(
        Workload(input_len=i, output_len=o, concurrency=c)
        for i, o in WORKLOADS
        if longest is None or i + o <= longest
        for c in levels
    )


def commands_hash(commands: Sequence[Command]) -> str:
    """A short hash of a selection's serve commands as the page shows them (placeholders as
    written): a stored result names it, and is stale once the commands differ."""
    digest = hashlib.sha256("\n\n".join(c.shell for c in commands).encode("utf-8")).hexdigest()
    return f"sha256:{digest[:16]}"


def selection_words(selection: Mapping[str, str]) -> str:
    """A selection as one metadata value: ``axis=value,axis=value``."""
    return ",".join(f"{axis}={value}" for axis, value in selection.items())


def bench_lines(first: Command, router: bool, meta: Sequence[str]) -> tuple[list[str], list[str]]:
    """The benchmark script around its per-selection metadata line: the lines before it and
    after it. ``meta``: the KEY=VALUE words every selection of the target shares."""
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
        '--random-input-len "$1"',
        '--random-output-len "$2"',
        '--max-concurrency "$3"',
        f'--num-prompts "$(({PROMPTS_PER_REQUEST} * $3))"',
        "--ignore-eos",
        "--save-result",
        f"--result-dir {RESULT_DIR}",
        "--metadata",
    ]
    indent = shell.ARG_INDENT * 2
    head = [*RUN_PREAMBLE, f"{BENCH_FUNCTION}() {{  # input tokens, output tokens, concurrent requests"]
    head += BENCH_GUARD
    head.append("  vllm bench serve \\")
    head += [f"{shell.ARG_INDENT}{a} \\" for a in args]
    # the metadata three to a line: what the target says, what the run says, then the selection
    head.append(f"{indent}{' '.join(meta)} \\")
    run_words = ('input_len="$1"', 'output_len="$2"', *RUN_METADATA)
    head.append(f"{indent}{' '.join(run_words)} \\")
    return head, ["}"]


def selection_line(selection: Mapping[str, str], commands: Sequence[Command]) -> str:
    """The metadata line that names one selection and the hash of its commands."""
    words = shlex.quote(f"selection={selection_words(selection)}")
    return f"{shell.ARG_INDENT * 2}{words} commands={commands_hash(commands)}"


def bench_script(head: Sequence[str], line: str, tail: Sequence[str], runs: Sequence[Workload]) -> str:
    """The whole benchmark: the function, then one call per standard workload."""
    calls = [f"{BENCH_FUNCTION} {w.input_len} {w.output_len} {w.concurrency}" for w in runs]
    return "\n".join([*head, line, *tail, *calls])


@dataclasses.dataclass(frozen=True, kw_only=True)
class RolePlan:
    """One role of a selection: where it runs, what it uses, when to start it."""

    step: int  # 1-based start order
    role: str
    node: int  # 1-based node number (the head's, for a role that spans nodes)
    servers: int  # processes (ranks) of the role; one per node for a role that spans nodes
    npus_per_server: tuple[int, ...]
    ports: tuple[int, ...]  # the ports its servers answer on (a spanning role's head only)
    wait: tuple[str, ...]  # commands that succeed once the role is ready
    nodes: tuple[int, ...] = ()  # every node of a role that spans nodes, the head first; () otherwise

    @property
    def npus(self) -> int:
        return sum(self.npus_per_server)

    @property
    def spans(self) -> bool:
        return len(self.nodes) > 1


def placement(spans: Sequence[int], nodes: int | None) -> tuple[tuple[int, ...], ...]:
    """The nodes (from 1) each role runs on, given how many nodes each spans (1 for a role on
    one node) and the strategy's nodes.

    Roles take nodes in recipe order: a role on one node the next node, a role that spans N
    nodes the next N, each of its own. With several nodes, a role on one node beyond the last
    shares the last; with one node, every role on one node runs on node 1 (rule 23 refuses a
    role that spans nodes there, and any plan whose nodes do not come out as the strategy's).
    """
    total = nodes if nodes and nodes > 1 else 1
    out, cursor = [], 1
    for span in spans:
        if span > 1:
            out.append(tuple(range(cursor, cursor + span)))
        else:
            out.append((min(cursor, total),))
        cursor += max(span, 1)
    return tuple(out)


def roles_for(grouped: Sequence[tuple[str, Sequence[Command]]], nodes: int | None) -> list[RolePlan]:
    """The roles in start order, each with its nodes, NPUs, ports and health checks.

    A role is ready when every one of its servers answers ``/health``; start the next role
    (and at last the router) only then. A check runs where the reader is: on a single node
    against localhost, across nodes against the node's own address. A role that spans nodes
    is one server: its head, started first, answers for it once every node has joined, so it
    is checked there only.
    """
    spans = [len(commands) if commands[0].node is not None else 1 for _role, commands in grouped]
    where = placement(spans, nodes)
    host = NODE_HOST if nodes and nodes > 1 else LOCAL_HOST
    plans = []
    for index, (role, commands) in enumerate(grouped):
        spanning = commands[0].node is not None
        answering = [c for c in commands if serves(c)][:1] if spanning else list(commands)
        ports = tuple(port(c) for c in answering)
        plans.append(
            RolePlan(
                step=index + 1,
                role=role,
                node=where[index][0],
                servers=len(commands),
                npus_per_server=tuple(npus(c) for c in commands),
                ports=ports,
                wait=tuple(f"curl -sf {shlex.quote(f'http://{host}:{p}/health')}" for p in ports),
                nodes=where[index] if spanning else (),
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
