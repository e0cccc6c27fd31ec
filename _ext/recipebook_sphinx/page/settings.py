"""``recipe-settings``: every ``recipebook_*`` setting, from its declaration.

Each setting is declared once, as a field of ``recipebook_sphinx.config.Settings``; the list
(a definition list: the setting, then what it is for, its default and what a change rebuilds,
which reads at any width where a four-column table did not) is made from those fields
(``config.settings_table``) and parsed as Markdown in the page it stands in, so its words are the
page's own: the gettext builder extracts them into the page's catalog and a Korean build
translates them from there, as ``recipe-rules`` does with the rules.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .. import config

CLASS = "rb-settings"
REBUILDS = {
    "the pages": "A change rebuilds the pages.",
    "the HTML": "A change rebuilds the HTML.",
    "nothing": "A change rebuilds nothing.",
}


def markdown_list() -> str:
    """The settings as a Markdown definition list: each setting, then what it is for, its
    default and what a change to it rebuilds."""
    entries = []
    for name, default, rebuilds, help_text in config.settings_table():
        entries += [f"`{name}`", f": {help_text}", "", f"  Default: `{default}`. {REBUILDS[rebuilds]}", ""]
    return "\n".join(entries)


class SettingsDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(config.__file__)  # an edited declaration rebuilds the page,
        self.env.note_dependency(__file__)  # and so does an edit here
        found = self.parse_text_to_nodes(markdown_list())
        for listing in (node for top in found for node in top.findall(nodes.definition_list)):
            listing["classes"].append(CLASS)
        return found
