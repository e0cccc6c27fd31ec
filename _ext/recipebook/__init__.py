"""recipebook: load, validate and expand model-serving recipes into shell commands.

Pure Python: nothing here imports Sphinx or docutils.
"""

from .expansion import Command, Expansion, expand, expand_selection, matrix, offered, resolve
from .load import check_file, load
from .model import Recipe
from .problems import Kind, Problem, RecipeError, SelectionError

__all__ = [
    "Command",
    "Expansion",
    "Kind",
    "Problem",
    "Recipe",
    "RecipeError",
    "SelectionError",
    "check_file",
    "expand",
    "expand_selection",
    "load",
    "matrix",
    "offered",
    "resolve",
]
