"""Value types: whether a flag's value, or a JSON field's, is what vLLM converts it to.

The data file names, for each flag that takes a value, the converter vLLM's parser
uses (``type``), whether ``None`` is accepted (``optional``) and the limits the config
class enforces (``bounds``, from pydantic's ``Field(ge=..., gt=..., le=..., lt=...)``);
for each JSON-valued flag, each field's JSON types, choices and limits, read from the
dataclass annotation. A placeholder (``<POD_IP>``, filled in by the reader) stands for
a value of any type.

Messages end in "(vLLM X), got '...'", so that an author sees what was expected, by
which release, and what was written.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .. import shell
from ..problems import excerpt
from . import source

# The words for each converter of the data file: what a value must be.
EXPECTED = {
    "int": "an integer",
    "float": "a number",
    "size": "an integer or a size such as 8k or 2G",
    "size_or_auto": "an integer, a size such as 8k or 2G, or auto",
    "json": "a JSON value",
    "object": "a JSON object",
}
# vLLM's human_readable_int (vllm/utils/argparse_utils.py): a decimal suffix (k, m, g, t) takes a
# decimal number (25.6k is 25,600), a binary one (K, M, G, T) only a whole one (1.5K is refused).
# environment variables named *_PORT that hold no port
NOT_PORTS = frozenset({"VLLM_RBLN_AUTO_PORT"})


def is_port_env(name: str) -> bool:
    """An env name whose value is a port (``PORT``, ``*_PORT``): the port check judges its value
    (safety.port_messages), so its reader's type is not checked as well (one problem per value)."""
    return (name == "PORT" or name.endswith("_PORT")) and name not in NOT_PORTS


_SIZE = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_LIST_LIMIT = 15
_BOUND_WORDS = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}


class SizeError(ValueError):
    """A size vLLM's human_readable_int refuses, with vLLM's reason."""


def parse_size(value: str, *, auto: bool = False) -> int:
    """The integer vLLM's ``human_readable_int`` (``auto``: ``human_readable_int_or_auto``) gives a
    text, or ValueError as vLLM's parser would refuse it."""
    text = value.strip()
    if auto and (text == "-1" or text.lower() == "auto"):
        return -1
    match = _SIZE.fullmatch(text)
    if match:
        number, suffix = match.groups()
        if suffix in _DECIMAL:
            return int(float(number) * _DECIMAL[suffix])
        if "." in number:
            raise SizeError(
                f"decimals are not allowed with binary suffixes like {suffix}; did you mean {number}{suffix.lower()}?"
            )
        return int(number) * _BINARY[suffix]
    return int(text)


def _converted(kind: str, value: str) -> float | int | None:
    """The number vLLM's converter gives for the text (None for a kind that gives none), or
    ValueError (SizeError for a size it refuses with its own message)."""
    text = value.strip()
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind in ("size", "size_or_auto"):
        return parse_size(text, auto=kind == "size_or_auto")
    return None


def _number(kind: str, value: str) -> tuple[bool, float | int | None]:
    """(whether vLLM's converter accepts the text, the number it gives if it is one)."""
    try:
        return True, _converted(kind, value)
    except ValueError:
        return False, None


def _bounds_problem(bounds: Mapping[str, Any], number: float) -> str | None:
    for word, limit in bounds.items():
        ok = {
            "ge": number >= limit,
            "gt": number > limit,
            "le": number <= limit,
            "lt": number < limit,
        }.get(word, True)
        if not ok:
            return f"must be {_BOUND_WORDS[word]} {limit}"
    return None


def value_problem(flag: str, entry: Mapping[str, Any], value: str, release: str) -> str | None:
    """What is wrong with one value word of a flag, or None."""
    kind = entry.get("type")
    if kind is None or shell.PLACEHOLDER.search(value):
        return None
    if entry.get("optional") and value in ("", "None"):
        return None
    if kind in ("json", "object"):
        # a JSON-valued flag of a config class (json_class) must hold an object, whichever converter
        # its parser uses: --speculative-config's json.loads, then SpeculativeConfig(**value)
        wanted = "object" if kind == "object" or entry.get("json_class") else kind
        try:
            parsed = source.loads(value)
        except json.JSONDecodeError:
            if value.lstrip().startswith(("{", "[")):
                return None  # the rules say where the JSON breaks
            return f"{flag} takes {EXPECTED[wanted]} ({release}), got {excerpt(value)}"
        if wanted == "object" and not isinstance(parsed, dict):
            return f"{flag} takes {EXPECTED[wanted]} ({release}), got {excerpt(value)}"
        return None
    if kind not in EXPECTED:
        return None  # str, json_or_str: any text
    try:
        number = _converted(kind, value)
    except SizeError as error:
        return f"{flag} takes {EXPECTED[kind]}: {error} ({release}), got {excerpt(value)}"
    except ValueError:
        return f"{flag} takes {EXPECTED[kind]} ({release}), got {excerpt(value)}"
    if number is not None and entry.get("bounds"):
        bound = _bounds_problem(entry["bounds"], number)
        if bound:
            return f"{flag} {bound} ({release}), got {excerpt(value)}"
    return None


# --------------------------------------------------------------------------- JSON fields

_JSON_WORDS = {
    "bool": "true or false",
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "null": "null",
    "object": "a JSON object",
    "array": "a JSON array",
}
_BOOL_TEXTS = {"0", "1", "true", "false", "yes", "no", "on", "off", "t", "f", "y", "n"}


def _json_kind_ok(kind: str, value: Any) -> bool:
    """Pydantic's lax mode, which vLLM's config classes use: "3" is an integer, 3 a number."""
    if kind == "null":
        return value is None
    if kind == "bool":
        return isinstance(value, bool) or value in (0, 1) or (isinstance(value, str) and value.lower() in _BOOL_TEXTS)
    if kind == "int":
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return True
        if isinstance(value, float):
            return math.isfinite(value) and value.is_integer()
        return isinstance(value, str) and _number("int", value)[0]
    if kind == "float":
        if isinstance(value, bool):
            return False
        return isinstance(value, int | float) or (isinstance(value, str) and _number("float", value)[0])
    if kind == "str":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    return True


def field_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    """What is wrong with one JSON field's value, as "takes ..." or "must be ...", or None."""
    if isinstance(value, str) and shell.PLACEHOLDER.search(value):
        return None
    types = spec.get("types") or ["any"]
    if "any" in types:
        return None
    choices = spec.get("choices")
    if choices is not None and not (value is None and "null" in types):
        if value in choices and isinstance(value, bool) == any(isinstance(c, bool) for c in choices):
            return None
        words = [str(c) for c in choices]
        close = difflib.get_close_matches(str(value), words, n=1, cutoff=0.6) if isinstance(value, str) else []
        hint = f" (did you mean {json.dumps(choices[words.index(close[0])])}?)" if close else ""
        if len(choices) <= _LIST_LIMIT:
            return f"takes one of {', '.join(json.dumps(c) for c in choices)}{hint}"
        return f"takes one of its {len(choices)} values{hint}"
    if not any(_json_kind_ok(kind, value) for kind in types):
        words = [_JSON_WORDS.get(kind, kind) for kind in types]
        return f"takes {' or '.join(words)}"
    bounds = spec.get("bounds")
    if bounds and isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            number = float(value)
        except ValueError:
            return None
        bound = _bounds_problem(bounds, number)
        if bound:
            return bound
    return None


# --------------------------------------------------------------------------- environment values

_ENV_WORDS = {
    "int": "an integer",
    "float": "a number",
    "json": "JSON",
    "int_list": "comma-separated integers",
    "float_list": "comma-separated numbers",
}


def unquote_lmcache(value: str) -> str:
    """LMCache's ``_parse_quoted_string``: one pair of matching outer quotes is removed first."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def env_value_problem(spec: Mapping[str, Any], value: str) -> tuple[str, str | None] | None:
    """What is wrong with an environment value for the getter's (or converter's) type, as "takes ...",
    and a near choice if any, or None. Types: int, float (Python's int()/float()), json, int_list/float_list (comma-separated),
    choice/choice_list (one or comma-separated values of "choices", "case_sensitive" or not)."""
    kind: str = spec.get("type") or ""  # no type: nothing to check
    if shell.PLACEHOLDER.search(value):
        return None
    converters: dict[str, Any] = {"int": int, "float": float, "json": source.loads}
    try:
        if kind in converters:
            converters[kind](value)
        elif kind in ("int_list", "float_list"):
            for part in (p.strip() for p in value.split(",")):
                if part:
                    (int if kind == "int_list" else float)(part)
    except ValueError:
        return f"takes {_ENV_WORDS[kind]}", None
    if kind in ("choice", "choice_list"):
        choices = list(spec["choices"])
        fold = (lambda text: text) if spec.get("case_sensitive", True) else str.lower
        given = [value] if kind == "choice" else [p.strip() for p in value.split(",") if p.strip()]
        for item in given:
            if fold(item) not in {fold(c) for c in choices}:
                close = difflib.get_close_matches(item, choices, n=1, cutoff=0.6)
                many = "one or more (comma-separated) of" if kind == "choice_list" else "one of"
                return f"takes {many} {', '.join(choices)}", close[0] if close else None
    return None
