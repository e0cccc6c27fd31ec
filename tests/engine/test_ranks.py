"""What differs between a role's ranks (recipebook.expanding.ranks): the keys, and each rank's value,
read from the command text; a JSON object's fields only where they differ."""

from __future__ import annotations

from recipe_support import RECIPES
from recipebook import load
from recipebook.expanding.ranks import RankDifferences, rank_differences
from recipebook.expanding.table import RoleTable, TableLine, build


def role(*lines: tuple[str, str, str, frozenset[int] | None], varies: frozenset[str], ranks: int = 2) -> RoleTable:
    return RoleTable(
        role="decode",
        launcher="vllm serve",
        model="m",
        ranks=ranks,
        varies=varies,
        relevant=(),
        sizes=(),
        lines=tuple(
            TableLine(kind=kind, slot=(0, i), key=key, text=text, when=(), ranks=held)
            for i, (kind, key, text, held) in enumerate(lines)
        ),
    )


def test_rank_differences_by_hand():
    table = role(
        ("arg", "--tensor-parallel-size", "--tensor-parallel-size 1", None),  # every rank: not a difference
        ("arg", "--kv-transfer-config", '--kv-transfer-config \'{"kv_role":"kv_consumer","rank":0}\'', frozenset({0})),
        ("arg", "--kv-transfer-config", '--kv-transfer-config \'{"kv_role":"kv_consumer","rank":1}\'', frozenset({1})),
        ("arg", "--port", "--port 8200", frozenset({0})),
        ("arg", "--port", "--port=8201", frozenset({1})),
        ("env", "RBLN_DEVICES", "RBLN_DEVICES=0", frozenset({0})),  # rank 1 has no such line
        varies=frozenset({"--kv-transfer-config", "--port", "RBLN_DEVICES"}),
    )
    # short values first, a JSON value's fields last; of a JSON object only the differing fields
    assert rank_differences(table) == RankDifferences(
        keys=("--port", "RBLN_DEVICES", "--kv-transfer-config"),
        values=(("8200", "0", "rank: 0"), ("8201", None, "rank: 1")),
    )


def test_keys_held_by_some_ranks_when_no_text_varies():
    table = role(("arg", "--port", "--port 8200", frozenset({0, 1})), varies=frozenset())
    assert rank_differences(table) == RankDifferences(keys=("--port",), values=(("8200",), ("8200",)))


def test_a_role_of_one_command_has_no_rank_differences():
    table = role(("arg", "--port", "--port 8000", None), varies=frozenset(), ranks=None)
    assert rank_differences(table) == RankDifferences(keys=(), values=())


def test_each_ranks_value_is_in_its_own_command():
    """A.X-K2's decode ranks: every value shown is in that rank's command at the opening selection."""
    recipe = load(RECIPES / "A.X-K2.json")
    seen = 0
    for _strategy, target in recipe.targets():
        lines, _wrong = build(target.grid)
        for table in lines.roles:
            if not table.ranks or table.ranks < 2:
                continue
            differences = rank_differences(table)
            assert set(differences.keys) <= set(table.varies) or not table.varies
            assert len(differences.values) == table.ranks
            for rank, values in enumerate(differences.values):
                held = " ".join(line.text for line in table.lines if line.in_rank(rank))
                for value in values:
                    if value is not None and ": " not in value:
                        assert value in held
            seen += 1
    assert seen
