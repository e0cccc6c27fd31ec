"""Measured results: what ``vllm bench serve --save-result`` wrote for a selection, checked and
stored with its provenance, and read back for the pages.

A result file is read as the pinned vLLM (0.30.0, ``vllm/benchmarks/serve.py``) writes it: the
run's figures at the top level, and each ``--metadata KEY=VALUE`` of the explorer's benchmark
(``client.bench_lines``) as a string key beside them. ``read`` refuses, each at its file, line,
column and JSON pointer: a file that is not such a result; counts that do not add up
(``completed`` other than ``num_prompts``, ``failed`` above 0); metadata that names no offered
selection of the recipe, another model than the selection serves, another SKU or NPU count
than the target's, or commands other than the selection's now (their hash). ``store`` writes
an accepted result under ``results/RECIPE/``; ``load`` reads a recipe's stored results, and
``stale`` says whether the selection's commands or the pinned releases moved since the run.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..problems import Problem, pointer_join
from ..reading.model import Recipe
from ..reading.source import Document, read
from . import client, page
from .page import TargetPage
from .table import Product, admits

FORMAT = 1
# The keys the pinned vLLM writes that the figures read (serve.py: the header, the metrics).
REQUIRED = {
    "date": str,
    "backend": str,
    "model_id": str,
    "num_prompts": int,
    "max_concurrency": int,
    "duration": float,
    "completed": int,
    "failed": int,
    "total_input_tokens": int,
    "total_output_tokens": int,
    "request_throughput": float,
    "output_throughput": float,
    "mean_ttft_ms": float,
    "median_ttft_ms": float,
    "p99_ttft_ms": float,
    "mean_tpot_ms": float,
    "median_tpot_ms": float,
    "p99_tpot_ms": float,
}
# The metadata the explorer's benchmark gives (--metadata KEY=VALUE, strings).
METADATA = (
    "recipe",
    "strategy",
    "target",
    "selection",
    "sku",
    "npus",
    "commands",
    "input_len",
    "output_len",
    "timezone",
    "vllm",
    "vllm_rbln",
)
_DATE = re.compile(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})")
_ZONE = re.compile(r"([+-])(\d{2}):?(\d{2})")
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+){1,3}(?:[a-z0-9.+-]{0,24})")
_HASH = re.compile(r"sha256:[0-9a-f]{16}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_URL = re.compile(r"https://[^\s\"'<>]{1,480}")
LARGEST = 10**12  # no count or figure of a real run is larger


@dataclasses.dataclass(frozen=True, kw_only=True)
class Workload:
    input_len: int
    output_len: int
    concurrency: int
    prompts: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Result:
    """One accepted run: what it measured, of which selection, when and with what."""

    recipe: str
    strategy: str
    target: str
    selection: Mapping[str, str]
    commands: str  # the hash of the serve commands that ran
    sku: str
    npus: int
    date: str  # ISO 8601 with the time zone
    vllm: str
    vllm_rbln: str
    run: str | None  # a link to the run (CI job, log), when given
    workload: Workload
    output_throughput: float  # tokens/s, all NPUs
    request_throughput: float
    ttft_ms: Mapping[str, float]  # p50, p99, mean
    tpot_ms: Mapping[str, float]
    duration: float
    completed: int
    total_input_tokens: int
    total_output_tokens: int
    file: str  # the name of the file vLLM wrote
    sha256: str  # of its bytes

    @property
    def per_npu(self) -> float:
        return self.output_throughput / self.npus

    @property
    def key(self) -> str:
        """A stable file name for the stored result."""
        stamp = re.sub(r"[^0-9]", "", self.date[:19])
        target = re.sub(r"[^A-Za-z0-9_-]", "_", self.target)
        w = self.workload
        return f"{self.strategy}--{target}--{stamp}--{w.input_len}x{w.output_len}-c{w.concurrency}-{self.sha256[:8]}"

    def to_json(self) -> dict[str, object]:
        data = dataclasses.asdict(self)
        data["selection"] = dict(self.selection)
        data["ttft_ms"] = dict(self.ttft_ms)
        data["tpot_ms"] = dict(self.tpot_ms)
        data["per_npu_output_throughput"] = self.per_npu
        return {"format": FORMAT, **data}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in fields}
        values["workload"] = Workload(**data["workload"])
        return cls(**values)


def _number(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return False
    if kind is int:
        return isinstance(value, int) and 0 <= value <= LARGEST
    return isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= LARGEST


def _when(date: str, zone: str) -> str | None:
    """vLLM's local ``date`` (20261206-154117) with the run's ``date +%z`` (+0900) as ISO 8601."""
    d, z = _DATE.fullmatch(date), _ZONE.fullmatch(zone)
    if not d or not z:
        return None
    sign, hours, minutes = z.groups()
    if int(hours) > 14 or int(minutes) > 59:
        return None
    offset = datetime.timedelta(hours=int(hours), minutes=int(minutes)) * (-1 if sign == "-" else 1)
    try:
        year, month, day, hour, minute, second = map(int, d.groups())
        when = datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.timezone(offset))
    except ValueError:
        return None
    return when.isoformat()


def parse_selection(text: str) -> dict[str, str] | None:
    """``axis=value,axis=value`` as the benchmark's metadata writes a selection."""
    chosen: dict[str, str] = {}
    for pair in text.split(","):
        axis, sep, value = pair.partition("=")
        if not sep or not axis or not value or axis in chosen:
            return None
        chosen[axis] = value
    return chosen


@dataclasses.dataclass(frozen=True, kw_only=True)
class Given:
    """What the command line adds to a result: a link to the run, and values the metadata lacks."""

    run: str | None = None
    timezone: str | None = None
    vllm: str | None = None
    vllm_rbln: str | None = None


# Reads a recipe file and returns it when it has no problems (the pipeline's check_file, which
# stands above this layer: the command line passes it in).
Loader = Callable[[Path], Recipe | None]


def check(doc: Document, recipes: Path, load: Loader, given: Given = Given()) -> tuple[Result | None, list[Problem]]:
    """A result file's problems, each located, and the result when there are none."""
    data = doc.data
    if not isinstance(data, dict):
        return None, [doc.problem("", "not a vllm bench serve result: the file holds no JSON object")]
    missing = [key for key in REQUIRED if key not in data]
    if len(missing) == len(REQUIRED) or "completed" in missing or "num_prompts" in missing:
        return None, [
            doc.problem(
                "",
                "not a vllm bench serve result (vLLM 0.30.0 --save-result): no "
                + ", ".join(missing[:6])
                + (" ..." if len(missing) > 6 else ""),
            )
        ]
    problems = [doc.problem("", f"the result has no {key!r}: was it written by vllm bench serve?") for key in missing]
    for key, kind in REQUIRED.items():
        if key in data and kind is not str and not _number(data[key], kind):
            what = "a whole number" if kind is int else "a number"
            problems.append(doc.problem(key_ptr(key), f"{key} must be {what} from 0 to {LARGEST:,}, not {data[key]!r}"))
        elif key in data and kind is str and not isinstance(data[key], str):
            problems.append(doc.problem(key_ptr(key), f"{key} must be a string, not {data[key]!r}"))
    if problems:
        return None, problems
    if data["completed"] != data["num_prompts"]:
        problems.append(
            doc.problem(
                key_ptr("completed"),
                f"{data['completed']} of {data['num_prompts']} prompts completed: the counts do not add up",
            )
        )
    if data["failed"] > 0:
        problems.append(
            doc.problem(key_ptr("failed"), f"{data['failed']} request(s) failed: a result counts only whole runs")
        )
    if data["num_prompts"] < 1:
        problems.append(doc.problem(key_ptr("num_prompts"), "no prompt was sent"))
    for low, high in (("median_ttft_ms", "p99_ttft_ms"), ("median_tpot_ms", "p99_tpot_ms")):
        if data[low] > data[high]:
            problems.append(doc.problem(key_ptr(high), f"{high} {data[high]} is below {low} {data[low]}"))
    meta = {}
    absent = []
    for key in METADATA:
        value = data.get(key, getattr(given, key, None) if key in ("timezone", "vllm", "vllm_rbln") else None)
        if key in ("timezone", "vllm", "vllm_rbln") and getattr(given, key, None) is not None:
            value = getattr(given, key)
        if value is None:
            absent.append(key)
        elif not isinstance(value, str) or len(value) > 2000:
            problems.append(doc.problem(key_ptr(key), f"metadata {key} must be a string (--metadata {key}=VALUE)"))
        else:
            meta[key] = value
    if absent:
        problems.append(
            doc.problem(
                "",
                "the result names no " + ", ".join(absent) + ": run the benchmark the page shows for the selection "
                "(its --metadata names them), or give --timezone, --vllm and --vllm-rbln",
            )
        )
    if problems:
        return None, problems
    result, found = _match(doc, data, meta, recipes, load, given)
    return (None if found else result), found


def key_ptr(key: str) -> str:
    return pointer_join("", key)


def _match(
    doc: Document, data: Mapping[str, Any], meta: Mapping[str, str], recipes: Path, load: Loader, given: Given
) -> tuple[Result | None, list[Problem]]:
    """The metadata against the recipe: an offered selection, its model, SKU, NPUs and commands."""
    problems: list[Problem] = []
    name = meta["recipe"]
    path = recipes / f"{name}.json"
    if not _NAME.fullmatch(name) or not path.is_file():
        return None, [doc.problem(key_ptr("recipe"), f"no recipe {name!r} in {recipes}/")]
    recipe = load(path)
    if recipe is None:
        return None, [doc.problem(key_ptr("recipe"), f"recipe {name!r} has problems: fix them first (make validate)")]
    strategy = recipe.strategy(meta["strategy"])
    target = strategy.target(meta["target"]) if strategy else None
    if strategy is None or target is None:
        where = "strategy" if strategy is None else "target"
        names = (
            ", ".join(s.slug for s in recipe.strategies)
            if strategy is None
            else ", ".join(t.target for t in strategy.targets)
        )
        return None, [doc.problem(key_ptr(where), f"recipe {name!r} has no {where} {meta[where]!r} ({names})")]
    model = page.page_of(recipe).target(strategy.slug, target.target)
    chosen = parse_selection(meta["selection"])
    index = None
    if chosen is not None:
        try:
            index = model.index(chosen)
        except (KeyError, ValueError):
            index = None
    if index is None or not model.offers(index) or set(chosen or {}) != set(target.grid.axes):
        return None, [
            doc.problem(
                key_ptr("selection"),
                f"{meta['selection']!r} is not an offered selection of {strategy.slug} / {target.target} "
                f"(axes: {', '.join(target.grid.axes)})",
            )
        ]
    commands = model.commands_at(index)
    served = client.served_model(commands[0])
    if data["model_id"] != served:
        problems.append(
            doc.problem(
                key_ptr("model_id"), f"the run measured {data['model_id']!r}, but the selection serves {served!r}"
            )
        )
    if meta["sku"] not in target.skus:
        problems.append(
            doc.problem(key_ptr("sku"), f"{meta['sku']!r} is not an SKU of the target ({', '.join(target.skus)})")
        )
    if meta["npus"] != str(target.npus):
        problems.append(doc.problem(key_ptr("npus"), f"npus {meta['npus']!r}: the target uses {target.npus}"))
    now = client.commands_hash(commands)
    if not _HASH.fullmatch(meta["commands"]):
        problems.append(
            doc.problem(key_ptr("commands"), f"{meta['commands']!r} is not a commands hash (sha256:16 hex)")
        )
    elif meta["commands"] != now:
        problems.append(
            doc.problem(
                key_ptr("commands"),
                f"the run measured other commands ({meta['commands']}) than the selection has now ({now}): "
                "the recipe changed since; run the benchmark the page shows now",
            )
        )
    lengths = []
    for key in ("input_len", "output_len"):
        if not meta[key].isdigit() or not 1 <= int(meta[key]) <= 2**30:
            problems.append(doc.problem(key_ptr(key), f"{key} must be a whole number of tokens, not {meta[key]!r}"))
        else:
            lengths.append(int(meta[key]))
    if data["max_concurrency"] < 1:
        problems.append(
            doc.problem(key_ptr("max_concurrency"), "a run without --max-concurrency is not a standard workload")
        )
    when = _when(data["date"], meta["timezone"])
    if when is None:
        where = "date" if not _DATE.fullmatch(data["date"]) else "timezone"
        problems.append(
            doc.problem(
                key_ptr(where), f"no date with a time zone in {data['date']!r} and {meta['timezone']!r} (+0900)"
            )
        )
    for key in ("vllm", "vllm_rbln"):
        if not _VERSION.fullmatch(meta[key]):
            problems.append(doc.problem(key_ptr(key), f"{meta[key]!r} is not a release number (0.30.0)"))
    if given.run is not None and not _URL.fullmatch(given.run):
        problems.append(doc.problem("", f"--run {given.run!r} is not an https link"))
    if problems:
        return None, problems
    raw = (doc.text or "").encode("utf-8")
    return (
        Result(
            recipe=name,
            strategy=strategy.slug,
            target=target.target,
            selection=dict(chosen or {}),
            commands=meta["commands"],
            sku=meta["sku"],
            npus=target.npus,
            date=when or "",
            vllm=meta["vllm"],
            vllm_rbln=meta["vllm_rbln"],
            run=given.run,
            workload=Workload(
                input_len=lengths[0],
                output_len=lengths[1],
                concurrency=data["max_concurrency"],
                prompts=data["num_prompts"],
            ),
            output_throughput=float(data["output_throughput"]),
            request_throughput=float(data["request_throughput"]),
            ttft_ms={"p50": data["median_ttft_ms"], "p99": data["p99_ttft_ms"], "mean": data["mean_ttft_ms"]},
            tpot_ms={"p50": data["median_tpot_ms"], "p99": data["p99_tpot_ms"], "mean": data["mean_tpot_ms"]},
            duration=float(data["duration"]),
            completed=data["completed"],
            total_input_tokens=data["total_input_tokens"],
            total_output_tokens=data["total_output_tokens"],
            file=Path(doc.path).name[:200],
            sha256=hashlib.sha256(raw).hexdigest(),
        ),
        [],
    )


def read_file(
    path: str | Path, recipes: Path, load: Loader, given: Given = Given()
) -> tuple[Result | None, list[Problem]]:
    """Read and check one result file (located problems, no traceback)."""
    doc, problems = read(path, what="result file")
    if doc is None:
        return None, problems
    return check(doc, recipes, load, given)


def store(result: Result, folder: Path) -> tuple[Path, bool]:
    """Write an accepted result under ``folder/RECIPE/``; (its path, whether it was new)."""
    path = folder / result.recipe / f"{result.key}.json"
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result.to_json(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    # a new file beside it, then renamed over: never written through a link planted at its name
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path, True


def load(folder: Path, recipe: str) -> tuple[tuple[Result, ...], list[str]]:
    """The stored results of a recipe, oldest first, and a message for each file that is not one."""
    found, wrong = [], []
    where = folder / recipe
    if not where.is_dir():
        return (), []
    real = os.path.realpath(where)
    if os.path.dirname(real) != os.path.realpath(folder):  # a recipe's folder linked from elsewhere
        return (), [f"{where}: a symbolic link to {real}, outside {folder}: its files are not read; copy them in"]
    for path in sorted(where.glob("*.json")):
        try:
            # a regular file of this folder, of at most 1 MiB (a FIFO or a device is refused unread)
            doc, problems = read(path, what="stored result", limit=1 << 20)
            if doc is None or problems:
                raise ValueError(problems[0].message)
            data = doc.data
            if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("recipe") != recipe:
                raise ValueError("not a stored result of this recipe (results add writes them)")
            result = Result.from_json(data)
            if not all(
                _number(v, float)
                for v in (result.output_throughput, *result.ttft_ms.values(), *result.tpot_ms.values())
            ):
                raise ValueError("a figure is not a number")
        except (OSError, ValueError, TypeError, KeyError) as error:
            wrong.append(f"{path}: {error}")
            continue
        found.append(result)
    return tuple(sorted(found, key=lambda r: (r.date, r.key))), wrong


def stale(result: Result, current_hash: str | None, pinned: Mapping[str, str]) -> tuple[str, ...]:
    """Why a stored result no longer describes the selection as the page shows it: its commands
    changed ("commands"), or the site pins other releases ("versions"); () while it does."""
    why = []
    if current_hash != result.commands:
        why.append("commands")
    if pinned.get("vllm") not in (None, result.vllm) or pinned.get("vllm-rbln") not in (None, result.vllm_rbln):
        why.append("versions")
    return tuple(why)


def of_target(results: Sequence[Result], strategy: str, target: str) -> tuple[Result, ...]:
    return tuple(r for r in results if (r.strategy, r.target) == (strategy, target))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Measured:
    """A stored result as a page shows it: and whether it still describes the selection."""

    result: Result
    stale: tuple[str, ...]  # "commands", "versions": what moved since the run


@dataclasses.dataclass(frozen=True, kw_only=True)
class Evidence:
    """The measured results the selections of ``when`` share (none: nothing measured)."""

    when: tuple[Product, ...]  # () for every selection of the target
    measured: tuple[Measured, ...]


def evidence(target: TargetPage, found: Sequence[Result], pinned: Mapping[str, str]) -> tuple[Evidence, ...]:
    """A target's results per set of selections that share them, each marked stale or not; a
    result whose selection the target no longer offers is left out."""
    mine = of_target(found, target.strategy.slug, target.target.target)
    by_selection: dict[tuple[int, ...], list[Result]] = {}
    for result in mine:
        try:
            chosen = target.index(result.selection)
        except (KeyError, ValueError):
            continue
        if target.offers(chosen):
            by_selection.setdefault(tuple(chosen), []).append(result)
    bits: dict[tuple[str, ...], int] = {}
    runs: dict[tuple[str, ...], list[Result]] = {}
    for bit, chosen in enumerate(target.table.offered):
        found_here = by_selection.get(tuple(chosen), [])
        key = tuple(r.key for r in found_here)
        bits[key] = bits.get(key, 0) | 1 << bit
        runs[key] = found_here
    groups = []
    for key, mask in bits.items():
        measured: tuple[Measured, ...] = ()
        if key:
            current = target.commands_hash(target.index(runs[key][0].selection))
            measured = tuple(Measured(result=r, stale=stale(r, current, pinned)) for r in runs[key])
        groups.append(Evidence(when=() if len(bits) == 1 else target.table.products(mask), measured=measured))
    return tuple(groups)


def evidence_at(groups: Sequence[Evidence], chosen: Sequence[int]) -> Evidence | None:
    return next((g for g in groups if not g.when or any(admits(p, chosen) for p in g.when)), None)
