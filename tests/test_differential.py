"""Every row of the tables through every entry point, on every backend policy, against the
oracles.

The cases are generated: each row of ``batchkeccak.algorithms`` (plain) and of
``batchkeccak.modes`` (with its family's parameters, below) meets each entry point in
:data:`ENTRY_POINTS` that can express it, under each backend policy of ``conftest.py``
(forced kernels, forced one-shot, the default policy with the kernels unloaded and loaded).
Each case hashes messages of the lengths that matter (0, 1, rate - 1, rate, rate + 1,
2 * rate, and 8191-8193 for the tree modes) in batches of 1, 2, 3 and a tile and more, and
compares every digest with an implementation batchkeccak shares no code with: hashlib,
pycryptodome, Python's hmac, or the SP 800-185 / RFC 9861 reference model over
pycryptodome (``tests/sp800_185_reference.py``).

A row added to a table is covered here without editing this file; a public entry point added
to the package is reported by ``test_every_entry_point_is_listed`` until it is listed in
:data:`ENTRY_POINTS` (or, with the reason, in :data:`COVERED_ELSEWHERE`).
"""

from __future__ import annotations

import hmac
import inspect
import io
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sp800_185_reference as ref

import batchkeccak as bk
from batchkeccak.permutation.constants import TILE_WIDTH

from oracles import ORACLES, RATES
from patterns import cyclic_bytes

KEY = bytes(range(1, 41))
OUTPUT_LENGTH = 40  # an XOF's output: longer than any fixed digest, shorter than a block

FAMILY_PARAMS: dict[str, dict[str, object]] = {
    # Each mode family's parameters for these cases: every parameter a non-default value.
    "cshake": {"customization": b"Email Signature", "function_name": b"F"},
    "kmac": {"key": KEY, "customization": b"My Tagged Application"},
    "hmac": {"key": KEY},
    "tuplehash": {"customization": b"C"},
    "parallelhash": {"block_size": 64, "customization": b"P"},
    "kangarootwelve": {"customization": b"K"},
    "turboshake": {"domain": 0x0B},
}

TREE_FAMILIES = ("kangarootwelve", "parallelhash")

QUICK_RUN_POLICIES = ("kernels",)
"""The quick run (``pytest -m "not slow"``) takes these cases on forced kernels only: the
one-shot backends meet the oracles there through every other module's default-cold cases,
and the whole suite runs all four policies here."""


def _bits(sponge: str) -> int:
    return 128 if sponge.endswith("128") else 256


def _hmac_name(sponge: str) -> str:
    return sponge.replace("_", "-").replace("sha3-", "sha3_")


@dataclass(frozen=True)
class Case:
    """One row of a table with the parameters it is hashed with here."""

    name: str
    params: dict[str, object] = field(default_factory=dict)
    family: str | None = None  # None: a plain row
    sponge: str = ""
    length: int | None = None  # the ``length`` argument (None for fixed-size outputs)

    @property
    def label(self) -> str:
        return self.name if self.family is None else f"{self.name}[mode]"

    @property
    def rate(self) -> int:
        return RATES[self.sponge]

    def oracle(self, message: bytes, params: dict[str, object] | None = None) -> bytes:
        """The digest of ``message`` by an implementation batchkeccak shares no code with."""
        p = self.params if params is None else params
        n = self.length
        if self.family is None:
            return ORACLES[self.name][1](message, n)
        bits = _bits(self.sponge)
        xof = bk.modes[self.name].xof
        custom = p.get("customization", b"")
        if self.family == "cshake":
            return ref.cshake(bits, message, n, p.get("function_name", b""), custom)
        if self.family == "kmac":
            return ref.kmac(bits, p["key"], message, n, custom, xof)
        if self.family == "hmac":
            return hmac.new(p["key"], message, self.sponge).digest()
        if self.family == "tuplehash":  # a message is a tuple of one string
            return ref.tuplehash(bits, [message], n, custom, xof)
        if self.family == "parallelhash":
            return ref.parallelhash(bits, message, p["block_size"], n, custom, xof)
        if self.family == "kangarootwelve":
            return ref.kangarootwelve(bits, message, custom, n)
        if self.family == "turboshake":
            return ref.turboshake(bits, message, p.get("domain", 0x1F), n)
        raise AssertionError(f"no reference for the family {self.family!r}")

    def message_lengths(self) -> list[int]:
        rate = self.rate
        lengths = {0, 1, rate - 1, rate, rate + 1, 2 * rate}
        if self.family in TREE_FAMILIES:
            lengths |= {8191, 8192, 8193}
        if self.family == "parallelhash":
            block = self.params["block_size"]
            lengths |= {block - 1, block, block + 1, 3 * block}
        return sorted(lengths)


def all_cases() -> list[Case]:
    cases = [
        Case(name, {}, None, name, OUTPUT_LENGTH if spec.xof else None)
        for name, spec in bk.algorithms.items()
    ]
    for name, mode in bk.modes.items():
        cases.append(
            Case(
                name,
                dict(FAMILY_PARAMS[mode.family]),
                mode.family,
                mode.sponge,
                None if mode.fixed_length else OUTPUT_LENGTH,
            )
        )
    return cases


CASES = all_cases()


def message(length: int, seed: int) -> bytes:
    return cyclic_bytes(length, seed * 7)


def batches(case: Case) -> list[list[bytes]]:
    """Each length alone, then 2 and 3 messages, a tile and a tile and more (a remainder)."""
    lengths = case.message_lengths()
    messages = [message(n, seed) for seed, n in enumerate(lengths)]
    shuffled = random.Random(case.name).sample(messages, len(messages))
    tile_and_more = [message(lengths[i % len(lengths)], 100 + i) for i in range(2 * TILE_WIDTH + 1)]
    return [[m] for m in messages] + [shuffled[:2], shuffled[:3], messages, tile_and_more]


# ---------------------------------------------------------------------------------------
# The entry points. Each is a function ``(case, messages, tmp_path) -> digests`` (``tmp_path``
# a folder not yet made: those that write files make it) and what it can express: the
# parameters it takes, and whether it takes the modes that hash a message only whole
# (TupleHash: each string's length comes before it).


@dataclass(frozen=True)
class EntryPoint:
    run: Callable[[Case, list[bytes], object], list[bytes]]
    takes: frozenset[str] = frozenset(
        {"key", "customization", "function_name", "block_size", "domain"}
    )
    # Families it refuses by design: a message fed in pieces cannot be TupleHash (each
    # string's length comes first); streams sharing stored states cannot be a tree mode.
    refuses: frozenset[str] = frozenset()
    batches: str = "all"  # "all", or "whole": only the batches of several messages
    encode: Callable[[bytes], bytes] = bytes  # what the entry point hashes of a message


IN_PIECES = frozenset({"tuplehash"})
ONE_PASS = frozenset({"tuplehash", "kangarootwelve", "parallelhash"})


def _resolved(case: Case, threads: int | None = None) -> bk.Hasher:
    return bk.hasher(case.name, length=case.length, threads=threads, **case.params)


def _call(function, case, messages, **extra):
    return [
        bytes(row)
        for row in function(messages, case.name, length=case.length, **case.params, **extra)
    ]


def _flat(messages: list[bytes]) -> bk.FlatMessages:
    offsets = np.zeros(len(messages) + 1, np.int64)
    np.cumsum([len(m) for m in messages], out=offsets[1:])
    return bk.FlatMessages(np.frombuffer(b"".join(messages), np.uint8), offsets)


def run_hash_many_list(case, messages, tmp_path):
    return _call(bk.hash_many, case, list(messages))


def run_hash_many_tuple(case, messages, tmp_path):
    return _call(bk.hash_many, case, tuple(messages))


def run_hash_many_flat(case, messages, tmp_path):
    return _call(bk.hash_many, case, _flat(messages))


def run_hash_many_arrays(case, messages, tmp_path):
    # numpy arrays as messages (their raw bytes), and memoryviews, in one list
    forms = [np.frombuffer(m, np.uint8) if i % 2 else memoryview(m) for i, m in enumerate(messages)]
    return _call(bk.hash_many, case, forms)


def run_hash_many_rows(case, messages, tmp_path):
    # A 2-D array holds messages of one length: each message is a batch of its own length.
    out = []
    for m in messages:
        rows = np.frombuffer(m * 3, np.uint8).reshape(3, len(m))
        digests = _call(bk.hash_many, case, rows)
        assert digests[0] == digests[1] == digests[2]
        out.append(digests[0])
    return out


def run_hash_many_arrow(case, messages, tmp_path):
    return _call(bk.hash_many, case, pa.array(messages, pa.binary()))


def run_hash_many_threads(case, messages, tmp_path):
    return _call(bk.hash_many, case, list(messages), threads=2)


def run_hash_many_hasher(case, messages, tmp_path):
    return [bytes(row) for row in bk.hash_many(messages, _resolved(case))]


def run_hexdigest_many(case, messages, tmp_path):
    got = bk.hexdigest_many(messages, case.name, length=case.length, **case.params)
    return [bytes.fromhex(h) for h in got]


def run_hash_one(case, messages, tmp_path):
    return [bk.hash_one(m, case.name, length=case.length, **case.params) for m in messages]


def run_new_in_pieces(case, messages, tmp_path):
    rng = random.Random(len(messages))
    out = []
    for m in messages:
        obj = bk.new(case.name, length=case.length, **case.params)
        cuts = sorted(rng.randrange(len(m) + 1) for _ in range(3))
        pieces = [m[a:b] for a, b in zip([0, *cuts], [*cuts, len(m)])]
        obj.update(pieces[0])
        early = obj.copy()  # a copy taken midway continues on its own
        for piece in pieces[1:]:
            obj.update(piece)
            early.update(piece)
        digest = obj.digest(case.length) if case.length is not None else obj.digest()
        other = early.digest(case.length) if case.length is not None else early.digest()
        assert digest == other
        out.append(digest)
    return out


def run_stream_hasher(case, messages, tmp_path):
    streams = bk.StreamHasher(case.name, len(messages), length=case.length, **case.params)
    for i, m in enumerate(messages):  # each stream in two chunks, interleaved
        streams.update(i, m[: len(m) // 2])
    streams.update_many(range(len(messages)), [m[len(m) // 2 :] for m in messages])
    return [streams.digest(i) for i in range(len(messages))]


def _write_files(messages, tmp_path):
    tmp_path.mkdir(exist_ok=True)
    paths = []
    for i, m in enumerate(messages):
        path = tmp_path / f"m{i}"
        path.write_bytes(m)
        paths.append(path)
    return paths


def run_hash_files(case, messages, tmp_path):
    return _call(bk.hash_files, case, _write_files(messages, tmp_path))


def run_file_digest(case, messages, tmp_path):
    out = []
    for m in messages:
        digest = bk.file_digest(io.BytesIO(m), case.name, length=case.length, **case.params)
        out.append(digest.digest(case.length) if case.length is not None else digest.digest())
    return out


def run_hash_array(case, messages, tmp_path):
    from batchkeccak import arrow

    sliced = pa.array([b"skipped", *messages, None], pa.binary())[1:]  # an offset, a null
    chunked = pa.chunked_array([sliced[:1], sliced[1:]]) if len(messages) > 1 else sliced
    got = arrow.hash_array(chunked, case.name, length=case.length, **case.params).to_pylist()
    assert got[-1] is None
    return got[:-1]


def row_encoding(value: bytes) -> bytes:
    """One binary field of the row encoding as docs/arrow.md states it."""
    return b"\x01" + len(value).to_bytes(8, "little") + value


def run_hash_rows(case, messages, tmp_path):
    from batchkeccak import arrow

    table = pa.table({"m": pa.array(messages, pa.binary())})
    got = arrow.hash_rows(table, algorithm=case.name, length=case.length, **case.params)
    return got.to_pylist()


def run_parquet_hash_file(case, messages, tmp_path):
    from batchkeccak import parquet

    tmp_path.mkdir(exist_ok=True)
    source, target = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"m": pa.array(messages, pa.binary())}), source, row_group_size=3)
    parquet.hash_file(
        source, target, "m", case.name, length=case.length, suffix="_d", **case.params
    )
    return pq.read_table(target).column("m_d").to_pylist()


def run_polars(case, messages, tmp_path):
    pl = pytest.importorskip("polars")
    import batchkeccak.polars  # noqa: F401  (registers the namespace)

    series = pl.Series("m", messages, dtype=pl.Binary)
    return series.bk.hash(case.name, length=case.length, **case.params).to_list()


def run_pandas(case, messages, tmp_path):
    pd = pytest.importorskip("pandas")
    import batchkeccak.pandas  # noqa: F401  (registers the accessor)

    series = pd.Series(messages, dtype=object)
    return list(series.bk.hash(case.name, length=case.length, **case.params))


_DUCKDB_CONNECTIONS: dict[str, object] = {}


def run_duckdb(case, messages, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    from batchkeccak import duckdb as bk_duckdb

    con = _DUCKDB_CONNECTIONS.get("con")
    if con is None:
        con = duckdb.connect()
        bk_duckdb.register(con, keys={"k": KEY}, prefix="bk_")
        _DUCKDB_CONNECTIONS["con"] = con
    arguments = ["m"]
    if "key" in case.params:
        arguments.append("'k'")
    if case.length is not None:
        arguments.append(str(case.length))
    if "customization" in case.params:
        arguments.append("$custom")
    table = pa.table({"i": pa.array(range(len(messages))), "m": pa.array(messages, pa.binary())})
    query = f"SELECT bk_{case.name}({', '.join(arguments)}) FROM table_arg ORDER BY i"
    parameters = (
        {"custom": case.params["customization"].decode()}
        if ("customization" in case.params)
        else None
    )
    con.register("table_arg", table)
    try:
        return [row[0] for row in con.execute(query, parameters).fetchall()]
    finally:
        con.unregister("table_arg")


def run_command_line(case, messages, tmp_path, capsys=None):
    from batchkeccak.cli import main

    paths = _write_files(messages, tmp_path)
    arguments = ["hash", "-a", case.name]
    if case.length is not None:
        arguments += ["--length", str(case.length)]
    if "key" in case.params:
        key_file = tmp_path / "key"
        key_file.write_bytes(case.params["key"])
        arguments += ["--key-file", str(key_file)]
    if "customization" in case.params:
        arguments += ["--customization", case.params["customization"].decode()]
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        status = main(arguments + [str(p) for p in paths])
    assert status == 0
    lines = out.getvalue().splitlines()
    assert [line.split(" ", 1)[1].lstrip(" *") for line in lines] == [str(p) for p in paths]
    return [bytes.fromhex(line.split()[0]) for line in lines]


ENTRY_POINTS: dict[str, EntryPoint] = {
    "hash_many(list)": EntryPoint(run_hash_many_list),
    "hash_many(tuple)": EntryPoint(run_hash_many_tuple),
    "hash_many(FlatMessages)": EntryPoint(run_hash_many_flat),
    "hash_many(arrays and memoryviews)": EntryPoint(run_hash_many_arrays),
    "hash_many(2-D rows)": EntryPoint(run_hash_many_rows, batches="whole"),
    "hash_many(pyarrow)": EntryPoint(run_hash_many_arrow),
    "hash_many(threads=2)": EntryPoint(run_hash_many_threads, batches="whole"),
    "hash_many(Hasher)": EntryPoint(run_hash_many_hasher),
    "hexdigest_many": EntryPoint(run_hexdigest_many),
    "hash_one": EntryPoint(run_hash_one, batches="whole"),
    "new(pieces, copy)": EntryPoint(run_new_in_pieces, refuses=IN_PIECES, batches="whole"),
    "StreamHasher": EntryPoint(run_stream_hasher, refuses=ONE_PASS),
    "hash_files": EntryPoint(run_hash_files, refuses=IN_PIECES),
    "file_digest": EntryPoint(run_file_digest, refuses=IN_PIECES, batches="whole"),
    "arrow.hash_array": EntryPoint(run_hash_array),
    "arrow.hash_rows": EntryPoint(run_hash_rows, batches="whole", encode=row_encoding),
    "parquet.hash_file": EntryPoint(run_parquet_hash_file, batches="whole"),
    "polars .bk.hash": EntryPoint(run_polars),
    "pandas .bk.hash": EntryPoint(run_pandas),
    # SQL names a key by name and takes a customization for cSHAKE alone (no function name)
    "duckdb": EntryPoint(run_duckdb, takes=frozenset({"key"}), batches="whole"),
    # The command line: a key from a file, a customization; no function name, block size or
    # domain byte.
    "batchkeccak hash": EntryPoint(
        run_command_line,
        takes=frozenset({"key", "customization"}),
        refuses=IN_PIECES,
        batches="whole",
    ),
}


def _case_for(entry: str, case: Case) -> Case | None:
    """``case`` as ``entry`` can express it: the parameters it cannot take dropped where they
    are optional (a customization, a function name), None where the case would lose what it
    is (a key, a block size, a domain byte)."""
    point = ENTRY_POINTS[entry]
    if case.family in point.refuses:
        return None
    takes = set(point.takes)
    if entry == "duckdb" and case.family == "cshake":
        takes.add("customization")
    kept = {k: v for k, v in case.params.items() if k in takes}
    dropped = set(case.params) - set(kept)
    if dropped - {"customization", "function_name"}:
        return None
    if case.family == "cshake" and not kept:
        return None  # cSHAKE with neither string is SHAKE: nothing of the mode left
    return Case(case.name, kept, case.family, case.sponge, case.length)


QUICK_RUN_ROWS = frozenset(
    {
        "sha3_256",
        "sha3_512",
        "keccak_256",
        "shake_128",
        "shake_256",
        "cshake_128",
        "hmac_sha3_256",
        "kmac_256",
        "kmac_xof_128",
        "tuplehash_128",
        "tuplehash_xof_256",
        "parallelhash_128",
        "parallelhash_xof_256",
        "kt128",
        "kt256",
        "turboshake128",
    }
)
"""Rows the quick run takes at every entry point: each family, each framing and each rate
class once; the whole suite takes every row."""

GENERATED = [
    pytest.param(
        entry,
        expressed,
        id=f"{entry}-{case.label}",
        marks=() if case.name in QUICK_RUN_ROWS else pytest.mark.slow,
    )
    for entry in ENTRY_POINTS
    for case in CASES
    if (expressed := _case_for(entry, case)) is not None
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A new folder's path per call, made by the entry points that write files (most write
    none: a folder per batch of each of some 2,700 cases was 10 s of mkdir and rmtree)."""
    root = tmp_path_factory.mktemp("differential")
    numbers = itertools.count()
    return lambda: root / str(next(numbers))


@pytest.mark.every_backend
@pytest.mark.parametrize(("entry", "case"), GENERATED)
def test_entry_point_against_the_oracle(entry, case, folders):
    point = ENTRY_POINTS[entry]
    work = batches(case)
    if point.batches == "whole":
        work = [[m for batch in work[:-4] for m in batch], *work[-2:]]
    for batch in work:
        folder = folders()
        got = point.run(case, batch, folder)
        want = [case.oracle(point.encode(m)) for m in batch]
        wrong = [(len(m), i) for i, (m, g, w) in enumerate(zip(batch, got, want)) if g != w]
        assert len(got) == len(batch) and wrong == [], (
            f"{entry} {case.name} {case.params}: batch of {len(batch)}, wrong (length, index) "
            f"{wrong[:5]}"
        )


# ---------------------------------------------------------------------------------------
# Coverage of the generation itself.


def test_every_row_meets_every_entry_point_that_can_express_it():
    """Each row of both tables reaches the entry points that take every input; and the
    entry points that cannot express a row are the ones documented above."""
    for case in CASES:
        reached = {entry for entry in ENTRY_POINTS if _case_for(entry, case) is not None}
        assert {
            "hash_many(list)",
            "hash_one",
            "hexdigest_many",
            "arrow.hash_array",
            "polars .bk.hash",
            "pandas .bk.hash",
        } <= reached, case.name
        if case.family != "tuplehash":
            assert {"new(pieces, copy)", "hash_files", "file_digest"} <= reached, case.name
    assert {c.name for c in CASES} == set(bk.algorithms) | set(bk.modes)


COVERED_ELSEWHERE = {
    # Public functions that take an algorithm, and the tests that check them on every
    # backend policy instead (they hash their own encodings, or start a cluster).
    "batchkeccak.tuplehash_many": "tests/test_modes.py (tuples of several strings)",
    "batchkeccak.kt128": "tests/test_modes_vectors.py (RFC 9861 vectors)",
    "batchkeccak.kt256": "tests/test_modes_vectors.py (RFC 9861 vectors)",
    "batchkeccak.parallelhash_128": "tests/test_modes_vectors.py (SP 800-185 samples)",
    "batchkeccak.parallelhash_256": "tests/test_modes_vectors.py (SP 800-185 samples)",
    "batchkeccak.parallelhash_xof_128": "tests/test_modes_vectors.py (SP 800-185 samples)",
    "batchkeccak.parallelhash_xof_256": "tests/test_modes_vectors.py (SP 800-185 samples)",
    "batchkeccak.hasher": "every case here resolves one",
    "batchkeccak.Hasher": "built by batchkeccak.hasher(); its methods serve every entry point",
    "batchkeccak.Algorithm": "a row of the table, not an entry point",
    "batchkeccak.dask": "tests/test_dask.py (a local cluster)",
    "batchkeccak.spark": "tests/test_spark.py (a local Spark session)",
    "batchkeccak.ray": "tests/test_ray.py (a local Ray cluster)",
    "batchkeccak.merkle": "tests/test_merkle_*.py (OpenZeppelin and RFC 9162 references)",
    "batchkeccak.ethereum": "tests/test_ethereum.py (eth_utils, py-trie)",
    "batchkeccak.table_digest": "tests/test_tables.py (a hashlib model of the construction)",
    "batchkeccak.diff": "tests/test_tables.py (a plain Python diff of the rows)",
    "batchkeccak.segment_digests": "tests/test_tables.py (a hashlib model of the segments)",
    "batchkeccak.arrow.compute_expression": "tests/test_arrow_compute_expression.py (hashlib and "
    "pycryptodome over every string and binary type, in projections and filters)",
}

# Which public function each entry point above calls.
LISTED = {
    "batchkeccak.hash_many",
    "batchkeccak.hexdigest_many",
    "batchkeccak.hash_one",
    "batchkeccak.new",
    "batchkeccak.StreamHasher",
    "batchkeccak.hash_files",
    "batchkeccak.file_digest",
    "batchkeccak.arrow.hash_array",
    "batchkeccak.arrow.hash_rows",
    "batchkeccak.parquet.hash_file",
    "batchkeccak.polars",
    "batchkeccak.pandas",
    "batchkeccak.duckdb",
    "batchkeccak.cli",
}


def _takes_an_algorithm(function: object) -> bool:
    try:
        parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return bool({"algorithm", "digest", "name"} & set(parameters)) and not isinstance(
        function, type(bk)
    )


def public_entry_points() -> set[str]:
    """Public functions of the package's core modules that take an algorithm (by name or
    Hasher); the adapter modules (one module, one entry) are listed by module."""
    import batchkeccak.arrow
    import batchkeccak.parquet

    found = set()
    for module, prefix in (
        (bk, "batchkeccak"),
        (batchkeccak.arrow, "batchkeccak.arrow"),
        (batchkeccak.parquet, "batchkeccak.parquet"),
    ):
        names = (
            module.__all__
            if hasattr(module, "__all__")
            else [n for n in dir(module) if not n.startswith("_")]
        )
        for name in names:
            value = getattr(module, name)
            if callable(value) and getattr(value, "__module__", "").startswith("batchkeccak"):
                if name in bk.ALGORITHM_NAMES:
                    continue  # the hashlib-style constructors: new() under another name
                if _takes_an_algorithm(value):
                    found.add(f"{prefix}.{name}")
    return found


def test_every_entry_point_is_listed():
    listed = LISTED | set(COVERED_ELSEWHERE)
    assert sorted(public_entry_points() - listed) == []


def test_the_quick_runs_rows_are_rows_of_the_tables():
    """A row renamed or removed from the tables would leave the quick run without its
    family; the whole suite takes every row anyway."""
    names = {case.name for case in CASES}
    assert QUICK_RUN_ROWS <= names, sorted(QUICK_RUN_ROWS - names)
    families = {case.family for case in CASES}
    assert {case.family for case in CASES if case.name in QUICK_RUN_ROWS} == families
