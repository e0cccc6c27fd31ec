"""``--cross-check``: compare what was extracted with vLLM's real parser, where vLLM is importable.

The extractor never imports vLLM (it needs torch and, for vllm-rbln, an NPU stack);
on a machine that has both installed, this builds the ``vllm serve`` parser the way
the CLI does and compares, flag by flag: the flag exists on both sides, its choices,
and its value type. It is a check of the extractor, run by hand; ``make test`` stays
offline and never runs it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

# argparse converters by name, as the data file names them; vLLM wraps some in closures
# (optional_type(int) is "_optional_type" holding return_type=int).
_CONVERTERS = {
    "int": "int",
    "float": "float",
    "str": "str",
    "human_readable_int": "size",
    "human_readable_int_or_auto": "size_or_auto",
    "union_dict_and_str": "json_or_str",
    "loads": "json",
    "parse_dataclass": "object",
}


def converter_name(function: Any) -> str | None:
    """The data file's name for an argparse ``type=`` callable, looking inside vLLM's wrappers."""
    if function is None:
        return "str"
    name = getattr(function, "__name__", "")
    if name in _CONVERTERS:
        return _CONVERTERS[name]
    for cell in getattr(function, "__closure__", None) or ():
        inner = cell.cell_contents
        if callable(inner):
            found = converter_name(inner)
            if found is not None:
                return found
    return None


def expected_choices(entry: dict[str, Any], platform: Any) -> list[str] | None:
    """The choices a flag should have in a parser built on this platform: the recorded ones, plus the
    platform's attribute for a flag whose choices the platform extends (recorded as "platform_choices")."""
    choices = entry.get("choices")
    extension = entry.get("platform_choices")
    if extension is None or choices is None:
        return choices
    value = getattr(platform, extension["attribute"], None)
    if value is None or value in extension["unless"]:
        return list(choices)
    return [*choices, str(value)]


def compare(data: dict[str, Any], parser: argparse.ArgumentParser, platform: Any = None) -> Iterator[str]:
    """Each difference between a vocabulary and a real parser, as one line (argparse's own --help aside)."""
    flags = data["flags"]
    real: dict[str, argparse.Action] = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        for option in action.option_strings:
            if option.startswith("--"):
                real[option] = action
    for flag in sorted(set(real) - set(flags)):
        yield f"{flag}: in vLLM's parser, not extracted"
    aliases = {alias for entry in flags.values() for alias in entry.get("aliases", ())}
    for flag in sorted(set(flags) - set(real) - aliases):
        yield f"{flag}: extracted, not in vLLM's parser"
    for flag in sorted(set(flags) & set(real)):
        entry, action = flags[flag], real[flag]
        if entry.get("negates"):
            continue
        choices = None if action.choices is None else [str(c) for c in action.choices]
        wanted = expected_choices(entry, platform)
        if not entry.get("open_choices") and sorted(choices or []) != sorted(wanted or []):
            yield f"{flag}: choices {wanted} extracted (on this platform), {choices} in vLLM's parser"
        extension = entry.get("platform_choices")
        value = getattr(platform, extension["attribute"], None) if extension else None
        if extension and value is not None and value not in (*extension["unless"], *extension["values"]):
            yield f"{flag}: the platform's {extension['attribute']} is {value!r}, not one of {extension['values']}"
        if entry["takes_value"] != "no" and entry.get("type") is not None:
            found = converter_name(action.type)
            if found is not None and found != entry["type"]:
                yield f"{flag}: type {entry['type']} extracted, {found} in vLLM's parser"


def real_parser() -> argparse.ArgumentParser:
    """The ``vllm serve`` parser of the installed vLLM (and its platform plugin, if any)."""
    from vllm.entrypoints.cli.serve import ServeSubcommand  # type: ignore[import-not-found]
    from vllm.utils.argparse_utils import FlexibleArgumentParser  # type: ignore[import-not-found]

    top = FlexibleArgumentParser(prog="vllm")
    subparsers = top.add_subparsers()
    return ServeSubcommand().subparser_init(subparsers)


def cross_check(data: dict[str, Any]) -> list[str]:
    """The differences, or raise SystemExit when vLLM cannot be imported here."""
    try:
        parser = real_parser()
        from vllm.platforms import current_platform  # type: ignore[import-not-found]
    except ImportError as error:
        raise SystemExit(f"--cross-check needs vLLM importable in this Python: {error}") from None
    return list(compare(data, parser, current_platform))
