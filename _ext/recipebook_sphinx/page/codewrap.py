"""Code blocks wrap for display at spaces, not after the hyphen inside a token.

Commands and code blocks wrap instead of scrolling (recipebook.css), and a browser may
break a line after any hyphen: at 375 px ``rebel-compiler`` showed as ``rebel-`` and
``compiler``, which reads as two words. Each short run of non-space characters holding a
hyphen is wrapped in a ``nowrap`` span in every ``<pre>`` of a page; the text (what is
copied) is unchanged. A run longer than a narrow block holds (``KEEP_UP_TO`` characters)
is left as it is, so it can still break rather than overflow.

A flag in prose (``--data-parallel-size`` in a memory note, a help text or a translation, or a
short option such as the ``-m`` of ``python -m recipebook``) is kept whole the same way: a
browser may break after its leading dashes, and with some fonts and widths one did
(``--|data-parallel-size`` at 1280 px and ``-|m`` at 375 px with Liberation Sans). A flag longer
than ``KEEP_UP_TO`` keeps only its dashes and its first word together, so it can still break at a
later hyphen rather than overflow a phone's screen; Hangul glued after a flag (``--x를``) stays
with it.
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


# a tag, a comment, or an element whose text is not prose (kept as it is); else a flag in prose:
# --name, or -x (a letter after one dash that no word or hyphen comes before: not the one of non-English)
_FLAG_OR_NOT = re.compile(
    r"(?P<skip><(?P<element>pre|code|script|style|textarea|option|title)\b[^>]*>.*?</(?P=element)\s*>"
    r"|<!--.*?-->|<[^>]*>)"
    r"|(?<![\w-])(?P<flag>(?:--[A-Za-z0-9]|-[A-Za-z])(?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)"
    r"(?P<glued>[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]*)",
    re.DOTALL | re.IGNORECASE,
)


def _keep_flag(match: re.Match[str]) -> str:
    if match.group("skip"):
        return match.group()
    flag, glued = match.group("flag"), match.group("glued")
    if len(flag) + len(glued) <= KEEP_UP_TO:
        return f'<span class="{CLASS}">{flag}{glued}</span>'
    dashes = "--" if flag.startswith("--") else "-"
    head, dash, rest = flag[len(dashes) :].partition("-")  # the dashes and the first word together
    return f'<span class="{CLASS}">{dashes}{head}</span>{dash}{rest}{glued}'


def keep_flags(body: str) -> str:
    """An HTML body with each flag in its prose kept on one line (code, scripts and tags untouched)."""
    return _FLAG_OR_NOT.sub(_keep_flag, body)


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """html-page-context: the page's body with its code blocks' hyphenated runs and its prose's
    flags kept whole."""
    if "body" in context:
        context["body"] = keep_flags(in_pre_blocks(context["body"]))
