"""Shared by the tests that drive the explorer in Chromium: find a grid, the tabs that hold it
and the grids behind closed tabs, open them, pick a value as a reader clicks it, copy with a
grid's buttons, whether the explorer's CSS hides an element at a selection (browser, judges,
site, adapter and engine tests use them)."""

from __future__ import annotations

import re

from recipebook import expand

# The labels of the sphinx-design tabs that hold a grid, outermost first (a panel's label
# is the element before it).
TAB_LABELS = """gid => {
  const out = [];
  for (let node = document.getElementById(gid); node; node = node.parentElement) {
    if (node.classList && node.classList.contains('sd-tab-content')) out.unshift(node.previousElementSibling.htmlFor);
  }
  return out;
}"""

# The grids a page does not show until their tabs are opened (eval_on_selector_all of form.rb-grid).
HIDDEN_GRIDS = "forms => forms.filter(f => !f.checkVisibility()).map(f => f.id)"

# Open the tabs that hold a grid by a click on each one's label, in the page (one round trip; the
# tabs' answer to a reader's own clicks and keys is judged by open_tabs and
# test_keyboard_reaches_and_operates_the_selectors); fails when the grid is still hidden.
SHOW_GRID = (
    """gid => {
  for (const id of ("""
    + TAB_LABELS
    + """)(gid)) document.querySelector(`label[for="${id}"]`).click();
  if (!document.getElementById(gid).checkVisibility()) throw new Error(`#${gid} is still hidden`);
}"""
)

# Click the copy buttons of a grid (by index, each with the rank to pick first, or null) and
# read back what each put on the clipboard: once the button says it has copied (the page marks
# it rb-done when the clipboard has taken the text, rb-copy-failed when it has not), the
# clipboard is read, once; null when the button says it could not, or says nothing in 4 s.
COPY = """async ([gid, which]) => {
  const out = [];
  const buttons = document.getElementById(gid).querySelectorAll('.rb-cmds .rb-copy');
  const over = button => button.classList.contains('rb-done') || button.classList.contains('rb-copy-failed');
  const answered = button => new Promise(resolve => {
    const observer = new MutationObserver(() => { if (over(button)) { observer.disconnect(); resolve(); } });
    observer.observe(button, {attributes: true, attributeFilter: ['class']});
    setTimeout(() => { observer.disconnect(); resolve(); }, 4000);
  });
  for (const [index, rank] of which) {
    const button = buttons[index];
    if (rank !== null) {
      button.closest('.rb-role').querySelectorAll('.rb-ranks input[type=radio]')[rank].checked = true;
    }
    button.classList.remove('rb-done', 'rb-copy-failed');
    const answer = answered(button);
    button.click();
    await answer;
    out.push(button.classList.contains('rb-done') ? await navigator.clipboard.readText() : null);
  }
  return out;
}"""


def grid_id(page, strategy: str, target: str) -> str:
    return page.eval_on_selector(f'form.rb-grid[data-strategy="{strategy}"][data-target="{target}"]', "f => f.id")


def open_tabs(page, gid: str) -> None:
    """Click the strategy and target tabs that hold a grid, as a reader would."""
    for input_id in page.evaluate(TAB_LABELS, gid):
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
