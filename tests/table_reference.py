"""A plain model of table digests, diffs and segment digests: Python values, hashlib and the
rules of docs/tables.md, sharing no code with batchkeccak.tables.

Tables are ``{column: [values]}`` dicts with a ``{column: type}`` dict of types among
``int8 .. int64``, ``uint8 .. uint64``, ``float64``, ``bool``, ``string``, ``binary``.
"""

from __future__ import annotations

import hashlib
import json
import struct

WIDTHS = {"int8": 1, "int16": 2, "int32": 4, "int64": 8,
          "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8}  # fmt: skip


def field_bytes(value, type_name: str) -> bytes:
    """A present value's bytes, as hash_rows encodes them."""
    if type_name in WIDTHS:
        return value.to_bytes(WIDTHS[type_name], "little", signed=type_name.startswith("int"))
    if type_name == "float64":
        return struct.pack("<d", value)
    if type_name == "bool":
        return b"\x01" if value else b"\x00"
    if type_name == "string":
        return value.encode("utf-8")
    if type_name == "binary":
        return bytes(value)
    raise ValueError(type_name)


def row_encoding(row: dict, types: dict, columns: list[str]) -> bytes:
    out = b""
    for name in columns:
        value = row[name]
        if value is None:
            out += b"\x00"
        else:
            data = field_bytes(value, types[name])
            out += b"\x01" + len(data).to_bytes(8, "little") + data
    return out


def sha3(data: bytes) -> bytes:
    return hashlib.sha3_256(data).digest()


def mth_of_leaves(leaves: list[bytes]) -> bytes:
    """RFC 9162 MTH, given the leaf hashes."""
    if not leaves:
        return sha3(b"")
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return sha3(b"\x01" + mth_of_leaves(leaves[:k]) + mth_of_leaves(leaves[k:]))


def rows_of(table: dict) -> list[dict]:
    names = list(table)
    count = len(table[names[0]]) if names else 0
    return [{name: table[name][i] for name in names} for i in range(count)]


def key_of(row: dict, key: list[str]):
    return tuple(row[name].encode() if isinstance(row[name], str) else row[name] for name in key)


def leaf(row: dict, types: dict, columns: list[str]) -> bytes:
    return sha3(b"\x00" + row_encoding(row, types, columns))


def logical(type_name: str) -> str:
    return "bool" if type_name == "bool" else "double" if type_name == "float64" else type_name


def table_digest(
    table: dict, types: dict, key: list[str] | None = None, columns: list[str] | None = None
) -> tuple[bytes, bytes]:
    """(digest, root) as docs/tables.md defines them."""
    covered = sorted(set(columns or table) | set(key or ()))
    rows = rows_of(table)
    if key is None:
        leaves = sorted(leaf(row, types, covered) for row in rows)
    else:
        rows.sort(key=lambda row: key_of(row, key))
        leaves = [leaf(row, types, covered) for row in rows]
    root = mth_of_leaves(leaves)
    header = json.dumps(
        {
            "algorithm": "sha3_256",
            "columns": [[name, logical(types[name])] for name in covered],
            "format": "batchkeccak-table-v1",
            "key": key,
            "order": "digest" if key is None else "key",
            "rows": len(rows),
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return sha3(header + b"\n" + root), root


def diff(a: dict, b: dict, types: dict, key: list[str]) -> list[tuple]:
    """``(key tuple, change, sorted changed columns or None)`` in key order."""
    covered = sorted(a)
    rows_a = {key_of(row, key): row for row in rows_of(a)}
    rows_b = {key_of(row, key): row for row in rows_of(b)}

    def changed(row_a: dict, row_b: dict) -> list[str]:
        return [
            name
            for name in covered
            if name not in key
            and row_encoding(row_a, types, [name]) != row_encoding(row_b, types, [name])
        ]

    return changes(rows_a, rows_b, changed)


def changes(rows_a: dict, rows_b: dict, changed) -> list[tuple]:
    """``(key, change, changed columns or None)`` in key order, of two ``{key: row}`` dicts:
    a row only in ``rows_b`` is added, one only in ``rows_a`` removed, and a row in both is
    changed where ``changed(row_a, row_b)`` names columns."""
    out = []
    for k in sorted(set(rows_a) | set(rows_b)):
        if k not in rows_a:
            out.append((k, "added", None))
        elif k not in rows_b:
            out.append((k, "removed", None))
        else:
            columns = changed(rows_a[k], rows_b[k])
            if columns:
                out.append((k, "changed", columns))
    return out
