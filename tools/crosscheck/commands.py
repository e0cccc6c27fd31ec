"""What ``make crosscheck`` asks vLLM, and where each answer goes in the recipes.

Pure: uses the recipe engine (``recipebook``), never vLLM. ``collect`` walks every offered
selection of every recipe (``recipebook.matrix``) and gathers the distinct ``vllm serve``
commands (each role and rank) as argv lists, and the distinct ``VLLM_*`` env values;
``locate`` turns the judge's refusals into the engine's located problems, at the line of
the recipe that wrote the refused text (``FILE:LINE:COL: POINTER: message``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import recipebook
from recipebook import shell
from recipebook.checking import rules, schema
from recipebook.checking.vocabulary import _mappings
from recipebook.problems import Kind, Problem, pointer_join
from recipebook.reading import sharing, source, vocabulary
from recipebook.reading.model import Grid, Recipe, Target
from recipebook.rendering import files

# A placeholder the reader fills in (<POD_IP>) is given to vLLM as a value of its kind: an
# address (a documentation one, RFC 5737) for a host's (<POD_IP>, <HEAD_IP>: the names
# files.value_problem takes for hosts), a port for a port's; any other placeholder as this word.
PLACEHOLDER_SAMPLES = {"POD_IP": "192.0.2.10"}
HOST_SAMPLE, PORT_SAMPLE = "192.0.2.10", "29500"
PLACEHOLDER_DEFAULT = "placeholder"
# The parser names the flag it refuses: "argument --max-model-len: ..."
_ARGUMENT = re.compile(r"argument (-[-\w.]+)")
# Pydantic names each refused field on a line of its own, at the start of the line.
_FIELD_LINE = re.compile(r"^([a-z_][a-z0-9_]*)$", re.MULTILINE)


def _sample(name: str) -> str:
    if name in PLACEHOLDER_SAMPLES:
        return PLACEHOLDER_SAMPLES[name]
    if files.is_host_name(name):
        return HOST_SAMPLE
    return PORT_SAMPLE if files.is_port_name(name) else PLACEHOLDER_DEFAULT


def fill_placeholders(text: str) -> str:
    return shell.PLACEHOLDER.sub(lambda m: _sample(m.group(1)), text)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Use:
    """Where one distinct command (or env value) occurs: a recipe file, target, role and rank."""

    path: str
    target: Target
    role: str
    rank: int | None
    selection: Mapping[str, str]
    node: int | None = None  # a node of a role that spans nodes


@dataclasses.dataclass(frozen=True, kw_only=True)
class Planned:
    """One distinct command for the judge: its argv and env pairs, the lines it came from, its uses."""

    argv: tuple[str, ...]
    arg_lines: tuple[tuple[str, str], ...]  # (key, text) of each argument line
    envs: tuple[tuple[str, str], ...]  # (name, value) with placeholders filled
    uses: list[Use]


@dataclasses.dataclass(kw_only=True)
class Plan:
    commands: dict[tuple, Planned] = dataclasses.field(default_factory=dict)
    env_values: dict[tuple[str, str], list[tuple[Use, str]]] = dataclasses.field(default_factory=dict)
    selections: int = 0
    total_commands: int = 0
    omni: int = 0  # commands vLLM hands to vLLM-Omni (--omni): not vllm serve's to parse
    recipes: list[str] = dataclasses.field(default_factory=list)

    def request(self, vocabulary_file: Path, *, configs: bool = True) -> dict[str, Any]:
        return {
            "vocabulary": str(vocabulary_file),
            "configs": configs,
            "commands": [{"argv": list(c.argv)} for c in self.commands.values()],
            "envs": [list(pair) for pair in self.env_values],
        }


def _argv(model: str, arg_texts: Iterable[str]) -> tuple[str, ...]:
    argv = [fill_placeholders(model)]
    for text in arg_texts:
        argv += [fill_placeholders(word) for word in shell.words(text)]
    return tuple(argv)


def _env_pair(text: str) -> tuple[str, str] | None:
    words = shell.words(text)
    if len(words) != 1 or "=" not in words[0]:
        return None
    name, _, value = words[0].partition("=")
    return name, fill_placeholders(value)


def collect(recipes: Iterable[tuple[str, Recipe]]) -> Plan:
    """Every distinct vllm serve command of every offered selection, and every distinct VLLM_* value."""
    plan = Plan()
    targets = {}
    for path, recipe in recipes:
        plan.recipes.append(path)
        for strategy, target in recipe.targets():
            targets[(path, strategy.slug, target.target)] = target
        for expansion in recipebook.matrix(recipe):
            plan.selections += 1
            target = targets[(path, expansion.strategy, expansion.target)]
            for command in expansion.commands:
                if command.launcher != vocabulary.LAUNCHER:
                    continue
                if any(line.key == vocabulary.OMNI for line in command.arg_lines):
                    plan.omni += 1  # vLLM's vllm command runs vllm_omni's entry point before parsing it
                    continue
                plan.total_commands += 1
                use = Use(
                    path=path,
                    target=target,
                    role=command.role,
                    rank=command.rank,
                    selection=expansion.selection,
                    node=command.node,
                )
                envs = tuple(p for p in (_env_pair(t) for t in command.envs) if p is not None)
                key = (command.model, command.args, envs)
                if key not in plan.commands:
                    plan.commands[key] = Planned(
                        argv=_argv(command.model, command.args),
                        arg_lines=tuple((line.key, line.text) for line in command.arg_lines),
                        envs=envs,
                        uses=[],
                    )
                plan.commands[key].uses.append(use)
                for line in command.env_lines:
                    pair = _env_pair(line.text)
                    if pair is not None and vocabulary._env_family(pair[0]) == "vllm":
                        plan.env_values.setdefault(pair, []).append((use, line.text))
    return plan


# --------------------------------------------------------------------------- locating


def _pointer_of(grid: Grid, kind: str, key: str, text: str, role: str) -> str | None:
    """The pointer of the mapping entry (base, rank or delta of the role) that writes this text."""
    for mapping_kind, pointer, mapping in _mappings(grid):
        if mapping_kind == kind and mapping.get(key) == text and _role_of(grid, pointer) in (role, None):
            return pointer_join(pointer, key)
    return None


def _role_of(grid: Grid, pointer: str) -> str | None:
    for base in grid.base:
        if pointer.startswith(base.ptr + "/"):
            return base.role
    for per_role in grid.deltas.values():
        for name, delta in per_role.items():
            if pointer.startswith(delta.ptr + "/"):
                return name
    return None


def _role_pointer(grid: Grid, role: str) -> str:
    return next((r.ptr for r in grid.base if r.role == role), grid.ptr)


def _line_for(planned: Planned, flag: str) -> tuple[str, str] | None:
    """The argument line whose flag is ``flag`` (or an alias of it, or its --no- form)."""
    wanted = vocabulary.pinned().options.get(flag, flag)
    for key, text in planned.arg_lines:
        canonical = vocabulary.pinned().options.get(key, key)
        if canonical == wanted or key == flag:
            return key, text
    return None


def _field_flags(error: str) -> list[str]:
    """The flags of the fields a pydantic error names (``max_num_batched_tokens`` is --max-num-batched-tokens)."""
    return ["--" + name.replace("_", "-") for name in _FIELD_LINE.findall(error)]


def _describe(use: Use, count: int) -> str:
    chosen = ", ".join(f"{axis}={value}" for axis, value in use.selection.items())
    rank = f" on node {use.node}" if use.node is not None else "" if use.rank is None else f" rank {use.rank}"
    more = f", and {count - 1} more command(s)" if count > 1 else ""
    return f"{use.role}{rank} of selection {chosen or '(base)'}{more}"


class Locator:
    """Problems at the place of each recipe that wrote what vLLM refused."""

    def __init__(self, release: str) -> None:
        self.release = release
        self.documents: dict[str, source.Document] = {}

    def document(self, path: str) -> source.Document:
        if path not in self.documents:
            document, problems = source.read(path)
            if document is None:
                raise SystemExit("\n".join(map(str, problems)))
            self.documents[path] = sharing.resolve(document)[0]  # a shared grid's value where it was written
        return self.documents[path]

    def command_refusals(self, planned: Planned, answer: Mapping[str, Any]) -> Iterator[tuple[str, str, str, Use]]:
        """(path, pointer, message, use) of each refusal of one distinct command, at the line that wrote it."""
        refusals = []
        if answer.get("error"):
            found = _ARGUMENT.search(answer["error"])
            refusals.append(([found.group(1)] if found else [], f"vLLM's parser refuses it: {answer['error']}"))
        for built in answer.get("configs", ()):
            if built.get("error"):
                error = " ".join(re.split(r"\n\s*For further information", built["error"])[0].split())
                refusals.append((_field_flags(built["error"]), f"{built['config']} refuses it: {error}"))
        for use in planned.uses:
            grid = use.target.grid
            for flags, message in refusals:
                line = next((found for f in flags if (found := _line_for(planned, f))), None)
                pointer = None if line is None else _pointer_of(grid, "args", line[0], line[1], use.role)
                yield use.path, pointer or _role_pointer(grid, use.role), message, use

    def env_refusals(
        self, pair: tuple[str, str], uses: list[tuple[Use, str]], answer: Mapping[str, Any]
    ) -> Iterator[tuple[str, str, str, Use]]:
        name, value = pair
        if answer.get("known") and not answer.get("error"):
            return
        if not answer.get("known"):
            message = (
                f"{name} is not an environment variable that vLLM or vllm-rbln defines (vllm.envs, vllm_rbln.envs)"
            )
        else:
            message = f"{name}={value!r}: vLLM's getter refuses it: {answer['error']}"
        for use, text in uses:
            pointer = _pointer_of(use.target.grid, "envs", name, text, use.role)
            yield use.path, pointer or _role_pointer(use.target.grid, use.role), message, use


def located(plan: Plan, answer: Mapping[str, Any], release: str) -> list[Problem]:
    """Every refusal in the judge's answer, once per place and message, located in the recipes
    (with the first selection that shows it and how many more do), sorted."""
    locator = Locator(release)
    found: dict[tuple[str, str, str], list[Use]] = {}
    refusals = [
        *(
            r
            for p, v in zip(plan.commands.values(), answer["commands"], strict=True)
            for r in locator.command_refusals(p, v)
        ),
        *(
            r
            for (pair, uses), v in zip(plan.env_values.items(), answer["envs"], strict=True)
            for r in locator.env_refusals(pair, uses, v)
        ),
    ]
    for path, pointer, message, use in refusals:
        found.setdefault((path, pointer, message), []).append(use)
    problems = [
        locator.document(path).problem(
            pointer, f"{message} ({release}; {_describe(uses[0], len(uses))})", kind=Kind.VOCABULARY
        )
        for (path, pointer, message), uses in found.items()
    ]
    return sorted(problems)


def load_recipes(paths: Iterable[Path]) -> tuple[list[tuple[str, Recipe]], list[Problem]]:
    """The recipes that match the schema and keep the rules, and the problems of the others.

    The offline vocabulary check is left out on purpose: vLLM judges the commands on its own,
    so a value both refuse is reported by both (make validate, make crosscheck)."""
    recipes, problems = [], []
    for path in paths:
        document, found = source.read(path)
        if document is not None and not found:
            found = schema.check(document)
        if document is not None and not found:
            document, found = sharing.resolve(document)
        if document is None or found:
            problems += found
            continue
        recipe = Recipe.from_json(document.data, str(path))
        found = list(rules.check(recipe, document))
        problems += found
        if not found:
            recipes.append((str(path), recipe))
    return recipes, sorted(problems)
