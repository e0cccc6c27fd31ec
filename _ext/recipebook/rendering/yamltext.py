"""YAML text as PyYAML's pure-Python emitter writes it, written by libyaml where the two agree.

PyYAML has two emitters: its own, in Python, and libyaml's (``yaml.CSafeDumper``), about ten
times faster. They write the same text for the documents the recipes give (the manifests,
their line fragments, the ``--config`` entries), but not for every document:

- libyaml escapes U+0085 (NEL) and every character beyond the Basic Multilingual Plane
  (``"\\U0001F600"``), which PyYAML writes as they are;
- an empty key, or a key PyYAML cannot write as a simple key (long, with a line break or an
  escape), may be written ``? key`` by one and ``key:`` by the other;
- with a width (a line folded at a space), they fold a double-quoted string with an escape or
  a line break in it at different places;
- a document that is a single plain scalar ends with ``...`` in PyYAML only.

So ``dump`` hands libyaml only a mapping or a list whose keys are names (``NAME``) and whose
strings hold neither NEL nor a character beyond the BMP; with a width, a string with an escape
or a line break only if it is too short to reach the width. Any other document, and every
document when PyYAML was built without libyaml, is written by the pure-Python emitter as
before. No width is libyaml's -1 (a line of up to 2**31 - 1 columns) for PyYAML's infinity.
``tests/test_yamltext.py`` writes hostile documents with both and compares them.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

_LIBYAML: type | None = getattr(yaml, "CSafeDumper", None)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")  # a key both write plain, as a simple key
_UNFOLDED = re.compile(r"[^\x85\U00010000-\U0010ffff]*")  # no width: text both write alike
_FOLDED = re.compile(r"[\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")  # with a width
_ESCAPED = re.compile(r"[^\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")  # a break, or an escape


# Each dumper's twin class, made once: a class is a definition (compared by identity), not a
# result the engine may forget.
_TWINS: dict[type[yaml.SafeDumper], type] = {}


def twin(dumper: type[yaml.SafeDumper]) -> type | None:
    """The dumper's libyaml twin: the same representers and settings over libyaml's emitter
    (None without libyaml). A representer must give a scalar's value as a plain ``str``."""
    if _LIBYAML is None:
        return None
    if dumper not in _TWINS:
        _TWINS[dumper] = _made_twin(dumper, _LIBYAML)
    return _TWINS[dumper]


def _made_twin(dumper: type[yaml.SafeDumper], libyaml: type) -> type:
    namespace: dict[str, Any] = {}
    for klass in reversed(dumper.__mro__[: dumper.__mro__.index(yaml.SafeDumper)]):
        for name, value in vars(klass).items():
            if not name.startswith("__"):
                namespace[name] = dict(value) if isinstance(value, dict) else value
    return type(f"{dumper.__name__}LibYAML", (libyaml,), namespace)


def _agrees(data: Any, width: int | None) -> bool:
    """Whether both emitters write this document alike (see the module's docstring)."""
    if not isinstance(data, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not _text_agrees(item, width, depth):
                return False
        elif isinstance(item, dict):
            for key, value in item.items():
                if not (isinstance(key, str) and NAME.fullmatch(key)):
                    return False
                stack.append((value, depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((value, depth + 1) for value in item)
        elif not (item is None or isinstance(item, (bool, int, float))):
            return False  # a type of the dumper's own: its representer, its text
    return True


def _text_agrees(text: str, width: int | None, depth: int) -> bool:
    if not _UNFOLDED.fullmatch(text):
        return False
    if width is None or _FOLDED.fullmatch(text):
        return True
    # an escape or a line break: alike where no line of it can reach the width (an escape takes
    # at most 6 columns, \uXXXX; around the text its quotes, before it the indent, "- " and a key
    # of at most 100 characters)
    return len(text) + 5 * len(_ESCAPED.findall(text)) + 2 + 4 * depth + 102 < width


def dump(data: Any, dumper: type[yaml.SafeDumper], *, width: int | None = None) -> str:
    """``yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=...)``, the
    pure-Python emitter's text; width None: no line folded."""
    fast = twin(dumper)
    if fast is not None and _agrees(data, width):
        return yaml.dump(data, Dumper=fast, sort_keys=False, allow_unicode=True, width=-1 if width is None else width)
    return yaml.dump(
        data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=math.inf if width is None else width
    )
