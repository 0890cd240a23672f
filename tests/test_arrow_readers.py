"""Every public function that reads an Arrow column, on every layout of the same values.

A pyarrow column holding the same values can lie in memory many ways: a slice of a longer
column (its offsets and validity bitmap start mid-buffer, at a bit that is not a multiple
of 8), a ``ChunkedArray`` of uneven chunks (an empty one too), ``large_*`` types (int64
offsets), view types (values in several buffers or inline), a dictionary. Each function in
``READERS`` runs on every such layout and on the same values with nulls, and its result is
compared with an independent oracle (hashlib, pycryptodome's Keccak, eth_utils, py-trie, the
RFC 9162 reference model) on the plain Python values.

``test_every_arrow_reader_is_listed`` reads the package's source: a public function that
reads Arrow data (its docstring or annotations speak of Arrow, or it calls, directly or
through the package's own functions, something that reads an Arrow column's buffers) must be
in ``READERS`` or, with the reason it is not run here, in ``NOT_COLUMN_READERS``.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import eth_utils
import numpy as np
import pyarrow as pa
import pytest
import rlp
from trie import HexaryTrie

import batchkeccak as bk
from batchkeccak import arrow as bk_arrow
from batchkeccak import ethereum, merkle
from batchkeccak.inputs import arrow_buffers, to_flat
from batchkeccak.inputs import arrow_types as type_table

from merkle_reference import RFC9162Reference, keccak256

PACKAGE = Path(bk.__file__).parent


# -- the layouts ----------------------------------------------------------------------------


def arrow_types(kind: str) -> tuple[pa.DataType, pa.DataType, pa.DataType]:
    if kind == "string":
        return pa.string(), pa.large_string(), pa.string_view()
    return pa.binary(), pa.large_binary(), pa.binary_view()


def layouts(values: list, kind: str) -> dict[str, pa.Array | pa.ChunkedArray]:
    """The same values (None for a null) in every layout, by name."""
    plain, large, view = arrow_types(kind)
    count = len(values)
    pad = [values[0] if values[0] is not None else values[-1]] * 9  # rows outside the slice
    sliced = pa.array(pad + values + pad, plain)
    return {
        "plain": pa.array(values, plain),
        "offset 1": pa.array(pad[:1] + values, plain)[1:],
        "offset 9": sliced[9 : 9 + count],
        "chunked": pa.chunked_array(
            [
                sliced[9:10],
                pa.array([], plain),
                sliced[10 : 9 + count - 2],
                pa.array(values[-2:], plain),
            ],
            plain,
        ),
        "large offset 9": pa.array(pad + values, large)[9:],
        "view offset 9": pa.array(pad + values, view)[9:],
        "dictionary offset 9": sliced.dictionary_encode()[9 : 9 + count],
    }


def with_nulls(values: list) -> list:
    """``values`` with rows 0, 3 and the last but one null: a bitmap slice then starts and
    ends mid-byte."""
    return [None if i in (0, 3, len(values) - 2) else v for i, v in enumerate(values)]


# -- the readers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """One Arrow argument of one function: ``call(column)`` runs the function with
    ``column`` there, ``oracle(values)`` says what it must return for the Python values.

    ``nulls``: "keep" (a null row's result is None), "refuse" (ValueError), "slots" (null
    rows' results are whatever the producer left: only the others are compared).
    """

    call: Callable[[object], object]
    values: tuple
    kind: str
    oracle: Callable[[list], object]
    nulls: str
    forms: tuple[str, ...] | None = None  # None: every layout


def sha3(message: bytes) -> bytes:
    return hashlib.sha3_256(message).digest()


def result_rows(result: object) -> object:
    """A function's result as plain Python values."""
    if isinstance(result, (pa.Array, pa.ChunkedArray)):
        return result.to_pylist()
    if isinstance(result, np.ndarray):
        return [bytes(row) for row in result] if result.ndim == 2 else result.tolist()
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], np.ndarray):
        data, offsets = result  # (data, offsets)
        return [bytes(data[offsets[i] : offsets[i + 1]]) for i in range(len(offsets) - 1)]
    if isinstance(result, merkle.MerkleTree):
        return result.root
    return result


def each(function: Callable[[object], object]) -> Callable[[list], list]:
    return lambda values: [None if v is None else function(v) for v in values]


MESSAGES = (b"", b"a", b"abc" * 50, bytes(range(136)), b"q" * 137, b"z", b"\x00" * 7, b"end")
TEXTS = tuple(m.decode("latin-1") for m in MESSAGES)
ADDRESSES = tuple(bytes((7 * i + j) % 256 for j in range(20)) for i in range(8))
ADDRESS_HEX = tuple(
    ("0x" if i % 3 else "") + (a.hex().upper() if i % 2 else a.hex())
    for i, a in enumerate(ADDRESSES)
)
WORDS = tuple(bytes((11 * i + j) % 256 for j in range(32)) for i in range(8))
SIGNATURES = (
    "transfer(address,uint256)",
    "balanceOf(address)",
    "f()",
    "Transfer(address,address,uint256)",
    "approve(address,uint256)",
    "g(uint8[],bytes)",
    "caf\u00e9()",
    "h(string)",
)
TRIE_KEYS = (b"do", b"dog", b"doge", b"horse", b"h", b"\x00", b"dot" * 20, b"z")
TRIE_VALUES = (b"verb", b"puppy", b"coin" * 10, b"stallion", b"x", b"y" * 40, b"v", b"w")
CODE_HASH = keccak256(b"init code")
NONCES = [0, 1, 0x7F, 0x80, 0x100, 2**32, 5, 2**64 - 1]
BYTE_VALUES = [0, 1, 0x7F, 0x80, 0xFF, 2, 5, 9]


def trie_oracle(keys, values, secure=False) -> bytes:
    trie = HexaryTrie({})
    for key, value in zip(keys, values):
        trie[keccak256(key) if secure else key] = value
    return trie.root_hash


def ordered_oracle(values) -> bytes:
    return trie_oracle([rlp.encode(i) for i in range(len(values))], values)


def proofs_of(queries) -> list:
    return ethereum.trie_proofs(list(TRIE_KEYS), list(TRIE_VALUES), queries)


def tagged_row(value) -> bytes:
    """The one-column row encoding of ``hash_rows`` (docs/arrow.md), written out here."""
    if value is None:
        return sha3(b"\x00")
    raw = value.encode() if isinstance(value, str) else value
    return sha3(b"\x01" + len(raw).to_bytes(8, "little") + raw)


def oz_root(leaves) -> bytes:
    """The OpenZeppelin simple tree's root from merkle_reference's model."""
    from merkle_reference import oz_tree

    return oz_tree(list(leaves))[0][0]


def abi_encode(types: list[str], row: list) -> bytes:
    from eth_abi import encode

    return encode(types, row)


def standard_leaf_root(values) -> bytes:
    from merkle_reference import oz_tree

    return oz_tree([keccak256(keccak256(abi_encode(["bytes"], [v]))) for v in values])[0][0]


def pandas_series(column):
    import pandas as pd

    import batchkeccak.pandas  # noqa: F401 - registers the accessor

    return pd.Series(pd.arrays.ArrowExtensionArray(column))


def missing_as_none(series) -> list:
    return [None if value is __import__("pandas").NA else value for value in series.tolist()]


def polars_series(column):
    import polars as pl

    import batchkeccak.polars  # noqa: F401 - registers the namespace

    return pl.Series("v", column)


PLAIN_FORMS = ("plain", "offset 1", "offset 9", "large offset 9")
ARRAY_FORMS = (*PLAIN_FORMS, "view offset 9", "dictionary offset 9")
HASHER = bk.hasher("sha3_256")

READERS: dict[str, tuple[Reader, ...]] = {
    "batchkeccak.api.hash_many": (
        Reader(lambda c: bk.hash_many(c, "sha3_256"), MESSAGES, "binary", each(sha3), "refuse"),
        Reader(
            lambda c: bk.hash_many(c, "sha3_256"),
            TEXTS,
            "string",
            each(lambda t: sha3(t.encode())),
            "refuse",
        ),
    ),
    "batchkeccak.api.hexdigest_many": (
        Reader(
            lambda c: bk.hexdigest_many(c, "sha3_256"),
            MESSAGES,
            "binary",
            each(lambda m: sha3(m).hex()),
            "refuse",
        ),
    ),
    "batchkeccak.inputs.to_flat": (Reader(to_flat, MESSAGES, "binary", list, "refuse"),),
    "batchkeccak.inputs.arrow_buffers.binary_buffers": (
        Reader(arrow_buffers.binary_buffers, MESSAGES, "binary", list, "refuse"),
    ),
    "batchkeccak.inputs.arrow_buffers.value_buffers": (
        Reader(
            lambda c: arrow_buffers.value_buffers(c, "values"),
            MESSAGES,
            "binary",
            list,
            "slots",
            forms=(*PLAIN_FORMS, "view offset 9"),
        ),
    ),
    "batchkeccak.inputs.arrow_types.normalize": (
        Reader(
            type_table.normalize,
            TEXTS,
            "string",
            list,
            "keep",
            forms=("dictionary offset 9", "view offset 9"),
        ),
        Reader(
            lambda c: type_table.normalize(c, offsets=True),
            TEXTS,
            "string",
            list,
            "keep",
            forms=("dictionary offset 9", "view offset 9", "offset 9"),
        ),
    ),
    "batchkeccak.inputs.arrow_types.normalize_batch": (
        Reader(
            lambda c: type_table.normalize_batch(
                pa.record_batch([c], names=["v"]), offsets=True
            ).column(0),
            TEXTS,
            "string",
            list,
            "keep",
            forms=("dictionary offset 9", "view offset 9", "offset 9"),
        ),
    ),
    "batchkeccak.arrow.hash_array": (
        Reader(
            lambda c: bk_arrow.hash_array(c, "sha3_256"), MESSAGES, "binary", each(sha3), "keep"
        ),
        Reader(
            lambda c: bk_arrow.hash_array(c, "sha3_256", hex=True),
            TEXTS,
            "string",
            each(lambda t: sha3(t.encode()).hex()),
            "keep",
        ),
    ),
    "batchkeccak.arrow.hash_chunk": (
        Reader(
            lambda c: bk_arrow.hash_chunk(c, HASHER, False, "values"),
            MESSAGES,
            "binary",
            each(sha3),
            "keep",
            forms=ARRAY_FORMS,
        ),
    ),
    "batchkeccak.arrow.hash_in_place": (
        Reader(
            lambda c: bk_arrow.hash_in_place(c, HASHER.one_call(), 32, False),
            MESSAGES,
            "binary",
            each(sha3),
            "keep",
            forms=PLAIN_FORMS,
        ),
    ),
    "batchkeccak.arrow.hash_rows": (
        Reader(
            lambda c: bk_arrow.hash_rows(pa.table({"v": c})),
            MESSAGES,
            "binary",
            lambda values: [tagged_row(v) for v in values],
            "keep",
        ),
        Reader(
            lambda c: bk_arrow.hash_rows(pa.table({"v": c})),
            TEXTS,
            "string",
            lambda values: [tagged_row(v) for v in values],
            "keep",
        ),
    ),
    "batchkeccak.pandas.HashSeriesAccessor.hash": (
        Reader(
            lambda c: missing_as_none(pandas_series(c).bk.sha3_256()),
            MESSAGES,
            "binary",
            each(sha3),
            "keep",
        ),
    ),
    "batchkeccak.pandas.HashFrameAccessor.hash_rows": (
        Reader(
            lambda c: missing_as_none(
                __import__("pandas").DataFrame({"v": pandas_series(c)}).bk.hash_rows()
            ),
            TEXTS,
            "string",
            lambda values: [tagged_row(v) for v in values],
            "keep",
        ),
    ),
    "batchkeccak.polars.HashSeries.hash": (
        Reader(
            lambda c: polars_series(c).bk.sha3_256().to_list(),
            MESSAGES,
            "binary",
            each(sha3),
            "keep",
            forms=(*PLAIN_FORMS, "chunked", "view offset 9"),
        ),
    ),
    "batchkeccak.ethereum.columns.checksum_addresses": (
        Reader(
            ethereum.checksum_addresses,
            ADDRESS_HEX,
            "string",
            each(eth_utils.to_checksum_address),
            "keep",
        ),
        Reader(
            ethereum.checksum_addresses,
            ADDRESSES,
            "binary",
            each(eth_utils.to_checksum_address),
            "keep",
        ),
    ),
    "batchkeccak.ethereum.columns.selectors": (
        Reader(
            ethereum.selectors,
            SIGNATURES,
            "string",
            each(eth_utils.function_signature_to_4byte_selector),
            "refuse",
        ),
        Reader(
            ethereum.selectors,
            tuple(s.encode() for s in SIGNATURES),
            "binary",
            each(lambda s: eth_utils.function_signature_to_4byte_selector(s.decode())),
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.columns.event_topics": (
        Reader(
            ethereum.event_topics,
            SIGNATURES,
            "string",
            each(eth_utils.event_signature_to_log_topic),
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.columns.create2_addresses": (
        Reader(
            lambda c: ethereum.create2_addresses(ADDRESSES[0], c, CODE_HASH),
            WORDS,
            "binary",
            each(lambda s: keccak256(b"\xff" + ADDRESSES[0] + s + CODE_HASH)[12:]),
            "refuse",
        ),
        Reader(
            lambda c: ethereum.create2_addresses(c, list(WORDS), CODE_HASH),
            ADDRESS_HEX,
            "string",
            lambda values: [
                keccak256(b"\xff" + eth_utils.to_bytes(hexstr=a) + s + CODE_HASH)[12:]
                for a, s in zip(values, WORDS)
            ],
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.columns.contract_addresses": (
        Reader(
            lambda c: ethereum.contract_addresses(c, NONCES),
            ADDRESS_HEX,
            "string",
            lambda values: [
                keccak256(rlp.encode([eth_utils.to_bytes(hexstr=a), n]))[12:]
                for a, n in zip(values, NONCES)
            ],
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.columns.mapping_slots": (
        Reader(
            lambda c: ethereum.mapping_slots(c, 3),
            WORDS,
            "binary",
            each(lambda k: keccak256(k + (3).to_bytes(32, "big"))),
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.patricia.trie_root": (
        Reader(
            lambda c: ethereum.trie_root(c, list(TRIE_VALUES)),
            TRIE_KEYS,
            "binary",
            lambda keys: trie_oracle(keys, TRIE_VALUES),
            "refuse",
        ),
        Reader(
            lambda c: ethereum.trie_root(list(TRIE_KEYS), c, secure=True),
            TRIE_VALUES,
            "binary",
            lambda values: trie_oracle(TRIE_KEYS, values, secure=True),
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.patricia.trie_roots": (
        Reader(
            lambda c: ethereum.trie_roots(c, list(TRIE_VALUES), [0, 3, 8]),
            TRIE_KEYS,
            "binary",
            lambda keys: [
                trie_oracle(keys[:3], TRIE_VALUES[:3]),
                trie_oracle(keys[3:], TRIE_VALUES[3:]),
            ],
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.patricia.ordered_trie_root": (
        Reader(ethereum.ordered_trie_root, TRIE_VALUES, "binary", ordered_oracle, "refuse"),
    ),
    "batchkeccak.ethereum.patricia.ordered_trie_roots": (
        Reader(
            lambda c: ethereum.ordered_trie_roots(c, [0, 5, 8]),
            TRIE_VALUES,
            "binary",
            lambda v: [ordered_oracle(v[:5]), ordered_oracle(v[5:])],
            "refuse",
        ),
    ),
    "batchkeccak.ethereum.patricia.trie_proofs": (
        Reader(proofs_of, TRIE_KEYS[::-1], "binary", lambda keys: proofs_of(list(keys)), "refuse"),
    ),
    "batchkeccak.ethereum.patricia.verify_trie_proofs": (
        Reader(
            lambda c: ethereum.verify_trie_proofs(
                trie_oracle(TRIE_KEYS, TRIE_VALUES), c, proofs_of(list(TRIE_KEYS))
            ),
            TRIE_KEYS,
            "binary",
            lambda keys: list(TRIE_VALUES),
            "refuse",
        ),
    ),
    "batchkeccak.merkle.schemes.merkle_root": (
        Reader(
            lambda c: merkle.merkle_root(c, scheme="rfc9162"),
            MESSAGES,
            "binary",
            lambda values: RFC9162Reference(list(values)).root(),
            "refuse",
        ),
        Reader(
            lambda c: merkle.merkle_root(c, scheme="openzeppelin"),
            WORDS,
            "binary",
            oz_root,
            "refuse",
        ),
        Reader(
            lambda c: merkle.merkle_root(c, scheme="openzeppelin"),
            tuple("0x" + w.hex() for w in WORDS),
            "string",
            lambda values: oz_root(bytes.fromhex(v[2:]) for v in values),
            "refuse",
        ),
        Reader(
            lambda c: merkle.merkle_root(
                pa.table({"v": c}), scheme="openzeppelin", types=["bytes"]
            ),
            MESSAGES,
            "binary",
            standard_leaf_root,
            "refuse",
        ),
    ),
    "batchkeccak.merkle.base.MerkleTree.build": (
        Reader(
            lambda c: merkle.MerkleTree.build(c, scheme="rfc9162"),
            MESSAGES,
            "binary",
            lambda values: RFC9162Reference(list(values)).root(),
            "refuse",
        ),
        Reader(
            lambda c: merkle.MerkleTree.build(c, scheme="openzeppelin"),
            WORDS,
            "binary",
            oz_root,
            "refuse",
        ),
    ),
    "batchkeccak.merkle.rfc9162.leaf_hashes": (
        Reader(
            lambda c: merkle.rfc9162.leaf_hashes(c, HASHER),
            MESSAGES,
            "binary",
            each(lambda m: sha3(b"\x00" + m)),
            "refuse",
        ),
    ),
    "batchkeccak.merkle.abi.encode_rows": (
        Reader(
            lambda c: merkle.abi.encode_rows(
                ["bytes", "uint8"], pa.table({"b": c, "n": pa.array(BYTE_VALUES)})
            ),
            MESSAGES,
            "binary",
            lambda values: [
                abi_encode(["bytes", "uint8"], [v, n]) for v, n in zip(values, BYTE_VALUES)
            ],
            "refuse",
        ),
        Reader(
            lambda c: merkle.abi.encode_rows(["string"], pa.table({"s": c})),
            TEXTS,
            "string",
            each(lambda t: abi_encode(["string"], [t])),
            "refuse",
        ),
    ),
}
"""Qualified name -> how each of its Arrow arguments is run on every layout."""

NOT_COLUMN_READERS = {
    "batchkeccak.api.warmup": "compiles the kernels; takes no data",
    "batchkeccak.arrow.register": "registers compute functions; hash_array runs them",
    "batchkeccak.duckdb.register": "registers SQL functions; test_duckdb.py runs them",
    "batchkeccak.spark.register": "registers SQL functions; test_spark.py runs them",
    "batchkeccak.dask.hash_column": "a Dask DataFrame: each partition through hash_array",
    "batchkeccak.spark.hash_column": "a Spark DataFrame: each batch through hash_array",
    "batchkeccak.spark.hash_rows": "a Spark DataFrame: each batch through arrow.hash_rows",
    "batchkeccak.ray.hash_column": "a Ray Dataset: each batch through hash_array",
    "batchkeccak.ray.hash_rows": "a Ray Dataset: each batch through arrow.hash_rows",
    "batchkeccak.parquet.hash_file": "a Parquet file: each batch through hash_array",
    "batchkeccak.core.hashers.Hasher.hash_one": "one message",
    "batchkeccak.core.hashers.Hasher.one_call": "flat numpy arrays (Arrow's layout); hash_in_place",
    "batchkeccak.sponge.run_jobs": "flat numpy arrays (Arrow's layout), not an Arrow array",
    "batchkeccak.sponge.hash_offsets": "flat numpy arrays (Arrow's layout), not an Arrow array",
    "batchkeccak.core.stored_states.StoredStates.run": "flat numpy arrays of stored states",
    "batchkeccak.inputs.flat.check_flat": "flat numpy arrays; the Arrow readers' last check",
    "batchkeccak.inputs.sequences.unencodable_text": "Python str items (the error path of a "
    "text column's conversion); hashes nothing",
    "batchkeccak.inputs.arrow_views.view_places": "view arrays only (value_buffers and "
    "hash_array take every layout): tests/test_arrow_views.py runs them on every view layout",
    "batchkeccak.inputs.arrow_views.view_spans": "view arrays only, as view_places",
    "batchkeccak.inputs.arrow_views.view_flat": "view arrays only, as view_places",
    "batchkeccak.inputs.arrow_views.ViewValues.run_batches": "a method of the view arrays "
    "ViewValues reads (view arrays only, as view_places)",
    "batchkeccak.inputs.arrow_views.fixed_as_views": "digests (fixed_size_binary) the "
    "Polars accessor returns, not a column it reads: tests/test_arrow_views.py",
    "batchkeccak.inputs.flat.readonly": "a numpy array",
    "batchkeccak.inputs.flat.rows_to_flat": "a 2-D numpy array",
    "batchkeccak.inputs.sequences.sequence_to_flat": "a Python sequence (to_flat's other form)",
    "batchkeccak.inputs.sequences.sequence_to_flat_equal": "a Python sequence, as sequence_to_flat",
    "batchkeccak.inputs.sequences.single_message": "one message",
    "batchkeccak.merkle.abi.Rows.columns": "a method of the rows encode_rows reads",
    "batchkeccak.merkle.abi.Rows.python_rows": "a method of the rows encode_rows reads",
    "batchkeccak.merkle.abi.Rows.row": "a method of the rows encode_rows reads",
    "batchkeccak.merkle.abi.encode_static_columns": "encode_rows' column step, run by it",
    "batchkeccak.merkle.openzeppelin.OpenZeppelinTree.build": "MerkleTree.build's scheme",
    "batchkeccak.merkle.rfc9162.RFC9162Tree.build": "MerkleTree.build's scheme",
    "batchkeccak.merkle.openzeppelin.merkle_root": "merkle.merkle_root's scheme",
    "batchkeccak.merkle.rfc9162.merkle_root": "merkle.merkle_root's scheme",
    "batchkeccak.merkle.openzeppelin.verify_many": "leaves as MerkleTree.build reads them",
    "batchkeccak.inputs.arrow_producers.arrow_column": "hash_array's and hash_many's import "
    "of a producer; tests/test_arrow_producers.py runs it on every producer",
    "batchkeccak.inputs.arrow_producers.arrow_table": "hash_rows' import of a producer; "
    "tests/test_arrow_producers.py runs it on every producer",
    "batchkeccak.inputs.exports_arrow": "says whether a value exports Arrow; reads no data",
    "batchkeccak.inputs.arrow_types.key_kind": "an Arrow type, not a column; "
    "tests/test_arrow_type_matrix.py runs every type through the key encoder",
    "batchkeccak.inputs.arrow_types.logical_type": "an Arrow type, not a column; "
    "tests/test_arrow_type_matrix.py runs every type through the digest header",
    "batchkeccak.arrow.compute_expression": "builds a dataset expression from a column name; "
    "tests/test_arrow_compute_expression.py runs it on every string and binary type",
    "batchkeccak.core.hashers.hash_places": "the places of a list's bytes items, not an Arrow "
    "array; tests/test_input_boundary.py runs it",
    "batchkeccak.derived.mode_hashers.hash_leaves": "flat numpy arrays of tree leaves (the tree "
    "modes' queue), not an Arrow array",
    "batchkeccak.inputs.arrow_producers.exported": "opens a producer's capsules; "
    "tests/test_arrow_producers.py runs it on every producer",
    "batchkeccak.inputs.arrow_producers.exported_stream": "opens a producer's stream; "
    "tests/test_arrow_producers.py runs it on every producer",
    "batchkeccak.inputs.arrow_producers.release": "closes what a producer exported; "
    "tests/test_arrow_producers.py and tests/test_tables_streams.py check it",
    "batchkeccak.merkle.openzeppelin.OpenZeppelinTree.root_only": "merkle.merkle_root's scheme",
    "batchkeccak.merkle.rfc9162.RFC9162Tree.root_only": "merkle.merkle_root's scheme",
    "batchkeccak.support.output.arrow_sink": "an output file for pyarrow's writers; reads no "
    "Arrow data",
}
"""Public functions the source scan finds that are not run on Arrow layouts here, and why."""


def forms_of(reader: Reader) -> tuple[str, ...]:
    return reader.forms or tuple(layouts(list(reader.values), reader.kind))


def cases(forms: tuple[str, ...] | None = None) -> list:
    return [
        pytest.param(name, k, form, id=f"{name.removeprefix('batchkeccak.')}[{k}]-{form}")
        for name, readers in READERS.items()
        for k, reader in enumerate(readers)
        for form in forms_of(reader)
        if forms is None or form in forms or len(forms_of(reader)) == 1
    ]


ORACLE_ROWS: dict[tuple[str, int], list] = {}
"""Each reader's oracle result over its values, computed once for all its layouts (the
trie oracles are pure Python and take seconds)."""


@pytest.mark.parametrize(("name", "k", "form"), cases())
def test_every_layout_gives_the_oracles_result(name, k, form):
    reader = READERS[name][k]
    values = list(reader.values)
    got = result_rows(reader.call(layouts(values, reader.kind)[form]))
    if (name, k) not in ORACLE_ROWS:
        ORACLE_ROWS[name, k] = result_rows(reader.oracle(values))
    assert got == ORACLE_ROWS[name, k]


@pytest.mark.parametrize(
    ("name", "k", "form"), cases(("offset 9", "chunked", "view offset 9", "dictionary offset 9"))
)
def test_nulls_in_every_layout(name, k, form):
    """Nulls at rows 0, 3 and the last but one: in a column sliced at 9, the validity bitmap
    starts at bit 1 of its second byte."""
    reader = READERS[name][k]
    values = with_nulls(list(reader.values))
    column = layouts(values, reader.kind)[form]
    if reader.nulls == "refuse":
        with pytest.raises(ValueError, match="null"):
            reader.call(column)
        return
    got = result_rows(reader.call(column))
    if reader.nulls == "slots":
        got = [g for g, v in zip(got, values) if v is not None]
        values = [v for v in values if v is not None]
    assert got == result_rows(reader.oracle(values))


# -- the list is complete -------------------------------------------------------------------


ARROW_WORDS = re.compile(
    r"\bArrow\b|pyarrow|hash_many``? takes|\bpa\.(Array|ChunkedArray|Table|RecordBatch)"
)
ARROW_ATTRIBUTES = {
    "buffers",
    "chunks",
    "num_chunks",
    "null_count",
    "dictionary_decode",
    "combine_chunks",
    "to_pylist",
}


def module_functions(path: Path):
    """``(module, {name: node}, {local name: imported qualified name}, exported names)``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported, exported, functions = {}, None, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("batchkeccak"):
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            exported = set(ast.literal_eval(node.value))
        elif isinstance(node, ast.FunctionDef):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    functions[f"{node.name}.{item.name}"] = item
    return module, functions, imported, exported


def arrow_functions() -> set[str]:
    """The public functions that read Arrow data, as the source says: by their docstring or
    annotations, by touching an Arrow array's buffers or chunks, or by calling (through the
    package's own functions) one that does. The command line and the benchmarks are not an
    API."""
    reads, calls, public = set(), {}, set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).parts
        if relative[0] in ("cli", "benchmark"):
            continue
        private = any(p.startswith("_") and p != "__init__.py" for p in relative)
        module, functions, imported, exported = module_functions(path)
        for name, node in functions.items():
            qualified = f"{module}.{name}"
            text = (ast.get_docstring(node) or "") + " ".join(
                ast.unparse(a.annotation)
                for a in node.args.args + node.args.kwonlyargs
                if a.annotation
            )
            attributes = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if ARROW_WORDS.search(text) or attributes & ARROW_ATTRIBUTES:
                reads.add(qualified)
            called = {
                n.func.id
                for n in ast.walk(node)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
            calls[qualified] = {imported.get(c, f"{module}.{c}") for c in called}
            top, last = name.split(".")[0], name.split(".")[-1]
            if (
                not private
                and not last.startswith("_")
                and (top in exported if exported is not None else not top.startswith("_"))
            ):
                public.add(qualified)
    grown = True
    while grown:
        grown = False
        for qualified, called in calls.items():
            if qualified not in reads and called & reads:
                reads.add(qualified)
                grown = True
    return reads & public


NOT_COLUMN_READER_PACKAGES = {
    # Whole packages whose functions read tables, not one column, with where they are run
    # on every layout instead.
    "batchkeccak.tables.": "whole tables: tests/test_tables.py checks each digest equal "
    "across row orders, row groups, file splits, chunking and producers",
}


def test_every_arrow_reader_is_listed():
    unlisted = {
        name
        for name in arrow_functions() - set(READERS) - set(NOT_COLUMN_READERS)
        if not name.startswith(tuple(NOT_COLUMN_READER_PACKAGES))
    }
    assert not unlisted, (
        f"{sorted(unlisted)} read Arrow data: add them to READERS in {__name__} (or, if they "
        "take no Arrow column, to NOT_COLUMN_READERS with the reason)"
    )


def resolve(name: str) -> object:
    """The function a qualified name names: the longest importable module, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            target = getattr(target, attribute)
        return target
    raise AssertionError(name)


def test_the_lists_name_real_functions():
    for name in (*READERS, *NOT_COLUMN_READERS):
        assert callable(resolve(name)), name


def test_the_scan_finds_a_new_reader(tmp_path, monkeypatch):
    """A public function added with an Arrow argument is reported."""
    package = tmp_path / "batchkeccak"
    (package / "ethereum").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ethereum" / "__init__.py").write_text("")
    (package / "ethereum" / "more.py").write_text(
        "from batchkeccak.inputs import to_flat\n\n"
        "def helper(values):\n    return to_flat(values)\n\n"
        "def block_hashes(headers):\n    '''Any form.'''\n    return helper(headers)\n"
    )
    (package / "inputs.py").write_text(
        "def to_flat(messages):\n    '''Or a pyarrow binary array.'''\n"
    )
    monkeypatch.setitem(globals(), "PACKAGE", package)
    assert arrow_functions() == {
        "batchkeccak.ethereum.more.block_hashes",
        "batchkeccak.ethereum.more.helper",
        "batchkeccak.inputs.to_flat",
    }
