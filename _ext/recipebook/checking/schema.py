"""Checking a recipe document against recipes/schema.json."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import ValidationError, best_match

from ..memo import remembered
from ..problems import Kind, Problem, excerpt, pointer_join
from ..reading import sharing
from ..reading.source import Document

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "recipes" / "schema.json"


@remembered(maxsize=None)
def load_schema(path: Path = SCHEMA_PATH) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


@remembered(maxsize=None)
def ecma_pattern(pattern: str) -> str:
    """A schema pattern (ECMA-262, as JSON Schema says) for Python's re: outside a character
    class a bare ``$`` becomes ``\\Z``. Python's ``$`` also matches before a final newline, so
    ``"gpt-oss\\n"`` would pass ``^[a-z-]+$``; ECMA's and the fast validator's do not."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        out.append(char)
        i += 1
    return "".join(out)


def _pattern(
    _validator: object, pattern: str, instance: object, _schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if isinstance(instance, str) and re.search(ecma_pattern(pattern), instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 2020-12 with the pattern keyword read as ECMA-262 reads it
_Draft: type[jsonschema.Draft202012Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {"pattern": _pattern}
)  # (types-jsonschema leaves extend unannotated)


@remembered(maxsize=None)
def _validator(path: Path = SCHEMA_PATH) -> jsonschema.Draft202012Validator:
    # the schema itself is checked against the metaschema by the tests, not on every run
    return _Draft(load_schema(path))


@remembered(maxsize=None)
def _fast_validator(path: Path = SCHEMA_PATH) -> jsonschema_rs.Draft202012Validator:
    """A compiled validator that only says yes or no; the Python one explains a no."""
    return jsonschema_rs.Draft202012Validator(load_schema(path))


def is_valid(data: object) -> bool | None:
    """Whether the document is valid, or None when the fast validator cannot take it
    (values Rust's strings or numbers cannot hold, such as a lone surrogate)."""
    try:
        return _fast_validator().is_valid(data)
    except (ValueError, OverflowError, TypeError):  # UnicodeEncodeError is a ValueError
        return None


def _type_names(value: str | Iterable[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _must_be(types: list[str]) -> str:
    return "must be of type " + " or ".join(repr(t) for t in dict.fromkeys(types))


def _axis_values(document: Document, path: Sequence[str | int]) -> tuple[str, list[str]] | None:
    """For a value chosen for an axis (grid.recommended, grid.excluded, grid.option_base): the
    axis and the values the grid gives it, read from the document as it stands."""
    if len(path) < 3 or (
        path[-2] not in ("recommended", "option_base") and not (len(path) >= 4 and path[-3] == "excluded")
    ):
        return None
    grid_path = path[: path.index("grid") + 1] if "grid" in path else None
    grid = document.data
    try:
        for part in grid_path or ():
            grid = grid[part]
        axis = path[-1]
        values = {**grid.get("modes", {}), **grid.get("options", {})}.get(axis)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    if not isinstance(axis, str) or not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return None
    return axis, values


def _names_of(error: ValidationError) -> str | Iterable[str]:
    """The type names of a failed ``type`` keyword."""
    value = error.validator_value
    return value if isinstance(value, str | list) else []


def _schema_of(error: ValidationError) -> Mapping[str, Any]:
    """The subschema an error failed (a boolean schema has no keywords)."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def _describe(error: ValidationError, document: Document | None = None) -> str:
    if error.validator == "const":
        return f"must be {json.dumps(error.validator_value)}"
    if error.validator == "maxLength" and isinstance(error.instance, str):
        return f"is {len(error.instance):,} characters long; the limit here is {error.validator_value:,}"
    if error.validator == "pattern":
        found = _axis_values(document, list(error.absolute_path)) if document is not None else None
        if found:
            axis, values = found
            return f"{excerpt(error.instance, json.dumps)} is not a value of axis {axis!r}; choose from: {', '.join(values)}"
        description = _schema_of(error).get("description")
        if description and description.startswith("A ") and description.endswith("."):
            # the schema says in words what the pattern wants ("A lower-case name made of ...")
            return f"{excerpt(error.instance, json.dumps)} is not {description[0].lower()}{description[1:-1]}"
        return f"{excerpt(error.instance, json.dumps)} does not match the pattern {error.validator_value}"
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    if error.validator == "type":  # the default message repeats the whole value, however long
        return _must_be(_type_names(_names_of(error)))
    if error.validator == "uniqueItems":
        return "has repeated items; each item may appear once"
    return error.message


def _branch(error: ValidationError) -> list[ValidationError] | str:
    """For a failed anyOf/oneOf: the errors of the one alternative the value's type fits,
    or, when its type fits none, a message naming the types that would."""
    branches: dict[str | int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)

    def misfit(sub: ValidationError) -> bool:
        return sub.validator == "type" and not sub.relative_path

    fitting = [subs for subs in branches.values() if not any(misfit(sub) for sub in subs)]
    if len(fitting) == 1:
        return fitting[0]
    if not fitting and all(any(misfit(sub) for sub in subs) for subs in branches.values()):
        misfits = [sub for subs in branches.values() for sub in subs if misfit(sub)]
        return _must_be([name for sub in misfits for name in _type_names(_names_of(sub))])
    return [best_match(error.context)]


def _problems(document: Document, error: ValidationError) -> list[Problem]:
    pointer = pointer_join("", *error.absolute_path)
    if error.context:
        # anyOf/oneOf: report the alternative the value was meant to be, not the whole list
        chosen = _branch(error)
        if isinstance(chosen, str):
            return [document.problem(pointer, chosen, kind=Kind.SCHEMA)]
        return [problem for sub in chosen for problem in _problems(document, sub)]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(_schema_of(error).get("properties", {}))
        extra = [k for k in error.instance if k not in allowed]
        if error.validator_value is False and extra:
            hint = f"; allowed here: {', '.join(sorted(allowed))}" if allowed else ""
            found = []
            for key in extra:
                meant = meant_key(key, allowed - set(error.instance))
                guess = f" (did you mean {meant!r}?)" if meant else ""
                found.append(
                    document.problem(
                        pointer_join(pointer, key),
                        f"unknown key {excerpt(key)}{guess}{hint}",
                        kind=Kind.SCHEMA,
                        key=True,
                    )
                )
            return found
    schema_path = list(error.absolute_schema_path)
    if len(schema_path) >= 2 and schema_path[-2] == "propertyNames" and isinstance(error.instance, str):
        # propertyNames checks each key as a value of its own; point at that key
        key = error.instance
        if error.validator == "pattern":
            message = f"key {excerpt(key)} does not match the pattern {error.validator_value}"
        else:
            message = f"key {excerpt(key)} is not allowed here: {_describe(error)}"
        return [
            document.problem(
                pointer_join(pointer, key),
                message,
                kind=Kind.SCHEMA,
                key=True,
            )
        ]
    return [document.problem(pointer, _describe(error, document), kind=Kind.SCHEMA)]


def meant_key(key: str, allowed: set[str]) -> str | None:
    """The allowed key an unknown one is a misspelling of (another case, a letter or two off)."""
    folded = {name.casefold(): name for name in allowed}
    if key.casefold() in folded:
        return folded[key.casefold()]
    close = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.75)
    return close[0] if close else None


_MISSPELT = re.compile(r"unknown key .* \(did you mean '([^']+)'\?\)")
MAX_MISSPELT = 8  # misspellings looked into per document (each validates it once more)


def _errors(data: object, document: Document) -> list[Problem]:
    found = []
    for error in _validator().iter_errors(data):
        found.extend(_problems(document, error))
    return found


def _renamed(data: object, pointer: str, old: str, new: str) -> object:
    """The data with one object's key renamed (a copy of the objects on the way only)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]

    def walk(node: object, rest: list[str]) -> object:
        if not rest:
            assert isinstance(node, dict)
            return {(new if k == old else k): v for k, v in node.items()}
        head, tail = rest[0], rest[1:]
        if isinstance(node, dict):
            return {k: (walk(v, tail) if k == head else v) for k, v in node.items()}
        if isinstance(node, list):
            index = int(head)
            return [walk(v, tail) if i == index else v for i, v in enumerate(node)]
        return node

    return walk(data, tokens)


def _explained(document: Document, found: list[Problem]) -> list[Problem]:
    """A misspelt key is named once: the problems its object has only because the key it meant
    is missing (nine 'is required' for one 'extnds') are dropped, as a document with the key
    spelt right shows."""
    misspelt = [(p, m) for p in found if p.kind is Kind.SCHEMA and (m := _MISSPELT.match(p.message))]
    for problem, said in misspelt[:MAX_MISSPELT]:
        owner, _, key = problem.pointer.rpartition("/")
        key = key.replace("~1", "/").replace("~0", "~")
        meant = said.group(1)
        fixed = _errors(_renamed(document.data, owner, key, meant), document)
        still = {(p.pointer, p.message) for p in fixed}
        found = [p for p in found if p.pointer != owner or (p.pointer, p.message) in still]
    return found


def _at(data: object, pointer: str) -> object:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(data, dict):
            data = data.get(token)
        elif isinstance(data, list) and token.isdigit() and int(token) < len(data):
            data = data[int(token)]
        else:
            return None
    return data


def _changes_without_extends(document: Document, found: list[Problem]) -> list[Problem]:
    """A grid that gives changes but no 'extends' lacks 'extends', not the nine fields a grid of its
    own needs: named once, at its change (as the sharing of grids names it)."""
    owners = {p.pointer for p in found if p.message.endswith("is required")}
    for owner in sorted(owners):
        changes = sharing.changes_without_extends(_at(document.data, owner), owner)
        if changes:
            found = [p for p in found if not (p.pointer == owner and p.message.endswith("is required"))]
            found += [document.problem(ptr, message, kind=Kind.SCHEMA, key=key) for ptr, message, key in changes]
    return found


def check(document: Document) -> list[Problem]:
    """Every schema violation of a document, located."""
    if is_valid(document.data) is True:  # most documents are valid: the fast validator settles those
        return []
    found = _explained(document, _errors(document.data, document))
    return sorted(set(_changes_without_extends(document, found)))
