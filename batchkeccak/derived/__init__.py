"""The modes layer: keyed, customized and tree constructions over the shared sponge.

After XKCP's ``lib/high`` over ``lib/low``: every mode here is written against the sponge's
contract alone (many messages from one initial state or one state per message, a runtime
domain byte, ``absorb_prefixes`` for whole-block prefixes), never as a kernel of its own.

- :mod:`~batchkeccak.derived.sp800_185`: cSHAKE, KMAC, TupleHash, ParallelHash (NIST SP 800-185);
- :mod:`~batchkeccak.derived.hmac_sha3`: HMAC with SHA-3 (FIPS 198-1);
- :mod:`~batchkeccak.derived.kangarootwelve`: KT128, KT256 and TurboSHAKE's domain byte
  (RFC 9861).

:data:`modes` is the parameter table; :func:`build` turns a row and its parameters into a
:class:`~batchkeccak.Hasher` and is what ``batchkeccak.hasher(name, **params)`` calls.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from batchkeccak.derived.table import Mode, modes

if TYPE_CHECKING:  # what __getattr__ below resolves, for type checkers and editors
    from batchkeccak.core.hashers import Hasher
    from batchkeccak.derived.kangarootwelve import kt128, kt256
    from batchkeccak.derived.sp800_185 import (
        parallelhash_128,
        parallelhash_256,
        parallelhash_xof_128,
        parallelhash_xof_256,
        tuplehash_many,
    )

_BUILDERS = {
    "cshake": ("sp800_185", "build_cshake"),
    "kmac": ("sp800_185", "build_kmac"),
    "hmac": ("hmac_sha3", "build_hmac"),
    "tuplehash": ("sp800_185", "build_tuplehash"),
    "parallelhash": ("sp800_185", "build_parallelhash"),
    "kangarootwelve": ("kangarootwelve", "build_kangarootwelve"),
    "turboshake": ("kangarootwelve", "build_turboshake"),
}
"""Each family's builder, as (module of this package, function): imported on first use, so
that reading the table of modes loads no kernel."""

_FUNCTIONS = {
    "kt128": "kangarootwelve", "kt256": "kangarootwelve",
    "parallelhash_128": "sp800_185", "parallelhash_256": "sp800_185",
    "parallelhash_xof_128": "sp800_185", "parallelhash_xof_256": "sp800_185",
    "tuplehash_many": "sp800_185",
}  # fmt: skip


def __getattr__(name: str) -> object:
    module = _FUNCTIONS.get(name)
    if module is None:
        raise AttributeError(f"module 'batchkeccak.derived' has no attribute {name!r}")
    return getattr(importlib.import_module(f"batchkeccak.derived.{module}"), name)


def build(
    mode: Mode | str, *, length: object = None, threads: object = None, **params: object
) -> Hasher:
    """The :class:`~batchkeccak.Hasher` of a mode with its parameters checked."""
    from batchkeccak.core import parallel
    from batchkeccak.derived import params as checks

    row = modes[mode] if isinstance(mode, str) else mode
    checks.check_names(row, params)
    module, function = _BUILDERS[row.family]
    builder = getattr(importlib.import_module(f"batchkeccak.derived.{module}"), function)
    return builder(row, length, parallel.resolve_threads(threads), **params)


def factories() -> dict[str, Callable[..., Hasher]]:
    """Every mode's factory by name (``length``, ``threads`` and the mode's own keyword
    parameters -> :class:`~batchkeccak.Hasher`): what ``batchkeccak.api.MODES`` is built
    from, explicitly, when it is defined."""
    return {name: partial(build, name) for name in modes}


__all__ = [
    "Mode",
    "build",
    "kt128",
    "kt256",
    "modes",
    "parallelhash_128",
    "parallelhash_256",
    "parallelhash_xof_128",
    "parallelhash_xof_256",
    "register",
    "tuplehash_many",
]
