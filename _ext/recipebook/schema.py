"""Checking a recipe document against recipes/schema.json."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from .problems import Kind, Problem, pointer_join
from .source import Document

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "recipes" / "schema.json"


@functools.cache
def load_schema(path: Path = SCHEMA_PATH) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@functools.cache
def _validator(path: Path = SCHEMA_PATH) -> jsonschema.Draft202012Validator:
    schema = load_schema(path)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _describe(error: ValidationError) -> str:
    if error.validator == "const":
        return f"must be {json.dumps(error.validator_value)}"
    if error.validator == "pattern":
        return f"{json.dumps(error.instance)} does not match the pattern {error.validator_value}"
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    return error.message


def _problems(document: Document, error: ValidationError) -> list[Problem]:
    if error.context:
        # anyOf/oneOf: report the alternative that came closest, not the whole list
        return _problems(document, best_match(error.context))
    pointer = pointer_join("", *error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in allowed]
        if error.validator_value is False and extra:
            hint = f"; allowed here: {', '.join(sorted(allowed))}" if allowed else ""
            return [document.problem(pointer_join(pointer, key), f"unknown key {key!r}{hint}",
                                     kind=Kind.SCHEMA, key=True) for key in extra]
    if error.validator == "propertyNames":
        key = error.instance
        return [document.problem(pointer_join(pointer, key), f"key {key!r} is not allowed here: {error.message}",
                                 kind=Kind.SCHEMA, key=True)]
    return [document.problem(pointer, _describe(error), kind=Kind.SCHEMA)]


def check(document: Document) -> list[Problem]:
    """Every schema violation of a document, located."""
    found = []
    for error in _validator().iter_errors(document.data):
        found.extend(_problems(document, error))
    return sorted(set(found))
