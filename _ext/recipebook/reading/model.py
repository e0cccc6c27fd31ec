"""The recipe model: frozen objects built once from validated JSON.

Every object keeps the JSON pointer it came from (``ptr``), so that rules
checked on the objects can still point at the exact place in the file.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from ..problems import pointer_join
from .facts import Facts
from .sharing import written_out

Selection = Mapping[str, str]


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Delta:
    """What one axis value changes in one role."""

    ptr: str
    add_args: Mapping[str, str]
    add_envs: Mapping[str, str]
    del_args: tuple[str, ...]
    del_envs: tuple[str, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Delta:
        return cls(
            ptr=ptr,
            add_args=_frozen(data["add_args"]),
            add_envs=_frozen(data["add_envs"]),
            del_args=tuple(data["del_args"]),
            del_envs=tuple(data["del_envs"]),
        )

    def touched(self) -> set[tuple[str, str]]:
        """The (kind, key) pairs this delta sets or removes; kind is "args" or "envs"."""
        return {("args", k) for k in (*self.add_args, *self.del_args)} | {
            ("envs", k) for k in (*self.add_envs, *self.del_envs)
        }


@dataclasses.dataclass(frozen=True, kw_only=True)
class Rank:
    ptr: str
    args: Mapping[str, str]
    envs: Mapping[str, str]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Role:
    """The base command of one role, with its ranks if it has any.

    A role that spans nodes (``nodes`` in the recipe: one server run across machines) keeps
    one entry per node, the head first, as its ranks: each node runs one command, the role's
    laid over with the node's entry, exactly as a rank's is. ``span`` is then the number of
    nodes (None for a role on one node), and each entry's pointer names ``nodes``.
    """

    ptr: str
    role: str
    launcher: str
    args: Mapping[str, str]
    envs: Mapping[str, str]
    ranks: tuple[Rank, ...] | None
    scale: str | None
    varies: tuple[str, ...] | None
    span: int | None = None  # nodes the role spans (its ranks are then its nodes); None: one node

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Role:
        ranks, span = None, None
        if data.get("nodes") is not None:
            ranks = tuple(
                Rank(ptr=pointer_join(ptr, "nodes", i), args=_frozen(n["args"]), envs=_frozen(n.get("envs", {})))
                for i, n in enumerate(data["nodes"])
            )
            span = len(ranks)
        elif data["ranks"] is not None:
            ranks = tuple(
                Rank(ptr=pointer_join(ptr, "ranks", i), args=_frozen(r["args"]), envs=_frozen(r["envs"]))
                for i, r in enumerate(data["ranks"])
            )
        varies = None if data["varies"] is None else tuple(data["varies"])
        return cls(
            ptr=ptr,
            role=data["role"],
            launcher=data["launcher"],
            args=_frozen(data["args"]),
            envs=_frozen(data["envs"]),
            ranks=ranks,
            scale=data["scale"],
            varies=varies,
            span=span,
        )

    @property
    def nodes(self) -> int:
        """How many nodes the role runs on."""
        return self.span or 1


@dataclasses.dataclass(frozen=True, kw_only=True)
class RouterStep:
    ptr: str
    node: str
    cmd: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Grid:
    """Everything needed to expand the commands of one target."""

    ptr: str
    model: str
    base: tuple[Role, ...]
    modes: Mapping[str, tuple[str, ...]]
    options: Mapping[str, tuple[str, ...]]
    option_base: Mapping[str, str]
    deltas: Mapping[str, Mapping[str, Delta]]
    excluded: tuple[Mapping[str, str], ...]
    recommended: Mapping[str, str] | None
    router: tuple[RouterStep, ...]
    router_note: str | None = None  # why the router steps are as they are (for editors; not shown)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Grid:
        deltas = {
            key: _frozen(
                {role: Delta.from_json(d, pointer_join(ptr, "deltas", key, role)) for role, d in per_role.items()}
            )
            for key, per_role in data["deltas"].items()
        }
        router: tuple[RouterStep, ...] = ()
        if data["router"] is not None:
            router = tuple(
                RouterStep(ptr=pointer_join(ptr, "router", "nodes", i), node=n["node"], cmd=n["cmd"])
                for i, n in enumerate(data["router"]["nodes"])
            )
        return cls(
            ptr=ptr,
            model=data["model"],
            base=tuple(Role.from_json(r, pointer_join(ptr, "base", i)) for i, r in enumerate(data["base"])),
            modes=_frozen({k: tuple(v) for k, v in data["modes"].items()}),
            options=_frozen({k: tuple(v) for k, v in data["options"].items()}),
            option_base=_frozen(data["option_base"]),
            deltas=_frozen(deltas),
            excluded=tuple(_frozen(e) for e in data["excluded"]),
            recommended=None if data["recommended"] is None else _frozen(data["recommended"]),
            router=router,
            router_note=None if data["router"] is None else data["router"].get("note"),
        )

    @functools.cached_property
    def axes(self) -> Mapping[str, tuple[str, ...]]:
        """Every axis in selection order: the modes in order, then the options (made once)."""
        return _frozen({**self.modes, **self.options})

    def delta(self, axis: str, value: str) -> Mapping[str, Delta]:
        return self.deltas.get(f"{axis}={value}", {})

    def mappings(self) -> Iterator[tuple[str, str, str, Mapping[str, str]]]:
        """Every args and envs mapping: (kind, pointer, role, mapping); each base role and its
        ranks, then each delta's additions."""
        for role in self.base:
            owners: tuple[Role | Rank, ...] = (role, *(role.ranks or ()))
            for owner in owners:
                yield "args", pointer_join(owner.ptr, "args"), role.role, owner.args
                yield "envs", pointer_join(owner.ptr, "envs"), role.role, owner.envs
        for per_role in self.deltas.values():
            for name, delta in per_role.items():
                yield "args", pointer_join(delta.ptr, "add_args"), name, delta.add_args
                yield "envs", pointer_join(delta.ptr, "add_envs"), name, delta.add_envs


@dataclasses.dataclass(frozen=True, kw_only=True)
class Target:
    """One target (Latency, Throughput, ...) of a strategy."""

    ptr: str
    target: str
    label: str | None
    npus: int
    skus: tuple[str, ...]
    verified: str
    model_impl: str
    attn: str | None
    note: str | None
    grid: Grid
    verified_with: Mapping[str, str] | None = None  # {"vllm": ..., "vllm-rbln": ...}; see provenance.py
    npus_per_node: int | None = None  # the NPUs each node's machine has, when the recipe says (rule 29)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Target:
        return cls(
            ptr=ptr,
            target=data["target"],
            label=data["label"],
            npus=data["npus"],
            skus=tuple(data["skus"]),
            verified=data["verified"],
            model_impl=data["modelImpl"],
            attn=data["attn"],
            note=data["note"],
            grid=Grid.from_json(data["grid"], pointer_join(ptr, "grid")),
            verified_with=None if data.get("verifiedWith") is None else _frozen(data["verifiedWith"]),
            npus_per_node=data.get("npusPerNode"),
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class Strategy:
    ptr: str
    slug: str
    label: str
    tag: str
    variant: str
    nodes: int | None
    targets: tuple[Target, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Strategy:
        return cls(
            ptr=ptr,
            slug=data["slug"],
            label=data["label"],
            tag=data["tag"],
            variant=data["variant"],
            nodes=None if data["nodes"] is None else int(data["nodes"]),
            targets=tuple(Target.from_json(o, pointer_join(ptr, "options", i)) for i, o in enumerate(data["options"])),
        )

    def target(self, name: str) -> Target | None:
        return next((t for t in self.targets if t.target == name), None)


@dataclasses.dataclass(frozen=True, kw_only=True)
class AxisInfo:
    """Title and value labels of one axis, from the recipe's axes catalogue."""

    axis: str
    title: str
    labels: Mapping[str, str]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Badge:
    text: str
    highlight: bool


@dataclasses.dataclass(frozen=True, kw_only=True)
class Texts:
    sub: str
    tag: str
    strategy_note: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Recipe:
    """A whole recipe file."""

    path: str
    name: str
    model: str
    provider: str
    hf: str
    attn: str
    variant: str
    variants: tuple[str, ...]
    features: Mapping[str, bool]
    badges: tuple[Badge, ...]
    install_line: str
    client: str
    placeholder_scopes: Mapping[str, str]  # placeholder name -> "node", "head" or "shared" (given ones only)
    axes: Mapping[str, AxisInfo]
    text: Mapping[str, Texts]
    strategies: tuple[Strategy, ...]
    facts: Facts | None = None  # model facts for the memory figures (facts.py); None: no figures
    placeholder_heads: Mapping[str, str] = dataclasses.field(default_factory=dict)  # "head" name -> its "of"

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: str) -> Recipe:
        data = written_out(data)  # every target's grid in full (sharing.py)
        badges = tuple(
            Badge(text=b, highlight=False)
            if isinstance(b, str)
            else Badge(text=b["text"], highlight=bool(b.get("hl", False)))
            for b in data["badges"]
        )
        axes: dict[str, AxisInfo] = {}
        for a in data["axes"]:
            axes.setdefault(
                a["axis"],
                AxisInfo(
                    axis=a["axis"], title=a["title"], labels=_frozen({o["value"]: o["label"] for o in a["options"]})
                ),
            )
        text = {
            lang: Texts(sub=t["sub"], tag=t["tag"], strategy_note=t["strategyNote"]) for lang, t in data["text"].items()
        }
        return cls(
            path=path,
            name=data["name"],
            model=data["model"],
            provider=data["provider"],
            hf=data["hf"],
            attn=data["attn"],
            variant=data["variant"],
            variants=tuple(data.get("variants", [data["variant"]])),
            features=_frozen(data["features"]),
            badges=badges,
            install_line=data["installLine"],
            client=data["client"],
            placeholder_scopes=_frozen({name: p["scope"] for name, p in data.get("placeholders", {}).items()}),
            axes=_frozen(axes),
            text=_frozen(text),
            strategies=tuple(
                Strategy.from_json(s, pointer_join("", "strategies", i)) for i, s in enumerate(data["strategies"])
            ),
            facts=None if data.get("facts") is None else Facts.from_json(data["facts"]),
            placeholder_heads=_frozen(
                {name: p["of"] for name, p in data.get("placeholders", {}).items() if p["scope"] == "head"}
            ),
        )

    def strategy(self, slug: str) -> Strategy | None:
        return next((s for s in self.strategies if s.slug == slug), None)

    def targets(self) -> Iterator[tuple[Strategy, Target]]:
        """Every (strategy, target) pair in page order."""
        for strategy in self.strategies:
            for target in strategy.targets:
                yield strategy, target
