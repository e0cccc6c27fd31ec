"""Reading the chart's source (values files and templates) into the committed vocabulary."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

FORMAT = 1
ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "_ext" / "recipebook" / "data"
REPOSITORY = "llm-d/llm-d-router"
CHARTS = "config/charts"
CHART = "llm-d-router-gateway"
# hack/push-chart.sh: HELM_CHART_REPO=${IMAGE_REGISTRY}/charts with IMAGE_REGISTRY=ghcr.io/llm-d,
# and the chart is packaged with the release tag as its version.
PUBLISHED = "oci://ghcr.io/llm-d/charts"

_VALUES_PATH = re.compile(r"\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_ASSIGN = re.compile(r"(\$[A-Za-z_]\w*)\s*:?=\s*\(?\s*\$?\.Values((?:\.[A-Za-z_]\w*)+)")
_INDEX_VALUES = re.compile(r'index\s+\$?\.Values((?:\s+"[A-Za-z_]\w*")+)')
_ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.DOTALL)
_FAIL_REQUIRED = re.compile(r'fail\s+"\.Values\.([\w.]+) is required"')
_REQUIRED = re.compile(r'required\s+"([^"]*)"\s+\$?\.Values\.([\w.]+)')
_IF_VALUES = re.compile(r"^\s*if\s+\$?\.Values\.([\w.]+)\s*$")
_IF_NOT_FALSE = re.compile(r"^\s*if\s+ne\s+\$?\.Values\.([\w.]+)\s+false\s*$")
_DEFINE = re.compile(r'define\s+"([^"]+)"')
_INCLUDE = re.compile(r'include\s+"([^"]+)"')
_FAIL = re.compile(r'fail\s+"((?:[^"\\]|\\.)*)"')


class Source:
    """The chart directory of a checkout: a git directory at a ref, or a work tree."""

    def __init__(self, *, git: Path | None = None, tree: Path | None = None, ref: str) -> None:
        self.git, self.tree, self.ref = git, tree, ref

    def read(self, path: str) -> str | None:
        if self.tree is not None:
            file = self.tree / path
            return file.read_text(encoding="utf-8") if file.is_file() else None
        result = subprocess.run(
            ["git", "--git-dir", str(self.git), "show", f"{self.ref}:{path}"],
            capture_output=True,
            text=True,
            check=False,
        )
        return result.stdout if result.returncode == 0 else None

    def files(self, folder: str) -> list[str]:
        if self.tree is not None:
            return sorted(str(p.relative_to(self.tree)) for p in (self.tree / folder).rglob("*") if p.is_file())
        result = subprocess.run(
            ["git", "--git-dir", str(self.git), "ls-tree", "-r", "--name-only", self.ref, folder],
            capture_output=True,
            text=True,
            check=True,
        )
        return sorted(result.stdout.split())


# --------------------------------------------------------------------------- the values tree


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "any"  # null: the chart sets no type


def node_of(value: Any) -> dict[str, Any]:
    """The node of a default value: its type; a map's keys (open when it is empty); a list's items."""
    kind = _kind(value)
    if kind == "object":
        return {"type": "object", "open": not value, "keys": {k: node_of(v) for k, v in value.items()}}
    if kind == "array":
        items = [node_of(v) for v in value]
        kinds = {i["type"] for i in items}
        if len(kinds) == 1 and items[0]["type"] == "object":
            keys: dict[str, Any] = {}
            for item in items:
                keys.update(item["keys"])
            return {"type": "array", "items": {"type": "object", "open": True, "keys": keys}}
        return {"type": "array", "items": items[0] if len(kinds) == 1 else {"type": "any"}}
    return {"type": kind}


def _ensure(tree: dict[str, Any], path: list[str]) -> dict[str, Any]:
    """The node at a path, made (type any, open) where the values files have none."""
    node = tree
    for name in path:
        if node["type"] == "any":
            node.update(type="object", open=True, keys={})
        if node["type"] != "object":
            return node
        node = node["keys"].setdefault(name, {"type": "any"})
    return node


def _open(tree: dict[str, Any], path: list[str]) -> None:
    """A value passed on whole: a map takes any keys, a list any items (one of no known type stays any)."""
    node = _ensure(tree, path)
    if node["type"] == "object":
        node["open"] = True
    elif node["type"] == "array":
        node["items"] = {"type": "any"}


def _merged(defaults: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A subchart's values with the parent's laid over them; a key the parent leaves empty (only
    comments under it) keeps the subchart's default, as its type is what the vocabulary wants."""
    out = dict(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        elif value is not None or key not in out:
            out[key] = value
    return out


def _actions(text: str) -> Iterator[tuple[int, str]]:
    for match in _ACTION.finditer(text):
        yield match.start(), match.group(1)


def template_reads(text: str) -> Iterator[tuple[list[str], str]]:
    """(path, how) of each value a template reads: how is "read", "whole" (toYaml, range $k, $v,
    toJson: any keys below pass on) or "items:FIELD" (a field of each item of a ranged list)."""
    variables: dict[str, list[str]] = {}
    actions = list(_actions(text))
    for i, (_, action) in enumerate(actions):
        for name, path in _ASSIGN.findall(action):
            variables[name] = path.strip(".").split(".")
        for match in _INDEX_VALUES.finditer(action):
            yield re.findall(r'"(\w+)"', match.group(1)), "read"
        for name, base in variables.items():
            for match in re.finditer(re.escape(name) + r"((?:\.[A-Za-z_]\w*)+)", action):
                how = "whole" if _passed_on(action[: match.start()], action[match.end() :]) else "read"
                yield [*base, *match.group(1).strip(".").split(".")], how
            for field in re.findall(r"index\s+" + re.escape(name) + r'\s+"([A-Za-z_]\w*)"', action):
                yield [*base, field], "read"
            for fields in re.findall(r"dig((?:\s+\"[A-Za-z_]\w*\")+)\s+\S+\s+" + re.escape(name), action):
                yield [*base, *re.findall(r'"(\w+)"', fields)], "read"
        for match in _VALUES_PATH.finditer(action):
            path = match.group(1).strip(".").split(".")
            before, after = action[: match.start()], action[match.end() :]
            if _passed_on(before, after):
                yield path, "whole"
            elif re.search(r"range\s+$", before):
                for field in _range_fields(actions, i):
                    yield path, f"items:{field}"
            else:
                yield path, "read"


def _passed_on(before: str, after: str) -> bool:
    """Whether a value is passed on whole: ``toYaml X``, ``X | toYaml``, ``with X`` (whose body
    writes ``.``), ``range $k, $v := X``."""
    return bool(
        re.search(r"(toYaml|toJson|with|deepCopy|merge\w*)\s*\(?\s*$", before)
        or re.match(r"\s*\|\s*(toYaml|toJson)", after)
        or re.search(r"range\s+\$\w+\s*,\s*\$\w+\s*:=\s*$", before)
    )


def _range_fields(actions: list[tuple[int, str]], start: int) -> Iterator[str]:
    """The ``.field`` reads of the items inside a ``range`` (up to its ``end``)."""
    depth = 0
    for _, action in actions[start + 1 :]:
        word = action.strip().split(" ", 1)[0]
        if word in ("if", "range", "with", "define", "block"):
            depth += 1
        elif word == "end":
            if depth == 0:
                return
            depth -= 1
        elif depth == 0:
            yield from re.findall(r"(?<![\w$\]\)])\.([A-Za-z_]\w*)", action)


def _enclosing_condition(text: str, position: int) -> dict[str, Any] | None:
    """The ``if`` around a position, when it is ``if .Values.P`` or ``if ne .Values.P false``."""
    depth = 0
    for _, action in reversed([a for a in _actions(text) if a[0] < position]):
        word = action.strip().split(" ", 1)[0]
        if word == "end":
            depth += 1
        elif word in ("if", "range", "with", "define"):
            if depth:
                depth -= 1
                continue
            if found := _IF_NOT_FALSE.match(action):
                return {"unless": {"path": found.group(1), "equals": False}}
            if found := _IF_VALUES.match(action):
                return {"when": {"path": found.group(1)}}
            if word == "define":
                return None
    return None


def _defines(templates: dict[str, str]) -> dict[str, tuple[str, int, int]]:
    """Each define's (file, start, end) in the templates."""
    found = {}
    for name, text in templates.items():
        for match in _DEFINE.finditer(text):
            end = text.find("{{- end -}}\n{{", match.end())
            found[match.group(1)] = (name, match.start(), end if end >= 0 else len(text))
    return found


def requirements(templates: dict[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(required, forbidden) values, with the chart's own messages and any condition."""
    defines = _defines(templates)
    required: dict[str, dict[str, Any]] = {}
    forbidden: dict[str, dict[str, Any]] = {}
    for file, text in sorted(templates.items()):
        for match in _FAIL_REQUIRED.finditer(text):
            path = match.group(1)
            entry: dict[str, Any] = {"path": path, "message": f".Values.{path} is required", "template": file}
            define = next((n for n, (f, s, e) in defines.items() if f == file and s < match.start() < e), None)
            if define is not None:
                for other_text in templates.values():
                    for use in _INCLUDE.finditer(other_text):
                        if use.group(1) == define and (condition := _enclosing_condition(other_text, use.start())):
                            entry.update(condition)
            required.setdefault(path, entry)
        for message, path in _REQUIRED.findall(text):
            if " when " not in message:
                required.setdefault(path, {"path": path, "message": message, "template": file})
        for start, action in _actions(text):
            if found := _IF_VALUES.match(action):
                after = text[start : start + 600]
                fail = _FAIL.search(after)
                nested_end = after.find("{{- end }}")
                if fail and (nested_end < 0 or fail.start() < nested_end) and "." not in found.group(1):
                    forbidden.setdefault(
                        found.group(1), {"path": found.group(1), "message": fail.group(1), "template": file}
                    )
    return sorted(required.values(), key=lambda e: e["path"]), sorted(forbidden.values(), key=lambda e: e["path"])


def chart_vocabulary(source: Source, chart: str = CHART) -> dict[str, Any]:
    """The committed file's data for one chart of the checkout."""
    base = f"{CHARTS}/{chart}"
    meta = yaml.safe_load(source.read(f"{base}/Chart.yaml") or "{}")
    values = yaml.safe_load(source.read(f"{base}/values.yaml") or "{}") or {}
    templates = {p.removeprefix(f"{CHARTS}/"): source.read(p) or "" for p in source.files(f"{base}/templates")}
    for dependency in meta.get("dependencies", []):
        repository = str(dependency.get("repository", ""))
        if not repository.startswith("file://"):
            raise SystemExit(f"{chart}: dependency {dependency.get('name')} is not in the checkout ({repository})")
        folder = f"{CHARTS}/{repository.removeprefix('file://../')}"
        alias = dependency.get("alias") or dependency["name"]
        sub = yaml.safe_load(source.read(f"{folder}/values.yaml") or "{}") or {}
        values[alias] = _merged(sub, values.get(alias) or {})
        templates.update(
            {p.removeprefix(f"{CHARTS}/"): source.read(p) or "" for p in source.files(f"{folder}/templates")}
        )
    tree = node_of(values)
    tree["open"] = False
    forbidden_paths = set()
    required, forbidden = requirements(templates)
    forbidden_paths = {e["path"] for e in forbidden}
    reads = [(path, how) for text in templates.values() for path, how in template_reads(text)]
    for path, how in reads:
        if len(path) == 1 and path[0] in forbidden_paths:
            continue  # read only to refuse it
        if how == "whole":
            _open(tree, path)
        elif how.startswith("items:"):
            node = _ensure(tree, path)
            if node["type"] == "array":
                items = node.setdefault("items", {"type": "object", "open": False, "keys": {}})
                if items.get("type") == "object":
                    items["open"] = False
                    items["keys"].setdefault(how.removeprefix("items:"), {"type": "any"})
        else:
            _ensure(tree, path)
    for entry in required:
        _ensure(tree, entry["path"].split("."))
        entry["default"] = _has_default(values, entry["path"].split("."))
    return {
        "format": FORMAT,
        "generated_by": "python -m tools.routerchart",
        "chart": meta.get("name", chart),
        "version": source.ref,
        "reference": f"{PUBLISHED}/{meta.get('name', chart)}",
        "source": {"repository": REPOSITORY, "ref": source.ref, "path": base},
        "schema_file": source.read(f"{base}/values.schema.json") is not None,
        "values": _sorted(tree),
        "required": required,
        "forbidden": forbidden,
    }


def _has_default(values: Any, path: list[str]) -> bool:
    """Whether the chart's values files give the path a value (then a recipe need not)."""
    for name in path:
        if not isinstance(values, dict) or values.get(name) is None:
            return False
        values = values[name]
    return True


def _sorted(node: dict[str, Any]) -> dict[str, Any]:
    out = dict(node)
    if "keys" in out:
        out["keys"] = {k: _sorted(v) for k, v in sorted(out["keys"].items())}
    if "items" in out:
        out["items"] = _sorted(out["items"])
    return out


def _named(pattern: str, what: str) -> Callable[[str], str]:
    """An argument that names a file and a git object: only what such a name holds."""

    def check(text: str) -> str:
        if not re.fullmatch(pattern, text):
            raise argparse.ArgumentTypeError(f"{text[:60]!r} is not {what}")
        return text

    return check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.routerchart", description=__doc__)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--git", type=Path, help="a git directory of llm-d/llm-d-router (bare is fine)")
    where.add_argument("--source", type=Path, help="a work tree of llm-d/llm-d-router at --ref")
    parser.add_argument(
        "--ref",
        required=True,
        type=_named(r"v?[0-9]{1,4}(?:\.[0-9]{1,6}){0,3}(?:-[0-9A-Za-z.]{1,20})?", "a release tag such as v0.10.0"),
        help="the release tag, e.g. v0.10.0 (also the chart's version)",
    )
    parser.add_argument("--chart", default=CHART, type=_named(r"[a-z0-9][a-z0-9-]{0,62}", "a chart name"))
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    source = Source(git=args.git, tree=args.source, ref=args.ref)
    data = chart_vocabulary(source, args.chart)
    output = args.output or DATA_DIR / f"chart-{data['chart']}-{args.ref}.json"
    output.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    shown = output.relative_to(ROOT) if output.is_relative_to(ROOT) else output
    print(
        f"wrote {shown}: {len(data['required'])} required, {len(data['forbidden'])} forbidden value(s)", file=sys.stderr
    )
    return 0
