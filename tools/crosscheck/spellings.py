"""Spellings: what the engine says vLLM's parser makes of an arg key, asked of the parser itself.

Pure on this side (the recipe engine, never vLLM): ``probes`` lists keys of every kind the engine
reads (``Vocabulary.reading``): each flag with its ``-`` written ``_``, each alias, a dotted field of
each JSON flag under both spellings, the unique start of some names, starts shared by several
names, the removed flags (``data/removed-flags.json``) and a wrong case. The judge
(``judge.spellings``) runs vLLM's own ``FlexibleArgumentParser.parse_args`` conversion and
argparse's lookup on each, and ``differences`` lists where the two disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recipebook.reading import vocabulary


def probes(known: vocabulary.Vocabulary | None = None) -> list[str]:
    """The keys to ask about, each once."""
    known = known or vocabulary.pinned()
    keys: list[str] = []
    for flag, entry in sorted(known.flags.items()):
        if "-" in flag[2:]:
            keys.append("--" + flag[2:].replace("-", "_"))
        keys += entry.get("aliases", ())
        if entry.get("json") and entry.get("json_fields"):
            field = entry["json_fields"][0]
            keys += [f"{flag}.{field}", "--" + flag[2:].replace("-", "_") + f".{field}"]
            keys += [f"{alias}.{field}" for alias in entry.get("aliases", ())]
        for cut in (3, 6):
            start = flag[: len(flag) - cut]
            if len(start) > 4 and known.reading(start).how in ("abbreviation", "ambiguous"):
                keys.append(start)
    keys += list(known.removed)
    keys += ["--Tokenizer-Mode", "--max-num", "-O3", "-O"]
    return list(dict.fromkeys(keys))


def differences(answers: dict[str, Any], known: vocabulary.Vocabulary | None = None) -> Iterator[str]:
    """Where the engine's reading of a key and vLLM's parser disagree, one line each.

    An answer is ``{"option": the option string argparse resolved, or None; "error": its error}``."""
    known = known or vocabulary.pinned()
    for key, answer in sorted(answers.items()):
        reading = known.reading(key)
        option = answer.get("option")
        real = known.options.get(option) if option else None
        if reading.accepted and key.partition(".")[0] in known.removed:
            # a removed flag the parser would take for another: the engine must say removed, not accept it
            if known.unknown_flag(key) is None:
                yield f"{key}: removed, but the engine accepts it"
            continue
        if reading.accepted and real != reading.flag:
            yield f"{key}: the engine reads {reading.flag} ({reading.how}), vLLM's parser {option or answer.get('error')}"
        elif not reading.accepted and real is not None:
            yield f"{key}: the engine refuses it ({reading.how}), vLLM's parser reads {option}"
