"""Checking the parameters of the modes: keys, customization strings, lengths."""

from __future__ import annotations

from batchkeccak.core.hashers import output_length
from batchkeccak.core.parameters import Algorithm
from batchkeccak.derived.table import Mode
from batchkeccak.inputs.sequences import message_view
from batchkeccak.support.checks import check_int


def as_bytes(value: object, argument: str) -> bytes:
    """A bytes-like parameter as ``bytes``; TypeError naming ``argument`` otherwise."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        raise TypeError(
            f"{argument} must be bytes-like, got str: encode it first "
            "(for example value.encode('utf-8'))"
        )
    try:
        view = message_view(value, argument)
    except TypeError:
        raise TypeError(f"{argument} must be bytes-like, got {type(value).__name__}") from None
    with view:
        return view.tobytes()


def keys(key: object, mode: Mode) -> bytes | list[bytes]:
    """One key for the batch (bytes-like) or one per message (a list or tuple of them)."""
    if key is None:
        raise TypeError(f"{mode.name} requires key= (bytes-like, or one per message)")
    if isinstance(key, (list, tuple)):
        if not key:
            raise ValueError(f"key is an empty sequence; {mode.name} needs one key per message")
        return [as_bytes(k, f"key[{i}]") for i, k in enumerate(key)]
    return as_bytes(key, "key")


def mode_length(mode: Mode, spec: Algorithm, length: object) -> int:
    """The output length: the row's digest size (HMAC), or the caller's ``length``."""
    if mode.fixed_length:
        if length is not None:
            raise TypeError(f"{mode.name} always returns {spec.digest_size} bytes; drop length")
        return spec.digest_size  # type: ignore[return-value]  # a fixed-length mode's row has a digest_size
    if length is None:
        raise TypeError(f"length is required for {mode.name} (output bytes, an int >= 0)")
    return output_length(spec, length, name=mode.name)


def block_size(value: object) -> int:
    """ParallelHash's chunk size B in bytes: a positive int."""
    return check_int(value, "block_size", 1, expected="a positive int", note=" byte")


def check_names(mode: Mode, params: dict[str, object]) -> None:
    """Refuse parameters the mode does not take, naming the ones it does."""
    unknown = sorted(set(params) - set(mode.params))
    if unknown:
        raise TypeError(
            f"{mode.name} takes no parameter(s) {', '.join(unknown)}; it takes "
            f"{', '.join(mode.params) or 'none'} besides length and threads"
        )
