"""Shared helpers for the recipe engine tests (not a test module itself).

The engine's tests run on recipes of their own, ``tests/data/recipes/`` (``FIXTURES``, also
``RECIPES``): the two shipped recipes as they were when the tests were written, changed only
when what a recipe must hold changes. An edit to ``recipes/`` (a new recipe, a corrected value)
is judged by the tests of the site and of the shipped data, which read ``SHIPPED``; it never
moves an engine rule's test.

``dump`` writes JSON exactly as the recipes are formatted (two-space indent,
one key per line) and records, independently of the engine's reader, the line and
column where each value and each key starts. The rule tests write mutated recipes
with it and check that a problem points where the writer says the offending value is.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import recipebook
from recipebook import cli
from recipebook.checking import manifests
from recipebook.expanding.expansion import by_role, walkable
from recipebook.expanding.page import grid_table
from recipebook.expanding.table import Table
from recipebook.problems import Kind, Problem
from recipebook.reading.model import Recipe, Strategy, Target
from recipebook.rendering import kubernetes as k8s

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "data" / "recipes"  # the engine tests' own recipes
RECIPES = FIXTURES
SHIPPED = REPO / "recipes"  # the project's recipes: what the site is built from
GPT_NAME, AXK2_NAME = "gpt-oss-120b", "A.X-K2"
NAMES = (GPT_NAME, AXK2_NAME)  # the fixtures' names


def in_process(capsys: Any, *args: object, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``python -m recipebook ARGS`` from ``cwd`` as its ``main`` runs it in this process, what it
    prints read with pytest's ``capsys``: its exit status (``main``'s return, or the status it
    exits with: a usage error's 2), stdout and stderr. For a test of what a command says; the
    process itself (its exit status as the shell sees it, no traceback on a real stderr) is
    proved by the real runs each command keeps, one per exit status (tests/engine/test_cli.py
    and the tests of each command)."""
    argv = [str(arg) for arg in args]
    capsys.readouterr()
    with contextlib.chdir(cwd):
        try:
            status = cli.main(argv)
        except SystemExit as exit:
            assert isinstance(exit.code, int), exit.code  # argparse exits with a status, having said why
            status = exit.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["python", "-m", "recipebook", *argv], status, out, err)


def recipe_names(folder: Path = SHIPPED) -> list[str]:
    """Every recipe in a folder (a recipe's file is named after it), sorted by file name: by
    default the shipped ones, whose pages the site has."""
    return sorted(p.stem for p in folder.glob("*.json") if p.name != "schema.json")


@functools.cache
def _fixture(name: str) -> str:
    return (FIXTURES / f"{name}.json").read_text(encoding="utf-8")


def fixture(name: str) -> Any:
    """A fresh copy of a fixture recipe's JSON data."""
    return json.loads(_fixture(name))


def fixture_text(name: str) -> str:
    return _fixture(name)


def escape(token: object) -> str:
    """One JSON-pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def ptr(*parts: object) -> str:
    return "".join("/" + escape(p) for p in parts)


@dataclasses.dataclass
class Dumped:
    text: str
    values: dict[str, tuple[int, int]]
    keys: dict[str, tuple[int, int]]


def dump(data: Any) -> Dumped:
    """JSON text with indent 2 (as json.dumps writes it), with the position of every value and key."""
    chunks: list[str] = []
    values: dict[str, tuple[int, int]] = {}
    keys: dict[str, tuple[int, int]] = {}
    line, column = 1, 1

    def emit(text: str) -> None:
        nonlocal line, column
        chunks.append(text)
        newlines = text.count("\n")
        if newlines:
            line += newlines
            column = len(text) - text.rindex("\n")
        else:
            column += len(text)

    def value(item: Any, pointer: str, depth: int) -> None:
        values[pointer] = (line, column)
        pad, inner = "  " * depth, "  " * (depth + 1)
        if isinstance(item, dict) and item:
            emit("{")
            for n, (key, child) in enumerate(item.items()):
                emit(("," if n else "") + "\n" + inner)
                keys[pointer + "/" + escape(key)] = (line, column)
                emit(json.dumps(key, ensure_ascii=False) + ": ")
                value(child, pointer + "/" + escape(key), depth + 1)
            emit("\n" + pad + "}")
        elif isinstance(item, list) and item:
            emit("[")
            for n, child in enumerate(item):
                emit(("," if n else "") + "\n" + inner)
                value(child, f"{pointer}/{n}", depth + 1)
            emit("\n" + pad + "]")
        else:
            emit(json.dumps(item, ensure_ascii=False))

    value(data, "", 0)
    emit("\n")
    return Dumped(text="".join(chunks), values=values, keys=keys)


@dataclasses.dataclass
class Checked:
    """A recipe written to disk and checked: where things are, and what the engine said."""

    path: Path
    dumped: Dumped
    recipe: recipebook.Recipe | None
    problems: list[Problem]

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        return (self.dumped.keys if key else self.dumped.values)[pointer]

    def expect(self, pointer: str, fragment: str, *, key: bool = False) -> Problem:
        """The problem at a pointer whose message holds a fragment, located at that value's
        (or key's) line and column in the written file."""
        listing = "\n".join(map(str, self.problems)) or "(no problems)"
        matches = [p for p in self.problems if p.pointer == pointer and fragment in p.message]
        assert matches, f"no problem at {pointer} with {fragment!r}; found:\n{listing}"
        found = matches[0]
        assert found.file == str(self.path)
        assert (found.line, found.column) == self.position(pointer, key=key), f"{found} is not at the expected place"
        return found

    @property
    def ours(self) -> list[Problem]:
        """The problems of the JSON reader, the schema and the rules (the vocabulary of vllm
        flags is checked, and tested, separately)."""
        return [p for p in self.problems if p.kind is not Kind.VOCABULARY]

    def expect_only(self, pointer: str, fragment: str, *, key: bool = False) -> Problem:
        found = self.expect(pointer, fragment, key=key)
        assert self.ours == [found], "\n".join(map(str, self.problems))
        assert self.recipe is None
        return found


def write(directory: Path, data: Any, file_name: str | None = None) -> tuple[Path, Dumped]:
    dumped = dump(data)
    path = directory / (file_name or f"{data['name']}.json")
    path.write_text(dumped.text, encoding="utf-8")
    return path, dumped


def check_mutated(
    directory: Path, name: str, mutate: Callable[[Any], object], *, file_name: str | None = None
) -> Checked:
    """Load a fixture recipe, change it, write it as <name>.json and check it with the engine."""
    data = copy.deepcopy(fixture(name))
    mutate(data)
    path, dumped = write(directory, data, file_name)
    recipe, problems = recipebook.check_file(path)
    return Checked(path=path, dumped=dumped, recipe=recipe, problems=problems)


# -- rules 19 and 28: what planning each selection afresh finds -----------------------------


def findings_planned_afresh(recipe: Recipe, strategy: Strategy, target: Target) -> tuple[Any, Any]:
    """What rules 19 and 28 find of a target when each selection's roles are planned afresh from
    all its commands (before a role's plan key was made once per set of the lines its plan reads,
    ``kubernetes.plan_lines``): the reference ``manifests._findings_of_target`` must equal."""
    steps = tuple(step.cmd for step in target.grid.router)
    lines, _wrong = grid_table(target.grid)
    where = manifests._where(recipe, strategy, target)
    nodes = manifests._nodes(strategy, target)
    router = k8s.router_of(steps)
    found: dict[Any, Any] = {}
    good: dict[Any, Any] = {}
    for chosen in lines.offered:
        roles = by_role(lines.commands(chosen))
        role_plans = k8s.plans(roles, nodes, router)
        key = tuple(k8s.plan_key(p) for p in role_plans)
        manifests.record(found, good, key, where, roles, role_plans, router)
    return tuple(found.values()), manifests.semantic_problems(good.values(), where, nodes, steps)


def variants_planned_afresh(where: k8s.Where, table: Table, nodes: Any, router_steps: Any) -> Any:
    """A target's skeleton files in each mode with the selections that share them, each
    selection planned afresh from all its commands (``kubernetes.variants`` as it was before
    ``selection_keys``; the files of each key written as it writes them, ``skeleton_sets``): the
    reference it must equal."""
    router = k8s.router_of(router_steps)
    bits: dict[Any, int] = {}
    first: dict[Any, Any] = {}
    for bit, chosen in enumerate(table.offered):
        commands = table.commands(chosen)
        key = tuple(k8s.plan_key(p) for p in k8s.plans(by_role(commands), nodes, router))
        bits[key] = bits.get(key, 0) | 1 << bit
        first.setdefault(key, commands)
    return k8s.skeleton_sets(where, bits, first, nodes, router_steps)


def variants_or_refusal(variants: Callable[..., Any], *args: Any) -> Any:
    """What a function of a target's skeletons gives, or the findings it refuses them with."""
    try:
        return variants(*args)
    except k8s.KubernetesError as refused:
        return refused.findings


def plan_classes(recipe: Recipe, *, every: bool = False) -> tuple[int, int]:
    """Each role's selections of every target of a recipe grouped by the lines its plan reads
    that they show (``kubernetes.plan_lines``): the first and the last selection of each group
    (with ``every``, each one) are planned from all their commands and must give one plan key
    (asserted). Returns how many groups joined selections that show different lines, and how
    many groups there were."""
    joined = groups = 0
    for strategy in recipe.strategies:
        for target in strategy.targets:
            if not walkable(target.grid):
                continue
            lines, _wrong = grid_table(target.grid)
            nodes = manifests._nodes(strategy, target)
            router = k8s.router_of(tuple(step.cmd for step in target.grid.router))
            for table in lines.roles:
                env_reads, arg_reads = k8s.plan_lines(table)
                grouped: dict[tuple[int, int], list[tuple[int, ...]]] = {}
                for chosen in lines.offered:
                    env_shown, arg_shown = table.shown(chosen)
                    grouped.setdefault((env_shown & env_reads, arg_shown & arg_reads), []).append(chosen)
                for members in grouped.values():
                    planned = members if every else [members[0], members[-1]]
                    keys = {k8s.plan_key(k8s.planned_role(table, chosen, nodes, router)[1]) for chosen in planned}
                    assert len(keys) == 1, (strategy.slug, target.target, table.role, planned)
                    joined += len({table.shown(chosen) for chosen in planned}) > 1
                groups += len(grouped)
    return joined, groups
