"""What is run: every text a page shows as a command, and the script the steps are joined into.

The install line and the client example are shown as commands on the page, in its Markdown view
and in ``llms-full.txt``, and readers paste them. Each gets the rules of a command
(``shown_command_problem``): one command (no ``;``, ``|``, ``&``, redirection or newline outside
quotes; a backslash-newline continues the line), no expansion outside single quotes (``$``,
backquotes, ``!``, file-name patterns, braces, ``~``), placeholders written ``'<NAME>'`` inside
quotes, and ``bash -n``; each problem at its character. The install line may be a chain of install
steps joined by ``&&``, as vLLM's own documentation writes it (``uv venv && source
.venv/bin/activate && uv pip install -U vllm``): each step is judged as such a command and must be
an install step (``install_line_problem``, ``INSTALL_STEPS``).

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
    found = _scan(text, None)
    if found:
        return found
    error = shell.bash_syntax_error(text) if shutil.which("bash") else None  # without bash, the scan above
    if error:
        return 0, f"does not pass bash -n: {error}"
    return None


def _scan(text: str, joins: list[int] | None) -> tuple[int, str] | None:
    """The first thing outside quotes that keeps a text from being plain words (see
    shown_command_problem), or None. With ``joins`` (a list) an ``&&`` outside quotes joins two
    commands: its index is appended there instead of being a problem."""
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
        elif joins is not None and text.startswith("&&", i) and not text.startswith("&&&", i):
            joins.append(i)
            i += 2
            at_word_start = True
            continue
        else:
            reason = _outside_quote_problem(text, i, at_word_start)
            if reason:
                return i, reason
        at_word_start = ch in " \t"
        i += 1
    if quote:
        return opened, f"unbalanced {quote} quote: it is never closed, so the shell waits for more"
    return None


# What an install line may run, step by step: the program's first words (after any NAME=value
# assignments), each with what may follow. vLLM's documentation chains the first three
# (`uv venv && source .venv/bin/activate && uv pip install -U vllm --torch-backend auto`); recipes
# of other people add a package from a source checkout (git clone, cd, pip install -e .), a
# system package, an image or the model's weights.
INSTALL_STEPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("uv", "venv"), "any"),
    (("python", "-m", "venv"), "any"),
    (("python3", "-m", "venv"), "any"),
    (("source",), "activate"),
    ((".",), "activate"),
    (("pip", "install"), "any"),
    (("pip3", "install"), "any"),
    (("python", "-m", "pip", "install"), "any"),
    (("python3", "-m", "pip", "install"), "any"),
    (("uv", "pip", "install"), "any"),
    (("docker", "pull"), "one"),
    (("apt-get", "install"), "any"),
    (("apt-get", "update"), "any"),
    (("apt", "install"), "any"),
    (("apt", "update"), "any"),
    (("git", "clone"), "any"),
    (("cd",), "one"),
    (("hf", "download"), "any"),
    (("huggingface-cli", "download"), "any"),
)
# the one wrapper an install step may start with, and only before these programs
_SUDO_BEFORE = frozenset({"apt-get", "apt"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_STEP_NAMES = (
    "uv venv, source .venv/bin/activate, pip install, uv pip install, docker pull, apt-get install, git clone, cd"
)
_WITH_SUBCOMMANDS = frozenset({"uv", "pip", "pip3", "python", "python3", "docker", "apt", "apt-get", "git", "hf"})


def install_step_problem(words: list[str]) -> str | None:
    """Why the words of one step of an install line are not an install step, or None."""
    words = list(words)
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)  # VLLM_TARGET_DEVICE=empty pip install -e .: the step's own environment
    if words[:1] == ["sudo"] and words[1:2] and words[1] in _SUDO_BEFORE:
        words.pop(0)
    if not words:
        return "a step that runs nothing"
    for start, rest in INSTALL_STEPS:
        if tuple(words[: len(start)]) != start:
            continue
        after = words[len(start) :]
        if rest == "one" and len(after) != 1:
            return f"{' '.join(start)!r} takes one argument here, not {len(after)}"
        if rest == "activate" and (len(after) != 1 or not after[0].endswith("bin/activate")):
            return f"{' '.join(start)!r} in an install line activates a virtual environment (.venv/bin/activate) only"
        return None
    if words[0] == "sudo":
        shown = " ".join(words[:2])
        return f"{shown!r} is not an install step: an install line runs sudo only before apt-get or apt"
    shown = " ".join(words[:2]) if words[0] in _WITH_SUBCOMMANDS and len(words) > 1 else words[0]
    return f"{shown!r} is not an install step (an install line runs {_STEP_NAMES}, hf download)"


def _joined_lines(step: str) -> str:
    """A step with each backslash-newline outside single quotes removed, as bash reads it."""
    out, quote, i = [], None, 0
    while i < len(step):
        ch = step[i]
        if quote != "'" and ch == "\\" and step.startswith("\\\n", i):
            i += 2
            continue
        if ch == "\\" and quote != "'":
            out.append(step[i : i + 2])
            i += 2
            continue
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote else ch
        out.append(ch)
        i += 1
    return "".join(out)


def install_steps(text: str) -> list[list[str]]:
    """The words of each step of an install line (none for a line that does not split)."""
    joins: list[int] = []
    if _scan(text, joins):
        return []
    starts, ends = [0, *(at + 2 for at in joins)], [*joins, len(text)]
    try:
        return [shell.words(_joined_lines(text[a:b])) for a, b in zip(starts, ends, strict=True)]
    except ValueError:
        return []


_OMNI_NAME = re.compile(r"vllm[-_]omni", re.IGNORECASE)
_PIP_INSTALLS = tuple(
    start for start, _ in INSTALL_STEPS if start[-1] == "install" and start[0] not in ("apt", "apt-get")
)


def installs_vllm_omni(text: str) -> bool:
    """Whether an install line installs vLLM-Omni: a pip install naming it (a package or a URL), or
    a pip install of the checkout a step cloned from its repository."""
    cloned = False
    for words in install_steps(text):
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        if words[:2] == ["git", "clone"] and any(_OMNI_NAME.search(w) for w in words[2:]):
            cloned = True
        installing = next((len(start) for start in _PIP_INSTALLS if tuple(words[: len(start)]) == start), 0)
        if not installing:
            continue
        packages = [w for w in words[installing:] if not w.startswith("-")]
        if any(_OMNI_NAME.search(w) for w in packages) or (cloned and any(w.startswith(".") for w in packages)):
            return True
    return False


def install_line_problem(text: str) -> tuple[int, str] | None:
    """The index and the reason of the first thing that keeps an install line from being one plain
    command or a chain of install steps joined by ``&&``, or None. Each step is held to the rules
    of a shown command (``shown_command_problem``) and must be an install step; the line as a whole
    passes ``bash -n``."""
    joins: list[int] = []
    found = _scan(text, joins)
    if found:
        return found
    starts = [0, *(at + 2 for at in joins)]
    ends = [*joins, len(text)]
    for n, (start, end) in enumerate(zip(starts, ends, strict=True)):
        step = text[start:end]
        try:
            words = shell.words(_joined_lines(step))
        except ValueError as error:
            return start, f"does not split into shell words: {error}"
        reason = install_step_problem(words)
        if reason is None:
            continue
        if n and not words:
            return joins[n - 1], "'&&' here joins nothing: the step after it is empty; remove it"
        if n:
            return joins[n - 1], f"'&&' here makes this more than one plain command: {reason}"
        return start + len(step) - len(step.lstrip()), reason
    syntax = shell.bash_syntax_error(text) if shutil.which("bash") else None
    if syntax:
        return 0, f"does not pass bash -n: {syntax}"
    return None


def _near(text: str) -> tuple[int, str] | None:
    message = safety.near_placeholder(text)
    if not message:
        return None
    inner = message.split("'", 2)[1] if message.startswith("'") else ""
    return max(text.find(inner), 0), message


def shown_commands(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """The client example is one plain command, as shown; the install line one, or a chain of
    install steps joined by ``&&``."""
    for pointer, text, judge in (
        ("/installLine", recipe.install_line, install_line_problem),
        ("/client", recipe.client, shown_command_problem),
    ):
        found = judge(text) or _near(text)
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
    """21. Every text shown as a command runs as the page says: the client example is one plain
    command (no `;`, `&`, `|`, redirection, second line, or `$` or backquote outside single quotes,
    quotes balanced, placeholders in single quotes), and so is each step of the install line, which
    may chain install steps with `&&` (`uv venv`, `source .venv/bin/activate`, `pip install`,
    `uv pip install`, `docker pull`, `apt-get install`, `git clone`, `cd`, `hf download`); a launcher
    is the program alone (`vllm serve`, no `sudo` or other wrapper); a router step does not end
    in a backslash and keeps its placeholders in quotes; no two commands get one function name
    in `serve.sh`; and each target's joined `serve.sh` passes `bash -n`."""
    return sorted({problem for rule in RULES for problem in rule(recipe, doc)})


def joined_scripts(recipe: Recipe, doc: Document, memo: Memo | None = None) -> list[Problem]:
    """bash -n on the serve.sh of each target's opening selection (for a recipe with no other
    problem: its commands can be expanded; its page model, without memory figures, is kept in
    ``memo``)."""
    problems: list[Problem] = []
    if shutil.which("bash") is None:
        return problems  # rule 10 says that bash is missing
    for target in page.page_of(recipe, memo, figures=False).targets:  # commands only
        script = files.serve_sh(page.expansion_at(recipe, target, target.opening))
        error = shell.bash_syntax_error(script)
        if error:
            message = f"the serve.sh of the opening selection does not pass bash -n: {error}"
            problems.append(doc.problem(pointer_join(target.target.ptr, "grid"), message))
    return problems
