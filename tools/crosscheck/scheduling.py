"""Rule 30 against vLLM's own SchedulerConfig: the same flags, judged by both.

``cases`` writes commands at the edges of the conditions vLLM 0.30.0's
``SchedulerConfig.verify_max_model_len`` checks (``--max-num-batched-tokens`` against
``--max-num-seqs`` and, without chunked prefill, against ``--max-model-len``): each value one
below, at and one above the other, with chunked prefill on, off or not said, and the length
given or not. The judge builds a SchedulerConfig from each command's flags (``judge._build``:
the command's ``--max-model-len`` as the model's length when given); ``differences`` says where
the rule (``recipebook.checking.capacity.Scheduling``) and vLLM disagree.

Every case gives ``--max-num-seqs``: with it left out, the judge builds the class with its own
default (128), which ``EngineArgs`` would have lowered to the tokens given before building it
(``_set_default_max_num_seqs_and_batched_tokens_args``), so only the running server is a judge
of that case, and the rule does not judge it.
"""

from __future__ import annotations

import itertools
from typing import Any

from recipebook.checking import capacity
from recipebook.expanding.expansion import Line

MODEL = "model"
# Values around the edges, and one far from them.
SIZES = (1, 2, 31, 32, 33, 255, 256, 257, 8192)


def cases() -> list[list[str]]:
    """argv lists (the model, then the flags) at the edges of vLLM's conditions."""
    out = []
    for batched, seqs in itertools.product(SIZES, SIZES):
        for length in (None, batched - 1, batched, batched + 1):
            if length is not None and length < 1:
                continue
            for chunked in (None, True, False):
                argv = [MODEL, "--max-num-batched-tokens", str(batched), "--max-num-seqs", str(seqs)]
                if length is not None:
                    argv += ["--max-model-len", str(length)]
                if chunked is not None:
                    argv.append("--enable-chunked-prefill" if chunked else "--no-enable-chunked-prefill")
                out.append(argv)
    return out


def _lines(argv: list[str]) -> list[Line]:
    """The flags of an argv as a command's argument lines (one flag and its value a line)."""
    lines: list[Line] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        key = words[i]
        has_value = i + 1 < len(words) and not words[i + 1].startswith("--")
        text = f"{key} {words[i + 1]}" if has_value else key
        lines.append(Line(kind="arg", slot=(len(lines),), key=key, text=text))
        i += 2 if has_value else 1
    return lines


def differences(asked: list[list[str]], answers: list[dict[str, Any]]) -> list[str]:
    """Where the rule and vLLM's SchedulerConfig disagree, one line each."""
    out = []
    for argv, answer in zip(asked, answers, strict=True):
        if answer["error"] is not None:
            out.append(f"{' '.join(argv[1:])}: vLLM's parser refuses it: {answer['error']}")
            continue
        built = [b for b in answer["configs"] if b["config"] == "SchedulerConfig"]
        vllm_refuses = any(b["error"] for b in built)
        rule_refuses = bool(capacity.Scheduling.of(_lines(argv)).refusals())
        if vllm_refuses != rule_refuses:
            said = next((b["error"] for b in built if b["error"]), "accepted")
            out.append(
                f"{' '.join(argv[1:])}: rule 30 {'refuses' if rule_refuses else 'accepts'} it, "
                f"vLLM's SchedulerConfig: {said}"
            )
    return out
