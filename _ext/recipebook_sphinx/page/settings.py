"""``recipe-settings``: the table of every ``recipebook_*`` setting, from its declaration.

Each setting is declared once, as a field of ``recipebook_sphinx.config.Settings``; the table
is made from those fields (``config.settings_table``) and parsed as Markdown in the page it
stands in, so its words are the page's own: the gettext builder extracts them into the page's
catalog and a Korean build translates them from there, as ``recipe-rules`` does with the rules.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .. import config

CLASS = "rb-settings"  # its cells wrap between words (recipebook.css)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table() -> str:
    """The settings as a Markdown table: name, default, what a change rebuilds, what it is for."""
    rows = [
        f"| `{name}` | `{_cell(default)}` | {rebuilds} | {_cell(help_text)} |"
        for name, default, rebuilds, help_text in config.settings_table()
    ]
    return "\n".join(["| Setting | Default | A change rebuilds | What it is for |", "| --- | --- | --- | --- |", *rows])


class SettingsDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(config.__file__)  # an edited declaration rebuilds the page
        found = self.parse_text_to_nodes(markdown_table())
        for table in (node for top in found for node in top.findall(nodes.table)):
            table["classes"].append(CLASS)
        return found
