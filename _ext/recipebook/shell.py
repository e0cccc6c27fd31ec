"""Shell text: how a command is laid out for copying, and what a text may contain."""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator, Sequence

from .memo import remembered

CONTINUATION = " \\\n"
ARG_INDENT = "    "
_ARG_BREAK = CONTINUATION + ARG_INDENT

# A value the reader fills in, such as <POD_IP>; the group is its name.
PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")

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


def command_text(
    envs: list[str] | tuple[str, ...], launcher: str, model: str, args: list[str] | tuple[str, ...]
) -> str:
    """The exact text a reader copies: env assignments, launcher and model, arguments (each
    env line ends in a continuation, each argument starts on a continued line: ``env_line``,
    ``arg_line``)."""
    return join_command(envs, f"{launcher} {shlex.quote(model)}", args)


def join_command(envs: tuple[str, ...] | list[str], head: str, args: tuple[str, ...] | list[str]) -> str:
    """``command_text`` with the launcher and model already written as ``head``."""
    text = CONTINUATION.join((*envs, head))
    return text + _ARG_BREAK + _ARG_BREAK.join(args) if args else text


@remembered(maxsize=1 << 14)
def unsafe_reason(text: str) -> str | None:
    """Why a recipe text would not paste as plain words of one command, or None.

    Outside quotes, operators (``;`` ``|`` ``&`` ``<`` ``>`` parentheses, newline,
    backquote), ``$`` expansions and comments would change what runs, and so would
    file-name patterns (``*`` ``?`` ``[``), braces, a leading ``~`` and a carriage
    return (bash keeps it in the word, shlex splits there); inside double quotes,
    ``$`` and backquote still expand, and a backslash before them or a newline is
    removed by bash but kept by shlex. ``!`` outside single quotes is history
    expansion when pasted into an interactive shell. Single quotes keep everything.
    """
    if "\0" in text:
        return "a NUL character cannot be passed to a command"
    quote = None
    at_word_start = True
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
            i += 1
            continue
        if ch == "!":
            return "'!' outside single quotes is history expansion in an interactive shell; use single quotes"
        if quote == '"':
            if ch == "\\":
                if i + 1 < len(text) and text[i + 1] in "$`\n":
                    return "a backslash before '$', '`' or a newline inside double quotes; use single quotes"
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
        elif ch in "*?[":
            return f"{ch!r} outside quotes is a file-name pattern the shell may expand; quote the value"
        elif ch == "{":
            return "'{' outside quotes may be brace-expanded by the shell; quote the value"
        elif ch == "~" and (at_word_start or text[i - 1] in "=:"):
            return "'~' here may be expanded to a home directory by the shell; quote the value"
        elif ch == "\r":
            return "a carriage return outside quotes; remove it or quote the value"
        at_word_start = ch in " \t"
        i += 1
    if quote:
        return f"unbalanced {quote} quote"
    return None


def placeholders(text: str) -> list[str]:
    """The names of the placeholders in a text, each once, in order."""
    return list(dict.fromkeys(PLACEHOLDER.findall(text)))


_QUOTING = re.compile(r"[\\'\"]")
_BLANKS = re.compile(r"[ \t\r\n]+")


def words(text: str) -> list[str]:
    """The shell words of a text, as bash would split it (raises ValueError if unbalanced)."""
    return list(_words(text))


@remembered(maxsize=1 << 16)
def _words(text: str) -> tuple[str, ...]:
    """words, remembered: the rules, the vocabulary and the pages split the same texts."""
    if _QUOTING.search(text) is None:
        # without quotes or backslashes a word is a run of anything but shlex's blanks
        return tuple(word for word in _BLANKS.split(text) if word)
    return tuple(shlex.split(text, posix=True))


@remembered(maxsize=1 << 10)
def bash_syntax_error(script: str) -> str | None:
    """What ``bash -n`` reports for a script, or None when it parses (remembered per text:
    recipes of one build share their router steps)."""
    bash = shutil.which("bash")
    if bash is None:
        return "bash is not installed, so the syntax cannot be checked"
    result = subprocess.run([bash, "-n"], input=script, capture_output=True, text=True, check=False)
    # bash names itself (its path) before each message; a warning (say, a here-document
    # without its end marker) passes bash -n but would not paste as written either
    lines = [line.removeprefix(f"{bash}: ").strip() for line in result.stderr.splitlines() if line.strip()]
    if result.returncode == 0 and not lines:
        return None
    return " ".join(lines) or f"bash -n exited with {result.returncode}"


def flag_values(text: str) -> tuple[str, list[str]]:
    """The flag (or env name) of an argument text and its value words.

    ``--max-model-len 8192``, ``--max-model-len=8192`` and ``NAME=VALUE`` all give the name
    and the values as bash passes them: ``("--max-model-len", ["8192"])``. A flag alone has no
    values. Raises ValueError for a text that does not split into shell words, or is empty.
    """
    name, values = _flag_words(text)
    return name, list(values)


@remembered(maxsize=1 << 16)
def _flag_words(text: str) -> tuple[str, tuple[str, ...]]:
    """flag_values, remembered: a page asks for the same argument texts at every selection."""
    parts = _words(text)
    if not parts:
        raise ValueError("an empty argument text")
    name, equals, inline = parts[0].partition("=")
    return name, ((inline,) if equals else ()) + parts[1:]


def json_prose_spans(text: str) -> list[tuple[int, int]]:
    """Where a shell text holds prose: the (start, end) of every JSON string value inside a
    single-quoted JSON body (``'{"messages": [{"content": "你好，世界"}]}'``).

    The shell passes such a body to its program as one word, and the program reads the value as
    text: a fullwidth comma or a typographic quote in a prompt is a character of that text, not
    shell or JSON syntax. Keys and everything outside the strings still carry meaning."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            end = _double_quoted_end(text, i + 1)
            i = end + 1
            continue
        if ch != "'":
            i += 1
            continue
        end = text.find("'", i + 1)
        if end < 0:
            break
        body = text[i + 1 : end]
        if body.lstrip().startswith(("{", "[")):
            spans += [(i + 1 + start, i + 1 + stop) for start, stop in _json_string_values(body)]
        i = end + 1
    return spans


def _double_quoted_end(text: str, i: int) -> int:
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i


def _json_string_values(body: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of the contents of each JSON string of a body that is not an object's key."""
    i, n = 0, len(body)
    while i < n:
        if body[i] != '"':
            i += 1
            continue
        j = i + 1
        while j < n and body[j] != '"':
            j += 2 if body[j] == "\\" else 1
        after = j + 1
        while after < n and body[after] in " \t\r\n":
            after += 1
        if after >= n or body[after] != ":":
            yield i + 1, min(j, n)
        i = j + 1


# -- here-documents ---------------------------------------------------------------------------

# `cat > FILE <<'TAG'` (or <<TAG, <<-TAG) and the rest of its line; the document follows.
_HERE_DOCUMENT = re.compile(r"cat\s+>\s*(?P<file>\S+)\s+<<-?\s*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[^\n]*\n", re.MULTILINE)


@dataclasses.dataclass(frozen=True, kw_only=True)
class HereDocument:
    """The text a step writes to a file with `cat > FILE <<'TAG'`."""

    step: int  # the index of the step that writes it
    start: int  # where its text starts in the step's text
    text: str


def here_documents(steps: Sequence[str]) -> dict[str, HereDocument]:
    """The files the steps write with here-documents, by file name (the last writing wins): the
    one reading of a here-document, for the router's Helm checks and its manifests."""
    files = {}
    for i, cmd in enumerate(steps):
        for match in _HERE_DOCUMENT.finditer(cmd):
            end = re.compile(rf"^{re.escape(match.group('tag'))}$", re.MULTILINE).search(cmd, match.end())
            text = cmd[match.end() : end.start() if end else len(cmd)]
            files[match.group("file")] = HereDocument(step=i, start=match.end(), text=text)
    return files
