"""The cycles a large page leaves behind, collected once they are many.

A page's doctree is a web of cycles (every node knows its parent), and so are many of the
objects made while a recipe's page is read and written: once the page is done, only CPython's
cycle collector frees them. The site's configuration makes that collector look at old objects
seldom (conf.py's ``GC_THRESHOLDS``: about 8% less processor time per build), and in a build of
large recipes it then almost never does: measured on one language of a portal of eight recipes of
20 tabs of 10 targets, no full collection ran between the first page read and the end, and the
process's peak grew by about 86 MiB per large page written (786 MiB at the end, 443 MiB for four
such recipes); the 100-large-recipe portal of ``make bench`` reached 3,571 MiB a process.

So the build counts what is left behind instead of guessing: at each page's boundary (read,
about to be written, and before the build-finished writers) it compares the interpreter's
allocated blocks with what there were after the last full collection, and collects when a
million more have piled up. A page of a large recipe leaves about half that much. Pages of the
shipped kind leave little: the shipped site's builds run no collection, the suite's portal of
100 such recipes one or two per language (about half a second each, its peak unchanged). The
eight-recipe build above then peaked at 520 MiB, with four collections of about two seconds each.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

from sphinx.application import Sphinx

# blocks (CPython's small-object allocations, what cycles are made of) left since the last full
# collection that start one: a large recipe's page leaves about a million
LEFT_BEHIND = 1_000_000


class Collector:
    """Collects cycles when ``LEFT_BEHIND`` more blocks than after its last collection are allocated."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = LEFT_BEHIND if limit is None else limit
        self.after_last = sys.getallocatedblocks()
        self.collections = 0

    def __call__(self, *_event: Any) -> None:
        if sys.getallocatedblocks() - self.after_last > self.limit:
            gc.collect()
            self.collections += 1
            self.after_last = sys.getallocatedblocks()


def setup(app: Sphinx) -> Collector:
    """The build's collector, at each page read, before each page is written, and before the
    site-level files are written (build-finished: they read every recipe again)."""
    collector = Collector()
    app.connect("doctree-read", collector, priority=900)  # after the page's models are dropped
    app.connect("doctree-resolved", collector, priority=100)
    app.connect("build-finished", collector, priority=100)
    return collector
