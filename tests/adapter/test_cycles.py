"""The build collects the cycles its pages leave once they are many (recipebook_sphinx/cycles.py):
the site's GC thresholds make CPython's own full collection seldom, and a portal of large recipes
grew by tens of MiB a page without it."""

from __future__ import annotations

import gc
import shutil
import weakref
from collections.abc import Iterator

import pytest

from recipebook_sphinx import cycles
from recipebook_sphinx.cycles import Collector


class _Node:
    """An object in a cycle, as a doctree's nodes are (each knows its parent)."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycles(count: int) -> weakref.ref[_Node]:
    """`count` two-object cycles, unreachable when this returns; a reference that dies with them."""
    nodes = []
    for _ in range(count):
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        nodes.append(a)
    return weakref.ref(nodes[-1])


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Only the collector under test collects (CPython's own collector could run at any allocation)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def test_cycles_beyond_the_limit_are_collected_at_the_next_boundary(no_automatic_collection):
    collector = Collector(limit=20_000)
    alive = _cycles(30_000)  # two objects and their attribute tables a cycle: well over the limit
    assert alive() is not None  # unreachable, yet nothing has collected it
    collector()
    assert alive() is None
    assert collector.collections == 1
    collector()  # nothing more left behind since: no second collection
    assert collector.collections == 1


def test_cycles_within_the_limit_are_left_to_cpython(no_automatic_collection):
    collector = Collector(limit=10_000_000)
    alive = _cycles(30_000)
    collector()
    assert alive() is not None
    assert collector.collections == 0


def _collectors(app) -> list[Collector]:
    return [
        listener.handler
        for name in ("doctree-read", "doctree-resolved", "build-finished")
        for listener in app.events.listeners[name]
        if isinstance(listener.handler, Collector)
    ]


def test_a_build_looks_at_every_page_read_and_written_and_at_its_end(make_app, rootdir, tmp_path, monkeypatch):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    monkeypatch.setattr(cycles, "LEFT_BEHIND", -1)  # every boundary collects: each one is counted
    app = make_app("html", srcdir=srcdir)
    app.build()
    found = _collectors(app)
    assert len(found) == 3 and len({id(c) for c in found}) == 1  # one collector, on the three events
    pages = len(app.env.found_docs)
    assert found[0].collections == 2 * pages + 1  # each page read, each page before it is written, the end
