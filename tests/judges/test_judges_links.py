"""Links judged by a crawl of every HTML file of the built site, both languages.

Every relative href and src (a, link, script, img, source, iframe, area; srcset too),
and every one from the site's root (/en/...), must name a file of the site, and every #fragment an id (or a named anchor) in the page
it points to. External links are not followed (the tests never use the network).
The explorer keeps its selection in a fragment (#s=...), written only by its script: no
page may carry one in its HTML.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from judge_support import html_pages

ATTRIBUTES = ("href", "src")


@functools.cache
def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@functools.cache
def _anchors(path: Path) -> frozenset[str]:
    soup = _soup(path)
    return frozenset(t["id"] for t in soup.find_all(id=True)) | frozenset(
        t["name"] for t in soup.find_all("a", attrs={"name": True})
    )


def _references(soup: BeautifulSoup):
    for tag in soup.find_all(True):
        for attribute in ATTRIBUTES:
            if tag.has_attr(attribute):
                yield tag.name, tag[attribute]
        if tag.has_attr("srcset"):
            for candidate in tag["srcset"].split(","):
                if candidate.strip():
                    yield tag.name, candidate.split()[0]


def test_every_internal_link_and_anchor_resolves(site):
    broken, state, count = [], [], 0
    for rel in html_pages(site):
        page = site / rel
        for tag, value in _references(_soup(page)):
            url = urlsplit(value)
            if url.scheme or url.netloc or value.startswith("//"):
                continue  # external (http, https, mailto, data): not followed
            count += 1
            if url.fragment.startswith("s="):
                state.append(f"{rel}: <{tag}> {value}")
            if not url.path:
                target = page
            elif url.path.startswith("/"):  # from the site's root (the 404 page, served at any path)
                target = (site / unquote(url.path).lstrip("/")).resolve()
            else:
                target = (page.parent / unquote(url.path)).resolve()
            if url.path.endswith("/"):
                target = target / "index.html"
            if not target.is_relative_to(site.resolve()):
                broken.append(f"{rel}: <{tag}> {value} leaves the site")
            elif not target.is_file():
                broken.append(f"{rel}: <{tag}> {value}: no such file")
            elif url.fragment and target.suffix == ".html" and unquote(url.fragment) not in _anchors(target):
                broken.append(f"{rel}: <{tag}> {value}: no id {unquote(url.fragment)!r} in {target.name}")
    assert count > 500
    assert not state, "explorer state fragments in the HTML:\n" + "\n".join(state[:20])
    assert not broken, f"{len(broken)} broken of {count} links:\n" + "\n".join(broken[:30])
