"""Ready-to-run files for one selection: serve.sh, and per command a vLLM config and an env file.

- ``serve.sh`` holds one function per command (role and rank) and the router steps,
  and runs the one named on its command line. Placeholders such as ``<POD_IP>``
  become environment variables the script asks for.
- ``<command>.yaml`` is the command's arguments as a ``vllm serve --config`` file;
  ``<command>.env`` its environment, to source before ``vllm serve``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

import yaml

from . import shell
from .expansion import Command, Expansion

_EMPTY_BEFORE = re.compile(r"''(?=\"\$\{[A-Z][A-Z0-9_]*\}\")")
_EMPTY_AFTER = re.compile(r"(?<=\}\")''")


def selection_key(selection: dict[str, str]) -> str:
    """A folder name for a selection: axis-value pairs in axis order."""
    return "__".join(f"{axis}-{value}" for axis, value in selection.items())


def command_name(command: Command) -> str:
    return command.role if command.rank is None else f"{command.role}-rank{command.rank}"


def _fill_placeholders(text: str) -> str:
    """Replace <NAME> with a reference to $NAME, keeping the shell quoting valid.

    Inside single quotes the quote is closed around a double-quoted "${NAME}";
    the empty '' pairs that leaves at either end are dropped.
    """
    out, quote, i = [], None, 0
    while i < len(text):
        match = shell.PLACEHOLDER.match(text, i)
        if match:
            name = match.group(1)
            out.append({"'": f"'\"${{{name}}}\"'", '"': f"${{{name}}}"}.get(quote, f'"${{{name}}}"'))
            i = match.end()
            continue
        ch = text[i]
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote == ch else ch
        out.append(ch)
        i += 1
    return _EMPTY_AFTER.sub("", _EMPTY_BEFORE.sub("", "".join(out)))


def _function(name: str, body: str, needs: list[str]) -> str:
    # the body is not indented: that would change multi-line values and heredocs
    checks = "".join(f': "${{{var}:?set {var} (see the recipe page)}}"\n' for var in needs)
    return f"{name}() {{\n{checks}{body}\n}}\n"


def substitute(text: str, values: Mapping[str, str] | None) -> str:
    """Put a reader's values in for their placeholders (<NAME> -> value); others stay."""
    if not values:
        return text
    return shell.PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group()), text)


def serve_sh(expansion: Expansion, values: Mapping[str, str] | None = None) -> str:
    """A script that runs any one command of the selection, or the router steps."""
    pairs = " ".join(f"{a}={v}" for a, v in expansion.selection.items())
    parts = [
        "#!/usr/bin/env bash",
        f"# {expansion.recipe}: {expansion.strategy} / {expansion.target}",
        f"# selection: {pairs}",
        "# Generated from the recipe; run one command per server, e.g. ./serve.sh "
        + command_name(expansion.commands[0]).replace("-rank", " "),
        "set -euo pipefail",
        "",
    ]
    names = []
    for command in expansion.commands:
        name = "serve_" + command_name(command).replace("-", "_")
        names.append((command, name))
        text = substitute(command.shell, values)
        parts.append(_function(name, _fill_placeholders(text), shell.placeholders(text)))
    if expansion.router:
        steps = "\n".join(substitute(cmd, values) for _node, cmd in expansion.router)  # verbatim: heredocs stay intact
        parts.append(_function("router", steps, []))
    choices = []
    for command, name in names:
        pattern = command.role if command.rank is None else f"{command.role}:{command.rank}"
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


def config_entry(text: str) -> tuple[str, str]:
    """One argument as a vllm --config entry: its key (the flag without dashes) and its YAML."""
    words = shell.words(text)
    flag, _sep, inline = words[0].partition("=")
    values = ([inline] if _sep else []) + words[1:]
    key = flag.lstrip("-")
    value: object = True if not values else values[0] if len(values) == 1 else values
    return key, yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=1000)


def config_yaml(command: Command, values: Mapping[str, str] | None = None) -> str:
    """The command's arguments as a vllm --config file (keys are flags without dashes).

    Each argument is written on its own (a later one with the same key takes the first
    one's place), so a page can assemble the file from its lines (static/recipebook-files.js).
    """
    entries: dict[str, str] = {}
    for text in command.args:
        key, entry = config_entry(text)
        entries[key] = entry
    body = "".join(entries.values()) if entries else "{}\n"
    found = shell.placeholders(substitute(" ".join(command.args), values))
    note = f"# Replace {', '.join(f'<{p}>' for p in found)} before use.\n" if found else ""
    header = f"# vllm serve {command.model} --config {command_name(command)}.yaml\n{note}"
    return header + substitute(body, values)


def env_file(command: Command, values: Mapping[str, str] | None = None) -> str:
    """The command's environment as a file to source (set -a; . FILE) before vllm serve."""
    return "".join(f"export {substitute(text, values)}\n" for text in command.envs)


def selection_files(expansion: Expansion, values: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every file of one selection, by file name; with values, the reader's in place of placeholders."""
    files = {"serve.sh": serve_sh(expansion, values)}
    for command in expansion.commands:
        name = command_name(command)
        files[f"{name}.yaml"] = config_yaml(command, values)
        files[f"{name}.env"] = env_file(command, values)
    return files
