"""The vLLM Recipes sample the import tests read (not a test module itself).

``tests/data/vllm-recipes/`` holds a checkout's files for a sample of models (``checkout/``, their
files as they are, Apache-2.0) and ``commands.json``: the commands their own
``src/lib/command-synthesis.js`` builds, run under Node.js by ``python -m tools.vllmrecipes``, for a
spread of choices of every target, with the commit they come from. A command is compared by what
it runs: its words as bash splits them and its environment; their shell variables (``$HEAD_IP``)
are this format's placeholders (``'<HEAD_IP>'``).
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recipebook import check_file, importing
from recipebook.expanding import page
from recipebook.importing import vllm_recipes
from recipebook.memo import Memo
from recipebook.problems import Problem, SelectionError, errors
from recipebook.reading import sharing
from recipebook.reading.model import Recipe

SAMPLE = Path(__file__).resolve().parent / "data" / "vllm-recipes"
CHECKOUT = SAMPLE / "checkout"
_VARIABLE = re.compile(r"\$([A-Z_][A-Z0-9_]*)")

# the imported recipes' page models, built once per recipe for every recorded choice compared
MEMO = Memo()


@functools.cache
def oracle() -> dict[str, Any]:
    return json.loads((SAMPLE / "commands.json").read_text(encoding="utf-8"))


def entries(model: str) -> list[dict[str, Any]]:
    return [entry for entry in oracle()["entries"] if entry["model"] == model]


@functools.cache
def checkout() -> vllm_recipes.Checkout:
    return vllm_recipes.Checkout.read(CHECKOUT, commit=oracle()["commit"])


@functools.cache
def imported(model: str) -> importing.Imported:
    return importing.convert_file(checkout().model(model), checkout())


def words(text: str) -> list[str]:
    """What bash passes for a command text of theirs: its words, each ``$NAME`` as ``<NAME>``."""
    return [_VARIABLE.sub(r"<\1>", word) for word in shlex.split(text.replace("\\\n", " "))]


def their_run(server: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    env = {key: _VARIABLE.sub(r"<\1>", str(value)) for key, value in server["env"].items()}
    return words(server["command"]), env


def our_run(command: Any) -> tuple[list[str], dict[str, str]]:
    """What one of our commands runs: its words and its environment."""
    argv = [*command.launcher.split(), command.model]
    for text in command.args:
        argv += shlex.split(text)
    env = {}
    for text in command.envs:
        key, _, value = shlex.split(text)[0].partition("=")
        env[key] = value
    return argv, env


def _options(argv: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """A command's words before its first option, and its options each with its values, sorted."""
    head = next((i for i, word in enumerate(argv) if word.startswith("--")), len(argv))
    groups: list[tuple[str, ...]] = []
    for word in argv[head:]:
        if word.startswith("--"):
            groups.append((word,))
        else:
            groups[-1] += (word,)
    return argv[:head], sorted(groups)


def compare(recipe: Any, entry: dict[str, Any]) -> list[str]:
    """Where our commands for an entry's selection differ from theirs (empty: they are equal)."""
    result = page.expand(recipe, entry["strategy"], entry["target"], entry["selection"], memo=MEMO)
    ours = {(c.role, c.rank or 0): our_run(c) for c in result.commands}
    theirs = {(s["role"], s["node"]): their_run(s) for s in entry["theirs"]["servers"]}
    found = []
    if set(ours) != set(theirs):
        found.append(f"servers {sorted(ours)} against theirs {sorted(theirs)}")
    for key in sorted(set(ours) & set(theirs)):
        if key[1] > 0 and _options(ours[key][0]) == _options(theirs[key][0]):
            pass  # a follower's own lines come after the role's here (as a rank's do): vLLM reads options in any order
        elif ours[key][0] != theirs[key][0]:
            found.append(f"{key}: words {ours[key][0]} against theirs {theirs[key][0]}")
        if ours[key][1] != theirs[key][1]:
            found.append(f"{key}: environment {ours[key][1]} against theirs {theirs[key][1]}")
    router = entry["theirs"].get("router")
    steps = [cmd for _node, cmd in result.router]
    if (router is None) != (not steps):
        found.append(f"router {steps} against theirs {router}")
    elif router is not None and words(steps[0]) != words(router):
        found.append(f"router {words(steps[0])} against theirs {words(router)}")
    return found


@functools.cache
def recipe(model: str) -> Recipe:
    """The imported recipe as the engine models it (whatever its problems: the commands are
    compared): read from its file by the check when it is valid (checked), else built here."""
    loaded, _problems = checked(model)
    if loaded is not None:
        return loaded
    written = sharing.written_out(imported(model).recipe)
    return Recipe.from_json(written, f"{imported(model).name}.json")


def assert_their_commands(model: str) -> None:
    """Every recorded choice of a model: our commands for its selection are theirs, or the import
    left it out because it cannot start (its target, or a combination of its values), and says so
    for that target."""
    wrong = {}
    compared = 0
    for entry in entries(model):
        try:
            found = compare(recipe(model), entry)
        except SelectionError as error:
            where = f"{entry['strategy']} / {entry['target']}: "
            said = [line for line in imported(model).lost if line.startswith(where) and ": it cannot start: " in line]
            assert said, f"{where}{entry['selection']} is not offered and not listed as left out: {error}"
            # an axis left with one value is gone: the choice at that value is the target's own
            # (compared without it); at a value left out, the commands differ, and it is listed
            grid = recipe(model).strategy(entry["strategy"]).target(entry["target"]).grid
            kept = {axis: value for axis, value in entry["selection"].items() if axis in grid.axes}
            if kept != entry["selection"] and not compare(recipe(model), {**entry, "selection": kept}):
                compared += 1
            continue
        compared += 1
        if found:
            wrong[f"{entry['strategy']} / {entry['target']} {entry['selection']}"] = found
    assert compared and not wrong, json.dumps(dict(list(wrong.items())[:3]), indent=1)


# each imported recipe's check as the importer writes it, done once per process (its file's text is
# the same for every test that asks): the model -> (the recipe read, or None; its problems)
_CHECKED: dict[str, tuple[Recipe | None, list[Problem]]] = {}


def checked(model: str) -> tuple[Recipe | None, list[Problem]]:
    """check_file of the imported recipe written as the importer writes it (``importing.dumps``,
    named as the importer names it, in a temporary folder); the recipe read (None if it has
    errors) and its problems. The line tables and page model the check builds are kept in MEMO,
    where compare expands the same recipe's selections."""
    if model not in _CHECKED:
        written = imported(model)
        with tempfile.TemporaryDirectory(prefix="import-check-") as temporary:
            path = Path(temporary) / f"{written.name}.json"
            path.write_text(importing.dumps(written.recipe), encoding="utf-8")
            _CHECKED[model] = check_file(path, MEMO)
    loaded, problems = _CHECKED[model]
    return loaded, list(problems)


def assert_only_real_problems(model: str, known: list[str], warned: Sequence[str] = ()) -> list[Any]:
    """The imported recipe is refused only for the real problems it has (each one a fragment of the
    message), and each of them is still refused; the real problems vLLM only warns of (``warned``)
    are still reported, as warnings; returns its problems."""
    loaded, problems = checked(model)
    false = [p for p in errors(problems) if not any(fragment in p.message for fragment in known)]
    assert not false, "\n".join(map(str, false[:10]))
    for fragment in known:
        assert any(fragment in p.message for p in errors(problems)), fragment
    for fragment in warned:
        assert any(fragment in p.message for p in problems if not p.is_error), fragment
    assert (loaded is None) == bool(known)
    return problems
