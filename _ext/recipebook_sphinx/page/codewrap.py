"""Code blocks wrap for display at spaces, not after the hyphen inside a token.

Commands and code blocks wrap instead of scrolling (recipebook.css), and a browser may
break a line after any hyphen: at 375 px ``rebel-compiler`` showed as ``rebel-`` and
``compiler``, which reads as two words. Each short run of non-space characters holding a
hyphen is wrapped in a ``nowrap`` span in every ``<pre>`` of a page; the text (what is
copied) is unchanged. A run longer than a narrow block holds (``KEEP_UP_TO`` characters)
is left as it is, so it can still break rather than overflow.
"""

from __future__ import annotations

import html
import re
from typing import Any

from sphinx.application import Sphinx

# Characters of a run kept on one line: a 375 px block holds about 40 of its monospace ones.
KEEP_UP_TO = 36
CLASS = "rb-nb"

_PRE = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.DOTALL)
_TAG = re.compile(r"(<[^>]*>)")
_HYPHENATED = re.compile(r"[^\s<>]*-[^\s<>]*")


def _keep(match: re.Match[str]) -> str:
    run = match.group()
    if len(html.unescape(run)) > KEEP_UP_TO or not run.strip("-"):
        return run
    return f'<span class="{CLASS}">{run}</span>'


def keep_hyphenated(pre_inner: str) -> str:
    """The inside of a <pre> with each short hyphenated run of its text kept on one line."""
    pieces = _TAG.split(pre_inner)  # text, tag, text, tag, ...: only the text is touched
    return "".join(piece if i % 2 else _HYPHENATED.sub(_keep, piece) for i, piece in enumerate(pieces))


def in_pre_blocks(body: str) -> str:
    return _PRE.sub(lambda m: m.group(1) + keep_hyphenated(m.group(2)) + m.group(3), body)


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """html-page-context: the page's body with its code blocks' hyphenated runs kept whole."""
    if "body" in context:
        context["body"] = in_pre_blocks(context["body"])
