"""recipebook: load, validate and expand model-serving recipes into shell commands.

Pure Python: nothing here imports Sphinx or docutils.
"""

from .expansion import Command, Expansion, offered, resolve
from .load import check_file, load
from .model import Recipe
from .page import commands_of, expand, expand_selection, matrix, page_of
from .problems import Kind, Problem, RecipeError, SelectionError


def forget() -> None:
    """Drop what the engine remembers about texts it has read (each argument text's words,
    each text's check, each command's flags, each router step's bash -n, each line's manifest
    fragment), as in a new process.
    """
    from . import client, kubernetes, rules, safety, shell, vocabulary

    for remembered in (
        shell._words,
        shell._flag_words,
        shell.unsafe_reason,
        shell.bash_syntax_error,
        rules.text_error,
        safety.near_placeholder,
        safety.port_messages,
        client._flags,
        vocabulary._reading,
        kubernetes.line_fragment,
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
