"""Read the explorer back out of a built page, the way the stylesheet shows it.

Independent of the extension's code: it reads the inputs (data-axis, value, their
classes) and the line spans, and applies the stylesheet's rules (a line with class
``h-A-V`` is hidden while the input with class ``i-A-V`` is checked, or the
checkbox with class ``t-A-V`` is not; a line with class ``q-R-K`` is hidden while rank K
of role R is picked (the radio with class ``k-R-K``); with the changes switch off, as a page
opens, ``.rb-sr`` words and ``.rb-del`` struck-through lines are not shown).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag

_HIDE = re.compile(r"^h-(\d+)-(\d+)$")
_RANK = re.compile(r"^q-(\d+)-(\d+)$")


@dataclasses.dataclass
class Grid:
    """One explorer of a page. What a selection is read with (its inputs by axis, each role's
    block and rank radios, the router's blocks) is looked up in the page once per explorer, not once
    per selection: the page is never changed, and finding them again was nearly all the time of
    reading every selection."""

    strategy: str
    target: str
    element: Tag

    @functools.cached_property
    def _inputs(self) -> dict[str, list[Tag]]:
        """The explorer's inputs by the axis they set (their data-axis), in the page's order."""
        by_axis: dict[str, list[Tag]] = {}
        for field in self.element.select("input[data-axis]"):
            by_axis.setdefault(field["data-axis"], []).append(field)
        return by_axis

    @functools.cached_property
    def _roles(self) -> list[tuple[Tag, list[set[str]]]]:
        """Each role's block of commands (not the router's), with the classes of each of its rank
        radios (one empty set for a role without a rank picker)."""
        roles = []
        for role in self.element.select(".rb-cmds .rb-role:not(.rb-router)"):
            ranks = [set(radio.get("class", [])) for radio in role.select(".rb-ranks input[type=radio]")]
            roles.append((role.select_one("pre"), ranks or [set()]))
        return roles

    def active_classes(self, selection: dict[str, str]) -> set[str]:
        """Classes of the inputs that are 'on' for a selection (i-A-V checked, t-A-V unchecked)."""
        active = set()
        for axis, value in selection.items():
            inputs = self._inputs.get(axis, [])
            assert inputs, f"no selector for axis {axis} on the page"
            for field in inputs:
                classes = field.get("class", [])
                if field["type"] == "checkbox":
                    want = "i-" if value == "on" else "t-"
                    active |= {c for c in classes if c.startswith(want)}
                elif field["value"] == value:
                    active |= set(classes)
        return active

    def hidden(self, element: Tag, active: set[str]) -> bool:
        classes = element.get("class", [])
        if "rb-sr" in classes or "rb-del" in classes:
            return True  # the change marks' words and struck-through base lines: shown only with the switch on
        for cls in classes:
            match = _HIDE.match(cls)
            if match and (f"i-{match[1]}-{match[2]}" in active or f"t-{match[1]}-{match[2]}" in active):
                return True
            match = _RANK.match(cls)
            if match and f"k-{match[1]}-{match[2]}" in active:
                return True
        return False

    def commands(self, selection: dict[str, str]) -> list[str]:
        """The text of every server command as shown for a selection: each role's block, and
        for a role with a rank picker, the block with each rank picked in turn."""
        active = self.active_classes(selection)
        texts = []
        for pre, ranks in self._roles:
            for rank in ranks:
                texts.append("".join(self._text(child, active | rank) for child in pre.children))
        return texts

    @functools.cached_property
    def _router(self) -> list[Tag]:
        return self.element.select(".rb-router pre")

    def router(self) -> list[str]:
        return [pre.get_text() for pre in self._router]

    def _text(self, node, active: set[str]) -> str:
        if isinstance(node, NavigableString):
            return str(node)
        if self.hidden(node, active):
            return ""
        return "".join(self._text(child, active) for child in node.children)

    def default_selection(self) -> dict[str, str]:
        chosen = {}
        for field in self.element.select("input[data-axis]"):
            if field["type"] == "checkbox":
                chosen[field["data-axis"]] = "on" if field.has_attr("checked") else "off"
            elif field.has_attr("checked"):
                chosen[field["data-axis"]] = field["value"]
        return chosen


def grids(path: Path) -> list[Grid]:
    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    return [
        Grid(strategy=form["data-strategy"], target=form["data-target"], element=form)
        for form in soup.select("form.rb-grid")
    ]
