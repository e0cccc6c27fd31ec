"""recipebook: load, validate and expand model-serving recipes into shell commands.

Pure Python: nothing here imports Sphinx or docutils.
"""

from .expansion import Command, Expansion, expand, expand_selection, matrix, offered, resolve
from .load import check_file, load
from .model import Recipe
from .problems import Kind, Problem, RecipeError, SelectionError


def forget() -> None:
    """Drop what the engine remembers about texts it has read (each argument text's words,
    each text's check, each command's flags, each router step's bash -n), as in a new process.
    """
    from . import client, rules, shell

    for remembered in (
        shell._words,
        shell._flag_words,
        shell.unsafe_reason,
        shell.bash_syntax_error,
        rules.text_error,
        client._flags,
    ):
        remembered.cache_clear()


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
    "forget",
    "load",
    "matrix",
    "offered",
    "resolve",
]
