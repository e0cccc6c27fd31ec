"""Regenerate the `vllm serve` vocabulary file from the released vLLM and vllm-rbln source.

    python -m tools.vocabulary --vllm 0.30.0 --vllm-rbln 0.12.0
    make vocabulary VLLM=0.30.0 VLLM_RBLN=0.12.0

The two packages are fetched with ``pip download --no-deps`` (a wheel when there is
one, else the source distribution) and only their ``.py`` files are read, with
``ast``: nothing of vLLM is imported, so neither torch nor an accelerator is needed.
``--source DIR`` reads an already unpacked tree (``DIR/vllm``, ``DIR/vllm_rbln``)
instead, and ``--dist DIR`` unpacks wheels or sdists already downloaded there.

How ``vllm serve`` builds its parser, and so what this reads:

* ``vllm/entrypoints/cli/serve.py``: ``ServeSubcommand.subparser_init`` passes the
  subparser to ``make_arg_parser``, which adds a few flags itself and then calls
  ``FrontendArgs.add_cli_args`` and ``AsyncEngineArgs.add_cli_args``.
* Most flags are ``group.add_argument("--flag", **get_kwargs(SomeConfig)["field"])``:
  ``get_kwargs`` turns a config dataclass field into argparse keywords. The help is
  the field's docstring; a ``bool`` field gets ``BooleanOptionalAction`` (so also a
  ``--no-flag``); a ``Literal`` gives ``choices`` (or only a metavar when ``str`` is
  also allowed); a dataclass-typed field becomes a JSON-valued flag, validated into
  that dataclass, whose init fields are the accepted JSON keys.
* The frontend registers every field of its dataclass in a loop, with
  ``--{name.replace('_', '-')}``.
* ``AsyncEngineArgs.add_cli_args`` ends with the platform's
  ``pre_register_and_update(parser)``; for vllm-rbln (found through its
  ``vllm.platform_plugins`` entry point) that edits some actions and adds the
  ``--rbln-*`` flags, one per field of its config classes.

Rather than hard-code that list, the functions are interpreted abstractly: a small
evaluator runs their statements over a model of the parser, emulating ``get_kwargs``
from the dataclass source, and gives up (value "unknown") on anything else. What it
could not follow is reported on stderr.

Besides whether a flag takes a value and its choices, each flag records the type its
value is converted with (``int``, ``float``, ``str``, ``size`` for vLLM's
``human_readable_int``, ``json``, ``object`` for a config dataclass, ...), whether
``None`` is accepted, and the limits pydantic's ``Field(ge=..., le=...)`` sets; a
JSON-valued flag records each field's JSON types from the dataclass annotation.

The modules, in the order a run uses them:

* ``fetch``: ``pip download --no-deps`` and unpacking only the ``.py`` files;
* ``source_tree``, ``classes``: modules and classes read with ``ast``;
* ``values``, ``flow``, ``evaluator`` (with ``expressions``, ``statements``,
  ``hints``): the abstract evaluator, over the argparse model of ``parser_model``;
* ``get_kwargs``: the emulation of vLLM's ``get_kwargs`` (keywords, types, limits);
* ``extract``: what goes in the data file; ``cli``: the command line;
* ``crosscheck``: ``--cross-check``, a comparison with vLLM's real parser where vLLM
  is importable (run by hand; the tests stay offline).
"""

from __future__ import annotations

from .extract import FORMAT, extract
from .fetch import _unpack, download

__all__ = ["FORMAT", "_unpack", "download", "extract", "main"]


def main(argv: list[str] | None = None) -> int:
    from .cli import main as run

    return run(argv)
