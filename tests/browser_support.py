"""Shared by the browser tests: open a page and let it settle before anything is measured.

``load`` fires when a page's files have arrived; the browser may still be loading fonts
and laying the text out again with them. On a busy machine (``make test`` beside other
work) that is when a measurement catches a word broken where the final layout never breaks
it. Every test that reads layout (line boxes and rectangles, scroll sizes, ``innerText``,
visibility, colours axe compares) opens its pages with ``open_page``, or calls ``settle``
after it changes the page itself (``set_content``, opening a tab).
"""

from __future__ import annotations

from typing import Any

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


def open_page(page: Any, url: str) -> Any:
    """page.goto, then settle; returns goto's response."""
    response = page.goto(url)
    settle(page)
    return response


def set_content(page: Any, html: str) -> None:
    """page.set_content, then settle."""
    page.set_content(html)
    settle(page)
