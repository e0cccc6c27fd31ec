"""Flags and environment names of the pinned vLLM (filled in by the vocabulary issue)."""

from __future__ import annotations

from collections.abc import Iterator

from .model import Recipe
from .problems import Problem
from .source import Document


def check(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    return iter(())
