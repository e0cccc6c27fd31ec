"""Shared by the tests that drive the explorer in Chromium: find a grid, open the tabs that hold
it, pick a value as a reader clicks it, whether the explorer's CSS hides an element at a selection
(browser, site, adapter and engine tests use them)."""

from __future__ import annotations

import re

from recipebook import expand


def grid_id(page, strategy: str, target: str) -> str:
    return page.eval_on_selector(f'form.rb-grid[data-strategy="{strategy}"][data-target="{target}"]', "f => f.id")


def open_tabs(page, gid: str) -> None:
    """Click the strategy and target tabs that hold a grid, as a reader would."""
    for input_id in page.eval_on_selector(
        f"#{gid}",
        """g => { const out = []; for (let n = g; n; n = n.parentElement) {
                 if (n.classList && n.classList.contains('sd-tab-content')) out.unshift(n.previousElementSibling.htmlFor); }
                 return out; }""",
    ):
        page.click(f'label[for="{input_id}"]')  # a tab's label comes just before its panel


def other_value(recipe, strategy: str, target: str) -> tuple[dict[str, str], str, str]:
    """The selection a target's page opens on, its first axis with a choice, and the first
    other value of that axis."""
    default = dict(expand(recipe, strategy, target).selection)
    axis, values = next((a, v) for a, v in recipe.strategy(strategy).target(target).grid.axes.items() if len(v) > 1)
    return default, axis, next(v for v in values if v != default[axis])


def click_value(page, gid: str, axis: str, value: str) -> None:
    field = page.locator(f'#{gid} input[data-axis="{axis}"]')
    if field.first.get_attribute("type") == "checkbox":
        if field.first.is_checked() != (value == "on"):
            page.click(f'#{gid} label[for="{field.first.get_attribute("id")}"]')
    else:
        radio = page.locator(f'#{gid} input[data-axis="{axis}"][value="{value}"]')
        page.click(f'#{gid} label[for="{radio.get_attribute("id")}"]')


def hides(node, index: tuple[int, ...], rank: int = 0) -> bool:
    """Whether one element's own classes hide it at a selection (class h-AXIS-VALUE) with every
    rank picker on ``rank`` (class q-ROLE-RANK), whatever its parents say."""
    for cls in node.get("class", []) if hasattr(node, "get") else []:
        m = re.fullmatch(r"h-(\d+)-(\d+)", cls)
        if m and index[int(m.group(1))] == int(m.group(2)):
            return True
        q = re.fullmatch(r"q-(\d+)-(\d+)", cls)
        if q and int(q.group(2)) == rank:
            return True
    return False


def hidden(element, index: tuple[int, ...], rank: int = 0) -> bool:
    """Whether the explorer's CSS hides an element at a selection: it or a parent of it hides
    (``hides``)."""
    return any(hides(node, index, rank) for node in [element, *element.parents])
