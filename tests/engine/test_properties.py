"""Properties checked on random input with hypothesis.

Expansion: for a random offered selection of a random (strategy, target), a deleted key
never appears, an added key always does, untouched base keys keep their text and order,
and the ranks of a role differ in exactly its ``varies`` keys. Defaults: unspecified axes
take the recommended value, or the neutral one. Robustness: random JSON, and random
mutations of the shipped recipes, only ever produce located problems. Shell: a text the
rules accept splits in bash exactly as shlex splits it.
"""

from __future__ import annotations

import copy
import json
import math
import shlex
import subprocess
from functools import cache
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import NAMES, RECIPES, fixture
from recipebook import shell
from recipebook.checking import inline
from recipebook.checking.rules import text_error
from recipebook.expanding import table
from recipebook.expanding.expansion import find, is_excluded, reference_role
from recipebook.problems import Problem
from recipebook.reading.model import Grid

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def recipe(name: str) -> recipebook.Recipe:
    return recipebook.load(RECIPES / f"{name}.json")


@cache
def data(name: str) -> dict:
    return fixture(name)


TARGETS = [(name, s, t) for name in NAMES for s in data(name)["strategies"] for t in s["options"]]


def arg_key(text: str) -> str:
    return shlex.split(text)[0].split("=", 1)[0]


def env_key(text: str) -> str:
    return text.split("=", 1)[0]


@st.composite
def selections(draw):
    """A recipe, its JSON grid, and a random offered selection of one of its targets."""
    name, strategy, target = draw(st.sampled_from(TARGETS))
    grid = target["grid"]
    axes = {**grid["modes"], **grid["options"]}
    selection = {axis: draw(st.sampled_from(values)) for axis, values in axes.items()}
    assume(not any(all(selection.get(a) == v for a, v in entry.items()) for entry in grid["excluded"]))
    return name, strategy["slug"], target["target"], grid, selection


@SETTINGS
@given(selections())
def test_expansion_applies_exactly_the_selected_deltas(case):
    name, slug, target, grid, selection = case
    expansion = recipebook.expand(recipe(name), slug, target, selection)
    assert dict(expansion.selection) == selection
    assert expansion.recommended == (grid["recommended"] == selection)
    for role in grid["base"]:
        commands = [c for c in expansion.commands if c.role == role["role"]]
        assert len(commands) == (len(role["ranks"]) if role["ranks"] else 1)
        deltas = [grid["deltas"].get(f"{a}={v}", {}).get(role["role"]) for a, v in selection.items()]
        deltas = [d for d in deltas if d]
        for command in commands:
            args = {arg_key(t): t for t in command.args}
            envs = {env_key(t): t for t in command.envs}
            assert len(args) == len(command.args) and len(envs) == len(command.envs)  # no key twice
            touched_args, touched_envs = set(), set()
            for delta in deltas:
                for key in delta["del_args"]:
                    assert key not in args  # a deleted key never appears
                for key in delta["del_envs"]:
                    assert key not in envs
                for key, text in delta["add_args"].items():
                    assert args[key] == text  # an added key always does, with its text
                for key, text in delta["add_envs"].items():
                    assert envs[key] == text
                touched_args |= {*delta["del_args"], *delta["add_args"]}
                touched_envs |= {*delta["del_envs"], *delta["add_envs"]}
            # untouched base keys keep their text, in the base order, before anything appended
            kept = [t for k, t in role["args"].items() if k not in touched_args]
            assert [t for t in command.args if t in kept] == kept
            for key, text in role["envs"].items():
                if key not in touched_envs:
                    assert envs[key] == text
            if command.rank is not None:
                rank = role["ranks"][command.rank]
                for key, text in rank["args"].items():
                    assert args[key] == text
                    assert command.args.index(text) >= len(command.args) - len(rank["args"])
                for key, text in rank["envs"].items():
                    assert envs[key] == text


@SETTINGS
@given(selections())
def test_ranks_differ_in_exactly_their_varies_keys(case):
    name, slug, target, grid, selection = case
    expansion = recipebook.expand(recipe(name), slug, target, selection)
    for role in grid["base"]:
        if not role["ranks"]:
            continue
        commands = [c for c in expansion.commands if c.role == role["role"]]
        texts: dict[str, set] = {}
        keys = {arg_key(t) for c in commands for t in c.args} | {env_key(t) for c in commands for t in c.envs}
        for command in commands:
            present = {arg_key(t): t for t in command.args} | {env_key(t): t for t in command.envs}
            for key in keys:
                texts.setdefault(key, set()).add(present.get(key))
        differing = {key for key, seen in texts.items() if len(seen) > 1}
        assert differing == set(role["varies"])
        # with the varies keys taken out, the ranks are one command
        stripped = {
            (
                tuple(t for t in c.envs if env_key(t) not in differing),
                tuple(t for t in c.args if arg_key(t) not in differing),
            )
            for c in commands
        }
        assert len(stripped) == 1


def neutral(grid: dict, axis: str) -> str:
    if axis in grid["options"]:
        return grid["option_base"][axis]
    for value in grid["modes"][axis]:
        per_role = grid["deltas"].get(f"{axis}={value}", {})
        if all(not any(d.values()) for d in per_role.values()):
            return value
    raise AssertionError(f"no neutral value for {axis}")


@SETTINGS
@given(selections(), st.data())
def test_unspecified_axes_take_the_default(case, draw):
    name, slug, target, grid, selection = case
    given_axes = draw.draw(st.lists(st.sampled_from(list(selection)), unique=True))
    partial = {axis: selection[axis] for axis in given_axes}
    _, target_model = find(recipe(name), slug, target)
    resolved = recipebook.resolve(target_model.grid, partial)
    assert list(resolved) == [*grid["modes"], *grid["options"]]
    for axis, value in resolved.items():
        if axis in partial:
            assert value == partial[axis]
        elif grid["recommended"] is not None:
            assert value == grid["recommended"][axis]
        else:
            assert value == neutral(grid, axis)


def test_every_offered_selection_is_counted_once():
    for name in NAMES:
        for _, target in recipe(name).targets():
            offered = list(recipebook.offered(target.grid))
            assert len(offered) == math.prod(len(v) for v in target.grid.axes.values())
            assert len({tuple(s.items()) for s in offered}) == len(offered)
            assert not any(is_excluded(target.grid, s) for s in offered)


# Robustness: whatever the file holds, check_file reports located problems and never raises.

SCHEMA_WORDS = [
    "name", "model", "strategies", "options", "grid", "base", "args", "envs", "deltas", "ranks", "router",
    "nodes", "cmd", "role", "text", "en", "ko", "axes", "badges", "recommended", "excluded", "modes",
]  # fmt: skip
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(SCHEMA_WORDS) | st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("random")


def assert_reported(path, recipe_or_none, problems) -> None:
    assert isinstance(problems, list)
    assert all(isinstance(p, Problem) for p in problems)
    assert all(p.line >= 1 and p.column >= 1 for p in problems), problems
    assert all(str(p.file) == str(path) for p in problems)
    assert all("\n" not in str(p) for p in problems)
    assert problems == sorted(problems)
    assert (recipe_or_none is None) == bool(problems)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2]))
def test_random_json_only_gives_reported_problems(workdir, value, indent):
    path = workdir / "random.json"
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    found, problems = recipebook.check_file(path)
    assert_reported(path, found, problems)
    assert problems  # nothing random is a recipe


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60) | st.binary(max_size=60))
def test_random_text_only_gives_reported_problems(workdir, content):
    path = workdir / "text.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    found, problems = recipebook.check_file(path)
    assert_reported(path, found, problems)


def _places(node, out):
    """Every (container, key) in a JSON value."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        out.append((node, key))
        _places(child, out)
    return out


SHELLISH = st.lists(st.sampled_from([*"ab =-'\"\\\n$;{}*~!#<>|&:[", "<![", "<a ", "</"]), min_size=1, max_size=4).map(
    "".join
)


def _retype(value):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    if isinstance(value, dict):
        return list(value.values())
    return {}


@st.composite
def mutated_recipes(draw):
    name = draw(st.sampled_from(NAMES))
    document = copy.deepcopy(data(name))
    for _ in range(draw(st.integers(1, 3))):
        places = _places(document, [])
        if not places:
            break
        container, key = draw(st.sampled_from(places))
        operation = draw(st.sampled_from(["delete", "replace", "retype", "edit", "duplicate", "rename"]))
        value = container[key]
        if operation == "delete":
            del container[key]
        elif operation == "replace":
            container[key] = draw(json_values)
        elif operation == "retype":
            container[key] = _retype(value)
        elif operation == "edit" and isinstance(value, str):
            at = draw(st.integers(0, len(value)))
            container[key] = value[:at] + draw(SHELLISH) + value[at:]
        elif operation == "duplicate" and isinstance(container, list):
            container.insert(key, copy.deepcopy(value))
        elif operation == "rename" and isinstance(container, dict):
            renamed = draw(st.sampled_from(SCHEMA_WORDS) | st.text(min_size=1, max_size=5))
            items = [(renamed if k == key else k, v) for k, v in container.items()]
            container.clear()
            container.update(items)
    return name, document


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_recipes())
def test_mutated_recipes_only_give_reported_problems(workdir, case):
    name, document = case
    path = workdir / f"{name}.json"
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    found, problems = recipebook.check_file(path)
    assert_reported(path, found, problems)
    if found is not None:  # still a recipe: it expands, and every command keeps the layout
        for expansion in recipebook.matrix(found):
            strategy, target = find(found, expansion.strategy, expansion.target)
            assert expansion == recipebook.expand_selection(found, strategy, target, expansion.selection)
            for command in expansion.commands:
                assert command.shell.startswith(command.envs[0] if command.envs else command.launcher)


# Shell: a text the rules accept is split by bash exactly as by shlex (what the engine assumes).

TEXT_ALPHABET = list("ab0 =-,.:@%^~!#$;|&<>(){}[]*?\"'\\\t\r\n`é")
texts = st.text(alphabet=st.sampled_from(TEXT_ALPHABET), min_size=0, max_size=10)


@settings(max_examples=40, deadline=None)
@given(st.lists(texts, min_size=1, max_size=40))
def test_accepted_texts_split_in_bash_as_in_shlex(workdir, values):
    args = [t for t in ("--x " + v for v in values) if text_error("args", "--x", t) is None]
    envs = [t for t in ("X=" + v for v in values) if text_error("envs", "X", t) is None]
    assume(args or envs)
    script = "show() { printf '%s\\0' \"$X\"; }\n"
    script += "".join(f"printf '%s\\0' {t}\nprintf '\\1\\0'\n" for t in args)
    script += "".join(f"{t} show\nprintf '\\1\\0'\n" for t in envs)
    (workdir / "a,b").touch()  # something for a file-name pattern or brace to find
    environment = {"HOME": "/home/reader", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(["bash", "-c", script], cwd=workdir, capture_output=True, timeout=60, env=environment)
    assert result.returncode == 0, result.stderr
    groups = result.stdout.decode("utf-8").split("\1\0")[:-1]
    assert len(groups) == len(args) + len(envs)
    for text, group in zip(args, groups[: len(args)], strict=True):
        assert group.split("\0")[:-1] == shlex.split(text), text
    for text, group in zip(envs, groups[len(args) :], strict=True):
        assert group.split("\0")[:-1] == [shlex.split(text)[0].split("=", 1)[1]], text


# Inline markup: anything is either read into allowed spans or reported, never raised.

MARKUP_PIECES = [*"<>!/[]-?&#;=\"' ax", "<!", "<![", "CDATA", "--", "strong", "em", "a href=", "javascript:", "https:"]


def _allowed(spans) -> None:
    for span in spans:
        assert span.tag in (None, "strong", "em", "code", "a")
        if span.tag == "a":
            assert span.href and urlsplit(span.href).scheme in ("", "http", "https")
        _allowed(span.children)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(MARKUP_PIECES), max_size=14).map("".join))
def test_markup_is_read_or_reported(text):
    spans, errors = inline.parse(text)
    assert all(isinstance(e, str) and e for e in errors)
    if not errors:
        _allowed(spans)


# Fast paths: each must agree with the slow, explaining path it stands in for.


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_recipes())
def test_the_fast_schema_validator_agrees_with_the_full_one(case):
    _name, document = case
    full = not any(True for _ in recipebook.checking.schema._validator().iter_errors(document))
    assert recipebook.checking.schema.is_valid(document) in (full, None)  # None: left to the full validator


def test_the_fast_schema_validator_rejects_what_the_full_one_rejects():
    # the property above mostly sees valid mutations; make sure both verdicts occur
    document = copy.deepcopy(data(NAMES[0]))
    assert recipebook.checking.schema.is_valid(document)
    document["strategies"][0]["options"][0]["grid"]["unknown"] = 1
    assert not recipebook.checking.schema.is_valid(document)
    assert any(True for _ in recipebook.checking.schema._validator().iter_errors(document))


def test_a_document_the_fast_validator_cannot_take_is_left_to_the_full_one():
    document = copy.deepcopy(data(NAMES[0]))
    document["name"] = "\ud800"  # a lone surrogate: no Rust string holds it
    assert recipebook.checking.schema.is_valid(document) is None
    located = recipebook.checking.schema.check(
        recipebook.reading.source.Document(path="x.json", data=document, values={}, keys={})
    )
    assert located  # the full validator still reports the name


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from([*TEXT_ALPHABET, "\x0b", "\x0c", "\u00a0", "\u3000"]), max_size=20))
def test_splitting_words_agrees_with_shlex(text):
    try:
        expected = shlex.split(text, posix=True)
    except ValueError:
        with pytest.raises(ValueError):
            shell.words(text)
        return
    assert shell.words(text) == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_matrix_shares_work_but_equals_expanding_each_selection(name):
    found = recipe(name)
    count = 0
    for expansion in recipebook.matrix(found):
        strategy, target = find(found, expansion.strategy, expansion.target)
        assert expansion == recipebook.expand_selection(found, strategy, target, expansion.selection)
        count += 1
    assert count == sum(1 for _s, t in found.targets() for _ in recipebook.offered(t.grid))


KEYS = st.sampled_from(["--a", "--b", "--c", "--d", "--e"])
ENV_KEYS = st.sampled_from(["A", "B", "C"])
RANK_KEYS = st.sampled_from(["--port", "--rank", "--a"])


@st.composite
def delta_grids(draw):
    """A grid of one or two roles with random base keys, random deltas on two or three axes
    (keys set twice, deleted and set again in one delta, deleted when absent), sometimes
    ranks laying their own keys over a role, and sometimes an exclusion."""

    def mapping(keys):
        return {k: f"{k} {draw(st.integers(0, 9))}" for k in draw(st.lists(keys, max_size=4, unique=True))}

    axes = {f"x{i}": [f"v{j}" for j in range(draw(st.integers(1, 3)))] for i in range(draw(st.integers(2, 3)))}
    roles = ["main"] if draw(st.booleans()) else ["prefill", "decode"]
    deltas = {}
    for axis, values in axes.items():
        for value in values:
            per_role = {}
            for role in roles:
                if draw(st.booleans()):
                    per_role[role] = {
                        "add_args": mapping(KEYS),
                        "add_envs": mapping(ENV_KEYS),
                        "del_args": draw(st.lists(KEYS, max_size=3, unique=True)),
                        "del_envs": draw(st.lists(ENV_KEYS, max_size=2, unique=True)),
                    }
            if per_role:
                deltas[f"{axis}={value}"] = per_role
    base = []
    for role in roles:
        entry = {"role": role, "launcher": "vllm serve", "args": mapping(KEYS), "envs": mapping(ENV_KEYS)}
        entry |= {"ranks": None, "scale": None, "varies": None}
        if draw(st.booleans()):
            count = draw(st.integers(1, 3))
            entry["ranks"] = [{"args": mapping(RANK_KEYS), "envs": {}} for _ in range(count)]
            entry["scale"], entry["varies"] = f"{count} ranks", []
        base.append(entry)
    excluded = []
    if draw(st.booleans()):
        axis = draw(st.sampled_from(list(axes)))
        excluded.append({axis: draw(st.sampled_from(axes[axis]))})
    data = {"model": "m", "base": base, "modes": axes, "options": {}, "option_base": {}, "deltas": deltas}
    data |= {"excluded": excluded, "recommended": None, "router": None}
    return Grid.from_json(data, "/g")


def _lines(command) -> list[tuple]:
    return [(line.kind, line.slot, line.key, line.text) for line in (*command.env_lines, *command.arg_lines)]


@SETTINGS
@given(delta_grids())
def test_the_line_table_equals_the_delta_rules_on_generated_grids(grid):
    """Property: every selection the table does not refuse reads from it exactly as the delta
    rules write it, rank by rank; it refuses a selection only where a delta touches a key a
    rank sets (which rule 8 forbids)."""
    lines, wrong = table.build(grid)
    refused = [tuple(s.items()) for s in wrong]
    assert lines.selections == sum(1 for _ in recipebook.offered(grid))
    for chosen in lines.offered:
        selection = lines.selection(chosen)
        expected = [c for role in grid.base for c in reference_role(grid, role, selection)]
        if tuple(selection.items()) in refused:
            rank_keys = {
                (kind, key)
                for role in grid.base
                for rank in role.ranks or ()
                for kind, keys in (("args", rank.args), ("envs", rank.envs))
                for key in keys
            }
            touched = {
                (kind, key)
                for axis, value in selection.items()
                for delta in grid.delta(axis, value).values()
                for kind, key in delta.touched()
            }
            assert rank_keys & touched
            continue
        assert [_lines(c) for c in lines.commands(chosen)] == [_lines(c) for c in expected]
        assert [c.shell for c in lines.commands(chosen)] == [c.shell for c in expected]
