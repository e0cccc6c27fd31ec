"""A catalog's plural rule (``Plural-Forms: nplurals=N; plural=EXPRESSION;``), read as gettext's
grammar (plural.y) has it: ``n``, whole numbers, ``! * / % + - < <= > >= == != && || ?:`` and
parentheses, nothing else; Python's gettext would compile anything its tokens allow and evaluate
it on every count. A rule is also tried on the counts a rule singles out, and must give a form
from 0 to nplurals - 1 for each, without dividing by zero."""

from __future__ import annotations

import re
from collections.abc import Callable

FORMS = re.compile(r"^\s*nplurals\s*=\s*(\d{1,2})\s*;\s*plural\s*=\s*([^;]*?)\s*;?\s*$")
MAX_PLURALS = 6  # no language has more plural forms (CLDR)
MAX_PLURAL_EXPRESSION = 1000  # characters, as Python's gettext allows (Transifex writes Ukrainian's in 250)
MAX_PLURAL_DEPTH = 20  # nested parentheses and operators, as Python's gettext allows


class _PluralError(Exception):
    pass


_PLURAL_TOKEN = re.compile(r"\s*(?:(\d+)|(n)\b|(\|\||&&|==|!=|<=|>=|[-+*/%<>!?:()]))")
_BINARY: list[tuple[str, ...]] = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%")]


class _Plural:
    """gettext's plural expression grammar (plural.y), read into a function of n."""

    def __init__(self, text: str) -> None:
        self.tokens: list[str] = []
        at = 0
        text = text.rstrip()
        while at < len(text):
            match = _PLURAL_TOKEN.match(text, at)
            if match is None or match.end() == at:
                rest = text[at:].strip()
                raise _PluralError(f"{rest[:12]!r} is not part of it")
            self.tokens.append(match.group(match.lastindex or 0))
            at = match.end()
            if match.group(1) and len(match.group(1)) > 9:
                raise _PluralError(f"the number {match.group(1)[:12]}… is larger than a plural rule needs")
        self.at = 0
        self.depth = 0

    def parse(self) -> Callable[[int], int]:
        if not self.tokens:
            raise _PluralError("the expression is empty")
        function = self.conditional()
        if self.at != len(self.tokens):
            raise _PluralError(f"{self.tokens[self.at]!r} where the expression should end")
        return function

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, wanted: str | None = None) -> str:
        token = self.peek()
        if token is None or (wanted is not None and token != wanted):
            raise _PluralError(
                f"expected {wanted or 'more'} {'but the expression ends' if token is None else f'at {token!r}'}"
            )
        self.at += 1
        return token

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_PLURAL_DEPTH:
            raise _PluralError(f"nested more than {MAX_PLURAL_DEPTH} levels deep")

    def conditional(self) -> Callable[[int], int]:
        self.deeper()
        test = self.binary(0)
        if self.peek() == "?":
            self.take("?")
            then = self.conditional()
            self.take(":")
            other = self.conditional()
            result = lambda n: then(n) if test(n) else other(n)  # noqa: E731
        else:
            result = test
        self.depth -= 1
        return result

    def binary(self, level: int) -> Callable[[int], int]:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            operator = self.take()
            right = self.binary(level + 1)
            left = _operation(operator, left, right)
        return left

    def unary(self) -> Callable[[int], int]:
        token = self.peek()
        if token == "!":
            self.take()
            self.deeper()
            inner = self.unary()
            self.depth -= 1
            return lambda n: int(not inner(n))
        if token == "(":
            self.take()
            inner = self.conditional()
            self.take(")")
            return inner
        if token == "n":
            self.take()
            return lambda n: n
        if token is not None and token.isdigit():
            self.take()
            value = int(token)
            return lambda n: value
        raise _PluralError(
            f"expected n, a number or '(' {'but the expression ends' if token is None else f'at {token!r}'}"
        )


def _operation(operator: str, left: Callable[[int], int], right: Callable[[int], int]) -> Callable[[int], int]:
    operations: dict[str, Callable[[int, int], int]] = {
        "||": lambda a, b: int(bool(a) or bool(b)),
        "&&": lambda a, b: int(bool(a) and bool(b)),
        "==": lambda a, b: int(a == b),
        "!=": lambda a, b: int(a != b),
        "<": lambda a, b: int(a < b),
        ">": lambda a, b: int(a > b),
        "<=": lambda a, b: int(a <= b),
        ">=": lambda a, b: int(a >= b),
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "/": lambda a, b: a // b,
        "%": lambda a, b: a % b,
    }
    apply = operations[operator]
    return lambda n: apply(left(n), right(n))


# the counts a plural rule is tried on: every small one, and the large ones rules single out
_PLURAL_SAMPLES = (*range(0, 1001), 1_000_000, 1_000_001, 2**31 - 1)


def plural_problem(forms: str) -> str | None:
    """What is wrong with a Plural-Forms header value, or None."""
    match = FORMS.match(forms)
    if match is None:
        return "write 'nplurals=N; plural=EXPRESSION;'"
    count, expression = int(match.group(1)), match.group(2)
    if not 1 <= count <= MAX_PLURALS:
        return f"nplurals is {count}; a language has 1 to {MAX_PLURALS} plural forms"
    if len(expression) > MAX_PLURAL_EXPRESSION:
        return (
            f"the plural expression is {len(expression)} characters long; a rule needs at most {MAX_PLURAL_EXPRESSION}"
        )
    try:
        rule = _Plural(expression).parse()
        for n in _PLURAL_SAMPLES:
            form = rule(n)
            if not 0 <= form < count:
                return (
                    f"plural={expression} gives form {form} for n={n}; with nplurals={count} a form is 0 to {count - 1}"
                )
    except ZeroDivisionError:
        return f"plural={expression} divides by zero"
    except _PluralError as error:
        return f"plural={expression!r} is outside gettext's plural grammar (n, numbers, ! * / % + - < <= > >= == != && || ?: and parentheses): {error}"
    return None
