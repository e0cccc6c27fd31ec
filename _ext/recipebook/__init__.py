"""recipebook: load, validate and expand model-serving recipes into shell commands.

Pure Python: nothing here imports Sphinx or docutils.
"""

from . import memo
from .expanding.expansion import Command, Expansion, offered, resolve
from .expanding.page import commands_of, expand, expand_selection, matrix, page_of
from .pipeline.load import check_file, load
from .problems import Kind, Problem, RecipeError, SelectionError
from .reading.model import Recipe


def forget() -> None:
    """Drop what the engine remembers about texts and files it has read, as in a new process:
    every remembered function (``memo.remembered``) registers itself, so none is left out.
    What a caller's ``Memo`` holds is the caller's to drop."""
    memo.forget()


__all__ = [
    "Command",
    "Expansion",
    "Kind",
    "Problem",
    "Recipe",
    "RecipeError",
    "SelectionError",
    "check_file",
    "commands_of",
    "expand",
    "expand_selection",
    "forget",
    "load",
    "matrix",
    "offered",
    "page_of",
    "resolve",
]
