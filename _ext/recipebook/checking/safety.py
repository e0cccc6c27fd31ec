"""Rules for values a careless or hostile author gets wrong: placeholders, ports, names.

- A placeholder is ``<NAME>``: capital letters, digits and ``_``, starting with a letter
  (``shell.PLACEHOLDER``). Text that looks meant as one (``'<POD IP>'``, ``<pod_ip>``,
  ``<POD-IP>``) is not highlighted, not asked for by ``serve.sh`` and written into the files
  literally, so it is refused with the placeholder it should be.
- A port is a whole number from 1 to 65535: the value of ``--port`` and every flag named
  ``*-port`` (aliases included, as the vLLM vocabulary lists them), of an environment
  variable named ``*_PORT`` (but ``VLLM_RBLN_AUTO_PORT``, an on/off switch), of a JSON field
  ``port`` or ``*_port`` inside a value, and the port of a ``scheme://host:PORT`` address in
  a value. A placeholder stands for any port.
- A recipe name is a portable file name: ``NAME.json``, ``NAME.md``, ``NAME.html`` and the
  folder ``NAME/`` of its files exist as written on every system that serves or checks out the
  site (``portable_name_problem``): no trailing dot (Windows drops it), no device name of Windows
  (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM0``-``COM9``, ``LPT0``-``LPT9``, in any case and
  before any extension), and not ``schema`` (``recipes/schema.json`` is the schema).
- Recipe names differ in more than case across the recipes folder: ``Foo.json`` and
  ``foo.json`` would be one page, one API file and one folder of files on a file system or
  URL that ignores case (``names_differ_in_more_than_case``, which reads the folder).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .. import shell
from ..memo import remembered
from ..problems import Problem, pointer_join
from ..reading import source, valuetypes, vocabulary
from ..reading.model import Recipe
from ..reading.source import Document

# <...> around something name-like: a placeholder or an attempt at one (letters required)
_NEAR = re.compile(r"<([A-Za-z0-9_ .\-]{1,64})>")
_NON_NAME = re.compile(r"[^A-Za-z0-9]+")
PORT_RANGE = range(1, 65536)
# scheme://[user@]host:PORT, the port as digits (a placeholder there stands for any port)
_ADDRESS_PORT = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s/'\"@]*@)?(?:\[[^\]\s]*\]|[^\s/'\":@\[]+):([0-9]+)(?![0-9])"
)
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _texts(recipe: Recipe) -> Iterator[tuple[str, str, str, str]]:
    """(kind, pointer, key, text) of every arg and env text and router step of a recipe."""
    for _, target in recipe.targets():
        grid = target.grid
        for kind, pointer, _role, mapping in grid.mappings():
            for key, text in mapping.items():
                yield kind, pointer_join(pointer, key), key, text
        for step in grid.router:
            yield "router", pointer_join(step.ptr, "cmd"), "", step.cmd


def _placeholder_fix(inner: str) -> str | None:
    name = _NON_NAME.sub("_", inner.strip()).strip("_").upper()
    fixed = f"<{name}>"
    return fixed if shell.PLACEHOLDER.fullmatch(fixed) else None


@remembered(maxsize=1 << 14)
def near_placeholder(text: str) -> str | None:
    """What is wrong with the first text that looks meant as a placeholder, or None."""
    for match in _NEAR.finditer(text):
        inner = match.group(1)
        if shell.PLACEHOLDER.fullmatch(match.group()) or not re.search("[A-Za-z]", inner):
            continue
        fix = _placeholder_fix(inner)
        advice = f"; write {fix!r}" if fix else "; start the name with a letter"
        return (
            f"{match.group()!r} is not a placeholder: a placeholder is a name of capital letters, digits and "
            f"'_' in angle brackets, such as '<POD_IP>'{advice}"
        )
    return None


def placeholders(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """16. A placeholder is `<NAME>`: capital letters, digits and `_` in angle brackets,
    starting with a letter. Text in a command or router step that looks meant as one
    (`'<POD IP>'`, `<pod_ip>`, `<POD-IP>`) is an error that gives the placeholder to write."""
    for _, pointer, _, text in _texts(recipe):
        message = near_placeholder(text)
        if message:
            yield doc.problem(pointer, message)


PORT = "a whole number from 1 to 65535 (or a placeholder such as '<PORT>')"


def is_port(value: str) -> bool:
    """Whether a value is a port (1-65535); a placeholder stands for any port."""
    if shell.PLACEHOLDER.fullmatch(value):
        return True
    digits = value.lstrip("0") or "0"
    return value.isascii() and value.isdigit() and len(digits) <= 5 and int(digits) in PORT_RANGE


@remembered(maxsize=None)
def _port_flags(known: vocabulary.Vocabulary) -> frozenset[str]:
    """The flags (and aliases) of a vocabulary that take a port: named *-port, of type int."""
    return frozenset(
        option
        for option, flag in known.options.items()
        if flag.endswith("-port") and known.flags[flag]["type"] == "int"
    )


def _is_port_flag(key: str) -> bool:
    """A port flag of the pinned vLLM, or a flag it does not know named *-port (another launcher's)."""
    known = vocabulary.pinned()
    return key in _port_flags(known) or (key not in known.options and key.endswith("-port"))


def _json_ports(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for name, item in value.items():
            inner = f"{where}.{name}" if where else str(name)
            named_port = name.lower() == "port" or name.lower().endswith("_port")
            if named_port and isinstance(item, int | str) and not isinstance(item, bool):
                yield inner, item
            yield from _json_ports(item, inner)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _json_ports(item, f"{where}[{i}]")


def _value_port_problems(key: str, values: list[str]) -> Iterator[str]:
    for value in values:
        if value.lstrip().startswith(("{", "[")):
            try:
                parsed = source.loads(value)
            except json.JSONDecodeError:
                continue  # rule 4 reports it
            for field, port in _json_ports(parsed, ""):
                if not is_port(str(port)):
                    yield f"{field!r} in the JSON of {key} is a port, {PORT}; got {json.dumps(port)}"
        for match in _ADDRESS_PORT.finditer(value):
            if not is_port(match.group(1)):
                yield f"the address {match.group()!r} in {key} has the port {match.group(1)}; a port is 1 to 65535"


@remembered(maxsize=1 << 14)
def port_messages(kind: str, key: str, text: str) -> tuple[str, ...]:
    """What is wrong with the ports of one arg or env text (remembered: targets repeat their texts)."""
    if shell.unsafe_reason(text):
        return ()  # a text that is not plain words is reported by rule 4
    try:
        name, values = shell.flag_values(text)
    except ValueError:
        return ()
    if name != key:
        return ()  # rule 4: the text must start with its key
    found = []
    if kind == "args" and _is_port_flag(key):
        # a value that is no integer at all is the vocabulary's to report ("takes an integer")
        found += [f"{key} takes a port, {PORT}; got {v!r}" for v in values if _INTEGER.fullmatch(v) and not is_port(v)]
    elif kind == "envs" and valuetypes.is_port_env(key):
        found += [f"{key} is a port, {PORT}; got {v!r}" for v in values if not is_port(v)]
    found += _value_port_problems(key, values)
    return tuple(dict.fromkeys(found))


def ports(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """17. A port is a whole number from 1 to 65535, or a placeholder: the value of `--port`
    and of every `*-port` flag of the vLLM vocabulary (aliases such as `-dpp` too), of an
    environment variable named `*_PORT` (but `VLLM_RBLN_AUTO_PORT`, an on/off switch), of a
    JSON field `port` or `*_port` inside a value, and the port of a `scheme://host:PORT`
    address in a value."""
    for kind, pointer, key, text in _texts(recipe):
        if kind != "router":  # a router step is a script, not one command's words
            for message in port_messages(kind, key, text):
                yield doc.problem(pointer, message)


# Windows' device names: a file named so, with any extension, is the device, not a file
_DEVICE = re.compile(
    r"(?:CON|PRN|AUX|NUL|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3]|CONIN\$|CONOUT\$)", re.I
)
RESERVED_NAMES = frozenset({"schema"})  # recipes/schema.json


def portable_name_problem(name: str) -> str | None:
    """Why a recipe name is no portable file name (its file, page and folder of files), or None."""
    if name.endswith((".", " ")):
        return f"recipe name {name!r} ends with {name[-1]!r}, which Windows drops from a file name; remove it"
    base = name.split(".", 1)[0]
    if _DEVICE.fullmatch(base):
        return (
            f"recipe name {name!r} is the device {base.upper()} on Windows (with any extension), not a file; "
            "choose another name"
        )
    if name.casefold() in RESERVED_NAMES:
        return f"recipe name {name!r} is taken: recipes/{name}.json is the recipes' schema; choose another name"
    return None


def portable_name(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """18. A recipe name is a portable file name (its file, page and folder of files exist as
    written everywhere): no trailing dot, no Windows device name such as `nul` or `COM1` (with
    any extension), not `schema`; and recipe names differ in more than case across the recipes
    folder (`Foo.json` and `foo.json` would be one page on a file system or web server that
    ignores case); both files are named, each at its `name`."""
    message = portable_name_problem(recipe.name)
    if message:
        yield doc.problem("/name", message)


RULES = (placeholders, ports, portable_name)


def check(recipe: Recipe, doc: Document) -> list[Problem]:
    """Every problem these rules find in a schema-valid recipe."""
    return sorted({problem for rule in RULES for problem in rule(recipe, doc)})


def names_differ_in_more_than_case(paths: Iterable[str | Path]) -> list[Problem]:
    """Recipe names differ in more than case across the recipes folder (rule 18, stated by
    ``portable_name``)."""
    problems = []
    for path in map(Path, paths):
        siblings = [p for p in path.parent.glob("*.json") if p.name != "schema.json" and p.name != path.name]
        others = sorted(p for p in siblings if p.stem.casefold() == path.stem.casefold())
        if not others:
            continue
        shown = ", ".join(f"{p.stem!r} ({p})" for p in others)
        message = (
            f"recipe name {path.stem!r} differs from {shown} only in case; recipe names must differ in more "
            "than case (their pages, API files and ready-to-run files would be one on a file system or web "
            "server that ignores case)"
        )
        document, _ = source.read(path)
        if document is not None and isinstance(document.data, dict) and "name" in document.data:
            problems.append(document.problem("/name", message))
        else:
            problems.append(Problem(file=str(path), line=1, column=1, pointer="/name", message=message))
    return sorted(problems)
