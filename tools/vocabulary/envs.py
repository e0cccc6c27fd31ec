"""Environment variables: the value type of each one vLLM and vllm-rbln define, and LMCache's names.

vLLM (``vllm/envs.py``) and vllm-rbln (``vllm_rbln/envs.py``) define their variables in one
dict, ``environment_variables``, of getters: ``lambda: int(os.getenv("VLLM_X", "0"))``,
``env_with_choices("VLLM_Y", None, ["a", "b"])``, ... The type recorded is what the getter
converts the text with, read from its source with ``ast``:

* ``int``: ``int(...)``, ``bool(int(...))``, ``maybe_convert_int``/``maybe_convert_bool``;
* ``float``: ``float(...)``;
* ``choice`` / ``choice_list``: ``env_with_choices`` (one value) and ``env_list_with_choices`` /
  ``env_set_with_choices`` (comma-separated values), with the choices and whether case counts;
* anything else takes any text and is not recorded (``.lower() in ("1", "true")`` is false for
  any other text; a path; a name).

LMCache (``lmcache/v1/config.py`` of the upstream ``lmcache`` release) defines its settings in
``_CONFIG_DEFINITIONS``, each with an ``env_converter``; the variable is ``LMCACHE_`` plus the
upper-cased key, and ``_CONFIG_ALIASES`` maps old keys to new ones (``external_backends`` to
``storage_plugins``). Before converting, LMCache strips one pair of matching quotes. Variables
the package reads elsewhere with ``os.getenv`` are names too, of any text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The upstream LMCache release whose settings the vocabulary records. vllm-rbln[kv-connectors]
# pins lmcache-rbln, which is not on the public registry; its extra names, when known, are listed
# in LMCACHE_FORK_NAMES and marked as the fork's.
LMCACHE_RELEASE = "0.5.6"
LMCACHE_FORK_NAMES: dict[str, dict[str, Any]] = {}

_CONVERTERS = {
    "int": "int",
    "float": "float",
    "maybe_convert_int": "int",
    "maybe_convert_bool": "int",
    "json.loads": "json",
    "loads": "json",
}
_CHOICE_HELPERS = {
    "env_with_choices": "choice",
    "env_list_with_choices": "choice_list",
    "env_set_with_choices": "choice_list",
}
_LMCACHE_CONVERTERS = {
    "int": "int",
    "float": "float",
    "_to_int_list": "int_list",
    "_to_float_list": "float_list",
}
_LMCACHE_NAME = re.compile(r"^LMCACHE_[A-Z0-9_]+$")


def _call_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _call_name(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return None


def _reads(node: ast.AST, name: str) -> Iterator[ast.AST]:
    """The ``os.getenv(name)`` / ``os.environ.get(name)`` / ``os.environ[name]`` nodes under a node."""
    for n in ast.walk(node):
        first: ast.expr | None = None
        if isinstance(n, ast.Call) and n.args and (_call_name(n.func) or "").endswith(("getenv", "environ.get")):
            first = n.args[0]
        elif isinstance(n, ast.Subscript) and (_call_name(n.value) or "").endswith("environ"):
            first = n.slice
        if isinstance(first, ast.Constant) and first.value == name:
            yield n


def _parents(root: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(root) for child in ast.iter_child_nodes(parent)}


def _holders(root: ast.AST, name: str) -> set[str]:
    """Local names a read of ``name`` is bound to (``port = os.getenv(...)``, ``(size := ...)``)."""
    held: set[str] = set()
    for node in ast.walk(root):
        if isinstance(node, ast.Assign | ast.NamedExpr) and any(True for _ in _reads(node.value, name)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            held |= {t.id for t in targets if isinstance(t, ast.Name)}
    return held


def _converted_by(root: ast.AST, name: str) -> str | None:
    """What the first converter around a read of ``name`` inside ``root`` (or around a local name
    holding that read) turns the text into."""
    parents = _parents(root)
    held = _holders(root, name)
    uses = [n for n in ast.walk(root) if isinstance(n, ast.Name) and n.id in held and isinstance(n.ctx, ast.Load)]
    for read in [*_reads(root, name), *uses]:
        node: ast.AST | None = parents.get(read)
        while node is not None:  # up to the root, included
            if isinstance(node, ast.Call):
                kind = _CONVERTERS.get(_call_name(node.func) or "")
                if kind:
                    return kind
            node = None if node is root else parents.get(node)
    return None


def _constant_strings(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _choice_type(call: ast.Call) -> dict[str, Any] | None:
    kind = _CHOICE_HELPERS.get(_call_name(call.func) or "")
    if kind is None:
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    choices = _constant_strings(call.args[2] if len(call.args) > 2 else keywords.get("choices"))
    if choices is None:
        return {}  # choices computed at run time: any text here
    case = call.args[3] if len(call.args) > 3 else keywords.get("case_sensitive")
    sensitive = not (isinstance(case, ast.Constant) and case.value is False)
    return {"type": kind, "choices": choices, "case_sensitive": sensitive}


def _functions(module: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}


def _getter_type(module: ast.Module, name: str, getter: ast.expr) -> dict[str, Any]:
    if isinstance(getter, ast.Call):
        choice = _choice_type(getter)
        if choice is not None:
            return choice
    body: ast.AST = getter.body if isinstance(getter, ast.Lambda) else getter
    functions = _functions(module)
    called = body.func if isinstance(body, ast.Call) and not body.args else body
    if isinstance(called, ast.Name) and called.id in functions:
        body = functions[called.id]  # "VLLM_PORT": get_vllm_port
    kind = _converted_by(body, name)
    return {"type": kind} if kind else {}


def _environment_variables(module: ast.Module) -> ast.Dict | None:
    for stmt in module.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        value = getattr(stmt, "value", None)
        if isinstance(target, ast.Name) and target.id == "environment_variables" and isinstance(value, ast.Dict):
            return value
    return None


def env_types(root: Path, package: str) -> dict[str, dict[str, Any]]:
    """The value type of each variable a package's ``envs.py`` defines (only those that are not any text)."""
    path = root / package / "envs.py"
    if not path.is_file():
        return {}
    module = ast.parse(path.read_text(encoding="utf-8"))
    table = _environment_variables(module)
    out: dict[str, dict[str, Any]] = {}
    for key, getter in zip(table.keys if table else [], table.values if table else [], strict=True):
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("VLLM_"):
            found = _getter_type(module, key.value, getter)
            if found:
                out[key.value] = found
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- LMCache


def _dict_named(module: ast.Module, name: str) -> ast.Dict | None:
    for stmt in module.body:
        target = (
            stmt.target
            if isinstance(stmt, ast.AnnAssign)
            else (stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == name and isinstance(getattr(stmt, "value", None), ast.Dict):
            return stmt.value  # type: ignore[return-value]
    return None


def _lmcache_type(definition: ast.expr) -> dict[str, Any]:
    if not isinstance(definition, ast.Dict):
        return {"type": "str"}
    fields = {
        k.value: v for k, v in zip(definition.keys, definition.values, strict=True) if isinstance(k, ast.Constant)
    }
    converter = fields.get("env_converter")
    name = _call_name(converter) if converter is not None else None
    if name in _LMCACHE_CONVERTERS:
        return {"type": _LMCACHE_CONVERTERS[name]}
    if isinstance(converter, ast.Lambda) and any(
        isinstance(n, ast.Call) and (_call_name(n.func) or "").endswith("loads") for n in ast.walk(converter)
    ):
        return {"type": "json"}
    return {"type": "str"}


def lmcache_envs(root: Path) -> dict[str, dict[str, Any]]:
    """Every ``LMCACHE_*`` variable of an unpacked lmcache tree, with its value type."""
    config = root / "lmcache" / "v1" / "config.py"
    if not config.is_file():
        return {}
    module = ast.parse(config.read_text(encoding="utf-8"))
    definitions = _dict_named(module, "_CONFIG_DEFINITIONS")
    aliases = _dict_named(module, "_CONFIG_ALIASES")
    out: dict[str, dict[str, Any]] = {}
    keys = definitions.keys if definitions else []
    for key, value in zip(keys, definitions.values if definitions else [], strict=True):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            out[f"LMCACHE_{key.value.upper()}"] = {**_lmcache_type(value), "key": key.value}
    for old, new in zip(aliases.keys if aliases else [], aliases.values if aliases else [], strict=True):
        if isinstance(old, ast.Constant) and isinstance(new, ast.Constant):
            target = f"LMCACHE_{str(new.value).upper()}"
            if target in out:
                out[f"LMCACHE_{str(old.value).upper()}"] = {**out[target], "key": old.value, "alias_of": target}
    for path in sorted((root / "lmcache").rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            for read in _lmcache_reads(node):
                out.setdefault(read, {"type": "str"})
    for name, entry in LMCACHE_FORK_NAMES.items():
        out.setdefault(name, {**entry, "fork": True})
    return dict(sorted(out.items()))


def _lmcache_reads(node: ast.AST) -> Iterator[str]:
    first: ast.expr | None = None
    if isinstance(node, ast.Call) and node.args and (_call_name(node.func) or "").endswith(("getenv", "environ.get")):
        first = node.args[0]
    elif isinstance(node, ast.Subscript) and (_call_name(node.value) or "").endswith("environ"):
        first = node.slice
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and _LMCACHE_NAME.match(first.value):
        yield first.value
