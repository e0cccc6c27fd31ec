"""The one way this extension warns: type ``recipebook``, a subtype, always a location."""

from __future__ import annotations

import enum

from docutils import nodes
from sphinx.util import logging

from recipebook.problems import Problem

WARNING_TYPE = "recipebook"
logger = logging.getLogger(__name__)


class Subtype(enum.Enum):
    JSON = "json"
    SCHEMA = "schema"
    RULE = "rule"
    VOCABULARY = "vocabulary"
    MISSING = "missing"  # a page names a recipe that does not exist
    PAGE = "page"  # a recipe has no page
    TEMPLATE = "template"  # the explorer would not show what the engine expands (a bug)


# Where a warning points: a docname, (docname, line), or a node of the document.
Location = str | tuple[str | None, int | None] | nodes.Node | None


def warn(message: str, subtype: Subtype, location: Location) -> None:
    """Log one warning; Sphinx appends ``[recipebook.<subtype>]``."""
    logger.warning(message, type=WARNING_TYPE, subtype=subtype.value, location=location)


def warn_problem(problem: Problem, relative_file: str) -> None:
    """A recipe problem, located as FILE:LINE:COL like the command line prints it (a recipe's
    warning says so, as the command line does)."""
    level = "" if problem.is_error else "warning: "
    warn(
        f"{problem.pointer or '/'}: {level}{problem.message}",
        Subtype(problem.kind.value),
        f"{relative_file}:{problem.line}:{problem.column}",
    )
