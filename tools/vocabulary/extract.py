"""What is extracted: the data file's flags (with their values and types), registries,
JSON children, environment names; and the whole run, ``extract``."""

from __future__ import annotations

import ast
import configparser
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .classes import ClassInfo
from .envs import env_types, lmcache_envs
from .evaluator import Evaluator
from .flow import _has_unknown
from .get_kwargs import field_type
from .parser_model import Action, Parser, Subparsers
from .source_tree import Function, Tree
from .values import _SYMS, UNKNOWN, Sym, Warnings, sym

FORMAT = 3
ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "_ext" / "recipebook" / "data"

# Flags whose values come from a registry in the source rather than from argparse:
# (module, dict of registered names, flag through which a plugin adds more names).
REGISTRIES = {
    "--tool-call-parser": ("vllm.tool_parsers", "_TOOL_PARSERS_TO_REGISTER", "--tool-parser-plugin"),
    "--reasoning-parser": ("vllm.reasoning", "_REASONING_PARSERS_TO_REGISTER", "--reasoning-parser-plugin"),
}
REGISTRY_MANAGERS = {"--tool-call-parser": "ToolParserManager", "--reasoning-parser": "ReasoningParserManager"}

# MultiConnector builds one KVTransferConfig(**child) per kv_connector_extra_config["connectors"]
# entry (vllm/distributed/kv_transfer/kv_connector/v1/multi_connector.py): the children take the
# same JSON fields as the flag itself.
MULTI_CONNECTOR = (
    "--kv-transfer-config",
    "vllm.distributed.kv_transfer.kv_connector.v1.multi_connector",
    {"kv_connector": "MultiConnector"},
    ["kv_connector_extra_config", "connectors"],
)

# Flags whose choices the platform extends at run time: vLLM adds the platform's attribute to a
# fixed list unless it is one of ``unless`` (--mm-processor-device: ["auto", "cpu"] plus
# current_platform.device_type). The data file records the fixed list as "choices" and every value
# the platform plugin's source can give that attribute as "platform_choices".
PLATFORM_CHOICES = {"--mm-processor-device": ("vllm.engine.arg_utils", "device_type", ("", "cpu"))}

_ENV_NAME = re.compile(r"^VLLM_[A-Z0-9_]+$")
_NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}


def _first_paragraph(text: Any) -> str:
    """The help's first paragraph, on one line; with the next one when it ends in a colon."""
    if not isinstance(text, str):
        return ""
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(text).replace("%%", "%").strip())
    kept = paragraphs[:2] if paragraphs[0].rstrip().endswith(":") else paragraphs[:1]
    return " ".join(" ".join(kept).split())


def _platform_class(tree: Tree, evaluator: Evaluator) -> ClassInfo | None:
    """The platform a ``vllm.platform_plugins`` entry point of the tree registers."""
    for entry_points in sorted(tree.root.glob("*.dist-info/entry_points.txt")):
        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read(entry_points, encoding="utf-8")
        if not parser.has_section("vllm.platform_plugins"):
            continue
        for _, target in sorted(parser.items("vllm.platform_plugins")):
            module_name, _, function_name = target.strip().partition(":")
            module = tree.module(module_name)
            if module is None:
                continue
            function = tree.resolve(module, function_name)
            if not isinstance(function, Function):
                continue
            returned = [
                evaluator.static(module, n.value)
                for n in ast.walk(function.node)
                if isinstance(n, ast.Return) and n.value is not None
            ]
            for qualname in returned:
                if isinstance(qualname, str):
                    found = tree.resolve_qualname(qualname)
                    if isinstance(found, ClassInfo):
                        return found
    return None


def build_parser(tree: Tree, evaluator: Evaluator) -> Parser:
    """Run the serve subcommand's ``subparser_init`` over a model parser."""
    module = tree.module("vllm.entrypoints.cli.serve")
    if module is None:
        raise SystemExit("vllm/entrypoints/cli/serve.py is missing: is this a vLLM source tree?")
    command = next(
        (
            tree.class_info(module, node)
            for node in module.node.body
            if isinstance(node, ast.ClassDef)
            and any(isinstance(s, ast.FunctionDef) and s.name == "subparser_init" for s in node.body)
        ),
        None,
    )
    if command is None:
        raise SystemExit("no class with subparser_init in vllm/entrypoints/cli/serve.py")
    init = command.attribute("subparser_init")
    subparsers = Subparsers()
    evaluator.call_function(init, [UNKNOWN, subparsers], {})
    if not subparsers.parsers or not subparsers.parsers[0].actions:
        raise SystemExit("subparser_init registered no flags; the parser layout is not understood")
    return subparsers.parsers[0]


def _takes_value(action: Action, warn: Warnings) -> tuple[str, Any, bool]:
    """("no" | "yes" | "optional", nargs, negatable) of an argparse action."""
    kind = action.kwargs.get("action")
    nargs = action.kwargs.get("nargs")
    if isinstance(kind, str) and kind in _NO_VALUE_ACTIONS:
        return "no", 0, False
    negatable = (isinstance(kind, Sym) and kind.last == "BooleanOptionalAction") or (
        isinstance(kind, ClassInfo) and kind.subclass_of("argparse.BooleanOptionalAction")
    )
    if negatable:
        return "no", 0, True
    if kind is UNKNOWN:
        warn(f"{action.flags[0]}: action not known; assumed to take a value")
    if nargs == "?":
        return "optional", "?", False
    if nargs == 0:
        return "no", 0, False
    if nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1):
        return "yes", nargs, False
    return "yes", None, False


_VALUE_TYPES = {
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.str": "str",
    "human_readable_int": "size",
    "human_readable_int_or_auto": "size_or_auto",
    "union_dict_and_str": "json_or_str",
    "json.loads": "json",
    "parse_dataclass": "object",
}


def _value_type(kw: dict[str, Any], json_class: Any, is_json: bool) -> str | None:
    """What vLLM's parser converts a flag's value with, as the data file names it (None: not known)."""
    kind = kw.get("type")
    if kind is sym("json.loads"):
        return "json"  # a dataclass flag whose converter vLLM replaces with json.loads (--speculative-config)
    if isinstance(json_class, ClassInfo):
        return "object"
    if kind is None:
        return "str"  # argparse's default: the text itself (choices, if any, are checked apart)
    if kind in (int, float, str):
        return kind.__name__
    if isinstance(kind, Sym) and kind.name in _VALUE_TYPES:
        return _VALUE_TYPES[kind.name]
    if isinstance(kind, Function) and kind.name in _VALUE_TYPES:
        return _VALUE_TYPES[kind.name]
    if isinstance(kind, Function) and isinstance(kind.node.returns, ast.Name):
        # a converter of vLLM's own, e.g. parse_reasoning_parser(val: str) -> str
        return {"str": "str", "int": "int", "float": "float"}.get(kind.node.returns.id)
    if is_json:
        return "json"
    return None


def json_field_types(evaluator: Evaluator, cls: ClassInfo) -> dict[str, dict[str, Any]]:
    """The JSON each init field of a config dataclass accepts."""
    wanted = set(cls.init_fields())
    return {f.name: field_type(evaluator, f) for f in cls.fields() if f.name in wanted}


def flag_entries(parser: Parser, warn: Warnings, evaluator: Evaluator) -> dict[str, dict[str, Any]]:
    """The data file's entry of every option string, --no- forms included."""
    flags: dict[str, dict[str, Any]] = {}
    for action in parser.actions:
        longs = [f for f in action.flags if f.startswith("--")]
        if not longs:
            continue
        kw = action.kwargs
        takes, nargs, negatable = _takes_value(action, warn)
        choices = kw.get("choices")
        open_choices = False
        if choices is UNKNOWN or _has_unknown(choices):
            if longs[0] not in PLATFORM_CHOICES:  # those are recorded by platform_choices_rule
                warn(f"{longs[0]}: choices could not be worked out; none recorded")
            choices = None
        if choices is None and isinstance(kw.get("_values"), list) and kw["_values"]:
            choices, open_choices = kw["_values"], True
        json_class = kw.get("_json_class")
        is_json = isinstance(json_class, ClassInfo) or bool(kw.get("_json")) or kw.get("type") is sym("json.loads")
        entry: dict[str, Any] = {
            "aliases": [f for f in action.flags if f not in longs[:1]],
            "choices": None if choices is None else [str(c) for c in choices],
            "group": action.group,
            "help": _first_paragraph(kw.get("help")),
            "json": is_json,
            "json_class": json_class.name if isinstance(json_class, ClassInfo) else None,
            "json_fields": sorted(json_class.init_fields()) if isinstance(json_class, ClassInfo) else None,
            "takes_value": takes,
        }
        if choices is not None:
            entry["open_choices"] = open_choices
        if nargs not in (None, 0):
            entry["nargs"] = nargs
        if kw.get("deprecated") is True:
            entry["deprecated"] = True
        entry["type"] = None if takes == "no" else _value_type(kw, json_class, is_json)
        if kw.get("_optional") and takes != "no":
            entry["optional"] = True
        if kw.get("_bounds") and takes != "no":
            entry["bounds"] = dict(sorted(kw["_bounds"].items()))
        if isinstance(json_class, ClassInfo):
            entry["json_field_types"] = json_field_types(evaluator, json_class)
        for name in longs[:1]:
            flags[name] = entry
        if negatable:
            for name in longs:
                flags["--no-" + name[2:]] = {
                    "aliases": [],
                    "choices": None,
                    "group": action.group,
                    "help": f"Turns {longs[0]} off.",
                    "json": False,
                    "json_class": None,
                    "json_fields": None,
                    "negates": longs[0],
                    "takes_value": "no",
                    "type": None,
                }
    return flags


def registry_names(tree: Tree, evaluator: Evaluator, flag: str, warn: Warnings) -> list[str] | None:
    module_name, variable, _ = REGISTRIES[flag]
    module = tree.module(module_name)
    names: list[str] = []
    if module is not None:
        value = evaluator.global_name(module, variable)
        if isinstance(value, dict):
            names += [k for k in value if isinstance(k, str)]
    manager = REGISTRY_MANAGERS[flag]
    for path in sorted(tree.root.rglob("*.py")):  # names registered eagerly, by a constant
        text = path.read_text(encoding="utf-8", errors="replace")
        if manager not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("register_module", "register_lazy_module")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == manager
            ):
                continue
            candidates = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "name")]
            for candidate in candidates:
                if isinstance(candidate, ast.Constant) and isinstance(candidate.value, str):
                    names.append(candidate.value)
    if not names:
        warn(f"{flag}: no registered names found in {module_name}.{variable}")
        return None
    return sorted(set(names))


def multi_connector_rule(tree: Tree, flags: dict[str, dict[str, Any]], warn: Warnings) -> None:
    flag, module_name, when, path = MULTI_CONNECTOR
    if flag not in flags:
        return
    module = tree.module(module_name)
    text = module.path.read_text(encoding="utf-8") if module is not None else ""
    builds_children = "KVTransferConfig(" in text and f'"{path[-1]}"' in text
    if builds_children and flag in flags and flags[flag]["json_fields"]:
        flags[flag]["json_children"] = {"when": when, "path": path}
        return
    warn(f"{flag}: MultiConnector children not found in {module_name}; not recorded")


def _fixed_choices(tree: Tree, module_name: str, flag: str) -> list[str] | None:
    """The constant list an ``add_argument(flag, choices=[...] + ...)`` starts its choices with."""
    module = tree.module(module_name)
    for node in ast.walk(module.node) if module is not None else ():
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == flag
        ):
            continue
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg == "choices" and isinstance(value, ast.BinOp) and isinstance(value.left, ast.List):
                items = value.left.elts
                if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
                    return [e.value for e in items]  # type: ignore[attr-defined]
    return None


def _string_constants(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _string_constants(node.body) + _string_constants(node.orelse)
    return []


def platform_values(platform: ClassInfo, attribute: str) -> list[str]:
    """Every string the platform class's source gives an attribute: its class-body value and each
    ``Platform.attribute = ...`` of its module (constants, or both branches of ``a if c else b``)."""
    values: list[str] = []
    for stmt in platform.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attribute:
            values += _string_constants(stmt.value) if stmt.value is not None else []
    for node in ast.walk(platform.module.node):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute)
            and t.attr == attribute
            and isinstance(t.value, ast.Name)
            and t.value.id == platform.name
            for t in node.targets
        ):
            values += _string_constants(node.value)
    return sorted(set(values))


def platform_choices_rule(tree: Tree, evaluator: Evaluator, flags: dict[str, dict[str, Any]], warn: Warnings) -> None:
    for flag, (module_name, attribute, unless) in PLATFORM_CHOICES.items():
        if flag not in flags:
            continue
        fixed = _fixed_choices(tree, module_name, flag)
        if fixed is None:
            warn(f"{flag}: its choices are no longer a fixed list plus the platform's {attribute}")
            continue
        added = [] if evaluator.platform is None else platform_values(evaluator.platform, attribute)
        flags[flag]["choices"] = fixed
        flags[flag]["open_choices"] = False
        flags[flag]["platform_choices"] = {
            "attribute": attribute,
            "unless": list(unless),
            "values": [v for v in added if v not in unless and v not in fixed],
        }


def _env_reads(node: ast.AST) -> Iterator[str]:
    """VLLM_* names read or written through os.environ / os.getenv in a module."""

    def environ(n: ast.expr) -> bool:
        return isinstance(n, ast.Attribute) and n.attr == "environ"

    for n in ast.walk(node):
        first: ast.expr | None = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args:
            if n.func.attr == "getenv" or (
                environ(n.func.value) and n.func.attr in ("get", "setdefault", "pop", "__contains__")
            ):
                first = n.args[0]
        elif isinstance(n, ast.Subscript) and environ(n.value):
            first = n.slice
        elif (
            isinstance(n, ast.Compare)
            and len(n.ops) == 1
            and isinstance(n.ops[0], ast.In | ast.NotIn)
            and environ(n.comparators[0])
        ):
            first = n.left
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and _ENV_NAME.match(first.value):
            yield first.value


def env_names(tree: Tree, package: str) -> list[str]:
    names: set[str] = set()
    module = tree.module(f"{package}.envs")
    if module is not None:
        for name in module.type_checking:
            if _ENV_NAME.match(name):
                names.add(name)
        bound = module.runtime.get("environment_variables")
        if bound and bound[0] == "expr" and isinstance(bound[1], ast.Dict):
            for key in bound[1].keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and _ENV_NAME.match(key.value):
                    names.add(key.value)
    for path in sorted((tree.root / package).rglob("*.py")):
        try:
            names.update(_env_reads(ast.parse(path.read_text(encoding="utf-8", errors="replace"))))
        except SyntaxError:
            continue
    return sorted(names)


def extract(
    root: Path, vllm_version: str, rbln_version: str | None, lmcache_version: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The vocabulary of an unpacked source tree (``root/vllm``, ``root/vllm_rbln``, ``root/lmcache``)."""
    _SYMS.clear()
    warn = Warnings()
    tree = Tree(root, warn)
    evaluator = Evaluator(tree)
    evaluator.platform = _platform_class(tree, evaluator)
    if evaluator.platform is None and rbln_version:
        warn("no platform plugin found: platform flags (--rbln-*) are missing")
    parser = build_parser(tree, evaluator)
    flags = flag_entries(parser, warn, evaluator)
    for flag, (_, _, plugin_flag) in REGISTRIES.items():
        if flag not in flags:
            continue
        names = registry_names(tree, evaluator, flag, warn)
        if names:
            flags[flag]["choices"] = names
            flags[flag]["open_choices"] = True
            if plugin_flag in flags:
                flags[flag]["extended_by"] = plugin_flag
    multi_connector_rule(tree, flags, warn)
    platform_choices_rule(tree, evaluator, flags, warn)
    envs = {"vllm": env_names(tree, "vllm")}
    types = env_types(root, "vllm")
    if (root / "vllm_rbln").is_dir():
        envs["vllm-rbln"] = env_names(tree, "vllm_rbln")
        types.update(env_types(root, "vllm_rbln"))
    data = {
        "format": FORMAT,
        "generated_by": "python -m tools.vocabulary",
        "vllm": vllm_version,
        "vllm_rbln": rbln_version,
        "flags": flags,
        "envs": envs,
        "env_types": dict(sorted(types.items())),
    }
    if lmcache_version and (root / "lmcache").is_dir():
        data["lmcache"] = {
            "release": lmcache_version,
            "package": "lmcache",
            "note": (
                "the upstream release: vllm-rbln[kv-connectors] pins lmcache-rbln, which is not on the "
                "public registry; names only the RBLN fork reads are marked fork"
            ),
            "envs": lmcache_envs(root),
        }
    return data, warn.seen
