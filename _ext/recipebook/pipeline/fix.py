"""``recipebook validate --fix``: a recipe file's mechanical fixes applied where they were written.

A problem may carry a fix (``problems.Fix``): the strings to change in the file as written. The
spelling of a flag vLLM also reads written otherwise is one (``--tokenizer_mode`` becomes
``--tokenizer-mode``, in the key and at the start of its text); every ``del_args`` and ``varies``
entry naming the old spelling follows it. The file is edited in its own text, string by string,
so its formatting and key order stay; a fix is kept only when the edited file reads back with
every command as vLLM reads it unchanged (the same grids once the old spellings are written the
new way) and no error the file did not have. Otherwise the file is left as it was and the
reason is said.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..problems import Edit, Problem, errors, pointer_join
from ..reading import sharing, source
from .load import check_file

REFERENCES = ("del_args", "varies")  # lists that name args keys


@dataclasses.dataclass(frozen=True)
class Fixed:
    """What ``fix_file`` did to one file."""

    path: Path
    applied: tuple[Problem, ...] = ()  # the problems whose fixes were written
    refused: str | None = None  # why nothing was written, when fixes were found


def _references(data: Any, renames: Mapping[str, str], pointer: str = "") -> Iterator[Edit]:
    """Edits of each ``del_args`` or ``varies`` entry that names a renamed key."""
    if isinstance(data, dict):
        for name, value in data.items():
            inner = pointer_join(pointer, name)
            if name in REFERENCES and isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, str) and item in renames:
                        yield Edit(pointer_join(inner, i), False, item, renames[item])
            else:
                yield from _references(value, renames, inner)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _references(item, renames, pointer_join(pointer, i))


def _token_end(text: str, start: int) -> int:
    """The offset just past the JSON string that starts at ``start``."""
    i = start + 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def edited(document: source.Document, edits: list[Edit]) -> str | None:
    """The file's text with each edit made in place, or None when an edit is not where it says."""
    text = document.text
    if text is None:
        return None
    spans = []
    for edit in edits:
        start = document.offset(edit.pointer, key=edit.key)
        if start is None or not text.startswith('"', start):
            return None
        end = _token_end(text, start)
        token = text[start:end]
        if json.loads(token) != edit.old:
            return None
        spans.append((start, end, json.dumps(edit.new, ensure_ascii="\\u" in token)))
    spans.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(spans)):
        return None
    for start, end, replacement in reversed(spans):
        text = text[:start] + replacement + text[end:]
    return text


def _collisions(data: Any, renames: Mapping[str, str]) -> bool:
    """Whether some args mapping would hold one key twice once renamed (both spellings written)."""
    if isinstance(data, list):
        return any(_collisions(item, renames) for item in data)
    if not isinstance(data, dict):
        return False
    for name, value in data.items():
        if name in ("args", "add_args") and isinstance(value, dict):
            names = [renames.get(key, key) for key in value]
            if len(set(names)) < len(names):
                return True
        elif _collisions(value, renames):
            return True
    return False


def _renamed(data: Any, renames: Mapping[str, str]) -> Any:
    """A recipe's data with each renamed key written the new way wherever the key names an arg: as
    an args key, at the start of its text, and in del_args and varies."""
    if isinstance(data, list):
        return [_renamed(item, renames) for item in data]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in ("args", "add_args") and isinstance(value, dict):
            out[name] = {
                renames.get(k, k): (renames[k] + t[len(k) :] if k in renames and isinstance(t, str) else t)
                for k, t in value.items()
            }
        elif name in REFERENCES and isinstance(value, list):
            out[name] = [renames.get(item, item) if isinstance(item, str) else item for item in value]
        else:
            out[name] = _renamed(value, renames)
    return out


def _same_commands(before: Any, after: Any, renames: Mapping[str, str]) -> bool:
    """Whether two recipes' targets give the same commands once the renamed keys are written the
    new way: their grids, written out in full, are equal, key order included."""
    try:
        old = _renamed(sharing.written_out(before), renames)
        new = sharing.written_out(after)
    except (KeyError, TypeError, ValueError):
        return False
    return json.dumps(old.get("strategies")) == json.dumps(new.get("strategies"))


def fix_file(path: str | Path) -> Fixed:
    """Apply every mechanical fix of a recipe file in place (see the module's docstring)."""
    path = Path(path)
    document, _read_problems = source.read(path)
    if document is None:
        return Fixed(path)
    _recipe, problems = check_file(path)
    fixing = [p for p in problems if p.fix is not None]
    if not fixing:
        return Fixed(path)
    renames = {e.old: e.new for p in fixing for e in p.fix.edits if e.key}  # type: ignore[union-attr]
    edits = {(e.pointer, e.key): e for p in fixing for e in p.fix.edits}  # type: ignore[union-attr]
    for edit in _references(document.data, renames):
        edits.setdefault((edit.pointer, edit.key), edit)
    if _collisions(document.data, renames):
        return Fixed(path, refused="a command gives the flag under both spellings; give it once first")
    text = edited(document, list(edits.values()))
    if text is None:
        return Fixed(path, refused="a fix is not where the check found it; nothing was changed")
    # checked beside the file under its own name (a recipe's name is its file's), then moved over it
    scratch = Path(tempfile.mkdtemp(dir=path.parent, prefix=".fix-"))
    temporary = scratch / path.name
    try:
        temporary.write_text(text, encoding="utf-8", newline="")
        after, unread = source.read(temporary)
        _checked, checked = check_file(temporary)
        if after is None or unread or not _same_commands(document.data, after.data, renames):
            return Fixed(path, refused="the fixed file would not give the same commands; nothing was changed")
        if len(errors(checked)) > len(errors(problems)):
            return Fixed(path, refused="the fixed file would have errors it did not have; nothing was changed")
        with contextlib.suppress(OSError):
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            scratch.rmdir()
    return Fixed(path, applied=tuple(fixing))
