"""A ``bk`` namespace on Polars expressions and Series: ``pl.col("email").bk.sha3_256()``.

Importing this module registers the namespace. Each method is one
:func:`batchkeccak.arrow.hash_array` (or :func:`batchkeccak.arrow.hash_rows`) call per batch
of rows that Polars hands over, declared elementwise with its output type, so eager, lazy and
streaming queries (``collect(engine="streaming")``) can split the column however they like
and no Python object is made per value.

Polars imports when this module does, never by ``import batchkeccak``.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from batchkeccak._sql import add_shortcuts
from batchkeccak.api import hasher
from batchkeccak.arrow import hash_array
from batchkeccak.arrow import hash_rows as arrow_hash_rows
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parameters import Algorithm
from batchkeccak.derived.table import unknown_method
from batchkeccak.inputs.arrow_views import fixed_as_views
from batchkeccak.support.extras import engine_import

with engine_import("polars", "Polars"):
    import polars as pl

__all__ = ["NAMESPACE", "HashExpr", "HashSeries"]

NAMESPACE = "bk"
"""The name the namespace is registered under: ``pl.col(...).bk``, ``series.bk``."""

_VALUE_DTYPES = "String, Binary, Categorical or Enum"


def _resolve(algorithm, length, threads, params) -> Hasher:
    # Resolved when the expression is built: a wrong name, length or key fails at once,
    # not inside a query's first batch.
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if resolved.batch_size is not None:
        raise ValueError(
            f"{resolved.name}: a key per row cannot follow a query's batches; pass one key, or "
            "use batchkeccak.arrow.hash_array on the whole column"
        )
    return resolved


def _check_values(series: pl.Series) -> None:
    dtype = series.dtype
    if dtype in (pl.String, pl.Binary, pl.Null) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return
    raise TypeError(
        f"bk: expected {_VALUE_DTYPES} input, got {dtype} (column {series.name!r}); "
        "cast it first, for example .cast(pl.String)"
    )


def _output_dtype(hex: bool):
    return pl.String if hex else pl.Binary


def _as_series(digests: pa.Array | pa.ChunkedArray, name: str, hex: bool) -> pl.Series:
    if not hex:
        # Polars has no fixed-size binary type: the same bytes as binary views, which Polars
        # keeps as they are (a cast to binary would be copied twice: by the cast, and by
        # Polars into its views).
        digests = _as_views(digests)
    return pl.Series(name, digests, dtype=_output_dtype(hex))


def _as_views(digests: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    if isinstance(digests, pa.ChunkedArray):
        chunks = [_as_views(chunk) for chunk in digests.chunks]
        if not all(pa.types.is_binary_view(chunk.type) for chunk in chunks):
            return digests.cast(pa.binary())
        return pa.chunked_array(chunks, type=pa.binary_view())
    views = fixed_as_views(digests)
    return digests.cast(pa.binary()) if views is None else views


def _digest_series(series: pl.Series, resolved: Hasher, hex: bool) -> pl.Series:
    _check_values(series)
    if series.dtype == pl.Null:
        return pl.Series(series.name, [None] * len(series), dtype=_output_dtype(hex))
    values = _arrow_values(series)
    return _as_series(hash_array(values, resolved, hex=hex), series.name, hex)


_NEWEST = getattr(getattr(pl, "CompatLevel", None), "newest", None)


def _arrow_values(series: pl.Series) -> pa.Array | pa.ChunkedArray:
    """The Series as Arrow without a copy: Polars keeps ``String`` and ``Binary`` as views
    (``string_view`` / ``binary_view``), which ``compat_level=newest`` exports as they are
    (the default level copies them into ``large_*`` arrays, which costs as much as hashing
    long values); ``hash_array`` reads views where they lie. A Polars without the level
    exports the copy."""
    if _NEWEST is not None:
        try:
            return series.to_arrow(compat_level=_NEWEST())
        except TypeError:  # pragma: no cover - a Polars without the keyword
            pass
    return series.to_arrow()  # pragma: no cover - the same Polars


def _row_digest_series(series: pl.Series, resolved: Hasher, hex: bool, encoding: str) -> pl.Series:
    if not isinstance(series.dtype, pl.Struct):
        raise TypeError(
            f"bk.hash_rows: expected Struct input (pl.struct(columns)), got {series.dtype}"
        )
    rows = series.to_arrow()
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    batch = pa.RecordBatch.from_struct_array(rows)
    digests = arrow_hash_rows(batch, None, resolved, hex=hex, encoding=encoding)
    if rows.null_count:
        # A null struct has no fields to encode: its digest is null, as a null value's is.
        digests = pa.compute.if_else(rows.is_valid(), digests, pa.scalar(None, digests.type))
    return _as_series(digests, series.name, hex)


def _check_encoding(encoding: object) -> str:
    if encoding not in ("tagged", "tuplehash"):
        raise ValueError(f"encoding must be 'tagged' or 'tuplehash', got {encoding!r}")
    return encoding


class _Methods:
    """The methods shared by the expression and the Series namespace."""

    def _apply(self, function: Callable[[pl.Series], pl.Series], dtype):  # pragma: no cover
        raise NotImplementedError

    def __getattr__(self, name: str):
        # Only for names that are not there: a typo (``.bk.sha256()``) hears what is.
        if name.startswith("_"):
            raise AttributeError(name)
        raise unknown_method(f"{NAMESPACE} (batchkeccak.polars)", name, ("hash", "hash_rows"))

    def hash(
        self,
        algorithm: str | Algorithm | Hasher = "sha3_256",
        *,
        hex: bool = False,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ):
        """Hash every value; nulls stay null.

        Parameters
        ----------
        algorithm
            A name from ``batchkeccak.algorithms`` or ``batchkeccak.modes``
            (``sha3_256``, ``keccak_256``, ``shake_128``, ``kmac_256``...), or a
            :class:`~batchkeccak.Hasher`.
        hex
            Lowercase hex strings (``String``) instead of raw digests (``Binary``).
        length
            Output bytes, for the functions whose output length is free (SHAKE, KMAC...).
        threads
            Hashing threads per batch; None uses every core.
        **params
            A mode's parameters (``key=``, ``customization=``...), as for
            :func:`batchkeccak.hasher`; one key for every row.

        Returns
        -------
        polars.Expr or polars.Series
            ``Binary`` digests (``String`` with ``hex=True``), one per value. Strings hash
            their UTF-8 bytes; Categorical and Enum values hash their strings, each distinct
            one once per batch.

        Raises
        ------
        TypeError
            The column is not String, Binary, Categorical or Enum (when the batch is
            hashed), or ``length`` is wrong for ``algorithm``.
        ValueError
            An unknown ``algorithm``; a list of keys.
        """
        resolved = _resolve(algorithm, length, threads, params)
        return self._apply(lambda s: _digest_series(s, resolved, bool(hex)), _output_dtype(hex))

    def hash_rows(
        self,
        algorithm: str | Algorithm | Hasher = "sha3_256",
        *,
        encoding: str = "tagged",
        hex: bool = False,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ):
        """One digest per row of a struct (``pl.struct(columns)``) over its fields, in order.

        Equal to :func:`batchkeccak.arrow.hash_rows` over the same columns of
        ``frame.to_arrow()``; ``encoding`` and the other parameters are as there and in
        :meth:`hash`. A row whose struct is null (not one made by ``pl.struct``) gives null.
        """
        resolved = _resolve(algorithm, length, threads, params)
        encoding = _check_encoding(encoding)
        return self._apply(
            lambda s: _row_digest_series(s, resolved, bool(hex), encoding), _output_dtype(hex)
        )


add_shortcuts(_Methods)


@pl.api.register_expr_namespace(NAMESPACE)
class HashExpr(_Methods):
    """``pl.col(...).bk``: each method returns an expression, one batch per call."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def _apply(self, function, dtype) -> pl.Expr:
        return self._expr.map_batches(function, return_dtype=dtype, is_elementwise=True)


@pl.api.register_series_namespace(NAMESPACE)
class HashSeries(_Methods):
    """``series.bk``: each method returns a Series, the whole Series in one call."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _apply(self, function, dtype) -> pl.Series:
        return function(self._series)
