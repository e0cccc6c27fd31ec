"""Ready-to-run files for one selection: serve.sh, and per command a vLLM config and an env file.

- ``serve.sh`` holds one function per command (role and rank) and the router steps,
  and runs the one named on its command line. Placeholders such as ``<POD_IP>``
  become environment variables the script asks for.
- ``<command>.yaml`` is the command's arguments as a ``vllm serve --config`` file;
  ``<command>.env`` its environment, to source before ``vllm serve``.
- ``kubernetes/``: a workload per role running the same commands, and for prefill/decode the
  router's values and Helm steps (``kubernetes.py``).
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping

import yaml

from .. import shell
from ..expanding.expansion import Command, Expansion
from ..memo import remembered
from ..reading import vocabulary
from . import kubernetes, yamltext

# A value a reader fills in for a placeholder: one plain shell word (nothing that quotes,
# splits or expands), and for a host's placeholder a host name or an IPv4 address.
# static/recipebook-files.js valueProblem is its twin, used by the page wherever it shows,
# copies or writes a value.
_PLAIN = re.compile(r"[A-Za-z0-9._:/@%+=,-]{1,253}")
_HOST = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)
_IPV4 = re.compile(r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)")
_HOST_NAME = re.compile(r".*(_IP|_HOST|_ADDR|_ADDRESS)")
_PORT_NAME = re.compile(r"(?:.*_)?PORT")
# a port as the config file reads it too: no leading zero (YAML 1.1 reads 010 as 8)
_PORT_VALUE = re.compile(r"[1-9][0-9]{0,4}")
VALUE_KEY = re.compile(r"([A-Z][A-Z0-9_]*)(?:@([1-9][0-9]{0,2}))?")
VALUE_PROBLEMS = {
    "plain": "use letters, digits and . - _ : / @ % + = , only (quotes, spaces, $ and other shell characters "
    "would change the command)",
    "host": "give a host name or an IPv4 address, such as 10.0.0.5",
    "port": "give a port, a whole number from 1 to 65535",
}


def is_host_name(name: str) -> bool:
    """Whether a placeholder's name says it is a host (<POD_IP>, <EPP_HOST>): its value is an address."""
    return bool(_HOST_NAME.fullmatch(name))


def is_port_name(name: str) -> bool:
    """Whether a placeholder's name says it is a port (<PORT>, <RPC_PORT>)."""
    return bool(_PORT_NAME.fullmatch(name))


def value_problem(name: str, value: object) -> str:
    """Why a value may not stand in for a placeholder: "plain", "host", "port", or "" when it may."""
    if not isinstance(value, str) or not _PLAIN.fullmatch(value):
        return "plain"
    if _PORT_NAME.fullmatch(name):
        return "" if _PORT_VALUE.fullmatch(value) and int(value) <= 65535 else "port"
    if _HOST_NAME.fullmatch(name) and not (
        _IPV4.fullmatch(value) or (_HOST.fullmatch(value) and not re.fullmatch(r"[\d.]+", value))
    ):
        return "host"
    return ""


_EMPTY_BEFORE = re.compile(r"''(?=\"\$\{[A-Z][A-Z0-9_]*\}\")")
_EMPTY_AFTER = re.compile(r"(?<=\}\")''")


def selection_key(selection: Mapping[str, str]) -> str:
    """A folder name for a selection: axis-value pairs in axis order (``default`` for a target
    without axes, whose one selection chooses nothing)."""
    return "__".join(f"{axis}-{value}" for axis, value in selection.items()) or "default"


_PLACEHOLDER_OR_QUOTE = re.compile(shell.PLACEHOLDER.pattern + r"""|(['"])""")


def _fill_placeholders(text: str) -> str:
    """Replace <NAME> with a reference to $NAME, keeping the shell quoting valid.

    Inside single quotes the quote is closed around a double-quoted "${NAME}";
    the empty '' pairs that leaves at either end are dropped.
    """
    # left to right, a placeholder or a quote at each place (as a walk character by character)
    out: list[str] = []
    quote: str | None = None
    at = 0
    for match in _PLACEHOLDER_OR_QUOTE.finditer(text):
        name, mark = match.groups()
        if name is not None:
            out.append(text[at : match.start()])
            out.append({"'": f"'\"${{{name}}}\"'", '"': f"${{{name}}}"}.get(quote or "", f'"${{{name}}}"'))
            at = match.end()
        elif quote in (None, mark):
            quote = None if quote == mark else mark
    out.append(text[at:])
    return _EMPTY_AFTER.sub("", _EMPTY_BEFORE.sub("", "".join(out)))


def _function(name: str, body: str, needs: list[str]) -> str:
    # the body is not indented: that would change multi-line values and heredocs
    checks = "".join(f': "${{{var}:?set {var} (see the recipe page)}}"\n' for var in needs)
    return f"{name}() {{\n{checks}{body}\n}}\n"


def value_for(values: Mapping[str, str], name: str, node: int | None) -> str | None:
    """A reader's value for a placeholder in a command of a node: the node's own value
    (``NAME@NODE``, for a placeholder each node fills in), else the one for every node."""
    if node is not None:
        own = values.get(f"{name}@{node}")
        if own is not None:
            return own
    return values.get(name)


def head_values(values: Mapping[str, str] | None, expansion: Expansion) -> Mapping[str, str] | None:
    """The reader's values with those of the head placeholders added: on each node of a role
    that spans nodes, a head placeholder (``"scope": "head"``) takes the value its node
    placeholder has on the role's head (``HEAD_IP@2`` = ``POD_IP@1``)."""
    if not values or not expansion.heads:
        return values
    out = dict(values)
    for _role, commands in expansion.roles():
        if commands[0].node is None:
            continue
        head = commands[0].node
        for command in commands:
            for name, of in expansion.heads.items():
                value = values.get(f"{of}@{head}")
                if value is not None:
                    out[f"{name}@{command.node}"] = value
    return out


def substitute(text: str, values: Mapping[str, str] | None, node: int | None = None) -> str:
    """Put a reader's values in for their placeholders (<NAME> -> value); others stay."""
    if not values:
        return text

    def fill(match: re.Match[str]) -> str:
        value = value_for(values, match.group(1), node)
        return match.group() if value is None else value

    return shell.PLACEHOLDER.sub(fill, text)


def _choice(command: Command) -> str:
    """How serve.sh names a command on its command line: ``main``, ``decode 3``, ``main node2``."""
    if command.node is not None:
        return f"{command.role} node{command.node}"
    return command.role if command.rank is None else f"{command.role} {command.rank}"


def _start_order(expansion: Expansion) -> list[str]:
    """A comment per role that spans nodes: where each of its commands runs, the head first."""
    lines = []
    for role, commands in expansion.roles():
        if commands[0].node is None:
            continue
        head, *followers = commands
        lines.append(
            f"# {role} spans nodes {head.node}-{commands[-1].node}: start ./serve.sh {_choice(head)} on node "
            f"{head.node} (the head) first, then "
            + ", ".join(f"./serve.sh {_choice(c)} on node {c.node}" for c in followers)
        )
    return lines


def serve_sh(expansion: Expansion, values: Mapping[str, str] | None = None) -> str:
    """A script that runs any one command of the selection, or the router steps."""
    pairs = " ".join(f"{a}={v}" for a, v in expansion.selection.items())
    values = head_values(values, expansion)
    parts = [
        "#!/usr/bin/env bash",
        f"# {expansion.recipe}: {expansion.strategy} / {expansion.target}",
        f"# selection: {pairs}",
        "# Generated from the recipe; run one command per server, e.g. ./serve.sh " + _choice(expansion.commands[0]),
        *_start_order(expansion),
        "set -euo pipefail",
        "",
    ]
    names = []
    for command in expansion.commands:
        name = "serve_" + command.name.replace("-", "_")
        names.append((command, name))
        text = substitute(command.shell, values, expansion.node_of(command))
        parts.append(_function(name, _fill_placeholders(text), shell.placeholders(text)))
    if expansion.router:
        steps = "\n".join(substitute(cmd, values) for _node, cmd in expansion.router)  # verbatim: heredocs stay intact
        parts.append(_function("router", steps, []))
    choices = []
    for command, name in names:
        pattern = _choice(command).replace(" ", ":")
        choices.append(f"  {shlex.quote(pattern)}) {name} ;;")
    if expansion.router:
        choices.append("  router) router ;;")
    usage = " | ".join(c.strip().split(")")[0] for c in choices)
    default = names[0][1] if len(names) == 1 else ""
    parts.append(f'what="${{1:-{"" if default else "help"}}}"')
    parts.append('if [ "$#" -gt 1 ]; then what="$1:$2"; fi')
    parts.append('case "$what" in')
    if default:
        parts.append(f"  '') {default} ;;")
    parts += choices
    parts.append(f'  *) echo "usage: $0 {{{usage.replace(":", " ")}}}" >&2; exit 2 ;;')
    parts.append("esac")
    return "\n".join(parts) + "\n"


class _Quoted(str):
    """A value that holds a placeholder: written in single quotes, so that any value a reader may
    put in (value_problem: no quote, no space) stays the same string in the file."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _Quoted, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style="'")
)
_INT = re.compile(r"[+-]?[0-9]{1,18}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def _typed(flag: str, word: str) -> object:
    """A value as the flag's type reads it (vLLM's --config passes str(value) to its parser, so a
    typed value gives the same as the command's text): int and float flags get numbers, every other
    value stays a string; a value with a placeholder, a quoted string (see _Quoted), but a port's
    placeholder alone in an int flag, which a port fills in (value_problem)."""
    info = vocabulary.pinned().flag_info(flag)
    kind = info["type"] if info else None
    whole = shell.PLACEHOLDER.fullmatch(word)
    if whole and kind == "int" and _PORT_NAME.fullmatch(whole.group(1)):
        return word  # plain: a port's value is digits without a leading zero (value_problem), an int
    if shell.PLACEHOLDER.search(word):
        return _Quoted(word)
    if kind == "int" and _INT.fullmatch(word):
        return int(word)
    if kind == "float" and _FLOAT.fullmatch(word) and math.isfinite(float(word)):
        number = float(word)
        return int(number) if number.is_integer() and "." not in word and "e" not in word.lower() else number
    return word


@remembered(maxsize=1 << 14)
def config_entry(text: str) -> tuple[str, str]:
    """One argument as a vllm --config entry: its key (the flag without dashes) and its YAML,
    written by the YAML library with each value of the flag's type (_typed). Kept per text: the
    selections of a target share most of their arguments."""
    words = shell.words(text)
    flag, _sep, inline = words[0].partition("=")
    values = [_typed(flag, word) for word in ([inline] if _sep else []) + words[1:]]
    key = flag.lstrip("-")
    value: object = True if not values else values[0] if len(values) == 1 else values
    return key, yamltext.dump({key: value}, _Dumper, width=1000)


def config_yaml(command: Command, values: Mapping[str, str] | None = None, node: int | None = None) -> str:
    """The command's arguments as a vllm --config file (keys are flags without dashes).

    Each argument is written on its own (a later one with the same key takes the first
    one's place), so a page can assemble the file from its lines (static/recipebook-files.js).
    """
    entries: dict[str, str] = {}
    for text in command.args:
        key, entry = config_entry(text)
        entries[key] = entry
    body = "".join(entries.values()) if entries else "{}\n"
    found = shell.placeholders(substitute(" ".join(command.args), values, node))
    note = f"# Replace {', '.join(f'<{p}>' for p in found)} before use.\n" if found else ""
    header = f"# vllm serve {command.model} --config {command.name}.yaml\n{note}"
    return header + substitute(body, values, node)


def env_file(command: Command, values: Mapping[str, str] | None = None, node: int | None = None) -> str:
    """The command's environment as a file to source (set -a; . FILE) before vllm serve."""
    return "".join(f"export {substitute(text, values, node)}\n" for text in command.envs)


def folder_name(expansion: Expansion) -> str:
    """The folder of a selection's files in its archive."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{expansion.recipe}-{expansion.strategy}-{expansion.target}")


def _octal(number: int, width: int) -> bytes:
    return f"{number:0{width - 1}o}".encode("ascii") + b"\0"


def _header(folder: str, name: str, size: int, mode: int) -> bytes:
    """A ustar header: the file name in the name field, its folder in the prefix field."""
    block = bytearray(512)

    def put(offset: int, data: bytes) -> None:
        block[offset : offset + len(data)] = data

    put(0, name.encode())
    put(100, _octal(mode, 8))
    put(108, _octal(0, 8))
    put(116, _octal(0, 8))
    put(124, _octal(size, 12))
    put(136, _octal(0, 12))
    put(148, b" " * 8)
    put(156, b"0")
    put(257, b"ustar\x0000")
    put(329, _octal(0, 8))
    put(337, _octal(0, 8))
    put(345, folder.encode())
    put(148, _octal(sum(block), 7) + b" ")
    return bytes(block)


def archive(folder: str, files: Mapping[str, str]) -> bytes:
    """The files in one tar archive (ustar, in the given order, in one folder, dated 1970,
    serve.sh executable): the same bytes as the page's download (recipebook-files.js)."""
    if len(folder.encode()) > 155 or any(len(name.encode()) > 100 for name in files):
        raise ValueError("a folder or file name is too long for a tar header")
    out = bytearray()
    for name, text in files.items():
        data = text.encode()
        out += _header(folder, name, len(data), 0o755 if name.endswith(".sh") else 0o644)
        out += data + b"\0" * (-len(data) % 512)
    out += b"\0" * 1024
    out += b"\0" * (-len(out) % 10240)
    return bytes(out)


def kubernetes_where(expansion: Expansion) -> kubernetes.Where:
    model = expansion.commands[0].model if expansion.commands else ""
    return kubernetes.Where(
        recipe=expansion.recipe,
        strategy=expansion.strategy,
        target=expansion.target,
        skus=expansion.skus,
        model=model,
        checkpoint_bytes=expansion.checkpoint,
        heads=tuple(expansion.heads),
    )


def selection_files(
    expansion: Expansion, values: Mapping[str, str] | None = None, settings: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Every file of one selection, by file name; with values, the reader's in place of
    placeholders; with settings, the operator's choices in the Kubernetes files."""
    files = {"serve.sh": serve_sh(expansion, values)}
    values = head_values(values, expansion)
    for command in expansion.commands:
        name, node = command.name, expansion.node_of(command)
        files[f"{name}.yaml"] = config_yaml(command, values, node)
        files[f"{name}.env"] = env_file(command, values, node)
    manifests = kubernetes.manifests(
        kubernetes_where(expansion), expansion.roles(), expansion.nodes, [cmd for _n, cmd in expansion.router], settings
    )
    for name, text in manifests.items():
        files[name] = substitute(text, values, kubernetes.node_of_file(name, expansion.nodes))
    return files
