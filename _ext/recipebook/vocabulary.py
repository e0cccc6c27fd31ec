"""Flags and environment names of the pinned vLLM: every one a recipe uses must exist.

The vocabulary is a committed data file, ``data/vllm-<version>.json``, generated from
the released vLLM and vllm-rbln source by ``tools/vocabulary.py`` (``make vocabulary``).
Checking reads only that file: no network, no vLLM installed.

Five checks, each located at the offending key or value:

* an arg key (or a ``del_args`` entry) that is not a ``vllm serve`` flag, with a
  "did you mean" for a near miss (``--speculative_config``: vLLM's parser would
  quietly turn the underscore into a dash, but pages publish the real spelling);
* a value outside the values the source states for a flag, or a value given to a
  flag that takes none (or none given to one that needs it);
* a value of the wrong type: the type vLLM's parser converts it with (an integer, a
  number, a size such as ``8k``, JSON, a JSON object), the limits the config class
  enforces (``Field(ge=1)``), and inside JSON-valued flags each field's type from the
  dataclass annotation; a placeholder (``'<POD_IP>'``) stands for any value;
* a field a JSON-valued flag's dataclass does not have (``--speculative-config``,
  ``--kv-transfer-config`` including a MultiConnector's children, ...);
* a ``VLLM_*`` environment name (``VLLM_RBLN_*`` included) that neither package reads, or an
  ``LMCACHE_*`` name that LMCache does not (upstream ``lmcache``, the release the data file
  names); names are case-sensitive, and a misspelt prefix (``LMCAHCE_``) is checked too;
* an environment value that the variable's getter would refuse: vLLM's and vllm-rbln's getters
  (``int(os.getenv(...))``, ``env_with_choices``) and LMCache's converters, as the data file
  records them.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import shell, valuetypes
from .model import Grid, Recipe
from .problems import Kind, Problem, excerpt, pointer_join
from .source import Document

PINNED_VLLM = "0.30.0"
DATA_FILE = Path(__file__).resolve().parent / "data" / f"vllm-{PINNED_VLLM}.json"

# A value that names a Python object (a.b.C): what vLLM's string escape hatches take,
# e.g. --distributed-executor-backend my.module.MyExecutor.
_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
_LIST_LIMIT = 15
# The command whose flags the vocabulary lists; args of other launchers are not checked.
LAUNCHER = "vllm serve"


class Vocabulary:
    """One data file: the flags, values, JSON fields and environment names of one release."""

    def __init__(self, data: Mapping[str, Any], path: Path | None = None) -> None:
        self.data = data
        self.path = path
        self.flags: Mapping[str, Any] = data["flags"]
        self.options: dict[str, str] = {flag: flag for flag in self.flags}
        for flag, entry in self.flags.items():
            for alias in entry.get("aliases", ()):
                self.options.setdefault(alias, flag)
        self.env_names = frozenset(name for names in data["envs"].values() for name in names)
        self.env_types: Mapping[str, Any] = data.get("env_types", {})
        lmcache = data.get("lmcache") or {}
        self.lmcache_release: str | None = lmcache.get("release")
        self.lmcache_envs: Mapping[str, Any] = lmcache.get("envs", {})

    @classmethod
    def read(cls, path: str | Path) -> Vocabulary:
        with Path(path).open(encoding="utf-8") as f:
            return cls(json.load(f), Path(path))

    @property
    def versions(self) -> str:
        if self.data.get("vllm_rbln"):
            return f"vLLM {self.data['vllm']} with vllm-rbln {self.data['vllm_rbln']}"
        return f"vLLM {self.data['vllm']}"

    @property
    def release(self) -> str:
        return f"vLLM {self.data['vllm']}"

    def flag_info(self, flag: str) -> Mapping[str, Any] | None:
        canonical = self.options.get(flag)
        return None if canonical is None else MappingProxyType(self.flags[canonical])

    # flags ---------------------------------------------------------------------

    def unknown_flag(self, key: str) -> str | None:
        """Why an arg key is not a flag, or None when it is one."""
        if key in self.options:
            return None
        base, dot, path = key.partition(".")
        if dot and base in self.options and key.startswith("--"):
            return self._dotted_problem(base, path)
        normal = "--" + key.lstrip("-").replace("_", "-").lower() if key.startswith("-") else "--" + key
        suggestion = _near(key, list(self.options), normal)
        return f"{key!r} is not a flag of vllm serve ({self.versions}){_did_you_mean(suggestion)}"

    def _dotted_problem(self, base: str, path: str) -> str | None:
        """``--json-flag.field VALUE``: vLLM's parser sets one JSON field this way."""
        entry = self.flag_info(base)
        assert entry is not None
        if not entry.get("json"):
            return f"{base} is not a JSON-valued flag, so it has no field {path!r}"
        fields = entry.get("json_fields")
        name = path.split(".")[0].removesuffix("+")
        if fields is not None and name not in fields:
            return self._field_message(base, entry, name, "")
        return None

    def _dotted_value_problems(self, key: str, values: list[str]) -> list[str]:
        """``--json-flag.field VALUE``: the value is read as JSON where it parses, else as text."""
        base, _, path = key.partition(".")
        entry = self.flag_info(base)
        name = path.removesuffix("+")
        spec = (entry.get("json_field_types") or {}).get(name) if entry is not None and "." not in name else None
        if spec is None or len(values) != 1:
            return []
        try:
            value = json.loads(values[0])
        except json.JSONDecodeError:
            value = values[0]
        message = valuetypes.field_problem(spec, value)
        return [f"{name!r} of {base} {message} ({self.release}), got {excerpt(values[0])}"] if message else []

    def _field_message(self, flag: str, entry: Mapping[str, Any], name: str, where: str) -> str:
        fields = entry["json_fields"]
        cls = f" ({entry['json_class']})" if entry.get("json_class") else ""
        inside = f" in {where}" if where else ""
        suggestion = _near(name, fields, name.replace("-", "_"))
        return f"{name!r}{inside} is not a field of {flag}{cls} in {self.versions}{_did_you_mean(suggestion)}"

    def _choice_problem(self, flag: str, entry: Mapping[str, Any], value: str, present: set[str]) -> str | None:
        choices = entry.get("choices")
        if choices is not None and entry.get("platform_choices"):
            choices = [*choices, *entry["platform_choices"]["values"]]  # what the platform plugin may add
        if choices is None or value in choices or shell.PLACEHOLDER.search(value):
            return None
        if entry.get("open_choices"):
            extension = entry.get("extended_by")
            if extension and extension in present:
                return None  # a plugin the command loads may register the name
            if _QUALNAME.match(value):
                return None  # a Python object, which vLLM also takes here
        message = f"{excerpt(value)} is not an allowed value of {flag} in {self.versions}"
        suggestion = _near(value, choices, value.replace("-", "_").lower())
        if len(choices) <= _LIST_LIMIT:
            message += f"; allowed: {', '.join(choices)}"
        if entry.get("extended_by"):
            message += f"; a name registered through {entry['extended_by']} is also accepted"
        return message + _did_you_mean(suggestion)

    def _json_problems(self, flag: str, entry: Mapping[str, Any], value: str) -> Iterator[str]:
        try:
            obj = json.loads(value)
        except json.JSONDecodeError:
            return  # the rules report JSON that does not parse (and value_problem a bare word)
        if entry.get("json_fields") is not None:
            yield from self._object_problems(flag, entry, obj, "")

    def _object_problems(self, flag: str, entry: Mapping[str, Any], obj: Any, where: str) -> Iterator[str]:
        if not isinstance(obj, dict):
            return
        types = entry.get("json_field_types") or {}
        for name, item in obj.items():
            if name not in entry["json_fields"]:
                yield self._field_message(flag, entry, name, where)
            elif name in types:
                message = valuetypes.field_problem(types[name], item)
                if message:
                    inside = f" in {where}" if where else ""
                    yield f"{name!r}{inside} of {flag} {message} ({self.release}), got {excerpt(item, json.dumps)}"
        children = entry.get("json_children")
        if not children or any(obj.get(k) != v for k, v in children["when"].items()):
            return
        node: Any = obj
        for step in children["path"]:
            node = node.get(step) if isinstance(node, dict) else None
        if isinstance(node, list):
            path = ".".join(children["path"])
            for i, child in enumerate(node):
                yield from self._object_problems(flag, entry, child, f"{where + '.' if where else ''}{path}[{i}]")

    def arg_messages(self, key: str, text: str, present: set[str]) -> tuple[bool, list[str]]:
        """(whether the key itself is wrong, the messages) for one arg."""
        unknown = self.unknown_flag(key)
        if unknown:
            return True, [unknown]
        entry = self.flag_info(key)
        values = _values(key, text)
        if values is None:
            return False, []  # a text the rules already reject
        if entry is None:
            return False, self._dotted_value_problems(key, values)
        count = _count_problem(key, entry, values)
        if count:
            return False, [count]
        messages = [m for v in values if (m := self._choice_problem(key, entry, v, present))]
        if entry.get("choices") is None:
            messages += [m for v in values if (m := valuetypes.value_problem(key, entry, v, self.release))]
        if values and entry.get("json") and not messages:
            messages += list(self._json_problems(key, entry, values[0]))
        return False, messages

    # environment ---------------------------------------------------------------

    def env_problem(self, name: str) -> str | None:
        """Why an env name is not one vLLM, vllm-rbln or LMCache reads (names are case-sensitive), or None.

        A name whose prefix is VLLM or LMCACHE, in any case or misspelt (``LMCAHCE_``), is checked;
        other names (``PYTHONHASHSEED``, ``RBLN_VISIBLE_DEVICES``) are the shell's or the SDK's."""
        family = _env_family(name)
        if family is None:
            return None
        known, reader = self.env_names, self.versions
        if family == "lmcache":
            if not self.lmcache_release:
                return None
            known, reader = frozenset(self.lmcache_envs), self.lmcache
        if name in known:
            return None
        normal = name.upper().replace("-", "_")
        if normal in known:
            return (
                f"{name!r}: environment names are case-sensitive and {reader} reads only {normal!r}; write {normal!r}"
            )
        if family == "lmcache" and not name.upper().startswith("LMCACHE_"):
            normal = "LMCACHE_" + normal.partition("_")[2]
        elif family == "vllm" and not name.upper().startswith("VLLM_"):
            normal = "VLLM_" + normal.partition("_")[2]
        suggestion = _near(name, known, normal)
        return f"{name!r} is not an environment variable that {reader} reads{_did_you_mean(suggestion)}"

    @property
    def lmcache(self) -> str:
        return f"LMCache {self.lmcache_release}"

    def env_value_problem(self, name: str, text: str) -> str | None:
        """What is wrong with the value of a known env name for the type its reader converts it to."""
        value = _env_value(name, text)
        if value is None:
            return None
        if name in self.env_types:
            found = valuetypes.env_value_problem(self.env_types[name], value)
            reader = self.release
        elif name in self.lmcache_envs:
            found = valuetypes.env_value_problem(self.lmcache_envs[name], valuetypes.unquote_lmcache(value))
            reader = f"{self.lmcache}, which drops a value it cannot convert, with a warning"
        else:
            return None
        if found is None:
            return None
        message, suggestion = found
        return f"{name} {message} ({reader}), got {excerpt(value)}{_did_you_mean(suggestion)}"

    # the check -----------------------------------------------------------------

    def check(self, recipe: Recipe, doc: Document) -> Iterator[Problem]:
        """Every vocabulary problem of a recipe (Kind.VOCABULARY)."""
        for _, target in recipe.targets():
            grid = target.grid
            serve = {role.role for role in grid.base if role.launcher == LAUNCHER}
            mappings = list(_mappings(grid))
            present = {key for kind, _, mapping in mappings if kind == "args" for key in mapping}
            for kind, pointer, mapping in mappings:
                for key, text in mapping.items():
                    where = pointer_join(pointer, key)
                    if kind == "args":
                        on_key, messages = self.arg_messages(key, text, present)
                        for message in messages:
                            yield doc.problem(where, message, kind=Kind.VOCABULARY, key=on_key)
                    elif message := self.env_problem(key):
                        yield doc.problem(where, message, kind=Kind.VOCABULARY, key=True)
                    elif not valuetypes.is_port_env(key) and (message := self.env_value_problem(key, text)):
                        yield doc.problem(where, message, kind=Kind.VOCABULARY)
            for per_role in grid.deltas.values():
                for name, delta in per_role.items():
                    for i, key in enumerate(delta.del_args if name in serve else ()):
                        if message := self.unknown_flag(key):
                            yield doc.problem(pointer_join(delta.ptr, "del_args", i), message, kind=Kind.VOCABULARY)
                    for i, key in enumerate(delta.del_envs):
                        if message := self.env_problem(key):
                            yield doc.problem(pointer_join(delta.ptr, "del_envs", i), message, kind=Kind.VOCABULARY)


@functools.cache
def pinned() -> Vocabulary:
    """The vocabulary of the release the recipes are verified with."""
    return Vocabulary.read(DATA_FILE)


def vocabulary_info() -> dict[str, Any]:
    """The versions the vocabulary was generated from, and its size."""
    vocabulary = pinned()
    return {
        "vllm": vocabulary.data["vllm"],
        "vllm_rbln": vocabulary.data.get("vllm_rbln"),
        "flags": len(vocabulary.flags),
        "envs": len(vocabulary.env_names),
    }


def flag_info(flag: str) -> Mapping[str, Any] | None:
    """The vocabulary entry of a flag (or of one of its aliases), or None."""
    return pinned().flag_info(flag)


def flag_help(flag: str) -> str | None:
    """The help text of a flag (the first paragraph of vLLM's), or None if there is no such flag."""
    entry = flag_info(flag)
    return None if entry is None else entry["help"]


def _near(word: str, candidates: list[str] | frozenset[str], normal: str) -> str | None:
    """The candidate a misspelt word most likely meant, if one is close."""
    if normal in candidates and normal != word:
        return normal
    close = difflib.get_close_matches(normal, list(candidates), n=1, cutoff=0.8)
    return close[0] if close else None


def _did_you_mean(suggestion: str | None) -> str:
    return f"; did you mean {suggestion!r}?" if suggestion else ""


def _values(key: str, text: str) -> list[str] | None:
    """The value words of an arg text, or None when the text is not as the rules require."""
    if shell.unsafe_reason(text):
        return None  # rule 4 reports it; its words are not what the shell would pass
    try:
        words = shell.words(text)
    except ValueError:
        return None
    if not words:
        return None
    if words[0] == key:
        return words[1:]
    if words[0].startswith(key + "="):
        return [words[0].partition("=")[2], *words[1:]]
    return None


# Env names whose prefix is one of these (in any case, or misspelt a little) are checked.
_ENV_FAMILIES = {"VLLM": "vllm", "LMCACHE": "lmcache"}


def _env_family(name: str) -> str | None:
    """ "vllm" or "lmcache" when a name's prefix (before its first "_") is VLLM or LMCACHE, in any
    case or misspelt (LMCAHCE, VLMM); None for other names."""
    prefix, underscore, _ = name.partition("_")
    if not underscore:
        return None
    upper = prefix.upper()
    if upper in _ENV_FAMILIES:
        return _ENV_FAMILIES[upper]
    close = difflib.get_close_matches(upper, list(_ENV_FAMILIES), n=1, cutoff=0.7)
    return _ENV_FAMILIES[close[0]] if close else None


def _env_value(name: str, text: str) -> str | None:
    """The value of an env text ``NAME=value`` as the shell passes it, or None when the rules reject the text."""
    if shell.unsafe_reason(text):
        return None
    try:
        key, values = shell.flag_values(text)
    except ValueError:
        return None
    return values[0] if key == name and len(values) == 1 else None


def _count_problem(flag: str, entry: Mapping[str, Any], values: list[str]) -> str | None:
    takes, nargs = entry["takes_value"], entry.get("nargs")
    if takes == "no":
        return f"{flag} takes no value, but is given {excerpt(values[0])}" if values else None
    if takes == "yes" and not values:
        return f"{flag} needs a value"
    if isinstance(nargs, int) and len(values) != nargs:
        return f"{flag} takes {nargs} values, but is given {len(values)}"
    if nargs not in ("+", "*") and not isinstance(nargs, int) and len(values) > 1:
        shown = " ".join(repr(v) for v in values)
        return f"{flag} takes one value, but is given {len(values)}: {shown}; quote a value that holds spaces"
    return None


def _mappings(grid: Grid) -> Iterator[tuple[str, str, Mapping[str, str]]]:
    """Every args mapping of a vllm serve role and every envs mapping of a grid: (kind, pointer, mapping)."""
    serve = {role.role for role in grid.base if role.launcher == LAUNCHER}
    for kind, pointer, role, mapping in grid.mappings():
        if kind == "envs" or role in serve:
            yield kind, pointer, mapping


def check(recipe: Recipe, doc: Document, vocabulary: Vocabulary | None = None) -> Iterator[Problem]:
    """Every vocabulary problem of a recipe against a vocabulary (the pinned one by default)."""
    return (vocabulary or pinned()).check(recipe, doc)
