"""ABI encoding for standard trees, checked against eth-abi (the Python reference encoder).

The JavaScript fixtures in test_merkle_openzeppelin.py cover the same types through the
leaf hashes; these tests compare the encoding itself, value by value, and check that the
column-wise numpy path and the row-by-row path agree.
"""

from __future__ import annotations

import random
import sys
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from batchkeccak.merkle import abi

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

eth_abi = pytest.importorskip("eth_abi")

INT_BITS = (8, 16, 24, 32, 64, 96, 128, 160, 200, 256)


def _flat_rows(data: np.ndarray, offsets: np.ndarray) -> list[bytes]:
    return [data[offsets[i] : offsets[i + 1]].tobytes() for i in range(offsets.shape[0] - 1)]


def _reference(types, rows):
    return [eth_abi.encode(types, row) for row in rows]


def test_static_types_match_eth_abi_value_by_value():
    rng = random.Random(1)
    types, columns = [], []
    for bits in INT_BITS:
        types.append(f"uint{bits}")
        columns.append([0, 1, (1 << bits) - 1, rng.getrandbits(bits), 1 << (bits - 1)])
        types.append(f"int{bits}")
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        columns.append([low, high, -1, 0, rng.randint(low, high)])
    for size in (1, 2, 4, 8, 16, 20, 31, 32):
        types.append(f"bytes{size}")
        columns.append([rng.randbytes(size) for _ in range(5)])
    types += ["address", "bool"]
    columns.append([rng.randbytes(20) for _ in range(5)])
    columns.append([True, False, False, True, True])
    rows = [list(r) for r in zip(*columns)]
    data, offsets = abi.encode_rows(types, rows)
    assert _flat_rows(data, offsets) == _reference(types, rows)
    assert [abi.encode(types, r) for r in rows] == _reference(types, rows)


def test_dynamic_types_match_eth_abi():
    types = [
        "string",
        "bytes",
        "uint256[]",
        "address[2]",
        "bytes32",
        "string[]",
        "uint8[3]",
        "bytes[]",
        "uint16[2][]",
        "bool",
    ]
    rows = [
        ["", b"", [], [b"\x11" * 20, b"\x22" * 20], b"\x00" * 32, [], [1, 2, 3], [], [], True],
        [
            "héllo ✓",
            b"\xab" * 33,
            [1, 2**256 - 1],
            [b"\x01" * 20, b"\x02" * 20],
            b"\x05" * 32,
            ["", "x" * 40],
            [0, 0, 255],
            [b"", b"\x01" * 32, b"\x02" * 65],
            [[1, 2], [3, 65535]],
            False,
        ],
        [
            "x" * 64,
            b"\x00" * 32,
            [7],
            [b"\x03" * 20, b"\x04" * 20],
            b"\x06" * 32,
            ["a"],
            [9, 8, 7],
            [b"z"],
            [[0, 0]],
            True,
        ],
    ]
    data, offsets = abi.encode_rows(types, rows)
    assert _flat_rows(data, offsets) == _reference(types, rows)


@given(
    st.lists(
        st.tuples(
            st.integers(0, 2**256 - 1),
            st.integers(-(2**255), 2**255 - 1),
            st.binary(min_size=20, max_size=20),
            st.booleans(),
            st.binary(max_size=32),
            st.text(max_size=40),
            st.binary(max_size=80),
            st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_random_rows_match_eth_abi(rows):
    types = ["uint256", "int256", "address", "bool", "bytes32", "string", "bytes", "int64[]"]
    rows = [list(r) for r in rows]
    data, offsets = abi.encode_rows(types, rows)
    assert _flat_rows(data, offsets) == _reference(types, rows)


def test_javascript_value_spellings():
    # Strings for numbers (decimal, 0x hex, negative), "true"/"false", 0x-hex bytes: the forms
    # @metamask/abi-utils accepts and JSON dumps carry.
    types = ["uint256", "int16", "bool", "bool", "address", "bytes4", "bytes", "uint"]
    row = [
        "1000000000000000000",
        "-0x10",
        "true",
        "false",
        "0x" + "Ab" * 20,
        "0x0102",
        "0xdeadbeef",
        "0x10",
    ]
    expected = eth_abi.encode(
        types,
        [10**18, -16, True, False, bytes.fromhex("ab" * 20), b"\x01\x02", b"\xde\xad\xbe\xef", 16],
    )
    assert abi.encode(types, row) == expected
    data, offsets = abi.encode_rows(types, [row, row])
    assert _flat_rows(data, offsets) == [expected, expected]


def test_numpy_and_arrow_columns_take_the_vectorized_path(monkeypatch):
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(3)
    n = 257
    addresses = rng.integers(0, 256, (n, 20), dtype=np.uint8)
    amounts_u64 = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2)
    amounts_i32 = rng.integers(-(2**31), 2**31, n, dtype=np.int32)
    flags = rng.integers(0, 2, n).astype(bool)
    tags = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    types = ["address", "uint256", "int32", "bool", "bytes4", "int64"]
    rows = [
        [
            bytes(addresses[i]),
            int(amounts_u64[i]),
            int(amounts_i32[i]),
            bool(flags[i]),
            bytes(tags[i]),
            int(amounts_i32[i]) * 3,
        ]
        for i in range(n)
    ]
    expected = _reference(types, rows)
    columns = {
        "a": addresses,
        "b": amounts_u64,
        "c": amounts_i32,
        "d": flags,
        "e": tags,
        "f": amounts_i32.astype(np.int64) * 3,
    }
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "eth_abi", None)  # any per-value fallback would fail here
        assert _flat_rows(*abi.encode_rows(types, columns)) == expected
        assert _flat_rows(*abi.encode_rows(types, rows)) == expected
    table = pa.table(
        {
            "a": pa.array([bytes(r) for r in addresses], pa.binary(20)),
            "b": pa.array(amounts_u64),
            "c": pa.array(amounts_i32),
            "d": pa.array(flags),
            "e": pa.array([bytes(r) for r in tags], pa.binary(4)),
            "f": pa.array(amounts_i32.astype(np.int64) * 3),
        }
    )
    chunked = pa.concat_tables([table.slice(0, 100), table.slice(100)])
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "eth_abi", None)
        assert _flat_rows(*abi.encode_rows(types, table)) == expected
        assert _flat_rows(*abi.encode_rows(types, chunked)) == expected
    hex_rows = [
        [
            "0x" + bytes(addresses[i]).hex(),
            str(int(amounts_u64[i])),
            int(amounts_i32[i]),
            bool(flags[i]),
            "0x" + bytes(tags[i]).hex(),
            int(amounts_i32[i]) * 3,
        ]
        for i in range(n)
    ]
    assert _flat_rows(*abi.encode_rows(types, hex_rows)) == expected


@pytest.mark.parametrize(("arrow_type", "limit"), [("decimal256", 76), ("decimal128", 38)])
def test_arrow_decimal_columns(arrow_type, limit):
    pa = pytest.importorskip("pyarrow")
    from decimal import Decimal

    rng = random.Random(limit)
    values = [0, 1, -1, 10**limit - 1, -(10**limit) + 1, 2**64, -(2**64)]
    values += [rng.randrange(-(10**limit) + 1, 10**limit) for _ in range(20)]
    decimal_type = getattr(pa, arrow_type)(limit, 0)
    column = pa.array([Decimal(v) for v in values], decimal_type)
    chunked = pa.chunked_array([column.slice(0, 5), column.slice(5)])
    for form, expected_values in (
        (column, values),
        (chunked, values),
        (column.slice(3), values[3:]),
    ):
        expected = [eth_abi.encode(["int256"], [v]) for v in expected_values]
        assert _flat_rows(*abi.encode_rows(["int256"], {"x": form})) == expected
    positive = pa.array([Decimal(v) for v in (0, 5, 2**64 + 3)], decimal_type)
    expected = [eth_abi.encode(["uint72"], [v]) for v in (0, 5, 2**64 + 3)]
    assert _flat_rows(*abi.encode_rows(["uint72"], {"x": positive})) == expected
    with pytest.raises(ValueError, match=r"row 2 = -1 is out of range for uint256"):
        abi.encode_rows(["uint256"], {"x": column})
    with pytest.raises(ValueError, match=r"row 3 = .* is out of range for int64"):
        abi.encode_rows(["int64"], {"x": column})


def test_out_of_range_and_wrong_values():
    with pytest.raises(ValueError, match=r"256 is out of range for uint8 \[0, 255\]"):
        abi.encode(["uint8"], [256])
    with pytest.raises(ValueError, match=r"-129 is out of range for int8"):
        abi.encode(["int8"], [-129])
    with pytest.raises(ValueError, match="out of range for uint256"):
        abi.encode(["uint256"], [-1])
    with pytest.raises(ValueError, match=r"row 1 = 300 is out of range for uint8"):
        abi.encode_rows(["uint8"], {"x": np.array([1, 300, 2])})
    with pytest.raises(ValueError, match=r"row 0 = -1 is out of range for uint64"):
        abi.encode_rows(["uint64"], [[-1]])
    with pytest.raises(TypeError, match="is a bool; uint256 takes an int"):
        abi.encode(["uint256"], [True])
    with pytest.raises(ValueError, match="is not an integer"):
        abi.encode(["uint256"], ["12abc"])
    with pytest.raises(ValueError, match="20-byte address"):
        abi.encode(["address"], [b"\x01" * 19])
    with pytest.raises(ValueError, match="must be 0x-prefixed hex"):
        abi.encode(["address"], ["11" * 20])
    with pytest.raises(ValueError, match="5 bytes, more than bytes4"):
        abi.encode(["bytes4"], [b"12345"])
    with pytest.raises(TypeError, match="bool takes True/False"):
        abi.encode(["bool"], [1])
    with pytest.raises(TypeError, match="string takes a str"):
        abi.encode(["string"], [b"abc"])
    with pytest.raises(ValueError, match="uint8\\[2\\] takes 2"):
        abi.encode(["uint8[2]"], [[1, 2, 3]])
    with pytest.raises(ValueError, match="holds 1 values but 2 types"):
        abi.encode(["uint8", "bool"], [1])
    with pytest.raises(ValueError, match=r"rows\[1\] holds 1 values but 2 types"):
        abi.encode_rows(["uint8", "bool"], [[1, True], [2]])


@pytest.mark.parametrize(
    ("types", "column"),
    [(["string"], 5), (["string"], None), (["string"], "abc"), (["uint8"], b"ab")],
)
def test_a_mapping_column_that_is_not_a_column_is_named(types, column):
    # A column of a mapping is a list, a numpy or Arrow array: a str or bytes was read as a
    # column of its characters or bytes (three rows from "abc"), anything unsized failed
    # inside len() without naming the argument.
    with pytest.raises(
        TypeError, match=r"rows\['x'\] must be a column .*, got (int|NoneType|str|bytes)$"
    ):
        abi.encode_rows(types, {"x": column})


@pytest.mark.parametrize(
    "bad",
    [
        *("uint7", "uint264", "bytes0", "bytes33", "(uint8,bool)", "foo", "uint8[0]", "int"),
        # Spellings eth-abi refuses too: leading zeros, spaces, digits past int()'s limit.
        *("uint256[01]", "uint08", "bytes01", " uint256", "uint256\n", "uint8[00]"),
        *("uint256[" + "9" * 5000 + "]", "uint" + "0" * 5000 + "8", "uint256[\u0661]"),
    ],
)
def test_type_parsing(bad):
    if bad == "int":
        assert abi.parse_type("int").name == "int256"
        assert abi.parse_type("uint[][3]").name == "uint256[][3]"
        return
    with pytest.raises(ValueError, match="unsupported ABI type"):
        abi.parse_type(bad)


def test_json_values_are_what_javascript_reads():
    assert abi.json_value("uint256", 10**30) == "1000000000000000000000000000000"
    assert abi.json_value("int8", np.int8(-3)) == "-3"
    assert abi.json_value("bytes32", b"\x01" * 32) == "0x" + "01" * 32
    assert abi.json_value("address", "0xAbC0000000000000000000000000000000000000") == (
        "0xAbC0000000000000000000000000000000000000"
    )
    assert abi.json_value("bool", np.bool_(True)) is True
    assert abi.json_value("uint8[]", [1, 2]) == ["1", "2"]


def _elementary_types() -> list[str]:
    widths = range(8, 257, 8)
    return (
        [f"uint{b}" for b in widths]
        + [f"int{b}" for b in widths]
        + [f"bytes{n}" for n in range(1, 33)]
        + ["address", "bool"]
    )


def _random_values(name: str, rng: random.Random, count: int) -> list:
    if name == "bool":
        return [rng.random() < 0.5 for _ in range(count)]
    if name == "address":
        return [rng.randbytes(20) for _ in range(count)]
    if name.startswith("bytes"):
        return [rng.randbytes(int(name[5:])) for _ in range(count)]
    bits = int(name.lstrip("uint"))
    low, high = (
        (0, (1 << bits) - 1) if name[0] == "u" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    )
    edges = [low, high, 0, low + 1, high - 1] if low else [low, high, 1, high - 1]
    return edges + [rng.randint(low, high) for _ in range(count - len(edges))]


def _column_forms(name: str, values: list) -> dict:
    """The columnar inputs a user may hold these values in."""
    pa = pytest.importorskip("pyarrow")
    forms = {"list": values}
    if name == "bool":
        forms["numpy"] = np.array(values, dtype=np.bool_)
        forms["arrow"] = pa.array(values)
        forms["text"] = ["true" if v else "false" for v in values]
    elif name == "address" or name.startswith("bytes"):
        width = len(values[0])
        forms["numpy"] = np.frombuffer(b"".join(values), dtype=np.uint8).reshape(-1, width)
        forms["arrow"] = pa.array(values, pa.binary(width))
        forms["hex"] = ["0x" + v.hex() for v in values]
    else:
        forms["text"] = [str(v) if k % 2 else hex(v) for k, v in enumerate(values)]
        for dtype in (np.int64, np.uint64):
            info = np.iinfo(dtype)
            if info.min <= min(values) and max(values) <= info.max:
                forms["numpy"] = np.array(values, dtype=dtype)
                forms["arrow"] = pa.array(forms["numpy"])
                break
        else:
            if max(abs(v) for v in values) < 10**76:
                forms["arrow"] = pa.array([Decimal(v) for v in values], pa.decimal256(76, 0))
    return forms


@pytest.mark.parametrize("name", _elementary_types())
def test_column_path_matches_the_eth_abi_value_path(name, monkeypatch):
    """The numpy column encoder against ``abi.encode`` (eth-abi) value by value, over random
    values and each type's extremes, for every elementary type and column form."""
    rng = random.Random(name)
    values = _random_values(name, rng, 40)
    if name.startswith(("uint", "int")) and int(name.lstrip("uint")) > 64:
        # Wide types also get values a decimal256 column can hold.
        values = [v % 10**75 if v >= 0 else -(-v % 10**75) for v in values] + values
    by_value = [abi.encode([name], [v]) for v in values]
    assert by_value == [eth_abi.encode([name], [v]) for v in values]
    for form, column in _column_forms(name, values).items():
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, "eth_abi", None)  # the column path alone
            data, offsets = abi.encode_rows([name], {"x": column})
        assert _flat_rows(data, offsets) == by_value, form
    if name.startswith("bytes") and name != "bytes1":
        # bytesN columns of shorter values are right-padded, as eth-abi pads one value.
        short = [v[:-1] for v in values]
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, "eth_abi", None)
            data, offsets = abi.encode_rows([name], {"x": short})
        assert _flat_rows(data, offsets) == [abi.encode([name], [v]) for v in short]


def test_mixed_value_columns_go_value_by_value_through_eth_abi():
    types = ["uint256", "bytes4", "bool"]
    columns = {
        "a": [1, "0x10", "300"],
        "b": [b"\x01", "0x0203", b"\x04\x05\x06"],
        "c": [True, "false", "true"],
    }
    rows = [list(r) for r in zip(*columns.values())]
    expected = [
        eth_abi.encode(types, [1, b"\x01", True]),
        eth_abi.encode(types, [16, b"\x02\x03", False]),
        eth_abi.encode(types, [300, b"\x04\x05\x06", True]),
    ]
    assert _flat_rows(*abi.encode_rows(types, columns)) == expected
    assert [abi.encode(types, r) for r in rows] == expected


def test_without_eth_abi_static_columns_encode_and_the_rest_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "eth_abi", None)
    data, _ = abi.encode_rows(["address", "uint256"], [[b"\x01" * 20, 5]])
    assert data.tobytes() == bytes(12) + b"\x01" * 20 + (5).to_bytes(32, "big")
    for types, row in ((["string"], ["x"]), (["uint256"], ["5"])):
        with pytest.raises(ImportError, match=r"pip install 'batchkeccak\[merkle\]'"):
            abi.encode(types, row)


def test_array_depth_is_capped_and_a_long_type_is_cut_short_in_the_message():
    deepest = "uint8" + "[]" * abi.MAX_ARRAY_DEPTH
    assert abi.parse_type(deepest).name == deepest
    # Checked against eth-abi's own encoding of the deepest type allowed.
    eth_abi = pytest.importorskip("eth_abi")
    value: object = [7]
    for _ in range(abi.MAX_ARRAY_DEPTH - 1):
        value = [value]
    data, offsets = abi.encode_rows([deepest], [[value]])
    assert bytes(data[offsets[0] : offsets[1]]) == eth_abi.encode([deepest], [value])

    huge = "uint256" + "[]" * 50_000
    with pytest.raises(ValueError, match=r"50000 array dimensions, at most 32") as error:
        abi.parse_type(huge)
    assert len(str(error.value)) < 200 and "(100007 characters)" in str(error.value)


def test_bad_types_and_values_name_their_place_in_a_short_message():
    with pytest.raises(TypeError, match=r"^types\[1\]: an ABI type must be a str, got list$"):
        abi.parse_types(["uint256", ["uint256"]])
    with pytest.raises(ValueError, match=r"^types\[0\]: .*leading zero$"):
        abi.parse_types(["uint256[01]"])
    for value, kind in [("9" * 100_000, "uint256"), ("0x" + "f" * 5000, "uint256")]:
        with pytest.raises(ValueError) as error:
            abi.encode_rows([kind], [[value]])
        assert len(str(error.value)) < 300, str(error.value)[:300]
    with pytest.raises(TypeError) as error:
        abi.encode_rows(["bool"], [["t" * 100_000]])
    assert len(str(error.value)) < 300
    # Decimal strings are ASCII digits, as JavaScript's BigInt reads them.
    with pytest.raises(ValueError, match="is not an integer"):
        abi.encode_rows(["uint256"], [["\u0665"]])
