"""Loading: read, check against the schema, build the model, check the rules."""

from __future__ import annotations

from pathlib import Path

from . import rules, schema, source, vocabulary
from .model import Recipe
from .problems import Problem, RecipeError


def check_file(path: str | Path) -> tuple[Recipe | None, list[Problem]]:
    """Every problem of one recipe file, and the recipe when there are none."""
    document, problems = source.read(path)
    if document is None:
        return None, problems
    problems += schema.check(document)
    if problems:
        return None, sorted(problems)
    recipe = Recipe.from_json(document.data, str(path))
    problems = rules.check(recipe, document)

    problems = sorted({*problems, *vocabulary.check(recipe, document)})
    return (None if problems else recipe), problems


def load(path: str | Path) -> Recipe:
    """A valid recipe, or RecipeError with all of its problems."""
    recipe, problems = check_file(path)
    if recipe is None:
        raise RecipeError(problems)
    return recipe
