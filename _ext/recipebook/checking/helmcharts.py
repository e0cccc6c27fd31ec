"""Router steps judged by the chart they install: the chart vocabularies of ``data/chart-*.json``.

A recipe's router (``grid.router.nodes[].cmd``) writes a values file with a here-document
(``cat > router-values.yaml <<'EOF' ... EOF``) and installs a chart with it (``helm install
NAME CHART --version V --values FILE``). Helm itself checks nothing of the values when the
chart has no ``values.schema.json``: a key the chart does not read is dropped silently, and a
missing required one stops the install only on the cluster. So each Helm step is checked
against the vocabulary of the chart, written by ``tools/routerchart`` from the chart's source:

* the chart reference resolves: it is the chart's published reference (``oci://...``), not a
  bare name that names no repository, and ``--version`` is the release the vocabulary is of;
* every key of each values file (and of each ``--set``) is one the chart reads, with a "did
  you mean" that names the chart's key (``inference_pool.failure_mode`` is
  ``router.inferencePool.failureMode``); a key whose presence fails the install is refused with
  the chart's own message;
* every required value is given (or has the chart's default), unless its condition is off;
* each value has the type of the chart's default (a list where the chart has a list, an
  integer where it has one, ...).

Findings carry the step and the character of its text where they are, so the problem points
at the very key inside the recipe's JSON string (``Document.problem_inside``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from .. import shell
from ..memo import remembered
from ..reading.source import line_starts

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
# the C parser when PyYAML has it (the same documents and marks, several times faster)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_HELM = re.compile(r"\bhelm\s+(?P<verb>install|upgrade|template)\b")
_WORD = re.compile(r"\\\n|'[^']*'|\"(?:[^\"\\]|\\.)*\"|[^\s;&|]+")
# helm install/upgrade/template options that take a value (the rest are switches)
_VALUED = frozenset(
    {
        "--version",
        "--values",
        "-f",
        "--set",
        "--set-string",
        "--set-json",
        "--set-file",
        "--set-literal",
        "--namespace",
        "-n",
        "--repo",
        "--timeout",
        "--kube-context",
        "--kubeconfig",
        "--description",
        "--post-renderer",
        "--post-renderer-args",
        "--username",
        "--password",
        "--ca-file",
        "--cert-file",
        "--key-file",
        "--output",
        "-o",
        "--name-template",
        "--api-versions",
        "-a",
        "--kube-version",
        "--show-only",
        "-s",
        "--output-dir",
        "--wait-for-jobs",
    }
)
_TYPE_WORDS = {
    "object": "a map",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
}
_YAML_KINDS = {
    "tag:yaml.org,2002:str": "string",
    "tag:yaml.org,2002:int": "integer",
    "tag:yaml.org,2002:float": "number",
    "tag:yaml.org,2002:bool": "boolean",
    "tag:yaml.org,2002:null": "null",
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Chart:
    """One chart's vocabulary: what it is published as, and the values it reads."""

    name: str
    version: str
    reference: str
    values: Mapping[str, Any]
    required: tuple[Mapping[str, Any], ...]
    forbidden: Mapping[str, str]
    schema_file: bool

    @classmethod
    def read(cls, path: Path) -> Chart:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            name=data["chart"],
            version=data["version"],
            reference=data["reference"],
            values=data["values"],
            required=tuple(data["required"]),
            forbidden={e["path"]: e["message"] for e in data["forbidden"]},
            schema_file=data["schema_file"],
        )

    @property
    def label(self) -> str:
        return f"chart {self.name} {self.version}"

    def node(self, path: Sequence[str]) -> Mapping[str, Any] | None:
        node: Mapping[str, Any] | None = self.values
        for name in path:
            if node is None or node.get("type") != "object":
                return None
            node = node.get("keys", {}).get(name)
        return node

    @functools.cached_property
    def paths(self) -> tuple[tuple[str, ...], ...]:
        """Every path of the values tree, for suggestions."""
        found: list[tuple[str, ...]] = []

        def walk(node: Mapping[str, Any], path: tuple[str, ...]) -> None:
            for key, child in node.get("keys", {}).items():
                found.append((*path, key))
                walk(child, (*path, key))

        walk(self.values, ())
        return tuple(found)


@remembered(maxsize=None)
def charts() -> Mapping[str, Chart]:
    """The chart vocabularies, by chart name."""
    found = [Chart.read(p) for p in sorted(DATA_DIR.glob("chart-*.json"))]
    return {c.name: c for c in found}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Finding:
    """A problem in one router step: the step's index and the character of its text it is at."""

    step: int
    index: int
    message: str


def _normal(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _words(text: str, start: int) -> list[tuple[str, int]]:
    """The words of a helm command from ``start`` (quotes removed, continuations dropped) and where each starts."""
    words = []
    for match in _WORD.finditer(text, start):
        word = match.group(0)
        if word == "\\\n":
            continue
        if word[0] in "'\"" and word[-1] == word[0] and len(word) > 1:
            word = word[1:-1]
        words.append((word, match.start()))
        if match.end() < len(text) and text[match.end()] in ";&|\n" and not text.startswith("\\\n", match.end()):
            break
    return words


class _Checker:
    def __init__(self, chart: Chart, values: shell.HereDocument, file_name: str, findings: list[Finding]) -> None:
        self.chart, self.file, self.file_name, self.findings = chart, values, file_name, findings
        self.starts = line_starts(values.text)
        self.set_paths: set[tuple[str, ...]] = set()

    def at(self, node: yaml.Node) -> int:
        return self.file.start + self.starts[node.start_mark.line] + node.start_mark.column

    def report(self, node: yaml.Node, message: str) -> None:
        self.findings.append(Finding(step=self.file.step, index=self.at(node), message=message))

    def suggestion(self, path: tuple[str, ...], near: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The chart's path a misplaced or misspelt key most likely meant."""
        leaf = _normal(path[-1])
        same = [p for p in self.chart.paths if _normal(p[-1]) == leaf]
        if near is not None:
            close = [p for p in same if p[: len(near)] == near]
            same = close or same
        if same:
            return min(same, key=lambda p: (len(p), p))
        if near is not None or len(path) == 1:
            parent = near if near is not None else ()
            siblings = [p[-1] for p in self.chart.paths if p[:-1] == parent]
            closest = difflib.get_close_matches(path[-1], siblings, n=1, cutoff=0.75)
            if closest:
                return (*parent, closest[0])
        return None

    def walk(self, node: yaml.Node, path: tuple[str, ...], expected: Mapping[str, Any] | None) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = str(key_node.value)
                child = (*path, key)
                self.set_paths.add(child)
                self.key(key_node, value_node, child, expected)
        elif isinstance(node, yaml.SequenceNode) and expected is not None:
            items = expected.get("items")
            for item in node.value:
                self.check_type(item, path, items)
                if items is not None and items.get("type") == "object" and not items.get("open"):
                    self.walk(item, path, items)

    def key(
        self, key_node: yaml.Node, value_node: yaml.Node, path: tuple[str, ...], parent: Mapping[str, Any] | None
    ) -> None:
        if len(path) == 1 and path[0] in self.chart.forbidden:
            message = f"{path[0]!r} fails the install of the {self.chart.label}: {self.chart.forbidden[path[0]]}"
            self.report(key_node, self.where(key_node) + message)
            return
        if parent is None or parent.get("type") != "object":
            return  # inside a value the chart passes on as it is
        keys = parent.get("keys", {})
        if path[-1] not in keys:
            if not parent.get("open"):
                self.unknown(key_node, value_node, path)
            return
        known = keys[path[-1]]
        self.check_type(value_node, path, known)
        if known.get("type") in ("object", "array"):
            self.walk(value_node, path, known)

    def where(self, node: yaml.Node) -> str:
        return f"{self.file_name} line {node.start_mark.line + 1}: "

    def unknown(self, key_node: yaml.Node, value_node: yaml.Node, path: tuple[str, ...]) -> None:
        near = self.suggestion(path, path[:-1] if self.chart.node(path[:-1]) is not None else None)
        reads = ", ".join(sorted((self.chart.node(path[:-1]) or {}).get("keys", {}))) or "nothing below it"
        parent = ".".join(path[:-1]) or "the top level"
        hint = f"; did you mean {'.'.join(near)!r}?" if near else f"; at {parent} it reads: {reads}"
        silently = (
            "" if self.chart.schema_file else " (it has no values.schema.json, so helm drops an unknown key silently)"
        )
        self.report(
            key_node,
            f"{self.where(key_node)}{'.'.join(path)!r} is not a value the {self.chart.label} reads{silently}{hint}",
        )
        if isinstance(value_node, yaml.MappingNode):
            self.below(value_node, path, near)

    def below(self, node: yaml.MappingNode, path: tuple[str, ...], near: tuple[str, ...] | None) -> None:
        """Keys under an unknown key: each one the chart reads elsewhere is named (where it goes)."""
        for key_node, value_node in node.value:
            child = (*path, str(key_node.value))
            found = self.suggestion(child, near)
            if found is not None and _normal(found[-1]) == _normal(child[-1]):
                self.report(
                    key_node,
                    f"{self.where(key_node)}{'.'.join(child)!r} is not read by the {self.chart.label} either; "
                    f"did you mean {'.'.join(found)!r}?",
                )
                if isinstance(value_node, yaml.MappingNode):
                    self.below(value_node, child, found)
            elif isinstance(value_node, yaml.MappingNode):
                self.below(value_node, child, near)

    def check_type(self, node: yaml.Node, path: tuple[str, ...], expected: Mapping[str, Any] | None) -> None:
        if expected is None:
            return
        want = expected.get("type", "any")
        if want == "any":
            return
        if isinstance(node, yaml.MappingNode):
            got = "object"
        elif isinstance(node, yaml.SequenceNode):
            got = "array"
        else:
            got = _YAML_KINDS.get(node.tag, "string")
        if got == "null" or got == want or (want == "number" and got == "integer"):
            return
        shown = "" if got in ("object", "array") else f" {node.value!r}"
        self.report(
            node,
            f"{self.where(node)}{'.'.join(path)!r} takes {_TYPE_WORDS[want]} in the {self.chart.label}, "
            f"got {_TYPE_WORDS.get(got, got)}{shown}",
        )


def _chart_for(reference: str) -> tuple[Chart | None, str | None]:
    """The chart a reference names, or the reason it resolves to none."""
    known = charts()
    for chart in known.values():
        if reference == chart.reference:
            return chart, None
    name = reference.rstrip("/").rsplit("/", 1)[-1]
    if name in known:
        chart = known[name]
        if "/" not in reference:
            why = f"{reference!r} names no repository the reader has added; write {chart.reference!r}"
        else:
            why = f"{reference!r} is not where {chart.name} is published; write {chart.reference!r}"
        return chart, why
    references = [c.reference for c in known.values()]
    close = difflib.get_close_matches(reference, references, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(references)}"
    return None, f"{reference!r} is not a chart the router vocabulary knows{hint}"


def _installs(steps: Sequence[str]) -> Iterator[tuple[int, list[tuple[str, int]]]]:
    for i, cmd in enumerate(steps):
        for match in _HELM.finditer(cmd):
            yield i, _words(cmd, match.start())


def _parse_install(words: list[tuple[str, int]]) -> tuple[list[tuple[str, int]], dict[str, list[tuple[str, int]]]]:
    """(positional words after the verb, option values) of ``helm install|upgrade|template ...``."""
    positional: list[tuple[str, int]] = []
    options: dict[str, list[tuple[str, int]]] = {}
    rest = words[2:]
    i = 0
    while i < len(rest):
        word, at = rest[i]
        if word.startswith("-"):
            name, eq, value = word.partition("=")
            if eq:
                options.setdefault(name, []).append((value, at + len(name) + 1))
            elif name in _VALUED and i + 1 < len(rest):
                options.setdefault(name, []).append(rest[i + 1])
                i += 1
            else:
                options.setdefault(name, []).append(("", at))
        else:
            positional.append((word, at))
        i += 1
    return positional, options


def check_steps(steps: Sequence[str]) -> list[Finding]:
    """Every finding of a router's steps (their ``cmd`` texts, in order)."""
    findings: list[Finding] = []
    files = shell.here_documents(steps)
    for step, words in _installs(steps):
        verb = words[1][0]
        positional, options = _parse_install(words)
        if verb == "template" and len(positional) == 1:
            positional = [("", words[1][1]), *positional]
        if len(positional) < 2:
            findings.append(
                Finding(step=step, index=words[0][1], message=f"helm {verb} needs a release name and a chart")
            )
            continue
        reference, at = positional[1]
        chart, why = _chart_for(reference)
        if why:
            findings.append(Finding(step=step, index=at, message=why))
        if chart is None:
            continue
        versions = options.get("--version", [])
        if not versions:
            findings.append(
                Finding(
                    step=step,
                    index=at,
                    message=f"helm {verb} without --version takes the newest chart; pin --version {chart.version}, the release the vocabulary is of",
                )
            )
        elif versions[-1][0] != chart.version:
            findings.append(
                Finding(
                    step=step,
                    index=versions[-1][1],
                    message=f"--version {versions[-1][0]}: the router vocabulary is of {chart.label}; check the values against that release (make routerchart) or write {chart.version}",
                )
            )
        given: set[tuple[str, ...]] = set()
        merged: dict[tuple[str, ...], Any] = {}
        for name in ("--values", "-f"):
            for file_name, file_at in options.get(name, []):
                values = files.get(file_name)
                if values is None:
                    findings.append(
                        Finding(
                            step=step,
                            index=file_at,
                            message=f"{file_name!r} is not written by a step before it (cat > {file_name} <<'EOF'), so its values cannot be checked against the {chart.label}",
                        )
                    )
                    continue
                given |= _check_values(chart, values, file_name, findings, merged)
        for name in ("--set", "--set-string"):
            for assignment, set_at in options.get(name, []):
                for part in assignment.split(","):
                    key, _, value = part.partition("=")
                    path = tuple(key.split("."))
                    given.add(path)
                    merged[path] = value
                    if chart.node(path) is None and not _under_open(chart, path):
                        findings.append(
                            Finding(
                                step=step,
                                index=set_at,
                                message=f"--set {key}: {key!r} is not a value the {chart.label} reads",
                            )
                        )
        for entry in chart.required:
            path = tuple(entry["path"].split("."))
            unless = entry.get("unless")
            if unless and merged.get(tuple(unless["path"].split("."))) == unless["equals"]:
                continue
            if entry.get("default") or any(p[: len(path)] == path for p in given):
                continue
            findings.append(
                Finding(
                    step=step,
                    index=at,
                    message=f"{entry['path']} is required by the {chart.label} and no values file or --set gives it: the install fails with {entry['message']!r}",
                )
            )
    return findings


def _under_open(chart: Chart, path: tuple[str, ...]) -> bool:
    for i in range(len(path)):
        node = chart.node(path[:i])
        if node is not None and node.get("type") == "object" and node.get("open"):
            return True
    return False


def _check_values(
    chart: Chart,
    values: shell.HereDocument,
    file_name: str,
    findings: list[Finding],
    merged: dict[tuple[str, ...], Any],
) -> set[tuple[str, ...]]:
    """The paths a values file sets (checking each), its scalars laid into ``merged``."""
    checker = _Checker(chart, values, file_name, findings)
    loader = _LOADER(values.text)  # a safe loader: plain data only; the text is parsed once
    try:
        try:
            root = loader.get_single_node()
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            index = values.start + (checker.starts[mark.line] + mark.column if mark else 0)
            findings.append(Finding(step=values.step, index=index, message=f"{file_name} is not YAML: {error}"))
            return set()
        if root is None:
            return set()
        if not isinstance(root, yaml.MappingNode):
            checker.report(root, f"{file_name} holds no map of values")
            return set()
        checker.walk(root, (), chart.values)
        data = loader.construct_document(root) or {}
    finally:
        loader.dispose()

    def lay(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                lay(child, (*path, str(key)))
        else:
            merged[path] = node

    lay(data, ())
    return checker.set_paths
