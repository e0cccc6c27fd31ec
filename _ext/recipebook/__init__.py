"""recipebook: load, validate and expand model-serving recipes into shell commands.

Pure Python: nothing here imports Sphinx or docutils.
"""

from . import shell
from .checking import rules, safety
from .expanding import client
from .expanding.expansion import Command, Expansion, offered, resolve
from .expanding.page import commands_of, expand, expand_selection, matrix, page_of
from .pipeline.load import check_file, load
from .problems import Kind, Problem, RecipeError, SelectionError
from .reading import vocabulary
from .reading.model import Recipe
from .rendering import files, kubernetes


def forget() -> None:
    """Drop what the engine remembers about texts it has read (each argument text's words,
    each text's check, each command's flags, each router step's bash -n, each line's manifest
    fragment, each argument's --config entry), as in a new process.
    """
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
        files.config_entry,
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
