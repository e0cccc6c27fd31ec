"""``recipe-rules``: the rules a recipe keeps, as the engine states them.

Each rule is written once, as the docstring of the function that checks it
(``recipebook.checking.rules.statements``). The directive parses each statement as Markdown in the
page it stands in, so its paragraphs are the page's own: the gettext builder extracts
them into the page's catalog, a Korean build translates them from there, and an edited
docstring turns its translation fuzzy, which the translation gate refuses until a
translator has looked at it.

Without options it lists the numbered rules (1, 2, ...), each item a target named
``rule-N`` that other pages link with ``{ref}`rule N <rule-N>```; with ``:unnumbered:``
the rules that have no number.
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from recipebook.checking import characters, rules, safety, spanning

from ..warnings_ import Subtype, warn

# The modules whose docstrings the list is made of: an edit there rebuilds the page.
_SOURCES = (rules, characters, safety, spanning)


def rule_id(number: int) -> str:
    return f"rule-{number}"


class RulesDirective(SphinxDirective):
    has_content = False
    option_spec: ClassVar = {"unnumbered": directives.flag}

    def run(self) -> list[nodes.Node]:
        for module in _SOURCES:
            assert module.__file__ is not None  # a module read from a file
            self.env.note_dependency(module.__file__)
        unnumbered = "unnumbered" in self.options
        chosen = [s for s in rules.statements() if (s.number is None) == unnumbered]
        if unnumbered:
            listing: nodes.Element = nodes.bullet_list(bullet="-")
        else:
            listing = nodes.enumerated_list(enumtype="arabic", prefix="", suffix=".")
            expected = list(range(1, len(chosen) + 1))
            if [s.number for s in chosen] != expected:
                warn(
                    f"the rules are numbered {[s.number for s in chosen]}, not 1 to {len(chosen)}: "
                    "a list would show other numbers",
                    Subtype.RULE,
                    self.get_location(),
                )
        for statement in chosen:
            item = nodes.list_item()
            if statement.number is not None:
                item["names"].append(rule_id(statement.number))  # {ref}`rule 12 <rule-12>`
                self.state.document.note_explicit_target(item, item)
            item.extend(self.parse_text_to_nodes(statement.text))
            listing += item
        return [listing]
