"""Import recipes written for other portals into this format (``python -m recipebook import``):
vLLM Recipes' model files (``convert``: their command builder's choices as strategies, targets,
axes and deltas; ``synthesis``: the commands their site builds; ``factor``: shared grids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .grids import factor
from .vllm_recipes import Checkout, Imported, NotImportable, convert, model_file


def convert_file(path: Path, checkout: Checkout) -> Imported:
    """A model file as a recipe with shared grids, and what it could not express."""
    imported = convert(path, checkout)
    imported.recipe = factor(imported.recipe)
    return imported


def dumps(document: Any) -> str:
    """A recipe as the shipped recipes are written: two-space indent, characters as they are."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


__all__ = ["Checkout", "Imported", "NotImportable", "convert", "convert_file", "dumps", "factor", "model_file"]
