"""What differs between the ranks of a role: the keys whose lines only some ranks hold, and
each rank's value of each, read from the command text.

A role with several ranks (decode servers, one per NPU) runs one command that differs only in
a few lines. Its rank table shows those lines' keys, and per rank the value words of each; for
a JSON object (a ``--kv-transfer-config``), only the fields that differ between ranks.
"""

from __future__ import annotations

import dataclasses
import json

from .. import shell
from ..reading import source
from .table import RoleTable


@dataclasses.dataclass(frozen=True)
class RankDifferences:
    keys: tuple[str, ...]  # the keys whose text differs between ranks (or, if none, every rank-held key)
    values: tuple[tuple[str | None, ...], ...]  # per rank, each key's value (None: the rank has no such line)


def rank_differences(role: RoleTable) -> RankDifferences:
    """The keys a role's ranks differ in, short values first and a JSON value's fields last,
    and each rank's value of each key."""
    keys = [key for key in dict.fromkeys(line.key for line in role.lines if line.ranks is not None)]
    keys = [key for key in keys if key in role.varies] or keys
    keys.sort(key=lambda key: _is_json(role, key))  # short values first, a JSON value's fields last
    values = []
    for k in range(role.ranks or 0):
        texts = {line.key: line.text for line in role.lines if line.ranks is not None and k in line.ranks}
        values.append(tuple(_rank_value(texts.get(key), key, role, k) for key in keys))
    return RankDifferences(keys=tuple(keys), values=tuple(values))


def _is_json(role: RoleTable, key: str) -> bool:
    for line in role.lines:
        if line.key == key and line.ranks is not None:
            try:
                return isinstance(source.loads(" ".join(shell.flag_values(line.text)[1])), dict)
            except ValueError:
                return False
    return False


def _rank_value(text: str | None, key: str, role: RoleTable, rank: int) -> str | None:
    """A rank's value of a key that varies: its value words; for a JSON object, only the
    fields that differ between ranks."""
    if text is None:
        return None
    try:
        flag, values = shell.flag_values(text)
    except ValueError:
        return text
    if not values:
        return flag  # a switch (--headless): the rank that sets it shows it
    value = " ".join(values)
    try:
        data = source.loads(value)
    except ValueError:
        return value
    if not isinstance(data, dict):
        return value

    def shown(item: object) -> str:
        return item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)

    others = []
    for line in role.lines:
        if line.key == key and line.ranks is not None and rank not in line.ranks:
            try:
                others.append(source.loads(" ".join(shell.flag_values(line.text)[1])))
            except ValueError:
                continue
    differing = [name for name, item in data.items() if any(o.get(name) != item for o in others if isinstance(o, dict))]
    return "; ".join(f"{name}: {shown(data[name])}" for name in differing) or value
