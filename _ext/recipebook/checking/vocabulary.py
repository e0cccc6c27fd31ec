"""Rule: every flag and environment name a recipe uses is one the pinned vLLM reads, with a value
it takes. The vocabulary (``reading/vocabulary.py``) answers each question in words; this module
asks them of every key and value of a recipe and places each answer there.

* an arg key (or a ``del_args`` entry) that vLLM's parser does not accept: "not a flag", with a
  "did you mean" only for a flag that would take the values given and is not merely a longer
  name starting with the key (``--device`` is not ``--device-ids``); a flag vLLM removed is named
  as removed, with what to do instead (``data/removed-flags.json``); the start of several names
  is refused as vLLM refuses it;
* a spelling vLLM accepts but pages do not publish (``_`` for ``-``, an abbreviation): a
  warning (the command runs as shown), with the name to write;
* one option under two names in one command (``--tensor-parallel-size 4`` and ``-tp 1``, a flag
  and its ``--no-`` form, a JSON flag given whole and by dotted fields): vLLM keeps the last;
* a command holding ``--omni``, which vLLM hands to vLLM-Omni: its other flags (and its
  ``VLLM_OMNI_*`` environment names) are not judged as vllm serve's, and unless the install line
  installs vllm-omni, one problem there (the command stops at once);
* a ``--chat-template`` path into vLLM's source checkout (``examples/...``), which no package installs;
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
  names); names are case-sensitive, and a misspelt prefix (``LMCAHCE_``) is checked too. A
  ``VLLM_*`` name vLLM does not read (one it removed, with what replaced it when
  ``data/removed-flags.json`` knows) is a warning, as vLLM judges it: the server starts with a
  warning and the variable has no effect; it is an error in a role whose command asks
  ``--fail-on-environ-validation``, where vLLM stops;
* an environment value that the variable's getter would refuse: vLLM's and vllm-rbln's getters
  (``int(os.getenv(...))``, ``env_with_choices``) and LMCache's converters, as the data file
  records them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from ..problems import Edit, Fix, Kind, Problem, pointer_join
from ..reading import valuetypes
from ..reading.model import Grid, Recipe
from ..reading.source import Document
from ..reading.vocabulary import FAIL_ON_ENVIRON, LAUNCHER, OMNI, Vocabulary, pinned
from . import commandtext

# The environment names vLLM-Omni reads: in a command vLLM hands to it (--omni), not vLLM's to judge.
OMNI_ENV = "VLLM_OMNI_"


def check(recipe: Recipe, doc: Document, vocabulary: Vocabulary | None = None) -> Iterator[Problem]:
    """Every vocabulary problem of a recipe (Kind.VOCABULARY) against a vocabulary (the pinned one
    by default)."""
    return _check(vocabulary or pinned(), recipe, doc)


def _check(vocabulary: Vocabulary, recipe: Recipe, doc: Document) -> Iterator[Problem]:
    for _, target in recipe.targets():
        yield from grid_problems(vocabulary, target.grid, recipe.install_line, doc)


def grid_problems(vocabulary: Vocabulary, grid: Grid, install_line: str, doc: Document) -> Iterator[Problem]:
    """The vocabulary problems of one grid, placed in ``doc`` (the importer asks this of each
    target it writes, to leave out what the pinned vLLM refuses)."""
    serve = {role.role for role in grid.base if role.launcher == LAUNCHER}
    omni = _omni_roles(grid, serve)
    mappings = list(_mappings(grid))
    present = {key for kind, _, mapping in mappings if kind == "args" for key in mapping}
    failing = _failing_on_environ(vocabulary, grid, serve - omni)
    for kind, pointer, role, mapping in _role_mappings(grid):
        for key, text in mapping.items():
            where = pointer_join(pointer, key)
            if kind == "args":
                if role not in serve:
                    continue
                if role in omni:
                    if key == OMNI and not commandtext.installs_vllm_omni(install_line):
                        yield doc.problem(where, _omni_message(vocabulary), kind=Kind.VOCABULARY, key=True)
                    continue
                if style := vocabulary.spelling(key):
                    problem = doc.problem(where, style, kind=Kind.VOCABULARY, key=True).warning()
                    yield dataclasses.replace(problem, fix=_spelled(vocabulary, doc, where, key, text))
                for on_key, message in vocabulary.arg_messages(key, text, present):
                    yield doc.problem(where, message, kind=Kind.VOCABULARY, key=on_key)
            elif role in omni and key.startswith(OMNI_ENV):
                continue  # vLLM-Omni's own setting, which it reads (not checked here, as its flags)
            elif found := vocabulary.env_problem(key):
                yield _env_level(
                    vocabulary, doc.problem(where, found, kind=Kind.VOCABULARY, key=True), key, role in failing
                )
            elif not valuetypes.is_port_env(key) and (found := vocabulary.env_value_problem(key, text)):
                yield doc.problem(where, found, kind=Kind.VOCABULARY)
    reported: set[str] = set()
    for keys in _commands_keys(grid, serve - omni):
        for where, message in vocabulary.repeated_options(keys):
            if where not in reported:
                reported.add(where)
                yield doc.problem(where, message, kind=Kind.VOCABULARY, key=True)
    for per_role in grid.deltas.values():
        for name, delta in per_role.items():
            for i, key in enumerate(delta.del_args if name in serve - omni else ()):
                if found := vocabulary.unknown_flag(key):
                    yield doc.problem(pointer_join(delta.ptr, "del_args", i), found, kind=Kind.VOCABULARY)
            for i, key in enumerate(delta.del_envs):
                if found := vocabulary.env_problem(key):
                    problem = doc.problem(pointer_join(delta.ptr, "del_envs", i), found, kind=Kind.VOCABULARY)
                    yield _env_level(vocabulary, problem, key, name in failing)


def _failing_on_environ(vocabulary: Vocabulary, grid: Grid, serve: set[str]) -> set[str]:
    """The vllm serve roles some of whose commands ask --fail-on-environ-validation: vLLM stops
    there at an environment name it does not read (elsewhere it only warns)."""
    return {
        role
        for kind, _, role, mapping in _role_mappings(grid)
        if kind == "args" and role in serve and any(vocabulary.reading(key).flag == FAIL_ON_ENVIRON for key in mapping)
    }


def _env_level(vocabulary: Vocabulary, problem: Problem, name: str, failing: bool) -> Problem:
    """An env name's problem at the level vLLM gives it: a ``VLLM_`` name vLLM does not read is a
    warning (the server starts, the variable does nothing), an error in a role whose command asks
    --fail-on-environ-validation (vLLM stops there); other names' problems are errors."""
    if not vocabulary.env_unread(name):
        return problem
    if failing:
        message = f"{problem.message}; this role's command asks {FAIL_ON_ENVIRON}, so vLLM stops there"
        return dataclasses.replace(problem, message=message)
    return problem.warning()


def _omni_roles(grid: Grid, serve: set[str]) -> set[str]:
    """The vllm serve roles some of whose commands hold --omni (vLLM hands those to vLLM-Omni)."""
    return {
        role for kind, _, role, mapping in _role_mappings(grid) if kind == "args" and role in serve and OMNI in mapping
    }


def _spelled(vocabulary: Vocabulary, doc: Document, where: str, key: str, text: str) -> Fix:
    """The fix of a spelling: the key and the start of its text as vLLM documents the flag
    (``--tokenizer_mode mistral`` -> ``--tokenizer-mode mistral``), where they were written."""
    reading = vocabulary.reading(key)
    assert reading.flag is not None
    written = key.partition(".")[0]
    name = reading.flag + key[len(written) :]
    at = doc.real(where)
    edits = (Edit(at, True, key, name), Edit(at, False, text, name + text[len(key) :]))
    return Fix(f"wrote {name!r} for {key!r}", edits)


def _omni_message(vocabulary: Vocabulary) -> str:
    return (
        f"{OMNI} hands the command to vLLM-Omni: {vocabulary.release}'s vllm command passes any command line that "
        f"holds {OMNI} to vllm_omni's own entry point before parsing it, and stops if vllm-omni is not installed; "
        "the install line installs no vllm-omni: add it (vllm serve's flags do not apply to such a command, and "
        f"vllm-omni's cannot be checked here, against {vocabulary.versions})"
    )


def _mappings(grid: Grid) -> Iterator[tuple[str, str, Mapping[str, str]]]:
    """Every args mapping of a vllm serve role and every envs mapping of a grid: (kind, pointer, mapping)."""
    serve = {role.role for role in grid.base if role.launcher == LAUNCHER}
    for kind, pointer, role, mapping in grid.mappings():
        if kind == "envs" or role in serve:
            yield kind, pointer, mapping


def _role_mappings(grid: Grid) -> Iterator[tuple[str, str, str, Mapping[str, str]]]:
    """Every args and envs mapping of a grid, with its pointer and role: (kind, pointer, role, mapping)."""
    yield from grid.mappings()


def _commands_keys(grid: Grid, roles: set[str]) -> Iterator[list[tuple[str, str]]]:
    """The (pointer, key) lists of arguments that go into one command together, in their order: each role's
    own, with each rank's laid over them, and with each delta's additions (less what it deletes)."""
    for role in grid.base:
        if role.role not in roles:
            continue
        own = [(pointer_join(role.ptr, "args", key), key) for key in role.args]
        yield own
        for rank in role.ranks or ():
            added = [(pointer_join(rank.ptr, "args", key), key) for key in rank.args if key not in role.args]
            yield own + added
        for per_role in grid.deltas.values():
            delta = per_role.get(role.role)
            if delta is None:
                continue
            kept = [(p, k) for p, k in own if k not in delta.del_args]
            added = [(pointer_join(delta.ptr, "add_args", key), key) for key in delta.add_args if key not in role.args]
            yield kept + added
