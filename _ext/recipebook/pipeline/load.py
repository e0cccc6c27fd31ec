"""Loading: read, check against the schema, build the model, check the rules."""

from __future__ import annotations

from pathlib import Path

from ..checking import bounds, characters, commandtext, facts, rules, safety, schema, sizing, vocabulary
from ..memo import Memo
from ..problems import Problem, RecipeError, errors
from ..reading import sharing, source
from ..reading.model import Recipe


def _instead(problems: list[Problem], named: list[Problem]) -> list[Problem]:
    """The problems, where a character problem replaces every other one at its value: an em dash
    in a flag is the cause of the 'unknown flag', a no-break space of the 'does not split'."""
    places = {problem.pointer for problem in named}
    return sorted({*named, *(problem for problem in problems if problem.pointer not in places)})


def check_file(path: str | Path, memo: Memo | None = None) -> tuple[Recipe | None, list[Problem]]:
    """Every problem of one recipe file (errors and warnings), and the recipe when none is an
    error. The line tables and the page model the rules build are kept in ``memo`` when the
    caller gives one (to show the recipe afterwards without building them again), else only
    while the file is checked."""
    memo = Memo() if memo is None else memo
    document, problems = source.read(path)
    if document is None:
        return None, problems
    named = characters.check(document)
    bounded = bounds.check(document)  # rule 11 bounds the rules' work; these bound the page's
    problems += schema.check(document)
    if problems:
        return None, sharing.finish(document, _instead([*problems, *bounded], named))
    written, problems = sharing.resolve(document)  # grids written once, written out for every target
    if problems:
        return None, _instead([*problems, *bounded], named)
    recipe = Recipe.from_json(written.data, str(path))
    careless = safety.check(recipe, written)
    typed = vocabulary.check(recipe, written)
    shown = commandtext.check(recipe, written)
    problems = sharing.finish(
        written,
        _instead(
            [
                *rules.check(recipe, written, memo),
                *facts.check(recipe, written),
                *sizing.facts_bounds(recipe, written),
                *sizing.served_sizes(recipe, written),
                *careless,
                *typed,
                *shown,
                *bounded,
            ],
            named,
        ),
    )
    if not errors(problems):  # what serve.sh runs, joined (needs a recipe whose commands expand)
        later = [
            *commandtext.joined_scripts(recipe, written, memo),
            *sizing.npus_agree(recipe, written, memo),
            *sizing.observations(recipe, written, memo),
        ]
        problems = sorted({*problems, *sharing.finish(written, sorted(set(later)))})
    return (None if errors(problems) else recipe), problems


def load(path: str | Path, memo: Memo | None = None) -> Recipe:
    """A valid recipe (its warnings aside), or RecipeError with all of its problems."""
    recipe, problems = check_file(path, memo)
    if recipe is None:
        raise RecipeError(problems)
    return recipe
