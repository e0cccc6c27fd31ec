"""The ``recipe-memory`` role: a figure of the memory engine inside prose, so that a page's
text says what the engine computes (and changes with it).

``{recipe-memory}`RECIPE STRATEGY TARGET FIGURE [max-model-len=N] [max-num-seqs=N]``` renders
the figure for the target's opening selection, on its first SKU, as the panel words it
(``21.1 GiB``). FIGURE is ``kv-cache``, ``weights`` or ``free``: the largest over the ranks.
A wrong name or a missing figure is a build warning at the role, and the text shows the role.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxRole

from recipebook.expanding import memory
from recipebook.expanding.page import RecipePage, reconciled
from recipebook.memo import Memo
from recipebook.reading.model import Recipe

from .. import store
from ..warnings_ import Subtype, warn

FIGURES = {"kv-cache": "kv_cache_bytes", "weights": "weights_bytes", "free": "free_bytes"}
WHAT_IF = ("max-model-len", "max-num-seqs")


def figure(
    recipe: Recipe,
    model: RecipePage,
    slug: str,
    target_name: str,
    name: str,
    what_if: dict[str, int],
    memo: Memo | None = None,
) -> int | str:
    """The figure in bytes (of the page model ``model``'s target), or why there is none (a
    message); the recipe's observations held against the figures are kept in ``memo``."""
    strategy = recipe.strategy(slug)
    target = strategy.target(target_name) if strategy else None
    if target is None:
        return f"no strategy {slug!r} with a target {target_name!r} in recipe {recipe.name!r}"
    page = model.target(slug, target_name)
    fit = memory.fit(
        recipe.facts,
        target.skus,
        page.opening_commands(),
        max_model_len=what_if.get("max-model-len"),
        max_num_seqs=what_if.get("max-num-seqs"),
        settled=reconciled(recipe, memo)[0],
    )
    values: list[int | None] = [getattr(rank, FIGURES[name]) for rank in fit.ranks]
    known = [value for value in values if value is not None]
    if fit.missing or not values or len(known) < len(values):
        return f"recipe {recipe.name!r} has no {name} figure for {slug} / {target_name} ({fit.missing or 'unknown'})"
    return max(known)


class MemoryRole(SphinxRole):
    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        words = self.text.split()
        what_if: dict[str, int] = {}
        problem = None
        if len(words) < 4 or words[3] not in FIGURES:
            problem = f"recipe-memory takes RECIPE STRATEGY TARGET {'|'.join(FIGURES)} [NAME=N ...], not {self.text!r}"
        else:
            for word in words[4:]:
                key, _sep, value = word.partition("=")
                if key not in WHAT_IF or not value.isdigit() or int(value) < 1:
                    problem = f"recipe-memory: {word!r} is not {'=N or '.join(WHAT_IF)}=N"
                    break
                what_if[key] = int(value)
        if problem is None:
            path = store.path_for(self.config.recipebook_dir, words[0])
            recipe = store.recipe(self.env, path) if path.is_file() else None
            if recipe is None:
                problem = f"recipe-memory: no valid recipe named {words[0]!r}"
            else:
                for dependency in store.dependencies(path):
                    self.env.note_dependency(dependency)
                found = figure(
                    recipe,
                    store.page(self.env, recipe),
                    words[1],
                    words[2],
                    words[3],
                    what_if,
                    store.engine_memo(self.env),
                )
                if isinstance(found, str):
                    problem = f"recipe-memory: {found}"
                else:
                    text = memory.gib(found)
                    return [nodes.inline(text, text, classes=["rb-figure"])], []
        warn(problem, Subtype.MISSING, self.get_location())
        return [nodes.literal(self.rawtext, self.text)], []
