"""Arrow view arrays (``binary_view`` / ``string_view``) read where their values lie.

The views are built here by hand (``pa.Array.from_buffers``) in every layout a producer may
choose: values inline (at most 12 bytes) and out of line, back to back in one buffer, in
runs of several buffers (as Polars lays them out), scattered over several buffers, a null
whose view is garbage, slices, chunked arrays with empty chunks; and corrupt views, which
are refused. Digests come from hashlib, pycryptodome and the SP 800-185 / RFC 9861 models in
``sp800_185_reference``.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pyarrow as pa
import pytest
from sp800_185_reference import kangarootwelve, kmac, parallelhash

import batchkeccak as bk
from batchkeccak.arrow import hash_array
from batchkeccak.inputs import arrow_views
from batchkeccak.inputs.arrow_buffers import value_buffers
from batchkeccak.inputs.flat import IN_PLACE_MIN_BYTES

pytestmark = pytest.mark.every_backend

# Around the inline limit (12), the in-place crossover, SHA3-256's block (136) and KT128's
# chunk (8192).
LENGTHS = [0, 1, 11, 12, 13, 14, IN_PLACE_MIN_BYTES - 1, IN_PLACE_MIN_BYTES, 136, 137, 1000]
LONG_LENGTHS = [8191, 8192, 8193, 20000]

MODES = {
    "sha3_256": ({}, lambda m: hashlib.sha3_256(m).digest()),
    "shake_128": ({"length": 40}, lambda m: hashlib.shake_128(m).digest(40)),
    "kt128": ({"length": 32}, lambda m: kangarootwelve(128, m, b"", 32)),
    "kmac_256": (
        {"key": b"secret", "length": 32},
        lambda m: kmac(256, b"secret", m, 32, b""),
    ),
    "parallelhash_128": (
        {"block_size": 64, "length": 32},
        lambda m: parallelhash(128, m, 64, 32, b""),
    ),
}


BINARY_VIEW = pa.binary_view()


def messages(lengths, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in lengths]


def view_array(
    values,
    arrow_type=BINARY_VIEW,
    *,
    buffers=1,
    scatter=False,
    runs=False,
    garbage_nulls=True,
):
    """A view array of ``values`` (bytes or None) built by hand: values over 12 bytes in
    ``buffers`` data buffers, each buffer holding a contiguous run of rows (``runs``), or
    rows dealt round-robin (``scatter``: no two neighbours back to back), or all in buffer 0
    with gaps between them; a null's view is garbage unless ``garbage_nulls`` is False."""
    count = len(values)
    views = np.zeros((count, 16), dtype=np.uint8)
    words = views.view("<i4")
    parts = [bytearray() for _ in range(buffers)]
    for i, value in enumerate(values):
        if value is None:
            if garbage_nulls:
                words[i] = [1 << 20, 0x5A5A5A5A, 99, 1 << 30]  # nothing a read may follow
            continue
        words[i, 0] = len(value)
        if len(value) <= 12:
            views[i, 4 : 4 + len(value)] = np.frombuffer(value, dtype=np.uint8)
            continue
        if runs:
            index = min(i * buffers // count, buffers - 1)
        elif scatter:
            index = i % buffers
        else:
            index = 0
        part = parts[index]
        if not runs and not scatter:
            part += b"\xee" * 3  # a gap: the values are not back to back
        views[i, 4:8] = np.frombuffer(value[:4], dtype=np.uint8)
        words[i, 2], words[i, 3] = index, len(part)
        part += value
    validity = None
    nulls = sum(value is None for value in values)
    if nulls:
        bits = np.packbits([value is not None for value in values], bitorder="little")
        validity = pa.py_buffer(bits.tobytes())
    data = [pa.py_buffer(bytes(part)) for part in parts]
    return pa.Array.from_buffers(
        arrow_type, count, [validity, pa.py_buffer(views.tobytes()), *data], nulls
    )


def check(array, values, name="sha3_256"):
    params, model = MODES[name]
    got = hash_array(array, name, **params).to_pylist()
    assert got == [None if value is None else model(value) for value in values]


LAYOUTS = {
    "one buffer, gaps": {},
    "runs of 3 buffers": {"buffers": 3, "runs": True},
    "scattered over 3 buffers": {"buffers": 3, "scatter": True},
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", MODES)
def test_every_length_and_layout_matches_the_oracles(layout, name):
    values = messages(LENGTHS * 3)
    values[4] = values[17] = None
    check(view_array(values, **LAYOUTS[layout]), values, name)


@pytest.mark.parametrize("name", ["sha3_256", "kt128", "parallelhash_128"])
def test_long_values_read_in_place(name):
    # Long values: a plain sponge's lanes, a tree mode's leaves shared over the values.
    values = messages(LONG_LENGTHS * 2, seed=1)
    values[3] = None
    for layout in LAYOUTS.values():
        check(view_array(values, **layout), values, name)


@pytest.mark.parametrize("name", ["kt128", "parallelhash_128"])
def test_a_few_long_tree_values_beside_short_ones(name):
    # Values of 512 KiB and more in a tree mode: each hashed where it lies, as hash_many's
    # list of long bytes is; the short ones as one batch.
    values = messages([600_000, 5, 9000, (1 << 19) + 1, 300], seed=13)
    values[2] = None
    models = {
        "kt128": ({"length": 32}, lambda m: kangarootwelve(128, m, b"", 32)),
        "parallelhash_128": (
            {"block_size": 8192, "length": 32},
            lambda m: parallelhash(128, m, 8192, 32, b""),
        ),
    }
    params, model = models[name]
    want = [None if v is None else model(v) for v in values]
    for layout in LAYOUTS.values():
        assert hash_array(view_array(values, **layout), name, **params).to_pylist() == want


@pytest.mark.parametrize("name", ["sha3_256", "kt128", "kmac_256"])
def test_runs_of_equal_values_as_polars_lays_them_out(name):
    # Many values in a few buffers, back to back: hashed as flat batches where they lie.
    values = messages([32] * 300 + [13] * 100 + [200] * 100, seed=2)
    values[0] = values[150] = None  # a null starts a run; a null inside one
    array = view_array(values, buffers=4, runs=True)
    check(array, values, name)
    assert arrow_views.ViewValues(array, "values").run_batches() is not None


@pytest.mark.parametrize("name", ["sha3_256", "shake_128"])
def test_runs_shared_between_threads(name):
    # Enough work for two threads: the runs (unequal, as Polars' buffers are) are cut into
    # pieces of whole values that the threads take in turn.
    values = messages([40] * 3000 + [13] * 500 + [140] * 1500, seed=15)
    values[10] = values[3100] = None
    params, model = MODES[name]
    array = view_array(values, buffers=5, runs=True)
    got = hash_array(array, name, threads=2, **params).to_pylist()
    assert got == [None if v is None else model(v) for v in values]


def test_empty_and_null_values_start_a_run():
    values = [None, b"", None] + messages([40] * 200, seed=3)
    check(view_array(values, runs=True), values)
    check(view_array([None, b"", None]), [None, b"", None])


def test_pyarrow_built_views():
    values = messages(LENGTHS + LONG_LENGTHS, seed=4)
    values[2] = None
    array = pa.array(values, pa.binary_view())
    for name in MODES:
        check(array, values, name)


def test_slices_read_from_their_offset():
    values = messages(LENGTHS * 4, seed=5)
    values[9] = None
    for layout in LAYOUTS.values():
        array = view_array(values, **layout)
        for start, stop in [(1, 20), (7, 44), (13, 13), (0, len(values))]:
            check(array.slice(start, stop - start), values[start:stop])


def test_chunked_arrays_with_empty_chunks():
    values = messages(LENGTHS * 2, seed=6)
    values[5] = None
    chunks = [
        view_array([], buffers=1),
        view_array(values[:10], buffers=2, scatter=True),
        view_array([]),
        view_array(values[10:], buffers=3, runs=True),
        view_array([]),
    ]
    column = pa.chunked_array(chunks, type=pa.binary_view())
    got = hash_array(column, "sha3_256")
    assert [len(c) for c in got.chunks] == [len(c) for c in chunks]
    want = [None if v is None else hashlib.sha3_256(v).digest() for v in values]
    assert got.to_pylist() == want
    clean = [b"" if v is None else v for v in values]
    flat = pa.chunked_array(
        [view_array(clean[:10], buffers=2, scatter=True), view_array([]), view_array(clean[10:])],
        type=pa.binary_view(),
    )
    rows = bk.hash_many(flat, "sha3_256")
    assert [r.tobytes() for r in rows] == [hashlib.sha3_256(v).digest() for v in clean]


def test_string_view_hashes_utf8():
    texts = ["", "é", "€uro", "😀" * 3, "naïve café", "日本語のテキスト" * 20, None, "a" * 12]
    encoded = [None if t is None else t.encode("utf-8") for t in texts]
    check(view_array(encoded, pa.string_view(), buffers=2, scatter=True), encoded)
    check(pa.array(texts, pa.string_view()), encoded, "kt128")


def test_a_per_row_key_takes_the_whole_batch():
    values = messages([40] * 70 + [3] * 70, seed=7)
    keys = [bytes([i % 256]) * 8 for i in range(len(values))]
    for layout in ({"runs": True}, {"buffers": 2, "scatter": True}):
        got = hash_array(view_array(values, **layout), "kmac_256", key=keys, length=32)
        assert got.to_pylist() == [kmac(256, k, v, 32, b"") for k, v in zip(keys, values)]


def test_value_buffers_and_hash_many_take_views():
    values = messages(LENGTHS * 3, seed=8)
    for layout in ({"runs": True}, {"buffers": 3, "scatter": True}, {}):
        array = view_array(values, **layout)
        data, offsets = value_buffers(array, "values")
        assert [data[a:b].tobytes() for a, b in itertools.pairwise(offsets)] == values
        rows = bk.hash_many(array, "sha3_256")
        assert [r.tobytes() for r in rows] == [hashlib.sha3_256(v).digest() for v in values]


def test_one_run_is_read_without_a_copy():
    values = messages([50] * 100, seed=9)
    array = view_array(values, runs=True)
    data, offsets = arrow_views.view_flat(array, "values")
    assert data.__array_interface__["data"][0] <= array.buffers()[2].address
    assert [data[a:b].tobytes() for a, b in itertools.pairwise(offsets)] == values


def _corrupt(word, value, row=1):
    """A valid three-value view array with one word of row ``row``'s view replaced."""
    array = view_array(messages([20, 30, 40], seed=10), buffers=2, scatter=True)
    validity, views, *data = array.buffers()
    words = np.frombuffer(views, dtype="<i4").reshape(-1, 4).copy()
    words[row, word] = value
    return pa.Array.from_buffers(
        array.type, len(array), [validity, pa.py_buffer(words.tobytes()), *data]
    )


@pytest.mark.parametrize(
    ("word", "value", "message"),
    [
        (2, 2, "names data buffer 2, but the array has 2"),
        (2, -1, "names data buffer -1"),
        (3, 10_000, "leaves data buffer"),
        (3, 45, "leaves data buffer 1"),  # offset + length one past the end
        (3, -4, "leaves data buffer"),
        (0, -5, "negative length"),
        (0, 1 << 20, "leaves data buffer"),
    ],
)
@pytest.mark.parametrize("name", ["sha3_256", "kt128"])
def test_a_corrupt_view_is_refused(word, value, message, name):
    array = _corrupt(word, value)
    params = MODES[name][0]
    with pytest.raises(ValueError, match=f"values: value 1's view .*{message}"):
        hash_array(array, name, **params)
    with pytest.raises(ValueError, match=message):
        bk.hash_many(array, name, **params)
    with pytest.raises(ValueError, match=message):
        arrow_views.view_places(array, "values")


def test_the_kernels_check_their_arguments():
    from batchkeccak.inputs import _kernels

    words = np.zeros((2, 4), dtype=np.int32)
    no_bits = np.empty(0, dtype=np.uint8)
    sizes = np.zeros(1, dtype=np.int64)
    out = np.empty(3, dtype=np.int64)
    with pytest.raises(ValueError, match="do not match"):
        _kernels.view_places(words, no_bits, 0, 0, sizes, sizes, out, out)
    with pytest.raises(ValueError, match="do not match"):
        # Offsets one entry short of a value and a run each.
        _kernels.view_runs(words, no_bits, 0, 0, sizes, sizes, 0, out[:2], out[:1])
    with pytest.raises(ValueError, match="do not fit"):
        # The first value is already too long: nothing is read from its (unset) address.
        _kernels.gather_places(out[:2], np.array([8, 0]), out, np.empty(7, np.uint8))


def _polars():
    pl = pytest.importorskip("polars")
    import batchkeccak.polars  # noqa: F401 - registers the namespace

    return pl


@pytest.mark.parametrize("name", ["sha3_256", "kt128", "kmac_256"])
def test_polars_series_through_the_accessor(name):
    pl = _polars()
    values = messages([0, 5, 12, 13, 32, 200, 9000] * 30 + [20000] * 3, seed=12)
    values[7] = values[100] = None
    series = pl.concat(
        [
            pl.Series("v", values[:50], dtype=pl.Binary),
            pl.Series("v", [], dtype=pl.Binary),
            pl.Series("v", values[50:], dtype=pl.Binary),
        ],
        rechunk=False,
    )
    assert series.n_chunks() > 1
    params, model = MODES[name]
    want = [None if v is None else model(v) for v in values]
    assert series.bk.hash(name, **params).to_list() == want
    frame = pl.LazyFrame({"v": series}).select(pl.col("v").bk.hash(name, **params))
    assert frame.collect()["v"].to_list() == want


def test_polars_strings_hash_their_utf8():
    pl = _polars()
    texts = ["", "é", "naïve café" * 3, None, "日本語" * 40, "a" * 12, "b" * 13] * 20
    want = [None if t is None else hashlib.sha3_256(t.encode()).digest() for t in texts]
    assert pl.Series("t", texts).bk.sha3_256().to_list() == want


def test_polars_columns_are_exported_as_views_without_a_copy():
    pl = _polars()
    from batchkeccak.polars import _arrow_values

    series = pl.Series("v", [b"x" * 100] * 10, dtype=pl.Binary)
    first, again = _arrow_values(series), _arrow_values(series)
    assert first.type == pa.binary_view()
    assert _arrow_values(pl.Series(["é" * 20])).type == pa.string_view()
    # Each export hands over Polars' own buffers: the same memory both times.
    assert first.buffers()[2].address == again.buffers()[2].address


@pytest.mark.parametrize("length", [1, 12, 13, 32, 64])
def test_polars_digests_come_back_as_views_of_every_width(length):
    pl = _polars()
    values = messages([3, 40, 0, 200] * 5, seed=14)
    values[2] = None
    series = pl.concat(
        [pl.Series("v", values[:7], dtype=pl.Binary), pl.Series("v", values[7:])], rechunk=False
    )
    want = [None if v is None else hashlib.shake_128(v).digest(length) for v in values]
    got = series.bk.hash("shake_128", length=length)
    assert got.dtype == pl.Binary
    assert got.to_list() == want


def test_fixed_as_views_declines_what_it_does_not_take():
    digests = pa.array([b"a" * 16, b"b" * 16, None], pa.binary(16))
    views = arrow_views.fixed_as_views(digests)
    assert views.type == pa.binary_view()
    assert views.to_pylist() == digests.to_pylist()
    assert arrow_views.fixed_as_views(digests.slice(1)) is None  # a slice: cast instead
    assert arrow_views.fixed_as_views(pa.array([b"ab"], pa.binary())) is None


@pytest.mark.parametrize("name", ["sha3_256", "kt128", "parallelhash_128", "kmac_256"])
def test_views_may_share_and_overlap_their_bytes(name):
    # Arrow lets views point at the same bytes (a producer that deduplicates), or overlap.
    data = messages([20000], seed=16)[0]
    places = [(0, 20000), (0, 20000), (3000, 15000), (19990, 10), (5, 200)]
    views = np.zeros((len(places), 16), dtype=np.uint8)
    words = views.view("<i4")
    for i, (offset, size) in enumerate(places):
        words[i, 0] = size
        if size <= 12:
            views[i, 4 : 4 + size] = np.frombuffer(data[offset : offset + size], np.uint8)
        else:
            views[i, 4:8] = np.frombuffer(data[offset : offset + 4], np.uint8)
            words[i, 2], words[i, 3] = 0, offset
    array = pa.Array.from_buffers(
        pa.binary_view(), len(places), [None, pa.py_buffer(views.tobytes()), pa.py_buffer(data)]
    )
    values = [data[offset : offset + size] for offset, size in places]
    check(array, values, name)
