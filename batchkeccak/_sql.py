"""The SQL functions that the DuckDB and Spark adapters register: one per algorithm and mode,
with the arguments each takes, and how one batch of their arguments is hashed.

A SQL function cannot take keyword arguments, so each name has one fixed argument list:

- ``name(value)`` for the fixed-size functions (``sha3_256``, ``keccak_256``...);
- ``name(value, n)`` where the output length is free (``shake_128``, ``kt128``...);
- ``name(value, key_name[, n])`` for the keyed modes (KMAC, HMAC-SHA3): the key is named,
  never written in the query, so its bytes stay out of query text, logs and plans;
- ``name(value, n, customization)`` for cSHAKE, whose customization string is its point.

Every other parameter of a mode keeps its default (KMAC's customization is empty,
ParallelHash's block size is 8192 bytes): :func:`batchkeccak.arrow.hash_array` takes them all.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak.api import algorithm_names, hasher
from batchkeccak.arrow import hash_chunk
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parameters import algorithms
from batchkeccak.derived.table import modes

__all__ = ["SqlFunction", "add_shortcuts", "check_keys", "no_such_method", "sql_functions"]


@dataclass(frozen=True)
class SqlFunction:
    """One SQL function: an algorithm or mode, and the arguments its SQL form takes."""

    name: str
    keyed: bool
    """Takes a key name, looked up in the keys given at registration."""
    takes_length: bool
    """Takes the output length in bytes."""
    customized: bool
    """Takes a customization string (cSHAKE)."""

    @property
    def arguments(self) -> tuple[str, ...]:
        """The SQL arguments, in order: ``value`` first."""
        names = ["value"]
        if self.keyed:
            names.append("key_name")
        if self.takes_length:
            names.append("n")
        if self.customized:
            names.append("customization")
        return tuple(names)

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.arguments)})"

    def digests(
        self,
        values: pa.Array | pa.ChunkedArray,
        arguments: list[pa.Array | pa.ChunkedArray],
        keys: Mapping[str, bytes],
        *,
        hex: bool = False,
        threads: int | None = None,
        cache: dict | None = None,
    ) -> pa.Array:
        """The digests of one batch: ``values`` and the other SQL arguments, one array each.

        Returns ``binary`` digests (``string`` with ``hex=True``), null where a value is null.
        A row whose key name, length or customization is null gets a null digest. Rows are
        grouped by their arguments, so the usual case (literals, the same on every row) is one
        hash of the whole batch.
        """
        values = _combined(values)
        count = len(values)
        out_type = pa.string() if hex else pa.binary()
        if count == 0:
            return pa.array([], out_type)
        columns = [_combined(argument) for argument in arguments]
        settings = _constant_settings(columns, count)
        if settings is not None:
            return self._hash(values, settings, keys, hex, threads, cache)
        rows: dict[tuple, list[int]] = {}
        for index, settings in enumerate(zip(*(column.to_pylist() for column in columns))):
            if None not in settings:
                rows.setdefault(settings, []).append(index)
        result = pa.nulls(count, out_type)
        for settings, indices in rows.items():
            taken = pa.array(indices, pa.int64())
            digests = self._hash(values.take(taken), settings, keys, hex, threads, cache)
            mask = np.zeros(count, dtype=bool)
            mask[indices] = True
            # replace_with_mask takes the replacements in row order: indices are ascending.
            result = pc.replace_with_mask(result, pa.array(mask), digests)
        return result

    def _hash(self, values, settings, keys, hex, threads, cache) -> pa.Array:
        resolved = self.resolve(settings, keys, threads, cache)
        return hash_chunk(values, resolved, hex, "value", binary=True)

    def resolve(
        self,
        settings: tuple,
        keys: Mapping[str, bytes],
        threads: int | None,
        cache: dict | None = None,
    ) -> Hasher:
        """The hasher for one row's arguments (``()`` for ``name(value)``), from ``cache``
        when an earlier batch resolved it; ValueError for a key name not in ``keys``."""
        if cache is not None:
            # get, not `in` then [], since another thread may clear the cache in between.
            resolved = cache.get(settings)
            if resolved is not None:
                return resolved
        params: dict[str, object] = {}
        length = None
        position = 0
        if self.keyed:
            key_name = settings[position]
            position += 1
            if key_name not in keys:
                known = ", ".join(repr(k) for k in sorted(keys)) or "none"
                raise ValueError(
                    f"{self.name}(): no key named {key_name!r}; the keys registered are: {known} "
                    "(register(connection, keys={name: key_bytes}))"
                )
            params["key"] = keys[key_name]
        if self.takes_length:
            length = settings[position]
            position += 1
        if self.customized:
            customization = settings[position]
            if isinstance(customization, str):  # a SQL string: its UTF-8 bytes, as values
                customization = customization.encode("utf-8")
            params["customization"] = customization
        resolved = hasher(self.name, length=length, threads=threads, **params)
        if cache is not None:
            if len(cache) > 64:  # lengths that vary by row: keep the cache bounded
                cache.clear()
            cache[settings] = resolved
        return resolved


def _combined(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(array, pa.ChunkedArray):
        return array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    return array


_REPEATS: dict[tuple, pa.Array] = {}
"""An argument's value repeated ``count`` times, by ``(type, value, count)``: DuckDB passes a
literal as a column of that many copies with every vector, and building the array to compare
it with cost more than the comparison (11 µs a vector for a key name, 1 µs kept)."""


def _repeated(first: pa.Scalar, count: int) -> pa.Array:
    value = first.as_py()
    try:
        key = (str(first.type), value, count)
        repeated = _REPEATS.get(key)
    except TypeError:  # an unhashable value (a list): built each time
        return pa.repeat(first, count)
    if repeated is None:
        repeated = pa.repeat(first, count)
        if len(_REPEATS) >= 64:  # values that vary by vector: keep it bounded
            _REPEATS.clear()
        _REPEATS[key] = repeated
    return repeated


def _constant_settings(columns: list[pa.Array], count: int) -> tuple | None:
    """The arguments as Python values when every one is the same non-null value on all
    ``count`` rows (literals in SQL), else None."""
    settings = []
    for column in columns:
        first = column[0]
        # One comparison in Arrow's C++: a per-row Python loop would cost more than hashing.
        if column.null_count or not column.equals(_repeated(first, count)):
            return None
        settings.append(first.as_py())
    return tuple(settings)


def sql_functions() -> dict[str, SqlFunction]:
    """Every algorithm and mode by name, with its SQL arguments, in the tables' order."""
    functions = {}
    for name in algorithm_names():
        if name in algorithms:
            spec = algorithms[name]
            functions[name] = SqlFunction(name, False, spec.digest_size is None, False)
            continue
        mode = modes[name]
        functions[name] = SqlFunction(
            name,
            keyed="key" in mode.params,
            takes_length=not mode.fixed_length,
            customized=mode.sql_customization,
        )
    return functions


def add_shortcuts(namespace: type) -> None:
    """Give a column namespace (pandas' and Polars' ``bk``), whose ``hash(algorithm, ...)``
    hashes its column, one method per algorithm and mode: ``.bk.sha3_256(hex=True)`` is
    ``.bk.hash("sha3_256", hex=True)``."""
    for name in sql_functions():
        setattr(namespace, name, _shortcut(name))


def _shortcut(name: str):
    def method(
        self,
        *,
        hex: bool = False,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ):
        return self.hash(name, hex=hex, length=length, threads=threads, **params)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``hash({name!r}, ...)``: see :meth:`hash` for the keywords."
    return method


def check_keys(keys: object) -> dict[str, bytes]:
    """``keys`` as a dict of names to key bytes; TypeError naming what is wrong."""
    if keys is None:
        return {}
    if not isinstance(keys, Mapping):
        raise TypeError(
            f"keys must be a mapping of key names (str) to key bytes, got {type(keys).__name__}"
        )
    checked = {}
    for name, key in keys.items():
        if not isinstance(name, str):
            raise TypeError(f"keys: a key name must be a str, got {type(name).__name__}")
        if isinstance(key, str) or not isinstance(key, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"keys[{name!r}] must be bytes (the key itself), got {type(key).__name__}"
            )
        checked[name] = bytes(key)
    return checked


def no_such_method(namespace: str, name: str, general: Iterable[str]) -> AttributeError:
    """The error for ``namespace.name`` where a column namespace (Polars' ``bk``, pandas'
    ``bk``) has no such method: it names every method, the ``general`` ones and one per
    algorithm and mode (the list ``hash_many`` gives for an unknown algorithm), and the
    closest names to a typo."""
    names = list(sql_functions())
    close = difflib.get_close_matches(name, [*general, *names], n=3)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    return AttributeError(
        f"{namespace} has no method {name!r}{hint}; its methods are {', '.join(general)} and "
        f"one per algorithm and mode: {', '.join(names)}"
    )
