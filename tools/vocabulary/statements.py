"""The evaluator's statements: assignments, branches, loops, returns, imports."""

from __future__ import annotations

import ast
import contextlib
from typing import Any

from .flow import Frame, _Abort, _Break, _Continue, _escapes, _has_unknown, _mentions_add_argument, _Return, _truth
from .parser_model import Action
from .values import UNKNOWN, sym


class Statements:
    """Mixed into Evaluator: runs a block of statements over a frame."""

    # statements --------------------------------------------------------------

    def block(self, body: list[ast.stmt], frame: Frame) -> None:
        for stmt in body:
            self.statement(stmt, frame)

    def statement(self, stmt: ast.stmt, frame: Frame) -> None:
        try:
            self._statement(stmt, frame)
        except (_Return, _Break, _Continue, _Abort):
            raise
        except Exception as error:  # a construct this evaluator does not model
            if _mentions_add_argument([stmt]):
                self.tree.warn(f"{frame.module.name}:{stmt.lineno}: could not follow ({type(error).__name__}: {error})")

    def _statement(self, stmt: ast.stmt, frame: Frame) -> None:
        if isinstance(stmt, ast.Expr):
            self.expr(stmt.value, frame)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, frame)
            for target in stmt.targets:
                self.assign(target, value, frame)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.expr(stmt.value, frame), frame)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, frame)
            change = self.expr(stmt.value, frame)
            if _has_unknown(current) or _has_unknown(change):
                self.assign(stmt.target, UNKNOWN, frame)
            elif isinstance(stmt.op, ast.Add) and isinstance(current, list) and isinstance(change, list | tuple):
                current += change  # in place, as Python does for lists
            else:
                fake = ast.BinOp(left=ast.Constant(current), op=stmt.op, right=ast.Constant(change))
                self.assign(stmt.target, self._expr_BinOp(fake, frame), frame)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    container = self.expr(target.value, frame)
                    key = self.expr(target.slice, frame)
                    if isinstance(container, dict) and key is not UNKNOWN:
                        container.pop(key, None)
                elif isinstance(target, ast.Name):
                    frame.names.pop(target.id, None)
        elif isinstance(stmt, ast.If):
            truth = _truth(self.expr(stmt.test, frame))
            if truth is UNKNOWN:
                if not _escapes(stmt.body):
                    self.block(stmt.body, frame)
                if not _escapes(stmt.orelse):
                    self.block(stmt.orelse, frame)
            else:
                self.block(stmt.body if truth else stmt.orelse, frame)
        elif isinstance(stmt, ast.For):
            self.loop(stmt, frame)
        elif isinstance(stmt, ast.Return):
            raise _Return(None if stmt.value is None else self.expr(stmt.value, frame))
        elif isinstance(stmt, ast.Raise):
            raise _Abort
        elif isinstance(stmt, ast.Break):
            raise _Break
        elif isinstance(stmt, ast.Continue):
            raise _Continue
        elif isinstance(stmt, ast.Try):
            with contextlib.suppress(_Abort):  # the handlers are not followed
                self.block(stmt.body, frame)
            self.block(stmt.orelse, frame)
            self.block(stmt.finalbody, frame)
        elif isinstance(stmt, ast.With):
            self.block(stmt.body, frame)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else name
                found = self.tree.module(target)
                frame.names[name] = found if found is not None else sym(target)
        elif isinstance(stmt, ast.ImportFrom):
            base = frame.module.absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if (base, alias.name) == ("vllm.platforms", "current_platform"):
                    frame.names[alias.asname or alias.name] = self.platform or UNKNOWN
                    continue
                found = self.tree.resolve_from(base, alias.name)
                if isinstance(found, tuple):
                    found = self.global_name(found[1], alias.name) if found[0] == "expr" else UNKNOWN
                frame.names[alias.asname or alias.name] = found
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            frame.names[stmt.name] = self.tree.function(frame.module, stmt)
        elif isinstance(stmt, ast.ClassDef):
            frame.names[stmt.name] = self.tree.class_info(frame.module, stmt)
        elif _mentions_add_argument([stmt]):
            self.tree.warn(f"{frame.module.name}:{stmt.lineno}: {type(stmt).__name__} not followed")

    def loop(self, stmt: ast.For, frame: Frame) -> None:
        iterable = self.expr(stmt.iter, frame)
        if isinstance(iterable, dict):
            iterable = list(iterable)
        if not isinstance(iterable, list | tuple | set | frozenset | str | range | type({}.items())):
            if _mentions_add_argument(stmt.body):
                self.tree.warn(f"{frame.module.name}:{stmt.lineno}: loop over {ast.unparse(stmt.iter)} not followed")
            return
        for item in list(iterable):
            self.bind(stmt.target, item, frame.names)
            try:
                self.block(stmt.body, frame)
            except _Continue:
                continue
            except _Break:
                return
        self.block(stmt.orelse, frame)

    def bind(self, target: ast.expr, value: Any, names: dict[str, Any]) -> bool:
        if isinstance(target, ast.Name):
            names[target.id] = value
            return True
        if isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, list | tuple) or len(value) != len(target.elts):
                for elt in target.elts:
                    self.bind(elt, UNKNOWN, names)
                return False
            return all(self.bind(elt, v, names) for elt, v in zip(target.elts, value, strict=True))
        return False

    def assign(self, target: ast.expr, value: Any, frame: Frame) -> None:
        if isinstance(target, ast.Name | ast.Tuple | ast.List):
            self.bind(target, value, frame.names)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            if isinstance(container, dict | list) and key is not UNKNOWN:
                container[key] = value
        elif isinstance(target, ast.Attribute):
            obj = self.expr(target.value, frame)
            if isinstance(obj, Action):
                obj.set(target.attr, value)
