"""YAML read as vLLM Recipes reads it: js-yaml 4's default schema (YAML 1.2's core schema), not
PyYAML's YAML 1.1.

The two differ where a recipe could notice: YAML 1.1 reads ``on``, ``off``, ``yes`` and ``no`` as
booleans and ``010`` as octal, YAML 1.2 reads the first four as strings and ``010`` as ten, and
only YAML 1.2 reads ``1e3`` as a number. A value read otherwise than their site reads it would
give another command, so the loader swaps PyYAML's implicit resolvers for YAML 1.2's.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_CORE_TAGS = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's core schema for booleans and numbers."""


Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _CORE_TAGS]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))


def _bool(loader: Loader, node: yaml.Node) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"  # type: ignore[arg-type]


def _int(loader: Loader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _float(loader: Loader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


Loader.add_constructor("tag:yaml.org,2002:bool", _bool)
Loader.add_constructor("tag:yaml.org,2002:int", _int)
Loader.add_constructor("tag:yaml.org,2002:float", _float)


def load(text: str) -> Any:
    """The data of a YAML text, as js-yaml's ``yaml.load`` gives it (dates as ``datetime.date``)."""
    return yaml.load(text, Loader=Loader)  # a SafeLoader: no Python objects
