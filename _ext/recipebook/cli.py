"""Command line: validate recipes, expand one selection, print the whole matrix, write a selection's
files, report drift against another vLLM release, import recipes from vLLM Recipes.

Every argument is hostile input, checked before anything is read or written: a path names what
it should (an existing regular file of a bounded size to read, a folder or a new or regular file
to write, never the same file as another argument, never a recipe it reads), a number is in
range, an option that could not take effect is refused. A bad argument is one line on stderr
(``python -m recipebook SUBCOMMAND: error: ...``) and exit status 2, never a traceback or a wait.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

import jsonschema_rs

from . import importing, shell
from .checking import drift, manifests, rules, safety, schema, vocabulary
from .expanding import expansion, memory, page, results
from .memo import Memo
from .pipeline import fix, verdicts
from .pipeline.load import check_file
from .problems import Problem, SelectionError, errors, warnings
from .reading import sharing, source
from .reading.model import Recipe
from .reading.vocabulary import DATA_FILE as PINNED_VOCABULARY
from .reading.vocabulary import Vocabulary, pinned
from .rendering import files, kubernetes

RECIPES = Path("recipes")
VOCABULARY_SCHEMA = Path(__file__).resolve().parent / "data" / "vocabulary.schema.json"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors: one line, exit 2, no traceback
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see {self.prog} --help)\n")


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- arguments: what each may name -------------------------------------------------------------

MAX_RECIPE_BYTES = source.MAX_BYTES
MAX_VOCABULARY_BYTES = 16 * 1024 * 1024  # a vocabulary is about 250 kB
MAX_RESULT_BYTES = source.MAX_BYTES  # read as a JSON document by the recipes' reader
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, words in _KINDS:
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _shown(path: str) -> str:
    return repr(path) if len(path) <= 200 else repr(path[:200] + "…")


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a file on the way: said by the caller)
        return None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{_shown(path)}: {error.strerror or error}") from None


def input_file(what: str, limit: int) -> Callable[[str], Path]:
    """An argument naming a file to read: it exists, is a regular file (a FIFO would wait for a
    writer, a device never end) and holds at most ``limit`` bytes."""

    def check(text: str) -> Path:
        if not text:
            raise argparse.ArgumentTypeError(f"an empty path; give {what}")
        if "\0" in text:
            raise argparse.ArgumentTypeError(f"{_shown(text)} holds a NUL character; give {what}")
        found = _stat(text)
        if found is None:
            raise argparse.ArgumentTypeError(f"{_shown(text)}: no such file; give {what}")
        kind = _kind(found.st_mode)
        if kind != "a regular file":
            raise argparse.ArgumentTypeError(f"{_shown(text)} is {kind}, not {what}")
        if found.st_size > limit:
            raise argparse.ArgumentTypeError(
                f"{_shown(text)} is {found.st_size:,} bytes; {what} is at most {limit // (1024 * 1024)} MiB"
            )
        return Path(text)

    return check


def _output(what: str, is_kind: Callable[[int], bool]) -> Callable[[str], Path]:
    """An argument naming a path to write: nothing there yet, or what ``is_kind`` accepts, under
    an existing folder."""

    def check(text: str) -> Path:
        if not text:
            raise argparse.ArgumentTypeError(f"an empty path; give {what}")
        found = _stat(text)
        if found is not None and not is_kind(found.st_mode):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is {_kind(found.st_mode)}, not {what}")
        _parent_is_a_folder(text, what)
        return Path(text)

    return check


def output_folder(what: str) -> Callable[[str], Path]:
    """An argument naming a folder to write into: a folder, or nothing yet (it is created)."""
    return _output(what, stat.S_ISDIR)


def output_file(what: str) -> Callable[[str], Path]:
    """An argument naming a file to write: a regular file (replaced) or nothing yet, in a folder."""
    return _output(what, stat.S_ISREG)


def _parent_is_a_folder(text: str, what: str) -> None:
    """The nearest existing folder above a path is a folder (``/dev/full/x`` cannot be created)."""
    parent = Path(os.path.abspath(text)).parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(text)} cannot be made: {str(parent)!r} is not a folder; give {what}")


MAX_WORD = 1000  # characters of a name or a NAME=VALUE argument (a strategy, a target, an axis value)


def word(text: str) -> str:
    """A name-like argument of a bounded length (what it names is checked against the recipe)."""
    if len(text) > MAX_WORD:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is {len(text):,} characters long; at most {MAX_WORD:,}")
    return text


def count_up_to(limit: int) -> Callable[[str], int]:
    """A positive whole number of at most ``limit`` (a what-if's bound: the schema's)."""

    def check(text: str) -> int:
        if not re.fullmatch(r"\+?[0-9]{1,12}", text.strip()):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number from 1 to {limit:,}")
        value = int(text)
        if not 1 <= value <= limit:
            raise argparse.ArgumentTypeError(f"{value:,} is not a whole number from 1 to {limit:,}")
        return value

    return check


def input_folder(what: str) -> Callable[[str], Path]:
    """An argument naming a folder to read from: an existing folder."""

    def check(text: str) -> Path:
        if not text:
            raise argparse.ArgumentTypeError(f"an empty path; give {what}")
        if "\0" in text:
            raise argparse.ArgumentTypeError(f"{_shown(text)} holds a NUL character; give {what}")
        found = _stat(text)
        if found is None:
            raise argparse.ArgumentTypeError(f"{_shown(text)}: no such folder; give {what}")
        if not stat.S_ISDIR(found.st_mode):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is {_kind(found.st_mode)}, not {what}")
        return Path(text)

    return check


CHECKOUT = "a work tree of github.com/vllm-project/recipes"
_CHECKOUT_HOLDS = (
    ("models", stat.S_ISDIR, "models/ folder"),
    ("strategies", stat.S_ISDIR, "strategies/ folder"),
    ("taxonomy.yaml", stat.S_ISREG, "taxonomy.yaml file"),
)


def checkout_folder(text: str) -> Path:
    """A checkout of vLLM Recipes to import from: a folder holding ``models/``, ``strategies/``
    and ``taxonomy.yaml`` (looked at, not read)."""
    root = input_folder(CHECKOUT)(text)
    for name, test, words in _CHECKOUT_HOLDS:
        found = _stat(str(root / name))
        if found is None or not test(found.st_mode):
            raise argparse.ArgumentTypeError(f"{_shown(text)} holds no {words}; give {CHECKOUT}")
    return root


def commit_id(text: str) -> str:
    """A git commit as ``git rev-parse`` writes it: 40 hexadecimal digits."""
    if not re.fullmatch(r"[0-9a-f]{40}", text):
        raise argparse.ArgumentTypeError(
            f"{_shown(text)} is not a commit (40 hexadecimal digits, as git rev-parse writes)"
        )
    return text


def _inside(path: Path, folder: Path) -> bool:
    """Whether a path is a folder or is under it, once every link is followed (it may not exist yet)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


# what a stored result may carry from the command line (results.py checks the same of a file)
_LINK = re.compile(r"https://[^\s\"'<>\\`]{1,480}")
_TIMEZONE = re.compile(r"[+-](0[0-9]|1[0-4]):?[0-5][0-9]")
_RELEASE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,6}){1,3}(?:(?:a|b|rc|\.post|\.dev)[0-9]{1,4})?")


def link(text: str) -> str:
    """A link to a run: https, printable, no spaces or quotes, at most 480 characters after it."""
    if not _LINK.fullmatch(text) or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not an https link (https://..., no spaces or quotes)")
    return text


def timezone(text: str) -> str:
    """A time zone as ``date +%z`` writes it (+0900, -0530)."""
    if not _TIMEZONE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a time zone such as +0900 or -0530")
    return text


def release(text: str) -> str:
    """A release number as PyPI spells one (0.30.0, 0.12.0rc1)."""
    if not _RELEASE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a release number such as 0.30.0")
    return text


def _same(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.abspath(first) == os.path.abspath(second)


def distinct(parser: argparse.ArgumentParser, named: Iterable[tuple[str, Path | None]]) -> None:
    """No file is given twice, under any of its names (a recipe read and an archive written over
    it, a vocabulary compared with itself, a recipe validated twice)."""
    seen: list[tuple[str, Path]] = []
    for label, path in named:
        if path is None:
            continue
        for other_label, other in seen:
            if _same(path, other):
                parser.error(
                    f"{label} {_shown(str(path))} is the same file as {other_label} {_shown(str(other))}; "
                    "give each file once"
                )
        seen.append((label, path))


def recipe_files(paths: list[Path]) -> list[Path]:
    """The files to check: the given ones, or every recipe in recipes/."""
    if paths:
        return list(paths)
    return sorted(p for p in RECIPES.glob("*.json") if p.name != "schema.json")


def _print_problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


PARALLEL_FROM = 16  # recipe files from which validate checks them on every core


def _verdicts(files: list[Path], folder: str | None = None) -> list[verdicts.Verdict]:
    """Each file's verdict, in the files' order (from the folder of verdicts when it holds the
    file's, see pipeline/verdicts.py): on every core for many files (each file is checked on its
    own; the results are the same as one after the other)."""
    one = functools.partial(verdicts.verdict, folder=folder)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if len(files) < PARALLEL_FROM or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [one(path) for path in files]
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(cores, 8), mp_context=context) as pool:
        return list(pool.map(one, files, chunksize=max(1, len(files) // (4 * cores))))


def _fix(files: list[Path]) -> None:
    """validate --fix: each file's mechanical fixes written in place, each said where it was."""
    count, touched = 0, 0
    for path in files:
        done = fix.fix_file(path)
        if done.refused:
            print(f"{path}: not fixed: {done.refused}", file=sys.stderr)
        for problem in done.applied:
            assert problem.fix is not None
            print(problem.line_of(f"fixed: {problem.fix.says}"), file=sys.stderr)
        count += len(done.applied)
        touched += bool(done.applied)
    print(f"{count} fix(es) written in {touched} of {len(files)} recipe file(s)", file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    files = recipe_files(args.files)
    if not files:
        print(f"no recipe files in {RECIPES}/", file=sys.stderr)
        return 1
    if args.fix:
        _fix(files)
    problems: list[Problem] = []
    counts: list[tuple[str, int]] = []
    for found in _verdicts(files, args.verdicts):
        problems += found.problems
        if found.name is not None:
            counts.append((found.name, found.selections or 0))
    if args.verdicts:
        verdicts.prune(args.verdicts, files)
    problems = sorted(problems + safety.names_differ_in_more_than_case(files))
    _print_problems(problems)
    wrong, style = errors(problems), warnings(problems)
    if wrong:
        bad = len({p.file for p in wrong})
        said = f"{len(wrong)} problem(s) in {bad} of {len(files)} recipe file(s)"
        print(said + (f"; {_warned(style, files)}" if style else ""), file=sys.stderr)
        return 1
    total = sum(n for _, n in counts)
    each = ", ".join(f"{name} {n}" for name, n in counts)
    print(f"{len(counts)} recipe(s) valid, {total} selections ({each})")
    if style:
        strict = " (strict: warnings fail)" if args.strict else ""
        print(_warned(style, files) + strict, file=sys.stderr)
        return 1 if args.strict else 0
    return 0


def _warned(style: list[Problem], files: list[Path]) -> str:
    return f"{len(style)} warning(s) in {len({p.file for p in style})} of {len(files)} recipe file(s)"


def _load_one(path: Path, memo: Memo) -> Recipe | None:
    """The recipe when none of its problems is an error (its tables and page model kept in
    ``memo``), else None; its problems printed either way (the errors that stop here, or the
    warnings of a valid recipe)."""
    recipe, problems = check_file(path, memo)
    _print_problems(problems)
    return recipe


def _parse_sets(pairs: list[str]) -> dict[str, str]:
    chosen = {}
    for pair in pairs:
        axis, sep, value = pair.partition("=")
        if not sep or not axis or not value:
            raise SelectionError(f"--set takes AXIS=VALUE, not {pair!r}")
        if axis in chosen:
            raise SelectionError(f"axis {axis!r} is set twice")
        chosen[axis] = value
    return chosen


def _selected(args: argparse.Namespace) -> expansion.Expansion | int:
    """The expansion the arguments name, or the exit status after saying what is wrong."""
    memo = Memo()
    recipe = _load_one(args.file, memo)
    if recipe is None:
        return 1
    try:
        return page.expand(recipe, args.strategy, args.target, _parse_sets(args.set), memo)
    except SelectionError as error:
        parser: argparse.ArgumentParser = args.parser
        parser.error(f"{args.file}: {error}")


def cmd_expand(args: argparse.Namespace) -> int:
    result = _selected(args)
    if isinstance(result, int):
        return result
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result.shell())
    return 0


def matrix_json(recipe: Recipe, memo: Memo | None = None) -> dict[str, object]:
    """Every offered selection with its commands: the shape tools consume."""
    return {
        "version": expansion.API_VERSION,
        "recipe": recipe.name,
        "selections": [e.to_json() for e in page.matrix(recipe, memo)],
    }


def cmd_matrix(args: argparse.Namespace) -> int:
    memo = Memo()
    recipe = _load_one(args.file, memo)
    if recipe is None:
        return 1
    if args.format == "json":
        print(json.dumps(matrix_json(recipe, memo), indent=2, ensure_ascii=False))
        return 0
    for result in page.matrix(recipe, memo):
        pairs = " ".join(f"{a}={v}" for a, v in result.selection.items())
        mark = "  (recommended)" if result.recommended else ""
        sys.stdout.write(f"### {result.strategy} / {result.target}: {pairs}{mark}\n\n{result.shell()}\n")
    return 0


def _parse_values(pairs: list[str], result: expansion.Expansion, scopes: dict[str, str]) -> dict[str, str]:
    """--set-placeholder NAME=VALUE (every command) or NAME@NODE=VALUE (the commands of one
    node): a placeholder the selection's files hold, a node the selection runs on, a value per
    node for a placeholder each node fills in (on more than one node), each value checked as the
    page checks it."""
    names = sorted(set(shell.placeholders("\n".join(files.selection_files(result).values()))))
    nodes = sorted(set(result.nodes.values()) or {1})
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        match = files.VALUE_KEY.fullmatch(key)
        if not sep or match is None:
            raise SelectionError(
                f"--set-placeholder takes NAME=VALUE or NAME@NODE=VALUE (NAME as in <NAME>), not {_shown(pair)}"
            )
        name, node = match.group(1), match.group(2)
        if name not in names:
            held = ", ".join(f"<{n}>" for n in names) or "none"
            raise SelectionError(f"--set-placeholder {key}: the selection's files have no <{name}> (they hold: {held})")
        per_node = scopes.get(name) == "node"
        if node is not None and int(node) not in nodes:
            raise SelectionError(
                f"--set-placeholder {key}: the selection runs on node(s) {', '.join(map(str, nodes))}, not node {node}"
            )
        if node is not None and not per_node:
            raise SelectionError(f"--set-placeholder {key}: <{name}> is one value for every node; give {name}=VALUE")
        if node is None and per_node and len(nodes) > 1:
            raise SelectionError(
                f"--set-placeholder {key}: <{name}> has a value per node; give "
                + " and ".join(f"{name}@{n}=VALUE" for n in nodes)
            )
        why = files.value_problem(name, value)
        if why:
            raise SelectionError(
                f"--set-placeholder {key}: {_shown(value)} cannot stand in for <{name}>: {files.VALUE_PROBLEMS[why]}"
            )
        if key in values:
            raise SelectionError(f"placeholder {key!r} is set twice")
        values[key] = value
    return values


def _parse_settings(pairs: list[str]) -> dict[str, str]:
    """--set-k8s NAME=VALUE: an operator's choice for the Kubernetes files, checked as the page
    checks it (kubernetes.setting_problem)."""
    given: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SelectionError(f"--set-k8s takes NAME=VALUE, not {_shown(pair)}")
        why = kubernetes.setting_problem(name, value)
        if why:
            raise SelectionError(f"--set-k8s {name}: {why}")
        if name in given:
            raise SelectionError(f"setting {name!r} is set twice")
        given[name] = value
    try:
        kubernetes.settings_of(given, {})
    except ValueError as error:
        raise SelectionError(f"--set-k8s {error}") from None
    return given


def cmd_files(args: argparse.Namespace) -> int:
    """Write a selection's ready-to-run files (serve.sh, a vLLM config and an env file per
    command), one by one into a folder, or as one tar archive."""
    memo = Memo()
    recipe = _load_one(args.file, memo)
    if recipe is None:
        return 1
    try:
        result = page.expand(recipe, args.strategy, args.target, _parse_sets(args.set), memo)
        values = _parse_values(args.set_placeholder, result, dict(recipe.placeholder_scopes))
        settings = _parse_settings(args.set_k8s)
    except SelectionError as error:
        args.parser.error(f"{args.file}: {error}")
    written = files.selection_files(result, values, settings)
    for problem in manifests.problems(written):  # say what the values given would break
        print(f"{args.file}: warning: the Kubernetes files would not run as written: {problem}", file=sys.stderr)
    try:
        if args.archive:
            path = Path(args.archive)
            path.parent.mkdir(parents=True, exist_ok=True)
            _replace(path, files.archive(files.folder_name(result), written), 0o644)
            print(path)
            return 0
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name in written:
            linked = _linked_inside(out, name)
            if linked is not None:
                print(
                    f"{linked}: a symbolic link in the folder; the files are not written through links (remove it)",
                    file=sys.stderr,
                )
                return 1
        for name, text in written.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            _replace(path, text.encode("utf-8"), 0o755 if name.endswith(".sh") else 0o644)
            print(path)
    except BrokenPipeError:
        raise  # the listing's reader went away (main ends quietly), not the files
    except OSError as error:
        print(f"{args.archive or args.out}: cannot write the files: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def _replace(path: Path, data: bytes, mode: int) -> None:
    """Write a file whole, in place of whatever was there (a link is replaced, never written
    through; a reader never sees half a file)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def _linked_inside(out: Path, name: str) -> Path | None:
    """The first folder on the way to a file of the folder that is a symbolic link (the file would
    be written elsewhere), or None."""
    current = out
    for part in Path(name).parts[:-1]:
        current = current / part
        if current.is_symlink():
            return current
    return None


def fit_json(result: expansion.Expansion, figures: memory.Fit) -> dict[str, object]:
    """One selection's memory figures per rank: the shape tools consume."""
    return {
        "recipe": result.recipe,
        "strategy": result.strategy,
        "target": result.target,
        "selection": dict(result.selection),
        **figures.to_json(),
    }


FIT_MISSING = {
    "facts": "the recipe has no model facts (facts), so there are no memory figures",
    "sku": "{sku} is not in the engine's table of devices (memory.SKUS: {known}), so there are no memory figures",
    "block-size": "a command sets no --block-size and vllm-rbln's default is not in the sources: no KV cache figure",
    "max-model-len": "a command sets no --max-model-len (or leaves it to the model): no KV cache figure",
    "gpu-memory-utilization": "a command's --gpu-memory-utilization is not a number above 0 and at most 1",
}
FIT_CAVEATS = {
    "no-checkpoint": "no size is given for the served checkpoint: no weights figure and no verdict",
    "expert-parallel": "weights: the checkpoint split evenly over the expert-parallel ranks; the dense layers are on "
    "every rank, so the real figure is higher",
    "sliding-stages": "sliding-window layers are shared out over the pipeline stages in proportion",
    "fp8-kv": "an fp8 KV cache is supported on RBLN-CR13 only",
    "draft": "the draft model of speculative decoding has no facts in the recipe: its weights and KV cache are not "
    "counted, so the figures give no confident 'fits'",
    "mtp": "MTP speculative decoding runs the model's own MTP layers, which the facts do not size",
}
# fit's exit status: 0 every rank fits, 1 a rank does not fit (or the selection was seen to fail),
# 2 bad input or no figures, 3 open (the verdict turns on an open question or an unknown).
FIT_EXIT = {True: 0, False: 1, None: 3}


def _span(numbers: list[int]) -> str:
    """0, 1, 2, 3 -> "0-3"; 0, 2 -> "0,2"."""
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ",".join(map(str, numbers))


def _bytes(value: int | None) -> str:
    return "unknown" if value is None else f"{value:,} B ({memory.gib(value)})"


def _advice_text(advice: memory.Advice) -> str:
    reading = " if the KV cache is counted on every chiplet" if advice.replicated else ""
    if advice.direction == "down":
        return f"to fit{reading}: {advice.role}: {advice.knob} {advice.value} or less"
    return f"to fit{reading}: {advice.role}: {advice.knob} {advice.value} ({advice.devices} NPUs)"


def _served_text(served: memory.Served, outcome: str = "served") -> str:
    """ "served as verified: 2026-10-07, /strategies/0/options/0/verified", "served as
    recorded: rbln-axk2-notes, /facts/observations/1" or "failed as recorded: rbln-axk2-notes,
    /facts/observations/0 (SYS_EBUSY: Lack of device memory)"."""
    where = [served.date] if served.date else []
    error = f" ({served.error})" if served.error else ""
    return f"{outcome} as {served.kind}: {', '.join([*where, *served.sources, served.key])}{error}"


def _ran(figures: memory.Fit) -> tuple[str, memory.Served] | None:
    """What ran of this very selection, which is the verdict: ("failed", the observation),
    ("served", the observation), or None."""
    if figures.failed is not None:
        return "failed", figures.failed
    return None if figures.served is None else ("served", figures.served)


def _seen_text(seen: memory.Seen) -> str:
    what = {"verified": "verified", "recorded": "observed", "measured": "measured"}[seen.kind]
    outcome = "serves" if seen.outcome == "serves" else f"fails ({seen.error})" if seen.error else "fails"
    length = f" at --max-model-len {seen.max_model_len}" if seen.max_model_len else ""
    head = f"{what} on {seen.sku}: {seen.model}{length} {outcome}"
    if seen.agrees is None:
        return f"{head}; the figures give no verdict for it"
    if seen.agrees:
        return f"{head}; the figures agree"
    if seen.outcome == "serves":
        return f"{head}; DISAGREES: the figures say it is short of {_bytes(seen.gap)} on a rank"
    return f"{head}; DISAGREES: the figures leave {_bytes(seen.gap)} free on every rank, yet it failed"


def fit_text(result: expansion.Expansion, figures: memory.Fit, seen: tuple[memory.Seen, ...] = ()) -> str:
    head = f"{result.recipe} / {result.strategy} / {result.target} on {figures.sku}"
    if figures.missing:
        reason = FIT_MISSING[figures.missing].format(known=", ".join(memory.SKUS), sku=figures.sku)
        return f"{head}: {reason}\n"
    served = f", serving {figures.model}" if figures.model and figures.model != result.commands[0].model else ""
    lines = [f"{head}, --max-model-len {figures.max_model_len}, --block-size {figures.block_size}{served}"]
    for flag, asked, own in figures.what_if:
        lines.append(f"what if: {flag} {asked} (the commands: {'not set' if own is None else own})")
    ran = _ran(figures)
    if ran is not None:
        outcome, observation = ran
        role = "do not decide it" if outcome == "failed" else "explain it, they do not decide it"
        lines.append(f"verdict: {_served_text(observation, outcome)}; the figures below {role}")
    for group in memory.groups(figures):
        r = group.figures
        dps = sorted({dp for dp, _pp in group.ranks})
        pps = sorted({pp for _dp, pp in group.ranks})
        verdict = {True: "fits", False: "does not fit", None: "open"}[r.fits]
        if ran is not None:
            verdict = f"{ran[0]} as {ran[1].kind} ({verdict} by the figures alone)"
        lines += [
            f"  {r.role} rank(s) dp {_span(dps)}, pp {_span(pps)}: {r.layers} layers, tp {r.tp_size}",
            f"    weights        {_bytes(r.weights_bytes)}",
            f"    KV cache       {_bytes(r.kv_cache_bytes)}, {r.kv_blocks} blocks",
            f"    runtime        {_bytes(r.runtime_bytes)} ({r.runtimes} runtimes x {r.chiplets} chiplet(s) x 256 MiB)",
            f"    available      {_bytes(r.available_bytes)}",
            f"    free           {_bytes(r.free_bytes)}: {verdict}",
        ]
        if r.draft_bytes:
            lines.insert(-4, f"    of which draft {_bytes(r.draft_bytes)} (weights and KV cache)")
        if r.kv_replicas > 1 and r.free_if_replicated_bytes is not None:
            lines.append(
                f"    if the KV cache is counted {r.kv_replicas} times ({r.chiplets}-chiplet device): "
                f"{_bytes(r.free_if_replicated_bytes)} free"
            )
    for question in figures.open_questions:
        lines.append(
            f"open question: {question} (vllm-rbln's estimator divides the KV memory by max(1, chiplets // kv_heads))"
        )
    for settlement in figures.settled:
        lines.append(
            f"settled: {settlement.question} on {settlement.sku}: the KV cache is counted "
            f"{'once' if settlement.reading == memory.SINGLE else f'{settlement.replicas} times'} "
            f"(a selection that would not fit otherwise served: {', '.join(settlement.by)})"
        )
    for caveat in figures.caveats:
        lines.append(f"caveat: {FIT_CAVEATS.get(caveat, caveat)}")
    for advice in figures.advice:
        lines.append(_advice_text(advice))
    for item in seen:
        lines.append(_seen_text(item))
    return "\n".join(lines) + "\n"


def _seen_for(
    recipe: Recipe, result: expansion.Expansion, figures: memory.Fit, memo: Memo | None = None
) -> tuple[memory.Seen, ...]:
    """The observations of exactly what this fit computed (same selection, SKU, checkpoint, lengths)."""
    found = []
    for seen in page.reconciled(recipe, memo)[1]:
        if (seen.strategy, seen.target, seen.sku) != (result.strategy, result.target, figures.sku):
            continue
        if seen.fit.ranks == figures.ranks and seen.fit.model == figures.model:
            found.append(seen)
    return tuple(found)


def fit_status(figures: memory.Fit, seen: tuple[memory.Seen, ...]) -> int:
    if figures.missing:
        return 2
    if any(s.outcome == "fails" for s in seen):
        return 1
    if any(s.agrees is False for s in seen):
        return 3  # the figures and an observation disagree: no confident answer
    return FIT_EXIT[figures.fits]


def cmd_fit(args: argparse.Namespace) -> int:
    """The memory figures of one selection, per rank; --max-model-len, --max-num-seqs and
    --checkpoint ask what if. Exit 0: fits; 1: a rank does not fit, or it was seen to fail;
    2: bad input or no figures; 3: open."""
    memo = Memo()
    recipe = _load_one(args.file, memo)
    if recipe is None:
        return 1
    try:
        result = page.expand(recipe, args.strategy, args.target, _parse_sets(args.set), memo)
    except SelectionError as error:
        args.parser.error(f"{args.file}: {error}")
    target = expansion.find(recipe, args.strategy, args.target)[1]
    if args.checkpoint is not None and (recipe.facts is None or recipe.facts.checkpoint(args.checkpoint) is None):
        known = ", ".join(c.model for c in recipe.facts.checkpoints) if recipe.facts else "none"
        args.parser.error(
            f"{args.file}: --checkpoint {_shown(args.checkpoint)} is not one of the recipe's checkpoints ({known})"
        )
    figures = memory.fit(
        recipe.facts,
        target.skus,
        result.commands,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        sku=args.sku,
        model=args.checkpoint,
        settled=page.reconciled(recipe, memo)[0],
    )
    selection = memory.selection_key(
        result.strategy,
        result.target,
        figures.sku,
        result.commands,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        model=args.checkpoint,
    )
    figures = memory.observed(figures, selection, page.reconciled(recipe, memo)[1])
    seen = _seen_for(recipe, result, figures, memo)
    if args.format == "json":
        print(
            json.dumps(
                {**fit_json(result, figures), "observations": [s.to_json() for s in seen]}, indent=2, ensure_ascii=False
            )
        )
    else:
        text = fit_text(result, figures, seen)
        (sys.stderr if figures.missing else sys.stdout).write(text)
    return fit_status(figures, seen)


def cmd_results_add(args: argparse.Namespace) -> int:
    """Check result files of vllm bench serve and store the accepted ones with their provenance."""
    recipes, store = Path(args.recipes), Path(args.results)
    given = results.Given(run=args.run, timezone=args.timezone, vllm=args.vllm, vllm_rbln=args.vllm_rbln)
    problems: list[Problem] = []
    for name in args.files:
        result, found = results.read_file(name, recipes, lambda path: check_file(path)[0], given)
        problems += found
        if result is None:
            continue
        try:
            stored, new = results.store(result, store)
        except OSError as error:
            print(f"{store}: cannot store the result: {error.strerror or error}", file=sys.stderr)
            return 1
        state = "stored" if new else "already stored"
        w = result.workload
        print(
            f"{name}: {state} as {stored}: {result.recipe} / {result.strategy} / {result.target}, "
            f"{w.input_len:,} in / {w.output_len:,} out at {w.concurrency}: {result.per_npu:,.1f} output tokens/s per NPU"
        )
    if problems:
        _print_problems(sorted(problems))
        bad = len({p.file for p in problems})
        print(
            f"{len(problems)} problem(s) in {bad} of {len(args.files)} result file(s); those were not stored",
            file=sys.stderr,
        )
        return 1
    return 0


def _selection_arguments(command: argparse.ArgumentParser, recipe: Callable[[str], Path]) -> None:
    command.add_argument("file", type=recipe, metavar="FILE")
    command.add_argument("--strategy", required=True, type=word, metavar="SLUG")
    command.add_argument("--target", required=True, type=word, metavar="TARGET")
    command.add_argument(
        "--set",
        action="append",
        type=word,
        default=[],
        metavar="AXIS=VALUE",
        help="choose a value for an axis (repeatable); others take the recommended value",
    )


def _vocabulary_schema() -> Any:
    with VOCABULARY_SCHEMA.open(encoding="utf-8") as handle:
        return jsonschema_rs.Draft202012Validator(json.load(handle))


def read_vocabulary(parser: argparse.ArgumentParser, option: str, path: Path) -> Vocabulary:
    """A vocabulary argument read whole (its size is bounded) and checked against the shape
    ``make vocabulary`` writes (data/vocabulary.schema.json); anything else is a usage error."""
    try:
        data = json.loads(path.read_bytes()[: MAX_VOCABULARY_BYTES + 1])
    except (OSError, ValueError, RecursionError) as error:
        parser.error(f"argument {option}: {_shown(str(path))} is not a vocabulary file (not JSON: {error})")
    try:
        wrong = next(iter(_vocabulary_schema().iter_errors(data)), None)
    except (ValueError, OverflowError, TypeError) as error:
        wrong = error
    if wrong is not None:
        parser.error(
            f"argument {option}: {_shown(str(path))} is not a vocabulary file as make vocabulary writes one "
            f"({str(wrong).splitlines()[0][:200]})"
        )
    return Vocabulary(data, path)


def cmd_drift(args: argparse.Namespace) -> int:
    new = read_vocabulary(args.parser, "--vocabulary", args.vocabulary)
    old = read_vocabulary(args.parser, "--against", args.against) if args.against else pinned()
    files = recipe_files(args.files)
    if not files:
        print(f"no recipe files in {RECIPES}/", file=sys.stderr)
        return 2
    invalid, breaking, notes, touched = 0, 0, 0, 0
    for path in files:
        document, problems = source.read(path)
        recipe = None
        if document is not None:
            problems += schema.check(document)
            if not problems:
                document, problems = sharing.resolve(document)
            if not problems:
                recipe = Recipe.from_json(document.data, str(path))
                problems = sorted({*rules.check(recipe, document), *vocabulary.check(recipe, document, old)})
        if errors(problems):  # drift is measured from a recipe that is right for the pinned release
            _print_problems(problems)
            invalid += 1
            continue
        assert recipe is not None and document is not None
        changes = drift.drift(recipe, document, old, new)
        for change in changes:
            print(change)
        breaking += sum(c.breaks for c in changes)
        notes += sum(not c.breaks for c in changes)
        touched += any(c.breaks for c in changes)
    print(
        f"{breaking} change(s) break {touched} of {len(files)} recipe file(s) under {new.versions} "
        f"(checked: {old.versions}); {notes} note(s)"
        + (f"; {invalid} file(s) not checked: fix their problems first" if invalid else "")
    )
    return 1 if breaking or invalid else 0


def _commit(root: Path) -> str | None:
    """The commit a git work tree is at (for the targets' notes), or None."""
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    result = subprocess.run(
        [git, "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False, timeout=30
    )
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and len(commit) == 40 else None


def cmd_import(args: argparse.Namespace) -> int:
    """Recipes of this format from model files of a vLLM Recipes checkout, one file each; every
    choice their command builder offers that a recipe cannot hold is listed."""
    try:
        checkout = importing.Checkout.read(args.checkout, commit=args.commit or _commit(args.checkout))
    except importing.NotImportable as error:
        args.parser.error(f"argument CHECKOUT: {error}")
    paths = args.model_files or checkout.models()
    out = Path(args.out)
    lost_lines: list[str] = []
    failed = 0
    for path in paths:
        try:
            imported = importing.convert_file(path, checkout)
        except importing.NotImportable as error:
            print(f"{error}", file=sys.stderr)
            failed += 1
            continue
        target = out / f"{imported.name}.json"
        if os.path.lexists(target) and not args.force:
            print(f"{target}: exists; not overwritten (--force overwrites)", file=sys.stderr)
            failed += 1
            continue
        try:
            out.mkdir(parents=True, exist_ok=True)
            _replace(target, importing.dumps(imported.recipe).encode("utf-8"), 0o644)
        except OSError as error:
            print(f"{target}: cannot write: {error.strerror or error}", file=sys.stderr)
            failed += 1
            continue
        _recipe, problems = check_file(target)
        verdict = f"{len(errors(problems))} error(s), {len(warnings(problems))} warning(s)" if problems else "valid"
        print(
            f"{target}: {imported.targets} target(s) from {imported.source}; {verdict}; {len(imported.lost)} not expressed"
        )
        lost_lines += [f"{imported.source}: {line}" for line in imported.lost]
    if args.lost:
        try:
            lost = Path(args.lost)
            lost.parent.mkdir(parents=True, exist_ok=True)
            _replace(lost, "".join(f"{line}\n" for line in lost_lines).encode("utf-8"), 0o644)
        except OSError as error:
            print(f"{args.lost}: cannot write: {error.strerror or error}", file=sys.stderr)
            return 1
        print(f"what their builder offers and the recipes do not hold: {len(lost_lines)} line(s) in {args.lost}")
    else:
        for line in lost_lines:
            print(f"not expressed: {line}")
    return 1 if failed else 0


RECIPE_FILE = "a recipe file (recipes/NAME.json)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m recipebook", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    recipe = input_file(RECIPE_FILE, MAX_RECIPE_BYTES)
    validate = sub.add_parser("validate", help="check recipes and report every problem")
    validate.add_argument(
        "files", nargs="*", type=recipe, metavar="FILE", help="recipe files (default: recipes/*.json)"
    )
    validate.add_argument(
        "--verdicts",
        type=output_folder("a folder of verdicts"),
        metavar="DIR",
        help="keep each file's verdict in DIR (a new or empty folder, or one this command filled) and read it back "
        "while the file and the engine are unchanged (make html: the language builds read them instead of checking "
        "again)",
    )
    validate.add_argument(
        "--fix",
        action="store_true",
        help="first write every mechanical fix into the files (a flag's documented spelling), keeping their "
        "formatting; say each one, then check",
    )
    validate.add_argument(
        "-W",
        "--strict",
        action="store_true",
        help="fail on warnings too, as sphinx-build -W does (by default only errors fail)",
    )
    validate.set_defaults(run=cmd_validate, parser=validate)
    expand = sub.add_parser("expand", help="print the commands of one selection")
    _selection_arguments(expand, recipe)
    expand.add_argument("--format", choices=("shell", "json"), default="shell")
    expand.set_defaults(run=cmd_expand, parser=expand)
    matrix = sub.add_parser("matrix", help="print every offered selection with its commands")
    matrix.add_argument("file", type=recipe, metavar="FILE")
    matrix.add_argument("--format", choices=("shell", "json"), default="shell")
    matrix.set_defaults(run=cmd_matrix, parser=matrix)
    write = sub.add_parser("files", help="write the ready-to-run files of one selection into a folder or an archive")
    _selection_arguments(write, recipe)
    where = write.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--out",
        type=output_folder("a folder to write the files into"),
        metavar="DIR",
        help="the folder to write into (created if missing)",
    )
    where.add_argument(
        "--archive",
        type=output_file("a tar file to write"),
        metavar="FILE",
        help="one tar archive instead (the page's download)",
    )
    write.add_argument(
        "--set-placeholder",
        action="append",
        type=word,
        default=[],
        metavar="NAME[@NODE]=VALUE",
        help="fill in a placeholder of the selection's files: <NAME> in every command, or with @NODE in the "
        "commands of that node only (a value each node has, such as its own address); repeatable",
    )
    write.add_argument(
        "--set-k8s",
        action="append",
        type=word,
        default=[],
        metavar="NAME=VALUE",
        help="an operator's choice for the kubernetes/ files: "
        + ", ".join(s.name for s in kubernetes.SETTINGS)
        + " (see the operator's page); repeatable",
    )
    write.set_defaults(run=cmd_files, parser=write)
    sizing = sub.add_parser("fit", help="the NPU memory of one selection per rank: weights, KV cache, what is left")
    _selection_arguments(sizing, recipe)
    asked = count_up_to(memory.LARGEST_ASK)
    sizing.add_argument("--max-model-len", type=asked, metavar="N", help="what if the commands served N tokens")
    sizing.add_argument("--max-num-seqs", type=asked, metavar="N", help="what if the commands batched N sequences")
    sizing.add_argument(
        "--sku", choices=sorted(memory.SKUS), metavar="SKU", help="the device (default: the target's first SKU)"
    )
    sizing.add_argument(
        "--checkpoint",
        type=word,
        metavar="MODEL",
        help="what if the commands served this checkpoint of the recipe's facts",
    )
    sizing.add_argument("--format", choices=("text", "json"), default="text")
    sizing.set_defaults(run=cmd_fit, parser=sizing)
    bring = sub.add_parser(
        "import",
        help="recipes from model files of a vLLM Recipes checkout (models/<org>/<model>.yaml, its strategies, "
        "kv_store/ and taxonomy.yaml)",
    )
    bring.add_argument(
        "checkout", type=checkout_folder, metavar="CHECKOUT", help="a work tree of github.com/vllm-project/recipes"
    )
    bring.add_argument(
        "models",
        nargs="*",
        type=word,
        metavar="MODEL",
        help="Hugging Face ids (Qwen/Qwen3-8B) or model files in the checkout's models/ (default: every model)",
    )
    bring.add_argument(
        "--out",
        type=output_folder("a folder to write the recipes into"),
        default=str(RECIPES),
        metavar="DIR",
        help="where to write the recipes, a folder outside the checkout (default: recipes/)",
    )
    bring.add_argument("--force", action="store_true", help="overwrite a recipe file that exists")
    bring.add_argument(
        "--lost",
        type=output_file("a file to list what is not expressed"),
        metavar="FILE",
        help="write what cannot be expressed to FILE, one line each, outside the checkout (default: print it)",
    )
    bring.add_argument(
        "--commit",
        type=commit_id,
        metavar="SHA",
        help="the checkout's commit, 40 hex digits, for the notes (default: git rev-parse)",
    )
    bring.set_defaults(run=cmd_import, parser=bring)
    measured = sub.add_parser("results", help="measured results of vllm bench serve")
    measured_sub = measured.add_subparsers(dest="action", required=True, parser_class=_Parser)
    add = measured_sub.add_parser(
        "add", help="check result files written by the explorer's benchmark and store the accepted ones"
    )
    add.add_argument(
        "files",
        nargs="+",
        type=input_file("a result file of vllm bench serve", MAX_RESULT_BYTES),
        metavar="FILE",
        help="result files of vllm bench serve --save-result",
    )
    add.add_argument(
        "--recipes",
        default=RECIPES,
        type=input_folder("a folder of recipes"),
        metavar="DIR",
        help="the recipes (default: recipes/)",
    )
    add.add_argument(
        "--results",
        default=Path("results"),
        type=output_folder("a folder of stored results"),
        metavar="DIR",
        help="where results are stored (default: results/)",
    )
    add.add_argument(
        "--run", type=link, metavar="URL", help="a link to the run (a CI job, a log) to store with each result"
    )
    add.add_argument(
        "--timezone", type=timezone, metavar="+HHMM", help="the run's time zone, when its metadata lacks it"
    )
    add.add_argument(
        "--vllm", type=release, metavar="VERSION", help="the vLLM release that served, when the metadata lacks it"
    )
    add.add_argument("--vllm-rbln", type=release, metavar="VERSION", help="the vllm-rbln release that served, likewise")
    add.set_defaults(run_=cmd_results_add, parser=add)
    report = sub.add_parser(
        "drift",
        help="what another vLLM release breaks in the recipes (flags, values, JSON fields, env names)",
    )
    vocabulary_file = input_file("a vocabulary file (make vocabulary writes one)", MAX_VOCABULARY_BYTES)
    report.add_argument("files", nargs="*", type=recipe, metavar="FILE", help="recipe files (default: recipes/*.json)")
    report.add_argument(
        "--vocabulary",
        required=True,
        type=vocabulary_file,
        metavar="FILE",
        help="the other release's vocabulary (make vocabulary writes it)",
    )
    report.add_argument(
        "--against",
        type=vocabulary_file,
        metavar="FILE",
        help="the vocabulary to compare with (default: the pinned one)",
    )
    report.set_defaults(run=cmd_drift, parser=report)
    return parser


def _checked_import(args: argparse.Namespace) -> None:
    """import: each model a file in the checkout's models/, the recipes written outside the
    checkout, the list of what is not expressed neither in the checkout, nor a model file, nor a
    recipe the import may write."""
    parser: argparse.ArgumentParser = args.parser
    out: Path = args.out
    if _inside(out, args.checkout):
        parser.error(
            f"argument --out: {_shown(str(out))} is in the checkout {_shown(str(args.checkout))}; give a folder "
            "outside it (default: recipes/)"
        )
    try:
        args.model_files = [importing.model_file(args.checkout, name) for name in args.models]
    except importing.NotImportable as error:
        parser.error(f"argument MODEL: {error}")
    distinct(parser, [("MODEL", path) for path in args.model_files] + [("--lost", args.lost)])
    if args.lost is None:
        return
    if _inside(args.lost, args.checkout):
        parser.error(f"argument --lost: {_shown(str(args.lost))} is in the checkout; give a file outside it")
    if args.lost.suffix == ".json" and os.path.realpath(args.lost.parent) == os.path.realpath(out):
        parser.error(
            f"argument --lost: {_shown(str(args.lost))} is a recipe file of --out {_shown(str(out))}; "
            "give a file that is not a recipe (lost.txt)"
        )


def _checked_fix(parser: argparse.ArgumentParser, paths: list[Path]) -> None:
    """validate --fix rewrites each file in place: each is a regular file of a bounded size given
    as itself, not a link (the fixed file would replace the link, not what it points to)."""
    for path in paths:
        try:
            found = os.lstat(path)
        except OSError as error:
            parser.error(f"argument FILE: {_shown(str(path))}: {error.strerror or error}")
        if stat.S_ISLNK(found.st_mode):
            parser.error(
                f"argument FILE: {_shown(str(path))} is a symbolic link (to {_shown(os.readlink(path))}); --fix "
                "rewrites files in place: give the recipe file itself"
            )
        if not stat.S_ISREG(found.st_mode):
            parser.error(f"argument FILE: {_shown(str(path))} is {_kind(found.st_mode)}, not {RECIPE_FILE}")
        if found.st_size > MAX_RECIPE_BYTES:
            parser.error(
                f"argument FILE: {_shown(str(path))} is {found.st_size:,} bytes; {RECIPE_FILE} is at most "
                f"{MAX_RECIPE_BYTES // (1024 * 1024)} MiB"
            )


def _checked(args: argparse.Namespace) -> None:
    """What no single argument shows: a file given twice, a verdicts folder that holds other files,
    results stored among the recipes."""
    parser = args.parser
    files = [("FILE", path) for path in getattr(args, "files", None) or ()]
    if getattr(args, "file", None) is not None:
        files.append(("FILE", args.file))
    if getattr(args, "archive", None) is not None:
        files.append(("--archive", args.archive))
    if args.command == "drift":
        files += [("--vocabulary", args.vocabulary), ("--against", args.against or PINNED_VOCABULARY)]
    distinct(parser, files)
    if args.command == "import":
        _checked_import(args)
    if args.command == "validate" and args.fix:
        _checked_fix(parser, recipe_files(args.files))
    if args.command == "results" and _same(args.results, args.recipes):
        parser.error(
            f"argument --results: {_shown(str(args.results))} is the recipes' folder; give a folder of its own "
            "(default: results/)"
        )
    if getattr(args, "verdicts", None) is not None:
        foreign = verdicts.foreign_entries(args.verdicts)
        if foreign:
            parser.error(
                f"argument --verdicts: {_shown(str(args.verdicts))} holds files that are not verdicts "
                f"({', '.join(repr(name) for name in foreign[:3])}); give a new or empty folder, or one this command "
                "filled"
            )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _checked(args)
    run: Callable[[argparse.Namespace], int] = getattr(args, "run_", None) or args.run
    try:
        return run(args)
    except BrokenPipeError:  # e.g. piped into head
        return 0
