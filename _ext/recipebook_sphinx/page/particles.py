"""A Korean particle stays on the line of the word it is glued to.

Korean pages set ``word-break: keep-all`` (recipebook.css), so their lines break only between
words. Chromium still breaks after a closing bracket, a closing quotation mark or a percent sign
that is glued to the Hangul after it (Unicode's line-breaking rules allow a break there): at
some width ``이슈)를`` ended one line with ``이슈)`` and began the next with ``를``. Each such mark
is kept on one line with the syllables that follow it, in the nowrap span of codewrap.py (a
break before a closing mark is never allowed, so the word stays whole). Only text is touched:
tags, code blocks, inline code, scripts and styles stay as they are, and so does the text.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

from .codewrap import CLASS

# a tag, or an element whose text is not prose (kept whole); else a closing mark glued to Hangul
_PROSE_OR_NOT = re.compile(
    r"(?P<skip><(?P<element>pre|code|script|style)\b[^>]*>.*?</(?P=element)>|<[^>]*>)"
    r"|(?P<glued>[)\]}’”」』〉》%]+[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]+)",
    re.DOTALL | re.IGNORECASE,
)


def _keep(match: re.Match[str]) -> str:
    if match.group("skip"):
        return match.group()
    return f'<span class="{CLASS}">{match.group()}</span>'


def keep_glued(body: str) -> str:
    """An HTML body with each closing mark glued to Hangul kept on one line with it."""
    return _PROSE_OR_NOT.sub(_keep, body)


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """html-page-context: the page's body with its particles kept beside their words."""
    if "body" in context:
        context["body"] = keep_glued(context["body"])
