"""The emulation of vLLM's ``get_kwargs``: the argparse keywords of a config dataclass field,
and what is recorded of its value: type, limits, JSON field types."""

from __future__ import annotations

import ast
from typing import Any

from .classes import ClassInfo, FieldInfo
from .source_tree import Tree, _decorator_name
from .values import UNKNOWN, Kwargs, Spec, sym

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .evaluator import Evaluator


def _kind(hint: tuple) -> str:
    return hint[1] if hint[0] in ("builtin", "collection") else hint[0]


def compute_kwargs(evaluator: Evaluator, cls: ClassInfo) -> Kwargs:
    """What ``vllm.engine.arg_utils.get_kwargs(cls)`` returns, from the dataclass source."""
    out = Kwargs()
    for f in cls.fields():
        out[f.name] = field_spec(evaluator, f)
    return out


def field_spec(evaluator: Evaluator, f: FieldInfo) -> Spec:
    hints = evaluator.hints(f.owner.module, f.annotation)
    kinds = {_kind(h) for h in hints}
    spec = Spec(default=UNKNOWN, help=f.doc.replace("%", "%%"))
    dataclass = next((h[1] for h in hints if h[0] == "dataclass"), None)
    literals = [v for h in hints if h[0] == "literal" for v in h[1]]
    if dataclass is not None:
        spec["type"] = sym("parse_dataclass")
        spec["_json_class"] = dataclass
    elif kinds == {"bool", "str", "NoneType"}:
        spec.update(type=sym("builtins.str"), nargs="?", const=True)
    elif "bool" in kinds:
        spec["action"] = sym("argparse.BooleanOptionalAction")
    elif "literal" in kinds:
        spec.update(_literal_kwargs(literals, "str" in kinds))
    elif kinds & {"tuple", "list", "set"}:
        origin = next(k for k in ("tuple", "list", "set") if k in kinds)
        collection = next(h for h in hints if h[0] == "collection" and h[1] == origin)
        args = [a for a in collection[3] if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
        nargs: Any = "+"
        if origin == "tuple" and len(args) == len(collection[3]) and args:
            nargs = len(args)
        spec["nargs"] = nargs
        element = evaluator.hints(collection[2], args[0]) if args else []
        element_literals = [v for h in element if h[0] == "literal" for v in h[1]]
        if element_literals and len(element) == 1:
            spec.update(_literal_kwargs(element_literals, False))
        else:
            spec["type"] = sym(_element_converter(element))
    elif "int" in kinds:
        parser = evaluator.int_parsers().get(f.name)
        spec["type"] = sym(parser) if parser else sym("builtins.int")
    elif "float" in kinds:
        spec["type"] = sym("builtins.float")
    elif "dict" in kinds and kinds & {"str", "other"}:
        spec["type"] = sym("union_dict_and_str")
        spec["_json"] = True
    elif "dict" in kinds:
        spec["type"] = sym("json.loads")
        spec["_json"] = True
    else:
        spec["type"] = sym("builtins.str")
    if "NoneType" in kinds and "bool" not in kinds and isinstance(spec.get("choices"), list):
        spec["choices"].append("None")
    if "NoneType" in kinds and "bool" not in kinds:
        spec["_optional"] = True
    bounds = field_bounds(f)
    if bounds:
        spec["_bounds"] = bounds
    return spec


_BOUND_WORDS = ("ge", "gt", "le", "lt")


def field_bounds(f: FieldInfo) -> dict[str, int | float]:
    """``Field(ge=1, le=...)`` of a pydantic field: the limits its validation enforces."""
    if not (isinstance(f.value, ast.Call) and _decorator_name(f.value) == "Field"):
        return {}
    bounds: dict[str, int | float] = {}
    for keyword in f.value.keywords:
        if keyword.arg in _BOUND_WORDS:
            node = keyword.value
            sign = 1
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                node, sign = node.operand, -1
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, int | float)
                and not isinstance(node.value, bool)
            ):
                bounds[keyword.arg] = sign * node.value
    return bounds


def field_type(evaluator: Evaluator, f: FieldInfo) -> dict[str, Any]:
    """The JSON a dataclass field accepts, from its annotation: {"types": [...], "choices"?, "bounds"?}.

    Types are JSON's: bool, int, float, str, null, object, array; "any" when the
    annotation names something else (an enum, a callable, a type the evaluator does not follow).
    """
    types: list[str] = []
    choices: list[Any] = []
    for hint in evaluator.hints(f.owner.module, f.annotation):
        kind = hint[0]
        if kind == "literal":
            choices += [v for v in hint[1] if v not in choices]
            types += [_JSON_KIND[type(v).__name__] for v in hint[1] if type(v).__name__ in _JSON_KIND]
        elif kind == "builtin":
            types.append(_JSON_KIND.get(hint[1], "any"))
        elif kind == "collection":
            types.append("object" if hint[1] == "dict" else "array")
        elif kind == "dataclass":
            types.append("object")
        else:
            types.append("any")
    out: dict[str, Any] = {"types": sorted(set(types))}
    if (
        choices
        and set(out["types"]) <= {"str", "int", "float", "bool", "null"}
        and all(_JSON_KIND.get(type(c).__name__) for c in choices)
    ):
        literal_types = {_JSON_KIND[type(c).__name__] for c in choices}
        if not (set(out["types"]) - literal_types - {"null"}):
            out["choices"] = [c for c in choices]
    bounds = field_bounds(f)
    if bounds:
        out["bounds"] = bounds
    return out


_JSON_KIND = {"bool": "bool", "int": "int", "float": "float", "str": "str", "NoneType": "null", "dict": "object"}


def _int_parsers(tree: Tree) -> dict[str, str]:
    module = tree.module("vllm.engine.arg_utils")
    function = next(
        (
            n
            for n in (module.node.body if module is not None else [])
            if isinstance(n, ast.FunctionDef) and n.name == "_compute_kwargs"
        ),
        None,
    )
    if function is None:
        return {}
    sets: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Set | ast.List | ast.Tuple)
        ):
            sets[node.targets[0].id] = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    out: dict[str, str] = {}
    for node in ast.walk(function):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1):
            continue
        parser = next(
            (
                stmt.value.id
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Name)
                and isinstance(stmt.targets[0], ast.Subscript)
                and isinstance(stmt.targets[0].slice, ast.Constant)
                and stmt.targets[0].slice.value == "type"
            ),
            None,
        )
        if parser is None:
            continue
        op, right = node.test.ops[0], node.test.comparators[0]
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            out.setdefault(right.value, parser)
        elif isinstance(op, ast.In) and isinstance(right, ast.Name):
            for name in sets.get(right.id, []):
                out.setdefault(name, parser)
    return out


def _element_converter(element: list[tuple]) -> str:
    """``collection_to_kwargs``: a list's values are converted with its element type (``list[int]``: int);
    a union of element types holds ``str``, and converts with it."""
    if len(element) == 1 and element[0][0] == "builtin" and element[0][1] in ("int", "float"):
        return f"builtins.{element[0][1]}"
    return "builtins.str"


def _literal_kwargs(options: list[Any], with_str: bool) -> dict[str, Any]:
    """``literal_to_kwargs``: the type of the options converts the value (``Literal[1, 8]``: int)."""
    try:
        ordered = sorted(options)
    except TypeError:
        ordered = list(options)
    kind = type(ordered[0]).__name__ if ordered else "str"
    converter = {"type": sym(f"builtins.{kind}")} if kind in ("int", "float") else {}
    if with_str:
        return {"metavar": ordered, "_values": list(ordered), **converter}
    return {"choices": ordered, **converter}
