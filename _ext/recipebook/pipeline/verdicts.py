"""Verdicts kept on disk, so that the processes of one build check each recipe once.

``make html`` checks every recipe first (``recipebook validate --verdicts DIR``, on every core);
each language's build then reads a file's verdict from DIR instead of checking the file again.
A verdict is filed under a key made of everything a check reads: the recipe file's path and
bytes, the engine's own files (its code, the schema, the vLLM and router-chart vocabularies),
the versions of the libraries it calls, the Python that runs it and the bash that judges the
scripts. Any changed byte is another key, so a stale verdict is never read; an entry that does
not read back as a verdict is checked again, never trusted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from ..checking.schema import SCHEMA_PATH
from ..expanding import expansion
from ..memo import remembered
from ..problems import Kind, Level, Problem, errors
from ..reading.source import MAX_BYTES
from .load import check_file

ENGINE = Path(__file__).resolve().parents[1]
LIBRARIES = ("PyYAML", "jsonschema", "jsonschema-rs", "confusable-homoglyphs", "regex")
LIMIT = 1 << 22  # bytes: an entry larger than this is not a verdict this engine wrote


@dataclasses.dataclass(frozen=True)
class Verdict:
    """A recipe file's problems; for a valid one (no problem an error), its name and how many
    selections it offers (when checked here, not by the Sphinx adapter, which keeps only the
    problems). The one verdict type: ``recipebook validate`` files it, the adapter's domain keeps
    it per file."""

    problems: list[Problem]
    name: str | None = None
    selections: int | None = None


@remembered(maxsize=None)  # files, as the schema is: read once per process
def engine_fingerprint() -> str:
    """What every verdict depends on besides the recipe file (read once per process)."""
    digest = hashlib.sha256()
    files = sorted(p for p in ENGINE.rglob("*") if p.suffix in (".py", ".json") and "__pycache__" not in p.parts)
    for path in [*files, SCHEMA_PATH]:
        digest.update(f"{path.relative_to(path.anchor)}\0".encode())
        digest.update(path.read_bytes())
    for library in LIBRARIES:
        try:
            version = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"{library}={version}\0".encode())
    bash = shutil.which("bash")
    if bash:
        info = os.stat(bash)
        digest.update(f"{bash}:{info.st_size}:{info.st_mtime_ns}\0".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def _key(path: Path, data: bytes) -> str:
    digest = hashlib.sha256(engine_fingerprint().encode())
    digest.update(os.fsencode(os.path.abspath(path)) + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _written(verdict: Verdict) -> str:
    problems = [[p.file, p.line, p.column, p.pointer, p.message, p.kind.name, p.level.name] for p in verdict.problems]
    return json.dumps({"problems": problems, "name": verdict.name, "selections": verdict.selections})


def _problem(row: object) -> Problem:
    """A problem as _written writes it; ValueError for anything else."""
    if not isinstance(row, list) or len(row) != 7:
        raise ValueError("not a problem")
    file, line, column, pointer, message, kind, level = row
    if not all(isinstance(text, str) for text in (file, pointer, message, kind, level)):
        raise ValueError("not a problem")
    if type(line) is not int or type(column) is not int:
        raise ValueError("not a problem")
    return Problem(
        file=file, line=line, column=column, pointer=pointer, message=message, kind=Kind[kind], level=Level[level]
    )


def _read(entry: Path) -> Verdict | None:
    """The verdict in an entry, or None for a missing, oversized or malformed one: errors (and
    maybe warnings) and no name, or a name, a selection count and no error."""
    try:
        with entry.open("rb") as handle:
            text = handle.read(LIMIT + 1)
        if len(text) > LIMIT:
            return None
        data = json.loads(text)
        problems = [_problem(row) for row in data["problems"]]
        name, selections = data["name"], data["selections"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if errors(problems) and name is None and selections is None:
        return Verdict(problems)
    if not errors(problems) and isinstance(name, str) and type(selections) is int:
        return Verdict(problems, name, selections)
    return None


def _write(folder: Path, key: str, verdict: Verdict) -> None:
    """Filed whole or not at all (a reader never sees half an entry); a folder that cannot be
    written to only costs the next reader a check."""
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".part")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(_written(verdict))
            os.replace(temporary, folder / f"{key}.json")
        except OSError:
            Path(temporary).unlink(missing_ok=True)


def fresh(path: str | Path) -> Verdict:
    """A recipe file checked now."""
    recipe, problems = check_file(path)
    if recipe is None:
        return Verdict(problems)
    # counted, not expanded: the rules already built and proved each target's line table
    return Verdict(problems, recipe.name, sum(expansion.offered_count(t.grid) or 0 for _s, t in recipe.targets()))


def _contents(path: Path) -> bytes | None:
    """The bytes of a regular file the reader would read whole, else None (a FIFO would block,
    a device never end: those are checked, and refused, by the reader alone)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_BYTES else None


def verdict(path: str | Path, folder: str | Path | None) -> Verdict:
    """A recipe file's verdict: read from the folder when it holds one for exactly these bytes
    and this engine, else checked now (and filed there)."""
    path = Path(path)
    data = None if folder is None else _contents(path)
    if folder is None or data is None:
        return fresh(path)
    key = _key(path, data)
    found = _read(Path(folder) / f"{key}.json")
    if found is not None:
        return found
    checked = fresh(path)
    if _contents(path) == data:  # filed only if the file did not change while it was checked
        _write(Path(folder), key, checked)
    return checked


# what this module files in a folder: a verdict under its key, and a verdict being written
_ENTRY = re.compile(r"[0-9a-f]{64}\.json|\..*\.part")


def foreign_entries(folder: str | Path) -> list[str]:
    """The names in a folder that are not verdicts this module filed (sorted; empty for a new
    folder): a folder holding them is not one to file verdicts in, or to prune."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except FileNotFoundError:
        return []
    except OSError as error:
        return [f"(unreadable: {error.strerror or error})"]
    return [name for name in names if not _ENTRY.fullmatch(name)]


def prune(folder: str | Path, paths: list[Path]) -> None:
    """Keep only the verdicts of these files as they are now: a folder of verdicts does not grow
    with every edit. Only this module's entries are removed, never another file."""
    folder = Path(folder)
    keep = {f"{_key(path, data)}.json" for path in paths if (data := _contents(path)) is not None}
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            if entry.name not in keep and _ENTRY.fullmatch(entry.name) and not entry.is_dir():
                entry.unlink(missing_ok=True)
