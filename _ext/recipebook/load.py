"""Loading: read, check against the schema, build the model, check the rules."""

from __future__ import annotations

from pathlib import Path

from . import characters, facts, rules, safety, schema, source, vocabulary
from .model import Recipe
from .problems import Problem, RecipeError


def _instead(problems: list[Problem], named: list[Problem]) -> list[Problem]:
    """The problems, where a character problem replaces every other one at its value: an em dash
    in a flag is the cause of the 'unknown flag', a no-break space of the 'does not split'."""
    places = {problem.pointer for problem in named}
    return sorted({*named, *(problem for problem in problems if problem.pointer not in places)})


def check_file(path: str | Path) -> tuple[Recipe | None, list[Problem]]:
    """Every problem of one recipe file, and the recipe when there are none."""
    document, problems = source.read(path)
    if document is None:
        return None, problems
    named = characters.check(document)
    problems += schema.check(document)
    if problems:
        return None, _instead(problems, named)
    recipe = Recipe.from_json(document.data, str(path))
    careless = safety.check(recipe, document)
    typed = vocabulary.check(recipe, document)
    problems = _instead([*rules.check(recipe, document), *facts.check(recipe, document), *careless, *typed], named)
    return (None if problems else recipe), problems


def load(path: str | Path) -> Recipe:
    """A valid recipe, or RecipeError with all of its problems."""
    recipe, problems = check_file(path)
    if recipe is None:
        raise RecipeError(problems)
    return recipe
