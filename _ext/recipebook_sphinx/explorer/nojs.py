"""How the explorer shows a selection without JavaScript: classes on its lines, and one
stylesheet of rules that hide them.

Each line that only some selections show carries classes ``h-A-V`` ("hidden while value V of
axis A is chosen"), and one stylesheet rule per axis value hides them (``explorer_css``). A
role's ranks share one code block: its rank picker is a radio group like an axis, and a line
only some ranks hold carries ``q-R-K`` ("hidden while rank K of role R is chosen"). A
selection the recipe excludes hides the commands and shows why.
"""

from __future__ import annotations

import functools

from recipebook.expanding.table import Axes, Product, TableLine


def hide_classes(product: Product, axes: Axes) -> list[str]:
    """The classes that hide an element outside its product of axis values."""
    classes = []
    for a, allowed in enumerate(product):
        if allowed is not None:
            classes += [f"h-{a}-{v}" for v in range(len(axes[a][1])) if v not in allowed]
    return classes


def rank_classes(line: TableLine, role_index: int, ranks: int | None) -> list[str]:
    if line.ranks is None or ranks is None:
        return []
    return [f"q-{role_index}-{k}" for k in range(ranks) if k not in line.ranks]


def removed_copies(when: Product, axes: Axes) -> tuple[Product, ...]:
    """Disjoint products covering exactly the selections where a line shown under ``when`` is hidden.

    The line is hidden when some axis leaves its allowed values; the copy for axis k covers
    the selections whose first such axis is k, so at most one copy shows at a time.
    """
    return _removed_copies(when, tuple(len(values) for _axis, values in axes))


@functools.lru_cache(maxsize=4096)
def _removed_copies(when: Product, sizes: tuple[int, ...]) -> tuple[Product, ...]:
    products = []
    for k, allowed in enumerate(when):
        if allowed is None:
            continue
        outside = frozenset(range(sizes[k])) - allowed
        if outside:
            products.append(tuple(when[a] if a < k else (outside if a == k else None) for a in range(len(when))))
    return tuple(products)


def explorer_css(
    max_axes: int, max_values: int, rank_roles: int, max_ranks: int, exclusions: dict[str, list[Product]]
) -> str:
    """Rules that show each selection's lines, and each chosen rank's, for grids up to the given size."""
    rules = []
    for a in range(max_axes):
        for v in range(max_values):
            rules.append(
                f".rb-grid:has(.i-{a}-{v}:checked) .h-{a}-{v},"
                f".rb-grid:has(.t-{a}-{v}:not(:checked)) .h-{a}-{v}{{display:none}}"
            )
    for r in range(rank_roles):
        for k in range(max_ranks):
            rules.append(f".rb-grid:has(.k-{r}-{k}:checked) .q-{r}-{k}{{display:none}}")
    for gid, products in sorted(exclusions.items()):
        for k, product in enumerate(products):
            # a value is chosen when its radio is checked, or (for "off") its checkbox is not
            has = "".join(
                ":has(" + ",".join(f".i-{a}-{v}:checked,.t-{a}-{v}:not(:checked)" for v in sorted(p)) + ")"
                for a, p in enumerate(product)
                if p is not None
            )
            rules.append(f"#{gid}{has} .rb-cmds{{display:none}}")
            # no link to files that do not exist, no client or report for a selection not offered
            rules.append(
                f"#{gid}{has} .rb-files,#{gid}{has} .rb-serving,#{gid}{has} .rb-fit,#{gid}{has} .rb-measured{{display:none}}"
            )
            rules.append(f"#{gid}{has} #{gid}-x{k}{{display:block}}")
    return "\n".join(rules) + "\n"
