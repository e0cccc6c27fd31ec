"""A model of argparse: the parser, its groups and actions, as vLLM's code builds them."""

from __future__ import annotations

from typing import Any

from .values import UNKNOWN


class Action:
    def __init__(self, flags: list[str], kwargs: dict[str, Any], group: str | None) -> None:
        self.flags = flags
        self.kwargs = kwargs
        self.group = group

    @property
    def dest(self) -> str:
        dest = self.kwargs.get("dest")
        if isinstance(dest, str):
            return dest
        longs = [f for f in self.flags if f.startswith("--")]
        return (longs or self.flags or ["?"])[0].lstrip("-").replace("-", "_")

    def get(self, name: str) -> Any:
        if name == "dest":
            return self.dest
        if name == "option_strings":
            return list(self.flags)
        if name in ("choices", "default", "help", "nargs", "metavar", "type", "const", "required"):
            return self.kwargs.get(name)
        return UNKNOWN

    def set(self, name: str, value: Any) -> None:
        self.kwargs["action" if name == "__class__" else name] = value


class Group:
    def __init__(self, parser: Parser, title: Any, description: Any) -> None:
        self.parser = parser
        self.title = title if isinstance(title, str) else None
        self.description = description

    def add_argument(self, *args: Any, **kwargs: Any) -> Action:
        return self.parser.register(args, kwargs, self.title)


class Parser:
    def __init__(self) -> None:
        self.actions: list[Action] = []
        self.groups: list[Group] = []

    def add_argument(self, *args: Any, **kwargs: Any) -> Action:
        return self.register(args, kwargs, None)

    def add_argument_group(self, title: Any = None, description: Any = None, **_: Any) -> Group:
        group = Group(self, title, description)
        self.groups.append(group)
        return group

    def register(self, args: tuple, kwargs: dict[str, Any], group: str | None) -> Action:
        flags = [a for a in args if isinstance(a, str) and a.startswith("-")]
        action = Action(flags, dict(kwargs), group)
        if flags:
            self.actions.append(action)
        return action


class Subparsers:
    """``argparse._SubParsersAction``: ``add_parser`` gives the parser we are after."""

    def __init__(self) -> None:
        self.parsers: list[Parser] = []

    def add_parser(self, *_: Any, **__: Any) -> Parser:
        parser = Parser()
        self.parsers.append(parser)
        return parser
