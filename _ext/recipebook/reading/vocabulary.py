"""The pinned vLLM's vocabulary: its flags, their values and its environment names, as vLLM reads them.

The vocabulary is a committed data file, ``data/vllm-<version>.json``, generated from
the released vLLM and vllm-rbln source by ``tools/vocabulary.py`` (``make vocabulary``).
Checking reads only that file: no network, no vLLM installed.

Keys are read as vLLM's parser reads them (``FlexibleArgumentParser`` in
``vllm/utils/argparse_utils.py``, then argparse): ``--tokenizer_mode`` is ``--tokenizer-mode``,
``-tp`` is ``--tensor-parallel-size``, the unique start of a name (``--gpu-memory-util``) is that
flag, and ``--attention-config.backend X`` (or ``-ac.backend X``) is a field of that JSON flag.
Each question about a key or a value (``Vocabulary.arg_messages``, ``env_problem``,
``env_value_problem``, ``repeated_options``, ``unknown_flag``) is answered in words, a message
without a place; the rule that places them in a recipe is ``checking/vocabulary.py``. The data
lives here, below the page model and the files, which read it too (a flag's help, the pinned
releases, a flag's type).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .. import shell
from ..memo import remembered
from ..problems import excerpt
from . import source, valuetypes

PINNED_VLLM = "0.30.0"
DATA_FILE = Path(__file__).resolve().parents[1] / "data" / f"vllm-{PINNED_VLLM}.json"
# The flag that makes vLLM stop at an environment name it does not read (else it only warns).
FAIL_ON_ENVIRON = "--fail-on-environ-validation"

# Flags vLLM removed before the pinned release, and the chat templates it installs (by hand, with sources).
REMOVED_FILE = Path(__file__).resolve().parents[1] / "data" / "removed-flags.json"
# vLLM's `vllm` command hands a command line holding this word to vLLM-Omni before parsing it
# (vllm/entrypoints/cli/main.py, maybe_run_omni).
OMNI = "--omni"

# A value that names a Python object (a.b.C): what vLLM's string escape hatches take,
# e.g. --distributed-executor-backend my.module.MyExecutor.
_QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
_LIST_LIMIT = 15
# The command whose flags the vocabulary lists; args of other launchers are not checked.
LAUNCHER = "vllm serve"


@dataclasses.dataclass(frozen=True)
class Reading:
    """How vLLM's parser reads one arg key (``FlexibleArgumentParser.parse_args``, then argparse).

    ``how`` is ``exact`` (a flag's name), ``alias`` (``-tp``), ``underscore`` (``--tokenizer_mode``:
    vLLM turns ``_`` into ``-`` from ``--`` to the first ``.``), ``abbreviation`` (argparse takes
    the start of exactly one flag's name for it), ``ambiguous`` (the start of several: refused),
    or ``unknown``. ``flag`` is the flag it sets; ``field`` the dotted path after it
    (``--attention-config.backend``: vLLM gathers such fields into one JSON value of the flag)."""

    key: str
    option: str  # the option string vLLM hands argparse, before any "."
    how: str
    flag: str | None = None
    field: str = ""
    candidates: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.flag is not None


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
        self.long_options = sorted(option for option in self.options if option.startswith("--"))
        removed = _removed_data()
        self.removed: Mapping[str, Any] = {f: e for f, e in removed.get("flags", {}).items() if f not in self.options}
        self.removed_envs: Mapping[str, Any] = {
            name: entry for name, entry in removed.get("envs", {}).items() if name not in self.env_names
        }
        templates = removed.get("chat_templates") or {}
        self.chat_templates = frozenset(templates.get("names", ()) if templates.get("vllm") == data["vllm"] else ())

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
        """The entry of a flag, as vLLM reads the key (an alias, or ``_`` for ``-``), or None."""
        canonical = self.options.get(flag)
        if canonical is None:
            reading = self.reading(flag)
            if reading.how not in ("underscore", "alias") or reading.field:
                return None
            canonical = reading.flag
        return None if canonical is None else MappingProxyType(self.flags[canonical])

    def reading(self, key: str) -> Reading:
        """How vLLM's parser reads an arg key: the flag it sets, and how it got there."""
        return _reading(self, key)

    # flags ---------------------------------------------------------------------

    def unknown_flag(self, key: str) -> str | None:
        """Why an arg key is not a flag vLLM's parser accepts, or None when it accepts it."""
        reading = self.reading(key)
        if reading.how == "abbreviation" and key.partition(".")[0] in self.removed:
            return self._not_a_flag(reading, None)
        return None if reading.accepted else self._not_a_flag(reading, None)

    def _not_a_flag(self, reading: Reading, values: list[str] | None) -> str:
        """A key vLLM's parser does not accept (or a removed flag it would read as another)."""
        key, option = reading.key, reading.option
        written = key.partition(".")[0]
        removed = self.removed.get(written) or self.removed.get(option)
        if removed is not None:
            name = written if written in self.removed else option
            message = (
                f"{name!r} is not a flag of vllm serve any more: vLLM {removed['removed_in']} removed it "
                f"({removed['source']}); {removed['instead']}"
            )
            if reading.how == "abbreviation" and reading.flag is not None:
                message += (
                    f". vLLM's parser would read {written!r} as the start of {reading.flag}, a flag of another "
                    f"meaning ({_first_sentence(self.flags[reading.flag]['help'])})"
                )
            return message
        if reading.how == "ambiguous":
            shown = ", ".join(reading.candidates[:6]) + (", ..." if len(reading.candidates) > 6 else "")
            return (
                f"{written!r} is not a flag of vllm serve ({self.versions}): vLLM's parser refuses it as the start "
                f"of several flags ({shown}); write the whole name"
            )
        normal = option if option.startswith("--") else "--" + option.lstrip("-").replace("_", "-")
        suggestion = self._flag_suggestion(written, normal.lower(), values)
        return f"{written!r} is not a flag of vllm serve ({self.versions}){_did_you_mean(suggestion)}"

    def _flag_suggestion(self, written: str, normal: str, values: list[str] | None) -> str | None:
        """A flag a misspelt key most likely meant: close in spelling, not a longer name that merely
        starts with it (--device is not --device-ids), and one that would take the values given."""
        candidates = [option for option in self.options if option.startswith("--") and not option.startswith(normal)]
        for candidate in difflib.get_close_matches(normal, candidates, n=5, cutoff=0.8):
            if values is None or self._takes(self.flags[self.options[candidate]], candidate, values):
                return candidate
        return None

    def _takes(self, entry: Mapping[str, Any], flag: str, values: list[str]) -> bool:
        """Whether a flag takes these value words (their number, type and choices)."""
        if _count_problem(flag, entry, values):
            return False
        if entry.get("choices") is not None and not entry.get("open_choices"):
            return all(self._choice_problem(flag, entry, v, set()) is None for v in values)
        return all(valuetypes.value_problem(flag, entry, v, self.release) is None for v in values)

    def _spelling_message(self, reading: Reading) -> str:
        """A spelling vLLM accepts that the site does not publish: the style problem, with the fix."""
        written = reading.key.partition(".")[0]
        assert reading.flag is not None  # a spelling vLLM accepts reads as a flag
        whole = reading.flag + (f".{reading.field}" if reading.field else "")
        if reading.how == "underscore":
            return (
                f"write {whole!r}: vLLM reads {reading.key!r} as {whole} (its parser turns '_' into '-' in a "
                "flag's name), but pages publish the name vLLM documents"
            )
        return (
            f"write {whole!r}: vLLM's parser takes {written!r} as the start of {reading.flag}, the only flag whose "
            "name starts so (argparse's abbreviations), but pages publish whole names"
        )

    def spelling(self, key: str) -> str | None:
        """A spelling of an accepted flag that vLLM reads but pages do not publish (``_`` for ``-``,
        the start of a name), with the name to write; None for the documented name, an alias, or a
        key vLLM does not accept (``arg_messages`` says so). A warning: the command runs as shown."""
        reading = self.reading(key)
        if reading.how not in ("underscore", "abbreviation") or self.unknown_flag(key):
            return None
        return self._spelling_message(reading)

    def _field_problems(self, reading: Reading, values: list[str] | None) -> list[tuple[bool, str]]:
        """``--json-flag.field VALUE``: vLLM's parser gathers such fields into one JSON value of the
        flag, so each is judged as that JSON's field: its name, then its value."""
        flag = reading.flag
        assert flag is not None
        entry = self.flags[flag]
        if not entry.get("json"):
            return [(True, f"{flag} is not a JSON-valued flag, so it has no field {reading.field!r}")]
        fields = entry.get("json_fields")
        name = reading.field.split(".")[0].removesuffix("+")
        if fields is not None and name not in fields:
            return [(True, self._field_message(flag, entry, name, ""))]
        spec = (entry.get("json_field_types") or {}).get(name) if "." not in reading.field else None
        if spec is None or values is None or len(values) != 1:
            return []
        value = _dotted_value(values[0], list_item=reading.field.endswith("+"))
        message = valuetypes.field_problem(spec, value)
        return [(False, f"{name!r} of {flag} {message} ({self.release}), got {excerpt(values[0])}")] if message else []

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
            obj = source.loads(value)
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

    def arg_messages(self, key: str, text: str, present: set[str]) -> list[tuple[bool, str]]:
        """(whether the message is about the key itself, the message) for each problem of one arg;
        the spelling message (``spelling``) is not among them."""
        reading = self.reading(key)
        values = _values(key, text)
        if not reading.accepted or (reading.how == "abbreviation" and self.unknown_flag(key)):
            return [(True, self._not_a_flag(reading, values))]
        found: list[tuple[bool, str]] = []
        if reading.field:
            return found + self._field_problems(reading, values)
        if values is None:
            return found  # a text the rules already reject
        assert reading.flag is not None
        entry = self.flags[reading.flag]
        if reading.option == "-O" and key != "-O":
            values = [key[2:].removeprefix("="), *values]  # -O3: the level is part of the word
        count = _count_problem(key, entry, values)
        if count:
            return [*found, (False, count)]
        messages = [m for v in values if (m := self._choice_problem(key, entry, v, present))]
        if entry.get("choices") is None:
            messages += [m for v in values if (m := valuetypes.value_problem(key, entry, v, self.release))]
        if values and entry.get("json") and not messages:
            messages += list(self._json_problems(key, entry, values[0]))
        if reading.flag == "--chat-template" and values and not messages:
            messages += [m for m in [self._chat_template_problem(values[0])] if m]
        return found + [(False, m) for m in messages]

    def _chat_template_problem(self, value: str) -> str | None:
        """A --chat-template path that opens only in a checkout of vLLM's source (``examples/...``).

        vLLM opens the value as a path from the folder vllm serve starts in, then under the name of a
        template it installs; a value with ``{``, ``}`` or a newline is a template itself."""
        if any(c in value for c in "{}\n") or shell.PLACEHOLDER.search(value) or value.startswith(("/", "~")):
            return None
        path = value.removeprefix("./")
        if path in self.chat_templates:
            return None
        if path.startswith(("examples/", "vllm/examples/")):
            return (
                f"{excerpt(value)} is a file of vLLM's source checkout (its examples/ folder), which the vllm "
                "package does not install; vllm serve opens a relative path from the folder it starts in, so "
                "this works only inside a checkout of vLLM: give an absolute path to a copy of the template, "
                "or leave --chat-template out to use the model's own"
            )
        return None

    # commands ------------------------------------------------------------------

    def repeated_options(self, keys: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
        """(pointer, message) for each key of one command that sets a flag an earlier key already set:
        vLLM's parser keeps the value it reads last, the page shows both (``-tp 1`` after
        ``--tensor-parallel-size 4``; ``--no-enable-x`` after ``--enable-x``). A JSON flag given whole
        and by dotted fields is the same trap: vLLM gives the gathered fields after every other argument,
        so they replace the whole value."""
        seen: dict[str, str] = {}
        dotted: dict[str, str] = {}
        whole: dict[str, str] = {}
        for pointer, key in keys:
            reading = self.reading(key)
            if not reading.accepted:
                continue
            assert reading.flag is not None
            if reading.field:
                dotted.setdefault(reading.flag, key)
                if reading.flag in whole:
                    yield pointer, self._replaced_message(key, whole[reading.flag], reading.flag)
                continue
            if reading.flag in dotted and reading.flag not in whole:
                yield pointer, self._replaced_message(dotted[reading.flag], key, reading.flag)
            whole.setdefault(reading.flag, key)
            target = self.flags[reading.flag].get("negates") or reading.flag
            if target in seen and seen[target] != key:
                yield (
                    pointer,
                    (
                        f"{key!r} sets {target} again: this command already gives it as {seen[target]!r}, and vLLM's "
                        "parser keeps only the value it reads last while the page shows both; give it once"
                    ),
                )
            seen.setdefault(target, key)

    @staticmethod
    def _replaced_message(field_key: str, whole_key: str, flag: str) -> str:
        return (
            f"{field_key!r} and {whole_key!r} both set {flag}: vLLM gathers the dotted fields into one JSON value "
            f"and gives it after the command's other arguments, so it replaces the whole {whole_key} value (its "
            "other fields are lost); write the field inside that JSON, or give every field dotted"
        )

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
        if self.env_unread(name):
            return self._unread(name, _near(name, known, normal))
        suggestion = _near(name, known, normal)
        return f"{name!r} is not an environment variable that {reader} reads{_did_you_mean(suggestion)}"

    def env_unread(self, name: str) -> bool:
        """Whether vLLM starts with a name set and only warns of it: a ``VLLM_`` name its
        ``environment_variables`` (or vllm-rbln's) do not hold. vLLM's ``validate_environ`` logs
        "Unknown vLLM environment variable detected" and the server starts, the variable having no
        effect; only ``--fail-on-environ-validation`` makes it stop (``FAIL_ON_ENVIRON``)."""
        return name.startswith("VLLM_") and name not in self.env_names

    def _unread(self, name: str, suggestion: str | None) -> str:
        """What an unread ``VLLM_`` name does: removed (with what replaced it, when the data file
        knows) or unknown, and nothing either way."""
        effect = (
            f"{self.release} starts with a warning ('Unknown vLLM environment variable detected') and the "
            f"variable has no effect (it stops only under {FAIL_ON_ENVIRON})"
        )
        removed = self.removed_envs.get(name)
        if removed is not None:
            return f"{name!r} was removed from vLLM ({removed['source']}): {effect}; {removed['instead']}"
        return (
            f"{name!r} is not an environment variable that {self.versions} reads (removed, or never vLLM's): "
            f"{effect}{_did_you_mean(suggestion)}"
        )

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


@remembered(maxsize=None)
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


@remembered(maxsize=None)
def _removed_data() -> Mapping[str, Any]:
    """The hand-written facts beside the generated vocabulary: removed flags, installed chat templates."""
    with REMOVED_FILE.open(encoding="utf-8") as f:
        data: Mapping[str, Any] = json.load(f)
    return data


@remembered(maxsize=1 << 14)
def _reading(vocabulary: Vocabulary, key: str) -> Reading:
    """``Vocabulary.reading``, remembered (recipes repeat their keys)."""
    if key.startswith("--"):
        # FlexibleArgumentParser: "_" becomes "-" between "--" and the first "."
        name, _, field = key[2:].partition(".")
        option = "--" + name.replace("_", "-")
    elif key.startswith("-O") and "--optimization-level" in vocabulary.options:
        # vLLM turns -O3, -O=3 and -O 3 into --optimization-level 3
        return Reading(key, "-O", "alias", "--optimization-level")
    elif key.startswith("-"):
        option, _, field = key.partition(".")
    else:
        return Reading(key, key, "unknown")
    written = key.partition(".")[0]
    flag = vocabulary.options.get(option)
    if flag is not None:
        how = "exact" if written == flag else "alias" if written == option else "underscore"
        return Reading(key, option, how, flag, field)
    if option.startswith("--") and len(option) > 2:
        # argparse (allow_abbrev, its default) takes the start of exactly one option's name for it
        matches = tuple(o for o in vocabulary.long_options if o.startswith(option))
        if len(matches) == 1:
            return Reading(key, option, "abbreviation", vocabulary.options[matches[0]], field)
        if matches:
            return Reading(key, option, "ambiguous", candidates=matches)
    return Reading(key, option, "unknown")


def _first_sentence(text: str) -> str:
    """The start of a help text, up to its first sentence's end or parenthesis."""
    head = re.split(r"\. | \(", text, maxsplit=1)[0].rstrip(".")
    return head if len(head) <= 120 else head[:117] + "..."


def _dotted_value(text: str, *, list_item: bool) -> Any:
    """The value vLLM gives a dotted field (``--json-flag.field VALUE``): a list of the comma-separated
    words after ``field+``, else the JSON the text parses as, else a size (``80g``), else the text."""
    if list_item:
        return text.split(",")
    try:
        return source.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return valuetypes.parse_size(text)
    except ValueError:
        return text
