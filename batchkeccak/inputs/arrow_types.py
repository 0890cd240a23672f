"""The one table of Arrow types: how each is laid out, encoded in a row, used as a key and
named in a table digest's header, and the one way a column is made plain.

Every reader of Arrow columns (``hash_array``, ``hash_many``, ``hash_rows`` and its row
encoding, the key encoder of ``table_digest`` / ``diff`` / ``segment_digests``, the logical
types of a digest's header and of ``diff``'s column check) looks a column's type up here, so
that a type is accepted, refused or encoded alike everywhere. Each :class:`ArrowType` row
says:

- ``layout``: how the values lie in memory: ``offsets`` (binary and string types, int32 or
  int64 offsets), ``view`` (``binary_view`` / ``string_view``: values in several buffers or
  inline), ``fixed_binary`` (``fixed_size_binary``), ``fixed`` (numbers and temporal types:
  little-endian values of the type's width), ``bits`` (booleans), ``none`` (the null type),
  ``nested`` (lists of every kind, structs and maps whose children all have rows here);
- ``values``: whether ``hash_array`` hashes its values (the binary-like types);
- ``row``: whether ``hash_rows`` encodes it (docs/arrow.md gives the encoding);
- ``key``: the key kind (``int``, ``uint``, ``bool``, ``temporal``, ``string``, ``binary``),
  or None for a type that makes no key (floats, decimals, the null type);
- ``logical``: the name a column of this type is compared and described by.

The rules around the rows, the same for every consumer:

- a dictionary is its value type; :func:`normalize` decodes it, and a null *entry* of the
  dictionary becomes a null row (Arrow's ``null_count`` counts only null indices), so nulls
  are read after decoding, never before;
- a view type encodes as its plain type; its values are hashed where they lie
  (``inputs.arrow_views``: ``hash_array``, ``hash_many`` and the Polars accessor), and
  :func:`normalize` with ``offsets=True`` casts it to the large type of the same values for
  the consumers that need offsets or select rows (pyarrow has no ``take`` or ``filter`` for
  views: the table diff, a dictionary of views);
- a timestamp with a time zone stores UTC instants, whatever the zone: its logical type is
  ``timestamp[unit, tz=UTC]`` for every zone (the zone is how the instants are shown), and a
  timestamp without one is ``timestamp[unit]``.

Nested types (``list``, ``large_list``, ``list_view``, ``large_list_view``,
``fixed_size_list``, ``struct``, ``map``) are rows when every child type is, to any depth:
they encode in a row (docs/arrow.md, "Nested values"), make no key and hash no values. Their
logical names are built from their children's: ``list<string>`` for every list kind (the
child field's name is the producer's, not the data's), ``struct<"city": string, "zip": int32>``
(each field name as a JSON string, ``json.dumps(name)``, so that no name can make two
structs read alike), ``map<string, string>``.

A type without a row here (unions, intervals, extension types, a nested type holding one)
is refused by each consumer with a TypeError naming the column and its type.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "ARROW_TYPES",
    "ArrowType",
    "key_kind",
    "logical_type",
    "normalize",
    "normalize_batch",
    "type_rule",
]


@dataclass(frozen=True)
class ArrowType:
    """One row of the table: a family of Arrow types and what every consumer does with it."""

    name: str
    matches: Callable[[pa.DataType], bool]
    layout: str
    """``offsets``, ``view``, ``fixed_binary``, ``fixed``, ``bits``, ``none`` or ``nested``."""
    values: bool
    """``hash_array`` hashes the values themselves."""
    row: bool
    """``hash_rows`` has an encoding for it."""
    key: str | None
    """The key kind, or None where the type makes no key."""
    logical: Callable[[pa.DataType], str]
    """The name a column of the type is compared and described by."""


def _own_name(arrow_type: pa.DataType) -> str:
    return str(arrow_type)


def _timestamp_name(arrow_type: pa.DataType) -> str:
    if arrow_type.tz is None:
        return f"timestamp[{arrow_type.unit}]"
    return f"timestamp[{arrow_type.unit}, tz=UTC]"


def _constant(name: str) -> Callable[[pa.DataType], str]:
    return lambda _: name


def _strings(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _binaries(t: pa.DataType) -> bool:
    return pa.types.is_binary(t) or pa.types.is_large_binary(t)


STRING, BINARY = _constant("string"), _constant("binary")


def _row_child(arrow_type: pa.DataType) -> bool:
    rule = type_rule(arrow_type)
    return rule is not None and rule.row


def _lists(t: pa.DataType) -> bool:
    list_like = (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_list_view(t)
        or pa.types.is_large_list_view(t)
        or pa.types.is_fixed_size_list(t)
    )
    return list_like and _row_child(t.value_type)


def _structs(t: pa.DataType) -> bool:
    return pa.types.is_struct(t) and all(_row_child(f.type) for f in t)


def _maps(t: pa.DataType) -> bool:
    return pa.types.is_map(t) and _row_child(t.key_type) and _row_child(t.item_type)


def _list_name(arrow_type: pa.DataType) -> str:
    # Every list kind, fixed-size ones too, holds the same values and encodes alike; the
    # child's field name (``item``, ``element``, ``l``) depends on the producer, not the data.
    return f"list<{logical_type(arrow_type.value_type)}>"


def _struct_name(arrow_type: pa.DataType) -> str:
    # Each field name as a JSON string, so that no name (one holding ``: ``, ``, ``, ``>`` or
    # a quote) can make two different structs read as one type.
    fields = ", ".join(
        f"{json.dumps(field.name)}: {logical_type(field.type)}" for field in arrow_type
    )
    return f"struct<{fields}>"


def _map_name(arrow_type: pa.DataType) -> str:
    return f"map<{logical_type(arrow_type.key_type)}, {logical_type(arrow_type.item_type)}>"


# fmt: off
ARROW_TYPES: tuple[ArrowType, ...] = (
    # name, matches, layout, values, row, key, logical
    ArrowType("null", pa.types.is_null, "none", False, True, None, _own_name),
    ArrowType("boolean", pa.types.is_boolean, "bits", False, True, "bool", _own_name),
    ArrowType("signed integer", pa.types.is_signed_integer, "fixed", False, True, "int",
              _own_name),
    ArrowType("unsigned integer", pa.types.is_unsigned_integer, "fixed", False, True, "uint",
              _own_name),
    ArrowType("floating point", pa.types.is_floating, "fixed", False, True, None, _own_name),
    ArrowType("decimal", pa.types.is_decimal, "fixed", False, True, None, _own_name),
    ArrowType("date", pa.types.is_date, "fixed", False, True, "temporal", _own_name),
    ArrowType("time", pa.types.is_time, "fixed", False, True, "temporal", _own_name),
    ArrowType("timestamp", pa.types.is_timestamp, "fixed", False, True, "temporal",
              _timestamp_name),
    ArrowType("duration", pa.types.is_duration, "fixed", False, True, "temporal", _own_name),
    ArrowType("string", _strings, "offsets", True, True, "string", STRING),
    ArrowType("string view", pa.types.is_string_view, "view", True, True, "string", STRING),
    ArrowType("binary", _binaries, "offsets", True, True, "binary", BINARY),
    ArrowType("binary view", pa.types.is_binary_view, "view", True, True, "binary", BINARY),
    ArrowType("fixed-size binary", pa.types.is_fixed_size_binary, "fixed_binary", True, True,
              "binary", BINARY),
    ArrowType("list", _lists, "nested", False, True, None, _list_name),
    ArrowType("struct", _structs, "nested", False, True, None, _struct_name),
    ArrowType("map", _maps, "nested", False, True, None, _map_name),
)
# fmt: on
"""Every Arrow type a consumer accepts, one row per family (see the module's description)."""


def type_rule(arrow_type: pa.DataType) -> ArrowType | None:
    """The table's row for ``arrow_type`` (a dictionary's value type), or None: no consumer
    accepts the type."""
    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
        if pa.types.is_dictionary(arrow_type):
            return None
    for rule in ARROW_TYPES:
        if rule.matches(arrow_type):
            return rule
    return None


def logical_type(arrow_type: pa.DataType) -> str:
    """The name a column is compared and described by: ``string`` for every string type,
    ``binary`` for every binary type (fixed-size ones too), a dictionary's value type,
    ``timestamp[unit, tz=UTC]`` for a timestamp in any time zone, ``timestamp[unit]`` for one
    without; else pyarrow's own name (``int64``, ``date32[day]``...). A type outside the
    table keeps pyarrow's name (the consumers refuse it)."""
    rule = type_rule(arrow_type)
    value_type = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    return _own_name(value_type) if rule is None else rule.logical(value_type)


def key_kind(arrow_type: pa.DataType) -> str | None:
    """What a key column of this type compares as: ``int``, ``uint``, ``bool``, ``string``,
    ``binary``, or a temporal type's logical name (two key columns compare when their kinds
    are equal); None for a type that makes no key."""
    rule = type_rule(arrow_type)
    if rule is None or rule.key is None:
        return None
    return logical_type(arrow_type) if rule.key == "temporal" else rule.key


_LARGE = {"string view": pa.large_string(), "binary view": pa.large_binary()}


def _without_views(arrow_type: pa.DataType) -> pa.DataType | None:
    """``arrow_type`` with every view type inside it, at any depth, as its large type (a list,
    fixed-size list, struct or map keeps its kind and field names; a dictionary its indices),
    or None where it holds no view type that pyarrow's ``take`` or ``filter`` would reach.

    List views (and what they hold) are left as they are: selecting their rows moves only
    offsets and sizes, never their values, and pyarrow casts no list view of views."""
    if pa.types.is_string_view(arrow_type):
        return pa.large_string()
    if pa.types.is_binary_view(arrow_type):
        return pa.large_binary()
    if pa.types.is_dictionary(arrow_type):
        value = _without_views(arrow_type.value_type)
        if value is None:
            return None
        return pa.dictionary(arrow_type.index_type, value, arrow_type.ordered)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        item = _without_views(arrow_type.value_type)
        if item is None:
            return None
        child = arrow_type.value_field.with_type(item)
        return pa.list_(child) if pa.types.is_list(arrow_type) else pa.large_list(child)
    if pa.types.is_fixed_size_list(arrow_type):
        item = _without_views(arrow_type.value_type)
        if item is None:
            return None
        return pa.list_(arrow_type.value_field.with_type(item), arrow_type.list_size)
    if pa.types.is_map(arrow_type):
        key = _without_views(arrow_type.key_type)
        value = _without_views(arrow_type.item_type)
        if key is None and value is None:
            return None
        return pa.map_(
            arrow_type.key_field.with_type(key or arrow_type.key_type),
            arrow_type.item_field.with_type(value or arrow_type.item_type),
            arrow_type.keys_sorted,
        )
    if pa.types.is_struct(arrow_type):
        fields = [(field, _without_views(field.type)) for field in arrow_type]
        if all(plain is None for _, plain in fields):
            return None
        return pa.struct(
            [field if plain is None else field.with_type(plain) for field, plain in fields]
        )
    return None


def normalize(array: pa.Array, *, offsets: bool = False) -> pa.Array:
    """``array`` (a pyarrow Array) as the plain column every consumer reads: a dictionary
    decoded, row by row, its null entries becoming null rows; with ``offsets=True``, a view
    type (``binary_view`` / ``string_view``, also as a dictionary's values) cast to the large
    type of the same values, whose ``take`` and ``filter`` exist, and so is a view at any depth
    of a list, struct or map (the nested type keeps its kind, with large children). Anything else is returned
    as it is. The values, and so every digest, are those of the column given."""
    arrow_type = array.type
    if pa.types.is_dictionary(arrow_type):
        dictionary = array.dictionary
        plain = _without_views(dictionary.type)
        if plain is not None:
            # pyarrow has no take for view types (nested ones too), which decoding uses.
            array = pa.DictionaryArray.from_arrays(array.indices, pc.cast(dictionary, plain))
        array = array.dictionary_decode()
    if offsets:
        plain = _without_views(array.type)
        if plain is not None:
            array = pc.cast(array, plain)
    return array


def normalize_batch(batch: pa.RecordBatch, *, offsets: bool = False) -> pa.RecordBatch:
    """Every column of a pyarrow RecordBatch through :func:`normalize` (names kept)."""
    old = batch.columns
    columns = [normalize(column, offsets=offsets) for column in old]
    if all(new.type == column.type for new, column in zip(columns, old)):
        return batch
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)
