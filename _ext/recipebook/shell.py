"""Shell text: how a command is laid out for copying, and what a text may contain."""

from __future__ import annotations

import shlex
import shutil
import subprocess

CONTINUATION = " \\\n"
ARG_INDENT = "    "

# Characters that end or redirect a simple command when they stand outside quotes.
_OPERATORS = set(";&|<>()`\n")


def env_line(text: str) -> str:
    """An environment assignment, followed by its continuation."""
    return text + CONTINUATION


def arg_line(text: str) -> str:
    """An argument, preceded by the continuation of the line before it.

    Putting the continuation before each argument (rather than after it) means the
    last line never ends in a backslash, whichever arguments a selection removes.
    """
    return CONTINUATION + ARG_INDENT + text


def command_text(envs: list[str] | tuple[str, ...], launcher: str, model: str,
                 args: list[str] | tuple[str, ...]) -> str:
    """The exact text a reader copies: env assignments, launcher and model, arguments."""
    return ("".join(env_line(e) for e in envs) + f"{launcher} {shlex.quote(model)}"
            + "".join(arg_line(a) for a in args))


def unsafe_reason(text: str) -> str | None:
    """Why a recipe text would not paste as plain words of one command, or None.

    Outside quotes, operators (``;`` ``|`` ``&`` ``<`` ``>`` parentheses, newline,
    backquote), ``$`` expansions and comments would change what runs; inside double
    quotes, ``$`` and backquote still expand. Single quotes keep everything.
    """
    quote = None
    at_word_start = True
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = None
            elif ch in "$`":
                return f"{ch!r} inside double quotes would be expanded by the shell; use single quotes"
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            if i + 1 < len(text) and text[i + 1] == "\n":
                return "a backslash-newline outside quotes joins lines; keep multi-line values inside quotes"
            i += 1
        elif ch in _OPERATORS:
            shown = "newline" if ch == "\n" else repr(ch)
            return f"{shown} outside quotes would change the command; quote the value"
        elif ch == "$":
            return "'$' outside quotes would be expanded by the shell; quote the value with single quotes"
        elif ch == "#" and at_word_start:
            return "'#' at the start of a word starts a comment; quote the value"
        at_word_start = ch in " \t"
        i += 1
    if quote:
        return f"unbalanced {quote} quote"
    return None


def words(text: str) -> list[str]:
    """The shell words of a text, as bash would split it (raises ValueError if unbalanced)."""
    return shlex.split(text, posix=True)


def bash_syntax_error(script: str) -> str | None:
    """What ``bash -n`` reports for a script, or None when it parses."""
    bash = shutil.which("bash")
    if bash is None:
        return "bash is not installed, so the syntax cannot be checked"
    result = subprocess.run([bash, "-n"], input=script, capture_output=True, text=True, check=False)
    if result.returncode == 0:
        return None
    return result.stderr.strip().replace("bash: ", "", 1) or f"bash -n exited with {result.returncode}"
