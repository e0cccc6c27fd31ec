"""Command line: validate recipes, expand one selection, print the whole matrix, write a selection's
files, report drift against another vLLM release, import recipes from vLLM Recipes."""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from . import importing
from .checking import drift, rules, safety, schema, vocabulary
from .expanding import expansion, memory, page, results
from .memo import Memo
from .pipeline import fix, verdicts
from .pipeline.load import check_file
from .problems import Problem, SelectionError, errors, warnings
from .reading import sharing, source
from .reading.model import Recipe
from .reading.vocabulary import Vocabulary, pinned
from .rendering import files

RECIPES = Path("recipes")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 without a traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def recipe_files(paths: list[str]) -> list[Path]:
    """The files to check: the given ones, or every recipe in recipes/."""
    if paths:
        return [Path(p) for p in paths]
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


def _load_one(path: str, memo: Memo) -> Recipe | None:
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
        print(f"{args.file}: {error}", file=sys.stderr)
        return 2


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


def _parse_values(pairs: list[str]) -> dict[str, str]:
    """--set-placeholder NAME=VALUE (every command) or NAME@NODE=VALUE (the commands of one
    node), each value checked as the page checks it."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        match = files.VALUE_KEY.fullmatch(key)
        if not sep or match is None:
            raise SelectionError(
                f"--set-placeholder takes NAME=VALUE or NAME@NODE=VALUE (NAME as in <NAME>), not {pair!r}"
            )
        why = files.value_problem(match.group(1), value)
        if why:
            raise SelectionError(
                f"--set-placeholder {key}: {value!r} cannot stand in for <{match.group(1)}>: "
                f"{files.VALUE_PROBLEMS[why]}"
            )
        if key in values:
            raise SelectionError(f"placeholder {key!r} is set twice")
        values[key] = value
    return values


def cmd_files(args: argparse.Namespace) -> int:
    """Write a selection's ready-to-run files (serve.sh, a vLLM config and an env file per
    command), one by one into a folder, or as one tar archive."""
    result = _selected(args)
    if isinstance(result, int):
        return result
    try:
        values = _parse_values(args.set_placeholder)
    except SelectionError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 2
    written = files.selection_files(result, values)
    try:
        if args.archive:
            path = Path(args.archive)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files.archive(files.folder_name(result), written))
            print(path)
            return 0
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, text in written.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if name.endswith(".sh"):
                path.chmod(0o755)
            print(path)
    except OSError as error:
        print(f"{args.archive or args.out}: cannot write the files: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


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
    for group in memory.groups(figures):
        r = group.figures
        dps = sorted({dp for dp, _pp in group.ranks})
        pps = sorted({pp for _dp, pp in group.ranks})
        verdict = {True: "fits", False: "does not fit", None: "open"}[r.fits]
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
    for name, value in (("--max-model-len", args.max_model_len), ("--max-num-seqs", args.max_num_seqs)):
        if value is not None and not 1 <= value <= memory.LARGEST_ASK:
            print(
                f"{args.file}: {name} must be a whole number from 1 to {memory.LARGEST_ASK:,}, not {value}",
                file=sys.stderr,
            )
            return 2
    if args.sku is not None and args.sku not in memory.SKUS:
        print(
            f"{args.file}: --sku {args.sku!r} is not a device the figures know: {', '.join(memory.SKUS)}",
            file=sys.stderr,
        )
        return 2
    memo = Memo()
    recipe = _load_one(args.file, memo)
    if recipe is None:
        return 1
    try:
        result = page.expand(recipe, args.strategy, args.target, _parse_sets(args.set), memo)
    except SelectionError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 2
    target = expansion.find(recipe, args.strategy, args.target)[1]
    if args.checkpoint is not None and (recipe.facts is None or recipe.facts.checkpoint(args.checkpoint) is None):
        known = ", ".join(c.model for c in recipe.facts.checkpoints) if recipe.facts else "none"
        print(
            f"{args.file}: --checkpoint {args.checkpoint!r} is not one of the recipe's checkpoints ({known})",
            file=sys.stderr,
        )
        return 2
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
    seen: set[str] = set()
    for name in args.files:
        path = Path(name)
        if not name or str(path.resolve()) in seen:
            print(f"{name!r}: given twice or empty: each result file once", file=sys.stderr)
            return 2
        seen.add(str(path.resolve()))
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


def _selection_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("file", metavar="FILE")
    command.add_argument("--strategy", required=True, metavar="SLUG")
    command.add_argument("--target", required=True, metavar="TARGET")
    command.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="AXIS=VALUE",
        help="choose a value for an axis (repeatable); others take the recommended value",
    )


def cmd_drift(args: argparse.Namespace) -> int:
    new = Vocabulary.read(args.vocabulary)
    old = Vocabulary.read(args.against) if args.against else pinned()
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
        checkout = importing.Checkout.read(args.checkout, commit=args.commit or _commit(Path(args.checkout)))
        paths = [checkout.model(name) for name in args.models] if args.models else checkout.models()
    except importing.NotImportable as error:
        print(f"recipebook import: {error}", file=sys.stderr)
        return 2
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
        if target.exists() and not args.force:
            print(f"{target}: exists; not overwritten (--force overwrites)", file=sys.stderr)
            failed += 1
            continue
        try:
            out.mkdir(parents=True, exist_ok=True)
            target.write_text(importing.dumps(imported.recipe), encoding="utf-8")
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
            Path(args.lost).write_text("".join(f"{line}\n" for line in lost_lines), encoding="utf-8")
        except OSError as error:
            print(f"{args.lost}: cannot write: {error.strerror or error}", file=sys.stderr)
            return 1
        print(f"what their builder offers and the recipes do not hold: {len(lost_lines)} line(s) in {args.lost}")
    else:
        for line in lost_lines:
            print(f"not expressed: {line}")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m recipebook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    validate = sub.add_parser("validate", help="check recipes and report every problem")
    validate.add_argument("files", nargs="*", metavar="FILE", help="recipe files (default: recipes/*.json)")
    validate.add_argument(
        "--verdicts",
        metavar="DIR",
        help="keep each file's verdict in DIR and read it back while the file and the engine are unchanged "
        "(make html: the language builds read them instead of checking again)",
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
    validate.set_defaults(run=cmd_validate)
    expand = sub.add_parser("expand", help="print the commands of one selection")
    _selection_arguments(expand)
    expand.add_argument("--format", choices=("shell", "json"), default="shell")
    expand.set_defaults(run=cmd_expand)
    matrix = sub.add_parser("matrix", help="print every offered selection with its commands")
    matrix.add_argument("file", metavar="FILE")
    matrix.add_argument("--format", choices=("shell", "json"), default="shell")
    matrix.set_defaults(run=cmd_matrix)
    write = sub.add_parser("files", help="write the ready-to-run files of one selection into a folder or an archive")
    _selection_arguments(write)
    where = write.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", metavar="DIR", help="the folder to write into (created if missing)")
    where.add_argument("--archive", metavar="FILE", help="one tar archive instead (the page's download)")
    write.add_argument(
        "--set-placeholder",
        action="append",
        default=[],
        metavar="NAME[@NODE]=VALUE",
        help="fill in a placeholder: <NAME> in every command, or with @NODE in the commands of that node only "
        "(a value each node has, such as its own address); repeatable",
    )
    write.set_defaults(run=cmd_files)
    sizing = sub.add_parser("fit", help="the NPU memory of one selection per rank: weights, KV cache, what is left")
    _selection_arguments(sizing)
    sizing.add_argument("--max-model-len", type=int, metavar="N", help="what if the commands served N tokens")
    sizing.add_argument("--max-num-seqs", type=int, metavar="N", help="what if the commands batched N sequences")
    sizing.add_argument("--sku", metavar="SKU", help="the device (default: the target's first SKU)")
    sizing.add_argument(
        "--checkpoint", metavar="MODEL", help="what if the commands served this checkpoint of the recipe's facts"
    )
    sizing.add_argument("--format", choices=("text", "json"), default="text")
    sizing.set_defaults(run=cmd_fit)
    bring = sub.add_parser(
        "import",
        help="recipes from model files of a vLLM Recipes checkout (models/<org>/<model>.yaml, its strategies, "
        "kv_store/ and taxonomy.yaml)",
    )
    bring.add_argument("checkout", metavar="CHECKOUT", help="a work tree of github.com/vllm-project/recipes")
    bring.add_argument(
        "models",
        nargs="*",
        metavar="MODEL",
        help="Hugging Face ids (Qwen/Qwen3-8B) or model files (default: every model)",
    )
    bring.add_argument(
        "--out", default=str(RECIPES), metavar="DIR", help="where to write the recipes (default: recipes/)"
    )
    bring.add_argument("--force", action="store_true", help="overwrite a recipe file that exists")
    bring.add_argument(
        "--lost", metavar="FILE", help="write what cannot be expressed to FILE, one line each (default: print it)"
    )
    bring.add_argument("--commit", metavar="SHA", help="the checkout's commit, for the notes (default: git rev-parse)")
    bring.set_defaults(run=cmd_import)
    measured = sub.add_parser("results", help="measured results of vllm bench serve")
    measured_sub = measured.add_subparsers(dest="action", required=True, parser_class=_Parser)
    add = measured_sub.add_parser(
        "add", help="check result files written by the explorer's benchmark and store the accepted ones"
    )
    add.add_argument("files", nargs="+", metavar="FILE", help="result files of vllm bench serve --save-result")
    add.add_argument("--recipes", default=str(RECIPES), metavar="DIR", help="the recipes (default: recipes/)")
    add.add_argument("--results", default="results", metavar="DIR", help="where results are stored (default: results/)")
    add.add_argument("--run", metavar="URL", help="a link to the run (a CI job, a log) to store with each result")
    add.add_argument("--timezone", metavar="+HHMM", help="the run's time zone, when its metadata lacks it")
    add.add_argument("--vllm", metavar="VERSION", help="the vLLM release that served, when the metadata lacks it")
    add.add_argument("--vllm-rbln", metavar="VERSION", help="the vllm-rbln release that served, likewise")
    add.set_defaults(run_=cmd_results_add)
    report = sub.add_parser(
        "drift",
        help="what another vLLM release breaks in the recipes (flags, values, JSON fields, env names)",
    )
    report.add_argument("files", nargs="*", metavar="FILE", help="recipe files (default: recipes/*.json)")
    report.add_argument(
        "--vocabulary", required=True, metavar="FILE", help="the other release's vocabulary (make vocabulary writes it)"
    )
    report.add_argument("--against", metavar="FILE", help="the vocabulary to compare with (default: the pinned one)")
    report.set_defaults(run=cmd_drift)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = getattr(args, "run_", None) or args.run
    try:
        return run(args)
    except BrokenPipeError:  # e.g. piped into head
        return 0
