"""What is run: every text a page shows as a command, and the script the steps are joined into.

The install line and the client example are shown as commands on the page, in its Markdown view
and in ``llms-full.txt``, and readers paste them. Each gets the rules of a command
(``shown_command_problem``): one command (no ``;``, ``|``, ``&``, redirection or newline outside
quotes; a backslash-newline continues the line), no expansion outside single quotes (``$``,
backquotes, ``!``, file-name patterns, braces, ``~``), placeholders written ``'<NAME>'`` inside
quotes, and ``bash -n``; each problem at its character.

What ``serve.sh`` runs is judged as joined, not only piece by piece:

- a launcher is a program and its subcommand (``vllm serve``): no ``sudo`` or other wrapper that
  runs something else, no extra positional word before the model;
- a router step does not end in a backslash, which would join the next step to it once the steps
  are one function; a placeholder in a router step stands inside quotes (or a here-document),
  since ``<EPP_HOST>`` outside them is a redirection;
- the commands of a target have functions of distinct names (a role named ``prefill_rank0``
  and rank 0 of the role ``prefill`` would both be ``serve_prefill_rank0``), and no role is named
  ``router`` where the router steps are;
- the ``serve.sh`` of each target's opening selection passes ``bash -n``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

from .. import shell
from ..expanding import page
from ..memo import Memo
from ..problems import Problem, pointer_join
from ..reading.model import Recipe, Role
from ..reading.source import Document
from ..rendering import files
from . import safety

# programs that run another command: the page would say "vllm serve" and run something else
WRAPPERS = frozenset(
    [
        "sudo",
        "doas",
        "su",
        "env",
        "nohup",
        "exec",
        "eval",
        "command",
        "builtin",
        "time",
        "nice",
        "ionice",
        "timeout",
        "xargs",
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "setsid",
        "chroot",
        "unshare",
        "nsenter",
        "runuser",
        "stdbuf",
        "watch",
        "strace",
        "ltrace",
    ]
)
_PLACEHOLDER_AT = re.compile(r"<[A-Z][A-Z0-9_]*>")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.-]+))")


def _outside_quote_problem(text: str, i: int, at_word_start: bool) -> str | None:
    """What the character at i, outside quotes, does to a pasted command, or None."""
    ch = text[i]
    if ch == "<" and (placeholder := _PLACEHOLDER_AT.match(text, i)):
        name = placeholder.group()
        return f"{name} outside quotes is a redirection in bash, not a value; write '{name}' in single quotes"
    if ch == "\n":
        return "a newline outside quotes starts another command; keep to one command (end a line with ' \\' to continue it)"
    if ch in ";&|<>()`":
        return (
            f"{ch!r} outside quotes makes this more than one plain command; a command shown for copying is one command"
        )
    if ch == "$":
        return "'$' outside single quotes is expanded by the shell; quote the text with single quotes"
    if ch == "#" and at_word_start:
        return "'#' at the start of a word starts a comment; quote it"
    if ch in "*?[":
        return f"{ch!r} outside quotes is a file-name pattern the shell may expand; quote it"
    if ch == "{":
        return "'{' outside quotes may be brace-expanded by the shell; quote it"
    if ch == "~" and (at_word_start or text[i - 1] in "=:"):
        return "'~' here is expanded to a home directory by the shell; quote it"
    if ch == "\r":
        return "a carriage return outside quotes; remove it"
    return None


def shown_command_problem(text: str) -> tuple[int, str] | None:
    """The index and the reason of the first thing that keeps a text from being one plain command
    when pasted into bash, or None."""
    if "\0" in text:
        return text.index("\0"), "a NUL character cannot be part of a command"
    quote, opened = None, 0
    at_word_start = True
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
            i += 1
            at_word_start = False
            continue
        if ch == "!":
            return i, "'!' outside single quotes is history expansion in an interactive shell; use single quotes"
        if quote == '"':
            if ch == "\\" and i + 1 < len(text) and text[i + 1] in '$`\\"\n':
                i += 2
                continue
            if ch == '"':
                quote = None
            elif ch in "$`":
                return i, f"{ch!r} inside double quotes is expanded by the shell; use single quotes"
            i += 1
            continue
        if ch in "'\"":
            quote, opened = ch, i
        elif ch == "\\":
            if i + 1 < len(text) and text[i + 1] == "\n":
                i += 2
                at_word_start = True
                continue
            if i + 1 >= len(text):
                return i, "a backslash at the end escapes nothing; remove it"
            i += 2
            at_word_start = False
            continue
        else:
            reason = _outside_quote_problem(text, i, at_word_start)
            if reason:
                return i, reason
        at_word_start = ch in " \t"
        i += 1
    if quote:
        return opened, f"unbalanced {quote} quote: it is never closed, so the shell waits for more"
    error = shell.bash_syntax_error(text) if shutil.which("bash") else None  # without bash, the scan above
    if error:
        return 0, f"does not pass bash -n: {error}"
    return None


def _near(text: str) -> tuple[int, str] | None:
    message = safety.near_placeholder(text)
    if not message:
        return None
    inner = message.split("'", 2)[1] if message.startswith("'") else ""
    return max(text.find(inner), 0), message


def shown_commands(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """The install line and the client example are one plain command each, as shown."""
    for pointer, text in (("/installLine", recipe.install_line), ("/client", recipe.client)):
        found = shown_command_problem(text) or _near(text)
        if found:
            index, message = found
            yield doc.problem_inside(pointer, index, message)


def launchers(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """A launcher is a program and its subcommand; no wrapper, no extra positional word."""
    for _, target in recipe.targets():
        for role in target.grid.base:
            words = role.launcher.split()
            where = pointer_join(role.ptr, "launcher")
            if words and words[0] in WRAPPERS:
                yield doc.problem(
                    where,
                    f"the launcher starts with {words[0]!r}, which runs another command than the page shows; "
                    "write the program and its subcommand only (such as 'vllm serve')",
                )
            elif words[:1] == ["vllm"] and words != ["vllm", "serve"]:
                yield doc.problem(
                    where,
                    f"the launcher {role.launcher!r} is not 'vllm serve': a word after 'serve' would be read as "
                    "the model (a positional argument) and the recipe's model as a second one",
                )
            elif len(words) > 2:
                yield doc.problem(
                    where,
                    f"the launcher {role.launcher!r} has {len(words)} words; a launcher is a program and its "
                    "subcommand, and a further word is an extra positional argument before the model",
                )


def _heredoc_bodies(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the bodies of the here-documents of a step (outside quotes)."""
    bodies, quote, i, pending = [], None, 0, []
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
            elif quote == '"' and ch == "\\":
                i += 1
            i += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            match = _HEREDOC.match(text, i)
            if match:
                pending.append((match.group(1) == "-", next(g for g in match.groups()[1:] if g is not None)))
                i = match.end()
                continue
        elif ch == "\n" and pending:
            start = i + 1
            for strip_tabs, word in pending:
                end = start
                while end < len(text):
                    line_end = text.find("\n", end)
                    line_end = len(text) if line_end < 0 else line_end
                    line = text[end:line_end]
                    if (line.lstrip("\t") if strip_tabs else line) == word:
                        bodies.append((start, end))
                        start = line_end
                        break
                    end = line_end + 1
                else:
                    bodies.append((start, len(text)))
                    start = len(text)
            pending = []
            i = start
            continue
        i += 1
    return bodies


def _unquoted_placeholders(text: str) -> Iterator[int]:
    """The offsets of placeholders that stand outside quotes and here-document bodies."""
    bodies = _heredoc_bodies(text)
    quote, i = None, 0
    while i < len(text):
        if any(start <= i < end for start, end in bodies):
            i = next(end for start, end in bodies if start <= i < end)
            continue
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
            elif quote == '"' and ch == "\\":
                i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "<" and _PLACEHOLDER_AT.match(text, i):
            yield i
        i += 1


def router_steps(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """Router steps as serve.sh joins them: no step swallows the next, no placeholder redirects."""
    for _, target in recipe.targets():
        steps = target.grid.router
        for n, step in enumerate(steps):
            where = pointer_join(step.ptr, "cmd")
            trailing = len(step.cmd) - len(step.cmd.rstrip("\\"))
            if trailing % 2 == 1:
                following = "the next step" if n + 1 < len(steps) else "the line after the steps"
                yield doc.problem_inside(
                    where,
                    len(step.cmd) - 1,
                    f"the step ends in a backslash: joined in serve.sh it continues into {following}, "
                    "which would run as part of this command; remove it",
                )
            for at in _unquoted_placeholders(step.cmd):
                found = _PLACEHOLDER_AT.match(step.cmd, at)
                assert found is not None  # _unquoted_placeholders yields where one starts
                name = found.group()
                yield doc.problem_inside(
                    where,
                    at,
                    f"{name} outside quotes is a redirection in bash (from the file {name[1:-1]!r}), not a value; "
                    f"write '{name}' in single quotes",
                )


def _command_names(role: Role) -> list[str]:
    if role.ranks is None:
        return [role.role]
    return [f"{role.role}-rank{k}" for k in range(len(role.ranks))]


def function_names(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """The functions of one target's serve.sh have distinct names."""
    for _, target in recipe.targets():
        seen: dict[str, str] = {}
        for role in target.grid.base:
            where = pointer_join(role.ptr, "role")
            if role.role == "router" and target.grid.router:
                yield doc.problem(
                    where,
                    "a role named 'router' and the router steps would both be './serve.sh router'; rename the role",
                )
            for name in _command_names(role):
                function = "serve_" + name.replace("-", "_")
                if function in seen:
                    yield doc.problem(
                        where,
                        f"the command {name!r} and the command {seen[function]!r} would both be the serve.sh "
                        f"function {function}() (the second replaces the first); rename the role",
                    )
                else:
                    seen[function] = name


RULES = (shown_commands, launchers, router_steps, function_names)


def check(recipe: Recipe, doc: Document) -> list[Problem]:
    """21. Every text shown as a command runs as the page says: the install line and the client
    example are one plain command each (no `;`, `&`, `|`, redirection, second line, or `$` or
    backquote outside single quotes, quotes balanced, placeholders in single quotes); a launcher
    is the program alone (`vllm serve`, no `sudo` or other wrapper); a router step does not end
    in a backslash and keeps its placeholders in quotes; no two commands get one function name
    in `serve.sh`; and each target's joined `serve.sh` passes `bash -n`."""
    return sorted({problem for rule in RULES for problem in rule(recipe, doc)})


def joined_scripts(recipe: Recipe, doc: Document, memo: Memo | None = None) -> list[Problem]:
    """bash -n on the serve.sh of each target's opening selection (for a recipe with no other
    problem: its commands can be expanded; its page model is kept in ``memo``)."""
    problems: list[Problem] = []
    if shutil.which("bash") is None:
        return problems  # rule 10 says that bash is missing
    for target in page.page_of(recipe, memo).targets:
        script = files.serve_sh(page.expansion_at(recipe, target, target.opening))
        error = shell.bash_syntax_error(script)
        if error:
            message = f"the serve.sh of the opening selection does not pass bash -n: {error}"
            problems.append(doc.problem(pointer_join(target.target.ptr, "grid"), message))
    return problems
