"""Correctness a reader feels, judged by Debian's Chromium (driven by Playwright).

On every recipe page, with JavaScript and without:

- every offered selection (judge_support.walked) of every English page shows exactly the
  commands and router steps the engine prints; with JavaScript the URL fragment names the
  selection, and each copy button puts exactly its text on the clipboard, tried on every
  distinct text it shows during the walk (a button copies its block's live text, so a text it
  has copied right once it copies right in any selection);
- a Korean page's explorer is the English one in other words (test_other_languages_explorers_
  are_the_english_ones_in_other_words, read from the built files), so the English walk's verdict
  is the Korean page's too; Chromium walks each Korean grid through a few selections that show
  every value of every axis (judge_support.covering), to prove the Korean page's scripts and
  stylesheet run;
- every value of every axis is also chosen once by a real mouse click on its label (English pages);
- a deep link opens on its selection, and the language switcher keeps it;
- the keyboard reaches the selectors and changes the selection;
- at 375 px (a phone) no page scrolls sideways, and nothing in the text is cut off.

The walk sets each selection by clicking the labels inside the page (one round trip per
grid, selection after selection) and reads back what the browser renders: innerText leaves out the lines the
stylesheet hides, exactly as a reader's copy-and-paste does. A role's ranks share one code
block: each rank is chosen on its picker in turn and read, so every rank's command counts.
"""

from __future__ import annotations

import re
import shutil
from urllib.parse import urlencode

import pytest

from browser_support import open_page, settle
from explorer_support import COPY, HIDDEN_GRIDS, SHOW_GRID, TAB_LABELS, grid_id, open_tabs
from judge_support import (
    LANGUAGES,
    RECIPES,
    SHOWN_COMMANDS,
    commands_of,
    covering,
    engine_expand,
    grids_of,
    reader_pages,
    recipe_pages,
    router_of,
    same_explorer,
    walked,
)
from recipebook import expand, load

pytestmark = pytest.mark.browser

# The state of one grid as the browser renders it.
READ_GRID = (
    """gid => {
  const grid = document.getElementById(gid);
  const selection = {};
  for (const input of grid.querySelectorAll('input[data-axis]')) {
    if (input.type === 'checkbox') selection[input.dataset.axis] = input.checked ? 'on' : 'off';
    else if (input.checked) selection[input.dataset.axis] = input.value;
  }
  const texts = css => Array.from(grid.querySelectorAll(css), pre => pre.innerText);
  return {
    selection,
    commands: ("""
    + SHOWN_COMMANDS
    + """)(gid),
    router: texts('.rb-router pre'),
    visible: grid.checkVisibility(),
    hash: decodeURIComponent(location.hash),
  };
}"""
)

# Choose a selection the way a reader does, by clicking the labels of the inputs that differ.
CHOOSE = """([gid, wanted]) => {
  const grid = document.getElementById(gid);
  for (const input of grid.querySelectorAll('input[data-axis]')) {
    const value = wanted[input.dataset.axis];
    const change = input.type === 'checkbox' ? input.checked !== (value === 'on')
                                             : input.value === value && !input.checked;
    if (change) grid.querySelector(`label[for="${input.id}"]`).click();
  }
}"""

# The walk of one grid in one round trip: for each step, choose its selection as a reader does
# (CHOOSE), read the grid back (READ_GRID), then try the copy buttons it names (COPY).
WALK = (
    """async ([gid, steps]) => {
  const choose = """
    + CHOOSE
    + """;
  const read = """
    + READ_GRID
    + """;
  const copy = """
    + COPY
    + """;
  const out = [];
  for (const [selection, clicks] of steps) {
    choose([gid, selection]);
    const shown = read(gid);
    out.push([shown, clicks.length ? await copy([gid, clicks]) : []]);
  }
  return out;
}"""
)


def buttons_of(entry: dict) -> list[tuple[int, int | None]]:
    """For each text of commands_of + router_of: the copy button that copies it (one per role,
    then one per router step) and the rank to pick first (None for a role of one command)."""
    out: list[tuple[int, int | None]] = []
    for r, role in enumerate(entry["roles"]):
        several = len(role["commands"]) > 1
        out += [(r, k if several else None) for k in range(len(role["commands"]))]
    out += [(len(entry["roles"]) + j, None) for j in range(len(entry["router"]))]
    return out


def fragment(strategy: str, target: str, selection: dict[str, str]) -> str:
    return urlencode({"s": strategy, "t": target, **selection})


def expected_fragment(strategy: str, target: str, selection: dict[str, str]) -> str:
    return "#" + "&".join([f"s={strategy}", f"t={target}", *(f"{a}={v}" for a, v in selection.items())])


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_selection_shows_and_copies_the_engine_commands(browser, server, site, language, javascript):
    """English pages: every selection judge_support.walked gives. Another language's pages: the
    few selections of each grid that show every value of every axis (judge_support.covering):
    its explorer is the English one in other words (proved from the built files by
    test_other_languages_explorers_are_the_english_ones_in_other_words), so what the English walk
    saw holds there too, and this walk proves that the page's own scripts and stylesheet run."""
    permissions = ["clipboard-read", "clipboard-write"] if javascript else []
    context = browser.new_context(java_script_enabled=javascript, permissions=permissions)
    page = context.new_page()
    wrong: list[str] = []
    copied: set[tuple[str, int, str]] = set()
    checked = 0
    for lang, name in recipe_pages(site):
        if lang != language:
            continue
        open_page(page, f"{server}/{language}/recipes/{name}.html")
        grids = walked(name) if language == LANGUAGES[0] else {k: covering(e) for k, e in grids_of(name).items()}
        for (strategy, target), entries in grids.items():
            gid = grid_id(page, strategy, target)
            open_tabs(page, gid)
            # each button is tried on every text it can show (the first selection that shows it)
            steps = []
            for entry in entries:
                texts = commands_of(entry) + router_of(entry)
                buttons = buttons_of(entry)
                which = [i for i, text in enumerate(texts) if (gid, i, text) not in copied] if javascript else []
                copied.update((gid, i, texts[i]) for i in which)
                steps.append((entry, texts, which, [list(buttons[i]) for i in which]))
            walk = page.evaluate(WALK, [gid, [[entry["selection"], clicks] for entry, _t, _w, clicks in steps]])
            for (entry, texts, which, _clicks), (shown, got) in zip(steps, walk, strict=True):
                selection = entry["selection"]
                where = f"{language}/{name} {strategy}/{target} {selection}"
                if not shown["visible"]:
                    wrong.append(f"{where}: the grid is not visible")
                if shown["selection"] != selection:
                    wrong.append(f"{where}: the inputs show {shown['selection']}")
                if shown["commands"] != commands_of(entry):
                    wrong.append(f"{where}: shown commands differ from the engine's")
                if shown["router"] != router_of(entry):
                    wrong.append(f"{where}: shown router steps differ from the engine's")
                if javascript and shown["hash"] != expected_fragment(strategy, target, selection):
                    wrong.append(f"{where}: the URL fragment is {shown['hash']!r}")
                for i, text in zip(which, got, strict=True):
                    if text != texts[i]:
                        wrong.append(f"{where}: copy button {i} copied other text than the engine's")
                checked += 1
    context.close()
    assert not wrong, f"{len(wrong)} finding(s) in {checked} selections:\n" + "\n".join(wrong[:20])
    if language == LANGUAGES[0]:
        assert checked >= 300
        assert not javascript or len(copied) >= 500
    else:  # every grid of every page, a few selections each; its copy buttons each tried
        assert checked >= 3 * len(recipe_pages(site)) // len(LANGUAGES)
        assert not javascript or len(copied) >= 30


# A stylesheet rule that reads the page's language (:lang(...)) and what it sets.
LANGUAGE_RULE = re.compile(r"([^{}]*:lang\([^{}]*)\{([^{}]*)\}")
# What such a rule may set: where a line breaks and which font draws it, never what is shown.
LANGUAGE_PROPERTIES = {"word-break", "font-family"}


def test_other_languages_explorers_are_the_english_ones_in_other_words(site):
    """Each recipe page of another language against the English one (judge_support.same_explorer):
    its explorer (tabs and grids) has the same elements in the same order with the same
    attributes, ids, classes, for, name, value, data-* and checked states, once the words are set
    aside (text outside code, translated attributes such as aria-label and title); every code
    block (pre) and inline stylesheet is equal byte for byte, save the words only a screen reader
    says (span.rb-sr, which the stylesheet hides, and copies leave out); and both pages load the
    same stylesheets and scripts, byte-identical files (recipebook.js, recipebook.css, the no-JS
    stylesheet recipebook-explorer.css, recipebook-files.js, the tabs' and the theme's), except
    the two Sphinx writes per language, which hold its language code and words.

    Why this proves the English walk's verdict for the other language, so that Chromium walks only
    a sample of its pages (test_every_selection_shows_and_copies_the_engine_commands): what the
    walk reads is made from what is compared here, never from the words. Which line of a code
    block shows is the stylesheet's choice from elements, classes and checked inputs (h-A-V and
    q-R-K lines against the i-, t- and k- inputs), and the only rules that read the page's
    language set where lines break and the font (checked below), which innerText does not see (a
    wrapped line is not a new line); the selection, the URL fragment and each copy come from
    recipebook.js, which reads ids, classes, data-axis, values, data-strategy/target and the code
    blocks' own text, all equal here. So a walk of a Korean page sees, in every code block and the
    fragment, what the English walk sees. test_the_explorer_comparison_sees_one_changed_class_
    byte_or_file proves the comparison fails on one changed class, command byte or file."""
    wrong = []
    names = sorted({name for _language, name in recipe_pages(site)})
    for language in LANGUAGES[1:]:
        for name in names:
            wrong += same_explorer(
                site / LANGUAGES[0] / "recipes" / f"{name}.html", site / language / "recipes" / f"{name}.html"
            )
    rules = 0
    for stylesheet in sorted(site.rglob("*.css")):
        for selector, body in LANGUAGE_RULE.findall(stylesheet.read_text(encoding="utf-8")):
            rules += 1
            properties = {part.split(":")[0].strip() for part in body.split(";") if part.strip()}
            if not properties <= LANGUAGE_PROPERTIES:
                wrong.append(f"{stylesheet}: {selector.strip()} sets {sorted(properties - LANGUAGE_PROPERTIES)}")
    assert not wrong, "\n".join(wrong)
    assert names and rules  # pages compared; the Korean rules found (the pattern reads them)


def _changed(text: str, old: str, new: str, start: str = "") -> str:
    """text with the first old after start replaced by new (fails when there is none)."""
    at = text.index(old, text.index(start))
    return text[:at] + new + text[at + len(old) :]


# One change in a copy of a built Korean page or of a file it loads: (file under the language's
# tree, what is replaced, by what). The page's changes are in its explorer (after rb-strategies).
CHANGES = {
    "unchanged": ("recipes/{name}.html", "", ""),
    "a line's class": ("recipes/{name}.html", 'class="h-0-0 h-0-2"', 'class="h-0-0 h-0-1"'),
    "a command byte": ("recipes/{name}.html", "vllm serve ", "vllm  serve "),
    "a checked input": ("recipes/{name}.html", '" checked>', '">'),
    "an input's value": ("recipes/{name}.html", 'value="', 'value="x'),
    "a Kubernetes setting's name": ("recipes/{name}.html", 'data-k8s="namespace"', 'data-k8s="name-space"'),
    "the API document's link": ("recipes/{name}.html", 'data-base="../../api/', 'data-base="../api/'),
    "recipebook.js": ("_static/recipebook.js", "rb-copying", "rb-copyinG"),
    "recipebook-files.js": ("_static/recipebook-files.js", "kubernetes", "Kubernetes"),
    "recipebook.css": ("_static/recipebook.css", "display: none", "display: block"),
    "the no-JS stylesheet": ("_static/recipebook-explorer.css", "display:none", "display:block"),
}


@pytest.mark.parametrize("change", CHANGES)
def test_the_explorer_comparison_sees_one_changed_class_byte_or_file(site, tmp_path, change):
    """same_explorer on a copy of the other language's tree with one change: it finds nothing in
    the copy as built, and something for each change."""
    name = recipe_pages(site)[0][1]
    tree = tmp_path / LANGUAGES[1]
    shutil.copytree(site / LANGUAGES[1], tree)
    where, old, new = CHANGES[change]
    path = tree / where.format(name=name)
    text = path.read_text(encoding="utf-8")
    path.write_text(_changed(text, old, new, "rb-strategies" if where.endswith(".html") else ""), encoding="utf-8")
    found = same_explorer(site / LANGUAGES[0] / "recipes" / f"{name}.html", tree / "recipes" / f"{name}.html")
    assert bool(found) == (change != "unchanged"), found


# The id of each axis's input of each value (a radio button's), or of its one switch (a checkbox's).
INPUT_IDS = """gid => {
  const out = {};
  for (const input of document.getElementById(gid).querySelectorAll('input[data-axis]')) {
    const ids = out[input.dataset.axis] = out[input.dataset.axis] || {};
    if (input.type === 'checkbox') { if (!('switch' in ids)) ids.switch = input.id; }
    else if (!(input.value in ids)) ids[input.value] = input.id;
  }
  return out;
}"""


# A label brought into the middle of the window, and where its centre is there: Playwright's mouse
# clicks that point (a reader's click, trusted events; what it hit is judged by the selection the
# grid then shows), without page.click's waits for the label to hold still, which add round trips.
LABEL_CENTRE = """selector => {
  const label = document.querySelector(selector);
  label.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  const box = label.getBoundingClientRect();
  return [box.left + box.width / 2, box.top + box.height / 2];
}"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_every_value_answers_a_real_mouse_click(browser, server, site, javascript):
    """Each value of each axis of every grid once, then the axis's first value again, by
    Playwright's mouse on its label (trusted events), each time the engine's commands shown."""
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    clicks = 0
    for language, name in recipe_pages(site):
        if language != "en":  # the Korean pages share the markup; the walk above covers their texts
            continue
        open_page(page, f"{server}/{language}/recipes/{name}.html")
        for (strategy, target), entries in grids_of(name).items():
            gid = grid_id(page, strategy, target)
            open_tabs(page, gid)
            state = page.evaluate(READ_GRID, gid)["selection"]
            inputs = page.evaluate(INPUT_IDS, gid)  # read once: the page never changes its inputs' ids
            offered = {tuple(sorted(e["selection"].items())): e for e in entries}
            for axis in state:
                start = state[axis]
                # every value, then back to the one the axis started from: a value chosen again
                # shows its commands again
                for value in [*sorted({e["selection"][axis] for e in entries}), start]:
                    wanted = {**state, axis: value}
                    entry = offered.get(tuple(sorted(wanted.items())))
                    if entry is None or wanted == state:
                        continue  # an excluded combination, or already shown
                    label = f'#{gid} label[for="{inputs[axis].get(value, inputs[axis].get("switch"))}"]'
                    page.mouse.click(*page.evaluate(LABEL_CENTRE, label))
                    shown = page.evaluate(READ_GRID, gid)
                    assert shown["selection"] == wanted
                    assert shown["commands"] == commands_of(entry), (name, strategy, target, wanted)
                    state = wanted
                    clicks += 1
    context.close()
    assert clicks > 40


def test_copy_button_by_mouse_and_its_label_comes_back(browser, server, site):
    """A trusted click copies; clicking again before the label returns leaves it right."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    _language, name = recipe_pages(site)[0]
    (strategy, target), entries = next(iter(grids_of(name).items()))
    open_page(page, f"{server}/en/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    open_tabs(page, gid)
    page.evaluate(CHOOSE, [gid, entries[-1]["selection"]])
    button = page.locator(f"#{gid} .rb-cmds .rb-copy").first
    label = button.inner_text()
    button.click()
    assert page.evaluate("navigator.clipboard.readText()") == commands_of(entries[-1])[0]
    button.click()
    page.wait_for_timeout(2000)
    assert button.inner_text() == label
    context.close()


def _deep_selection(entries: list[dict], default: dict[str, str]) -> dict:
    """The offered selection that differs from the page's opening one in the most axes."""
    return max(entries, key=lambda e: sum(e["selection"][a] != default.get(a) for a in e["selection"]))


def test_deep_link_opens_on_its_selection_and_the_language_switch_keeps_it(browser, server, site, capsys):
    """Every grid's deep link (its selection farthest from the one the page opens on) opened, the
    languages taking turns (a link opened in English, the next in Korean, ...): the page shows
    that grid on that selection and every other grid on the one it opens on. On each recipe
    page's last grid the language is then switched, and switched back: each page a reader reaches
    shows the selection, so each language's switcher keeps it.

    Each grid's link is opened in one language: a page's explorer is the English one in other
    words (test_other_languages_explorers_are_the_english_ones_in_other_words) under the same
    recipebook.js, which reads a link against ids, data-strategy/target/axis and input values
    only, so the link opens alike in the other. A switcher carries the fragment as it stands
    (recipebook.js copies location.hash into the link clicked, whatever it names): one grid's
    fragment a page proves both switchers carry it, and that a page then opens on any grid's
    fragment is that grid's link, opened above."""
    context = browser.new_context()
    page = context.new_page()
    links = switched = 0
    languages = dict.fromkeys(LANGUAGES, 0)  # how many grids' links were opened in each language
    names = sorted({name for _language, name in recipe_pages(site)})
    for name in names:
        recipe = load(RECIPES / f"{name}.json")
        grids = grids_of(name)
        # each grid's opening selection, as the engine gives it (the page's own is checked on every
        # load below, for the grids the link does not name)
        defaults = {key: dict(expand(recipe, *key).selection) for key in grids}
        for k, ((strategy, target), entries) in enumerate(grids.items()):
            entry = _deep_selection(entries, defaults[(strategy, target)])
            selection = entry["selection"]
            assert selection != defaults[(strategy, target)], (name, strategy, target)
            # what the engine's own expand command prints for this selection
            assert commands_of(engine_expand(capsys, name, strategy, target, selection)) == commands_of(entry)
            first = LANGUAGES[links % len(LANGUAGES)]
            languages[first] += 1
            link = f"{server}/{first}/recipes/{name}.html#{fragment(strategy, target, selection)}"
            if page.url.split("#")[0] == link.split("#")[0]:
                page.goto("about:blank")  # a load of the page, not a move within it
            open_page(page, link)
            gid = grid_id(page, strategy, target)
            shown = page.evaluate(READ_GRID, gid)
            assert shown["visible"], link
            assert shown["selection"] == selection, link
            assert shown["commands"] == commands_of(entry), link
            for key in grids:
                if key != (strategy, target):
                    assert page.evaluate(READ_GRID, grid_id(page, *key))["selection"] == defaults[key], (link, key)
            if k == len(grids) - 1:  # the page's last grid: both switchers carry its fragment
                for there in [lang for lang in LANGUAGES if lang != first] + [first]:
                    with page.expect_navigation():
                        page.click(f'a.rb-lang-link[hreflang="{there}"]')
                    assert page.url.startswith(f"{server}/{there}/recipes/{name}.html#"), page.url
                    shown = page.evaluate(READ_GRID, gid)
                    assert shown["visible"] and shown["selection"] == selection, page.url
                    assert shown["commands"] == commands_of(entry), page.url
                switched += 1
            links += 1
    context.close()
    assert links >= 5 and switched == len(names)
    assert all(languages.values()), languages  # links opened in each language


def _tab_until(page, predicate: str, limit: int = 400) -> bool:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(predicate):
            return True
    return False


@pytest.mark.parametrize("language", LANGUAGES)
def test_keyboard_reaches_and_operates_the_selectors(browser, server, site, language):
    context = browser.new_context()
    page = context.new_page()
    name = next(n for lang, n in recipe_pages(site) if lang == language)
    (strategy, target), entries = next(iter(grids_of(name).items()))
    offered = {tuple(sorted(e["selection"].items())): e for e in entries}
    open_page(page, f"{server}/{language}/recipes/{name}.html")
    gid = grid_id(page, strategy, target)
    on_radio = (
        f"(() => {{ const a = document.activeElement; return a.matches('#{gid} input[type=radio][data-axis]'); }})()"
    )
    assert _tab_until(page, on_radio), "Tab never reached a selector of the first grid"
    focused = page.evaluate("document.activeElement.id")
    outline = page.evaluate(f"getComputedStyle(document.querySelector('label[for=\"{focused}\"]')).outlineStyle")
    assert outline != "none", "the focused selector's label shows no focus ring"
    before = page.evaluate(READ_GRID, gid)["selection"]
    page.keyboard.press("ArrowRight")
    shown = page.evaluate(READ_GRID, gid)
    assert shown["selection"] != before, "an arrow key did not change the selection"
    entry = offered[tuple(sorted(shown["selection"].items()))]
    assert shown["commands"] == commands_of(entry)
    on_checkbox = f"document.activeElement.matches('#{gid} input[type=checkbox][data-axis]')"
    assert _tab_until(page, on_checkbox, 40), "Tab never reached an option switch"
    before = shown["selection"]
    page.keyboard.press("Space")
    shown = page.evaluate(READ_GRID, gid)
    assert shown["selection"] != before, "Space did not switch the option"
    entry = offered.get(tuple(sorted(shown["selection"].items())))
    assert entry is not None and shown["commands"] == commands_of(entry)
    # the strategy tabs answer the keyboard too: focus the first, the arrow opens the next
    first_tab = page.evaluate(TAB_LABELS, gid)[0]
    page.focus(f"#{first_tab}")
    page.keyboard.press("ArrowRight")
    assert not page.locator(f"#{gid}").is_visible(), "an arrow key on the strategy tabs did not switch tabs"
    context.close()


OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const element of document.querySelectorAll('article *')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1 || !element.checkVisibility()) continue;
    let scroller = false;  // inside a block that scrolls sideways on its own (code, tables)
    for (let p = element.parentElement; p && !scroller; p = p.parentElement) {
      scroller = ['auto', 'scroll'].includes(getComputedStyle(p).overflowX);
    }
    if (!scroller) out.push(`${element.tagName.toLowerCase()}.${element.className} ends at ${Math.round(box.right)}px`);
  }
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth, cut: out.slice(0, 5)};
}"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_no_page_scrolls_sideways_on_a_phone(browser, server, site, javascript):
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, java_script_enabled=javascript
    )
    page = context.new_page()
    wrong = []
    for rel in reader_pages(site):
        if rel == "index.html" and javascript:
            continue  # the root sends a reader with JavaScript on to a language's index, checked anyway
        open_page(page, f"{server}/{rel}")
        views = [(rel, page.evaluate(OVERFLOW))]
        if "/recipes/" in rel:  # every grid, each behind its tabs (the one the page opens on is in the view above)
            for gid in page.eval_on_selector_all("form.rb-grid", HIDDEN_GRIDS):
                page.evaluate(SHOW_GRID, gid)
                settle(page)
                views.append((f"{rel} #{gid}", page.evaluate(OVERFLOW)))
        for where, view in views:
            if view["scroll"] > view["inner"] or view["cut"]:
                wrong.append(f"{where}: {view}")
    context.close()
    assert not wrong, "\n".join(wrong)
