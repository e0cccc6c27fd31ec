"""Shared by the browser tests: open a page and let it settle before anything is measured.

``load`` fires when a page's files have arrived; the browser may still be loading fonts
and laying the text out again with them. On a busy machine (``make test`` beside other
work) that is when a measurement catches a word broken where the final layout never breaks
it. Every test that reads layout (line boxes and rectangles, scroll sizes, ``innerText``,
visibility, colours axe compares) opens its pages with ``open_page``, or calls ``settle``
after it changes the page itself (``set_content``, opening a tab).

Chromium renders with the fonts the project installs and nothing else: the Debian font packages
``tools/system-packages`` names (its ``fonts=(...)``), each file of them as dpkg lists it, through
a fontconfig file of the tests' own (``chromium_env``). Another font on the machine (Liberation,
a reader's ``~/.fonts``) would change where lines break, so a test's verdict would depend on the
machine; with this file it cannot.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PACKAGES = ROOT / "tools" / "system-packages"
_FONT_FILE = re.compile(r"\.(ttf|ttc|otf)$")
# How glyphs are drawn, as Debian's fontconfig-config sets it for everyone (10-hinting-slight,
# 10-yes-antialias, 11-lcdfilter-default): slight hinting keeps text at its fractional widths,
# as readers see it; fontconfig's own default (full hinting) rounds every glyph wider, and the
# catalogue's seven columns no longer fit at 1280 px.
RENDERING = (
    ("hintstyle", "<const>hintslight</const>"),
    ("antialias", "<bool>true</bool>"),
    ("lcdfilter", "<const>lcddefault</const>"),
)
# Which installed family stands for each generic family CSS names, in order: the Latin face
# first, the Korean one for the Hangul it lacks.
GENERIC_FAMILIES = {
    "sans-serif": ("DejaVu Sans", "Noto Sans CJK KR"),
    "serif": ("DejaVu Serif", "Noto Serif CJK KR"),
    "monospace": ("DejaVu Sans Mono", "Noto Sans Mono CJK KR"),
}


def font_packages() -> tuple[str, ...]:
    """The Debian font packages tools/system-packages installs (its ``fonts=(...)`` line)."""
    match = re.search(r"^fonts=\(([^)]*)\)", SYSTEM_PACKAGES.read_text(encoding="utf-8"), re.MULTILINE)
    assert match, f"{SYSTEM_PACKAGES} names no fonts=(...)"
    return tuple(match.group(1).split())


def font_files(packages: tuple[str, ...]) -> list[str]:
    """Every font file the packages installed, as dpkg lists them; fails when one lists none."""
    files = []
    for package in packages:
        listed = subprocess.run(["dpkg-query", "-L", package], capture_output=True, text=True, check=False).stdout
        found = sorted(line for line in listed.splitlines() if _FONT_FILE.search(line) and os.path.isfile(line))
        if not found:
            pytest.fail(f"no font file of {package} is installed: run make test (tools/system-packages)")
        files += found
    return files


def fontconfig(files: list[str], cache: Path) -> str:
    """A fontconfig file that offers exactly these font files: their folders are scanned, every
    other file in them (another package's) is refused, nothing else is read (no /etc/fonts, no
    ~/.fonts, no aliases of the machine's); glyphs drawn as Debian draws them (RENDERING)."""
    folders = sorted({os.path.dirname(file) for file in files})
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">', "<fontconfig>"]
    lines += [f"  <dir>{html.escape(folder)}</dir>" for folder in folders]
    lines += [f"  <cachedir>{html.escape(str(cache))}</cachedir>", "  <selectfont>"]
    lines += ["    <rejectfont><glob>*</glob></rejectfont>", "    <acceptfont>"]
    lines += [f"      <glob>{html.escape(file)}</glob>" for file in files]
    lines += ["    </acceptfont>", "  </selectfont>"]
    for name, value in RENDERING:
        lines.append(f'  <match target="pattern"><edit name="{name}" mode="append">{value}</edit></match>')
    for generic, families in GENERIC_FAMILIES.items():
        prefer = "".join(f"<family>{family}</family>" for family in families)
        lines.append(f"  <alias><family>{generic}</family><prefer>{prefer}</prefer></alias>")
    lines.append("</fontconfig>")
    return "\n".join(lines) + "\n"


def chromium_env(folder: Path) -> dict[str, str]:
    """The environment Chromium is launched with: this one, with FONTCONFIG_FILE pointing at the
    tests' own fontconfig (written into folder) of the fonts tools/system-packages installs."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "fonts.conf"
    config.write_text(fontconfig(font_files(font_packages()), folder / "fontconfig-cache"), encoding="utf-8")
    return {**os.environ, "FONTCONFIG_FILE": str(config)}


# True when the page runs without JavaScript: a <noscript> then parses its content as elements.
SCRIPTING_OFF = """(() => {
  const probe = document.createElement('noscript');
  probe.innerHTML = '<b></b>';
  return probe.childElementCount > 0;
})()"""

# The fonts the page uses have loaded, and two frames have been laid out and painted since.
# With JavaScript off (a no-JS context) the page runs no frame callback, so none is waited for
# (it would never come): a <noscript> then parses its content as elements, not as text.
# The layout forced first makes the browser request the web fonts the text needs: before any
# layout has run, no font is loading yet and document.fonts.ready has already resolved.
SETTLE = (
    """async () => {
  if (document.body) document.body.getBoundingClientRect();
  await document.fonts.ready;
  await Promise.all([...document.fonts].filter(face => face.status === 'loading').map(face => face.loaded));
  if ("""
    + SCRIPTING_OFF
    + """) return;
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}"""
)


# The page has stopped moving: the scroll position and the document's height the same for
# six frames in a row (at most four seconds; a script that keeps a landing in view reacts within
# a frame). With JavaScript off no frame callback runs and nothing moves the page: no wait.
STILL = (
    """async () => {
  if ("""
    + SCRIPTING_OFF
    + """) return;
  const start = performance.now();
  let last = null, same = 0;
  while (same < 6 && performance.now() - start < 4000) {
    await new Promise(resolve => requestAnimationFrame(resolve));
    const now = scrollX + ',' + scrollY + ',' + document.documentElement.scrollHeight;
    same = now === last ? same + 1 : 0;
    last = now;
  }
}"""
)


def still(page: Any) -> None:
    """Wait until nothing moves the page any more (see STILL): a condition, not a time."""
    page.evaluate(STILL)


def settle(page: Any) -> None:
    """Wait until the page's fonts have loaded and its layout has run twice (once fonts are in,
    with JavaScript off)."""
    page.evaluate(SETTLE)


def laid_out(page: Any, width: int, height: int = 900) -> None:
    """The open page laid out again at another window size (Chromium lays the whole page out anew
    and its media queries apply afresh, as for a reader who resizes a window), then settled; the
    page must report the width as its innerWidth."""
    page.set_viewport_size({"width": width, "height": height})
    settle(page)
    assert page.evaluate("innerWidth") == width, page.url


def open_page(page: Any, url: str) -> Any:
    """page.goto, then settle; returns goto's response."""
    response = page.goto(url)
    settle(page)
    return response


def set_content(page: Any, html: str) -> None:
    """page.set_content, then settle."""
    page.set_content(html)
    settle(page)
