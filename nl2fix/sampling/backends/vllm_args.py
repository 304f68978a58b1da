"""``--vllm-arg KEY=VALUE`` and the multi-GPU options, typed by vLLM's own ``EngineArgs``.

Each key must be a field of ``vllm.engine.arg_utils.EngineArgs`` (``max-model-len`` and
``max_model_len`` are the same key) and its value is converted to that field's type, so the run
configuration records ``{"max_model_len": 1024, "enforce_eager": true}``, not strings. Without vLLM
installed here the value is read as a JSON literal (number, ``true``/``false``, ``null``), else a
string, and the backend, which needs vLLM anyway, checks the key when it starts.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import sys
import types
import typing
from typing import Any, Literal, Union

from nl2fix.core.errors import Nl2FixError

RAY_EXECUTOR = "ray"


@functools.lru_cache(maxsize=1)
def option_fields() -> dict[str, Any] | None:
    """EngineArgs' field name -> type hint (None where it cannot be resolved); None without vLLM."""
    try:
        from vllm.engine.arg_utils import EngineArgs
    except ImportError:
        return None
    namespace = vars(sys.modules[EngineArgs.__module__])
    return {f.name: _resolve(f.type, namespace) for f in dataclasses.fields(EngineArgs)}


def _resolve(hint: Any, namespace: dict) -> Any:
    """A field's type hint; its annotation is text under ``from __future__ import annotations``.
    One that does not resolve (a name vLLM imports only for type checkers) is typed by literal."""
    if not isinstance(hint, str):
        return hint
    try:
        return eval(hint, dict(namespace))  # vLLM's own annotation text, in vLLM's own module
    except Exception:
        return None


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _bool(text: str) -> bool:
    word = text.strip().lower()
    if word in ("true", "1", "yes", "on"):
        return True
    if word in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (true/false)")


def coerce(text: str, hint: Any) -> Any:
    """``text`` as a value of the type ``hint`` (a type hint of a dataclass field); ValueError if it is not one."""
    if hint is None or hint is Any:
        return _literal(text)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return _bool(text)
    if hint in (int, float, str):
        return hint(text)
    if origin is Literal:
        for choice in args:
            if str(choice) == text or (
                isinstance(choice, bool) is False and isinstance(choice, (int, float)) and _literal(text) == choice
            ):
                return choice
        raise ValueError(f"{text!r} is not one of {', '.join(map(str, args))}")
    if origin in (Union, types.UnionType):
        if type(None) in args and text.strip().lower() in ("none", "null"):
            return None
        errors = []
        for option in (a for a in args if a is not type(None)):
            try:
                return coerce(text, option)
            except (ValueError, TypeError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors) or f"cannot read {text!r}")
    if origin in (dict, list, tuple) or hint in (dict, list, tuple):
        value = json.loads(text)
        if not isinstance(value, (dict, list)):
            raise ValueError(f"{text!r} is not JSON {getattr(origin or hint, '__name__', hint)}")
        return value
    return _literal(text)


def parse(pairs: tuple[str, ...] | list[str], fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as typed vLLM options; ``fields`` defaults to vLLM's EngineArgs (when installed)."""
    fields = option_fields() if fields is None else fields
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lstrip("-").replace("-", "_")
        if not sep or not key:
            raise Nl2FixError(f"--vllm-arg {pair!r} is not KEY=VALUE", "e.g. --vllm-arg max_model_len=4096")
        if key == "model":
            raise Nl2FixError("--vllm-arg model=... is --model", "pass the weights with --model NAME_OR_PATH")
        if fields is not None:
            if key not in fields:
                close = difflib.get_close_matches(key, list(fields), n=3)
                raise Nl2FixError(
                    f"vLLM's EngineArgs has no option {key!r}",
                    f"did you mean {', '.join(close)}?" if close else "see `vllm serve --help` for the engine options",
                )
            try:
                out[key] = coerce(value, fields[key])
            except (ValueError, TypeError) as exc:
                raise Nl2FixError(f"--vllm-arg {key}={value}: {exc}", "give a value of the option's type") from exc
        else:
            out[key] = _literal(value)
    return out


def with_parallelism(
    vllm_options: dict[str, Any], tensor_parallel_size: int | None, data_parallel_size: int
) -> dict[str, Any]:
    """``vllm_options`` with ``--tensor-parallel-size`` folded in, and Ray as the executor of a
    model that spans several devices inside a data-parallel replica (a Ray actor places its
    workers in the actor's own placement group; vLLM's default executor would start processes
    that Ray does not know about)."""
    args = dict(vllm_options)
    if tensor_parallel_size is not None:
        given = args.get("tensor_parallel_size")
        if given is not None and given != tensor_parallel_size:
            raise Nl2FixError(
                f"--tensor-parallel-size {tensor_parallel_size} and --vllm-arg tensor_parallel_size={given} disagree",
                "give the tensor-parallel size once",
            )
        args["tensor_parallel_size"] = tensor_parallel_size
    if data_parallel_size > 1 and devices_per_replica(args) > 1:
        args.setdefault("distributed_executor_backend", RAY_EXECUTOR)
    return args


def devices_per_replica(vllm_options: dict[str, Any]) -> int:
    """Accelerators one copy of the model occupies: tensor-parallel times pipeline-parallel size."""
    return int(vllm_options.get("tensor_parallel_size") or 1) * int(vllm_options.get("pipeline_parallel_size") or 1)
