"""Text read where CPython keeps it: lists of str (and pandas object columns) through the
entry points that take text, against hashlib and pycryptodome on every backend policy.

The compiled list reader (``batchkeccak.inputs._pylist``) copies an exact ``str`` of ASCII
characters from the object itself; any other str (not ASCII, a subclass) sends the column
to the portable path. Lengths go around the reader's threshold (64 items), its guessed room
(64 bytes an item: a longer string takes the second pass) and SHA3-256's block (136 B).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from Crypto.Hash import keccak
from race_helpers import race_script, run_race

import batchkeccak as bk
from batchkeccak.inputs._pylist import flatten_bytes, layout_matches
from batchkeccak.inputs.sequences import COMPILED_READ_MIN

pytestmark = pytest.mark.every_backend

LENGTHS = [0, 1, 7, 8, 31, 32, 63, 64, 65, 135, 136, 137, 300]


class Text(str):
    """A subclass of str: read through the portable path, never by the layout."""


def sha3(value: str | bytes) -> bytes:
    return hashlib.sha3_256(value.encode() if isinstance(value, str) else value).digest()


def keccak256(value: bytes) -> bytes:
    return keccak.new(digest_bits=256, data=value).digest()


def texts(count: int, length: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed + length)
    return [
        "".join(map(chr, rng.integers(32, 127, length))) + ""  # a fresh, exact str
        for _ in range(count)
    ]


@pytest.mark.parametrize("count", [COMPILED_READ_MIN - 1, COMPILED_READ_MIN, 200])
@pytest.mark.parametrize("length", LENGTHS)
def test_reader_copies_ascii_text_as_its_utf8_bytes(count, length, backend_policy):
    if not layout_matches():
        pytest.skip("this interpreter's layout is not CPython's: the portable path only")
    values = texts(count, length)
    for sequence in (values, tuple(values)):
        data, offsets = flatten_bytes(sequence, text=True)  # type: ignore[misc]
        assert data.tobytes() == "".join(values).encode()
        assert np.array_equal(offsets, np.cumsum([0, *map(len, values)]))
    assert flatten_bytes(values) is None  # str where only bytes are taken
    assert flatten_bytes([*values, b"x"], text=True, binary=False) is None


@pytest.mark.parametrize(
    "odd",
    ["\u00e9t\u00e9", "\u4e2d\u6587", "\U0001f600", Text("sub"), b"raw bytes", bytearray(b"ba")],
)
def test_pandas_object_column_of_any_text_matches_hashlib(odd, backend_policy):
    pd = pytest.importorskip("pandas")
    import batchkeccak.pandas  # noqa: F401

    for at in (0, 70, 139):  # where the reader stops: first, middle, last
        values: list[object] = [f"user{i}@example.org" for i in range(140)]
        values[at] = odd
        got = pd.Series(values, dtype=object).bk.sha3_256()
        want = [sha3(bytes(v) if isinstance(v, bytearray) else v) for v in values]  # type: ignore[arg-type]
        assert list(got) == want


@pytest.mark.parametrize("length", LENGTHS)
def test_pandas_object_column_of_ascii_text_matches_hashlib(length, backend_policy):
    pd = pytest.importorskip("pandas")
    import batchkeccak.pandas  # noqa: F401

    values = texts(150, length, seed=1)
    got = pd.Series(values, dtype=object).bk.sha3_256()
    assert list(got) == [sha3(v) for v in values]
    hexed = pd.Series(values, dtype=object).bk.sha3_256(hex=True)
    assert list(hexed) == [hashlib.sha3_256(v.encode()).hexdigest() for v in values]


def test_pandas_object_column_with_a_missing_value_keeps_it_null(backend_policy):
    pd = pytest.importorskip("pandas")
    import batchkeccak.pandas  # noqa: F401

    values: list[object] = [f"v{i}" for i in range(100)]
    values[50] = None
    got = pd.Series(values, dtype=object).bk.sha3_256()
    assert got.isna().tolist() == [v is None for v in values]
    assert got.iloc[49] == sha3("v49")


def test_hash_many_keeps_refusing_str_as_hashlib_does(backend_policy):
    with pytest.raises(TypeError, match=r"messages\[0\] is a str"):
        bk.hash_many(["text"] * 100, "sha3_256")


@pytest.mark.parametrize("count", [COMPILED_READ_MIN - 1, COMPILED_READ_MIN, 300])
def test_selectors_of_str_lists_match_pycryptodome(count, backend_policy):
    from batchkeccak.ethereum import selectors

    signatures = [f"f{i}(uint256,address)" for i in range(count)]
    signatures[-1] = "caf\u00e9(bytes32)"  # not ASCII: the whole list goes through Arrow
    for form in (signatures, tuple(signatures), signatures[:-1]):
        got = selectors(form)
        assert [row.tobytes() for row in got] == [keccak256(s.encode())[:4] for s in form]


def test_selectors_refuse_a_value_that_is_not_text_by_its_row(backend_policy):
    from batchkeccak.ethereum import selectors

    signatures: list[object] = [f"f{i}(uint256)" for i in range(100)]
    signatures[70] = 7
    with pytest.raises(TypeError, match=r"signatures\[70\] must be a str"):
        selectors(signatures)


def test_checksum_addresses_of_a_long_list_match_eip55(backend_policy):
    from batchkeccak.ethereum import checksum_addresses

    rng = np.random.default_rng(5)
    raw = [bytes(rng.integers(0, 256, 20, dtype=np.uint8)) for _ in range(100)]
    lower = ["0x" + r.hex() for r in raw]

    def eip55(value: bytes) -> str:
        digits = value.hex()
        nibbles = keccak256(digits.encode()).hex()
        return "0x" + "".join(
            c.upper() if c.isalpha() and int(n, 16) >= 8 else c for c, n in zip(digits, nibbles)
        )

    assert checksum_addresses(lower) == [eip55(r) for r in raw]
    assert checksum_addresses([a.upper().replace("0X", "0x") for a in lower]) == [
        eip55(r) for r in raw
    ]


RACE_SETUP = """
import hashlib, random, sys, threading, time
import batchkeccak as bk
from batchkeccak.inputs._pylist import flatten_bytes

count, threads, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
LENGTHS = (0, 7, 64, 135, 136, 1000, 20000)  # long items: the copy without the GIL

def content(i, n, flavour):
    return bytes([97 + (i + flavour) % 26]) * n

def fresh(i, rng):
    # A new object each time: the one it replaces loses its last reference and is freed.
    value = content(i, rng.choice(LENGTHS), rng.randrange(2))
    return value.decode() if i % 2 else value

allowed = [{content(i, n, f) for n in LENGTHS for f in (0, 1)} for i in range(count)]
rng0 = random.Random(0)
items = [fresh(i, rng0) for i in range(count)]
bk.hash_many([bytes(x, "ascii") if isinstance(x, str) else x for x in items], "sha3_256")
flatten_bytes(items, text=True)

def mutate():
    global mutations
    rng = random.Random(1)
    while not stop.is_set():
        i = rng.randrange(count)
        if rng.random() < 0.05 and len(items) == count:
            items.pop()                    # shrink, then grow back
            items.append(fresh(count - 1, rng))
        else:
            items[i] = fresh(i, rng)
        mutations += 1

"""
RACE_SCRIPT = race_script(
    RACE_SETUP,
    "flat = flatten_bytes(items, text=True)",
    """
    if flat is None:
        continue
    data, offsets = flat
    calls += 1
    for i in range(len(offsets) - 1):  # the list's length when it was measured
        if data[offsets[i] : offsets[i + 1]].tobytes() not in allowed[i]:
            print(f"WRONG BYTES: item {i} after {calls} calls", flush=True)
            sys.exit(3)
    bytes_only = [x for x in list(items) if type(x) is bytes]
    rows = bk.hash_many(bytes_only, "sha3_256", threads=threads)
    for row, x in zip(rows, bytes_only):
        if row.tobytes() != hashlib.sha3_256(x).digest():
            print("WRONG DIGEST", flush=True)
            sys.exit(3)
    """,
)


@pytest.mark.slow
@pytest.mark.kernels_only  # the compiled reader, before any backend is chosen
def test_a_list_changed_by_another_thread_is_read_as_real_contents_or_refused():
    summary = run_race(RACE_SCRIPT, ["300", "2", "3"])
    assert int(summary.split("calls=")[1].split()[0]) >= 5, summary


def eip55_of(value: bytes) -> str:
    digits = value.hex()
    nibbles = keccak256(digits.encode()).hex()
    return "0x" + "".join(
        c.upper() if c.isalpha() and int(n, 16) >= 8 else c for c, n in zip(digits, nibbles)
    )


@pytest.mark.parametrize("prefix", ["0x", "0X", "", "mixed"])
def test_hex_addresses_of_one_length_or_mixed_match_eip55(prefix, backend_policy):
    pa = pytest.importorskip("pyarrow")
    from batchkeccak.ethereum import checksum_addresses

    rng = np.random.default_rng(9)
    raw = [bytes(rng.integers(0, 256, 20, dtype=np.uint8)) for _ in range(90)]
    texts = [
        ("0x" if prefix == "mixed" and i % 3 else "" if prefix == "mixed" else prefix) + r.hex()
        for i, r in enumerate(raw)
    ]
    want = [eip55_of(r) for r in raw]
    assert checksum_addresses(texts) == want
    # An Arrow slice: its rows start past the start of the data buffer.
    assert checksum_addresses(pa.array(texts)[5:]).to_pylist() == want[5:]
    bad = list(texts)
    bad[40] = bad[40][:-1] + "g"
    with pytest.raises(ValueError, match=r"addresses\[40\] holds a character"):
        checksum_addresses(bad)


@pytest.mark.parametrize("count", [COMPILED_READ_MIN - 1, COMPILED_READ_MIN, 2100])
@pytest.mark.parametrize("lengths", [(63, 64), (64, 65), (0, 136, 1000), (135, 137, 5000)])
def test_hash_many_of_bytes_lists_around_the_readers_thresholds(count, lengths, backend_policy):
    # 64 bytes an item is the one-pass copy's room; past it the copy runs without the GIL;
    # 2,100 items are split over two threads, each copying its own chunk.
    rng = np.random.default_rng(count + sum(lengths))
    messages = [
        bytes(rng.integers(0, 256, lengths[i % len(lengths)], dtype=np.uint8)) for i in range(count)
    ]
    want = [hashlib.sha3_256(m).digest() for m in messages]
    for form in (messages, tuple(messages)):
        for threads in (1, 2):
            got = bk.hash_many(form, "sha3_256", threads=threads)
            assert [row.tobytes() for row in got] == want
    # One item of another type anywhere: the whole list takes the buffer-export path.
    mixed: list[object] = list(messages)
    mixed[count // 2] = bytearray(messages[count // 2])
    mixed[-1] = memoryview(messages[-1])
    assert [row.tobytes() for row in bk.hash_many(mixed, "sha3_256", threads=2)] == want


def test_a_wrong_address_length_counts_characters_not_bytes():
    from batchkeccak.ethereum import checksum_addresses

    text = "0x" + "ab" * 20 + "\u00e9"  # 43 characters, 44 bytes of UTF-8
    with pytest.raises(ValueError, match=r"\[0\] has 43 characters"):
        checksum_addresses([text])


ADDRESS = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"


@pytest.mark.kernels_only  # an error path: one backend policy is enough
@pytest.mark.parametrize("count", [1, COMPILED_READ_MIN + 36])
@pytest.mark.parametrize("surrogate", [chr(0xD800), chr(0xDCFF)])
def test_text_that_utf8_cannot_encode_is_a_value_error_naming_its_row(count, surrogate):
    """A lone surrogate (what ``errors="surrogateescape"`` decoding leaves) has no UTF-8: a
    ValueError naming the argument, the row and the character, not a bare
    UnicodeEncodeError from the conversion; the compiled reader declines such a str."""
    from batchkeccak.ethereum import checksum_addresses, event_topics, selectors

    row = count - 1
    addresses = [ADDRESS] * count
    addresses[row] = ADDRESS[:-1] + surrogate
    signatures = ["transfer(address,uint256)"] * count
    signatures[row] = f"x{surrogate}()"
    cases = [
        (lambda: checksum_addresses(addresses), "addresses", 41),
        (lambda: checksum_addresses(tuple(addresses)), "addresses", 41),
        (lambda: selectors(signatures), "signatures", 1),
        (lambda: event_topics(signatures), "signatures", 1),
    ]
    for call, argument, place in cases:
        with pytest.raises(ValueError) as caught:
            call()
        assert type(caught.value) is ValueError
        assert str(caught.value) == (
            f"{argument}[{row}] is not valid UTF-8 text: character {place} is the lone "
            f"surrogate {surrogate!r}, which UTF-8 cannot encode"
        )


@pytest.mark.kernels_only  # an error path: one backend policy is enough
@pytest.mark.parametrize("count", [6, COMPILED_READ_MIN + 36])
@pytest.mark.parametrize("other", ["ok", b"ok", None])
def test_pandas_text_that_utf8_cannot_encode_names_its_row_and_label(count, other):
    pd = pytest.importorskip("pandas")
    import batchkeccak.pandas  # noqa: F401

    values: list[object] = ["ok"] * count
    values[0] = other  # str only, bytes and str (read as binary), a missing value
    values[-1] = "x\ud800"
    labels = [f"r{i}" for i in range(count)]
    series = pd.Series(values, index=labels, dtype=object)
    with pytest.raises(ValueError) as caught:
        series.bk.sha3_256()
    assert type(caught.value) is ValueError
    assert str(caught.value) == (
        f"bk: row {count - 1} (index 'r{count - 1}') is not valid UTF-8 text: character 1 "
        "is the lone surrogate '\\ud800', which UTF-8 cannot encode"
    )


@pytest.mark.kernels_only  # an error path: one backend policy is enough
@pytest.mark.parametrize("count", [1, COMPILED_READ_MIN + 6])
@pytest.mark.parametrize("odd", ["\u00e9", "\uff10", "\u0663", "g"])
def test_an_address_with_a_character_that_is_not_a_hex_digit_says_so(count, odd):
    """The right number of characters, one of them not an ASCII hex digit (a fullwidth or
    Arabic-Indic digit is not one, though ``int(c, 16)`` takes it): the fault named is the
    character, in a list, a tuple and an Arrow column, not the UTF-8 length."""
    pa = pytest.importorskip("pyarrow")
    from batchkeccak.ethereum import checksum_addresses, create2_addresses

    addresses = [ADDRESS] * count
    addresses[-1] = ADDRESS[:-1] + odd
    message = (
        rf"^addresses\[{count - 1}\] holds a character that is not a hex digit: "
        rf"'{odd}' at character 41$"
    )
    for form in (addresses, tuple(addresses), pa.array(addresses)):
        with pytest.raises(ValueError, match=message):
            checksum_addresses(form)
    unprefixed = [a[2:] for a in addresses]
    with pytest.raises(ValueError, match=rf"not a hex digit: '{odd}' at character 39$"):
        checksum_addresses(unprefixed)
    with pytest.raises(ValueError, match=r"^deployer(\[0\])? holds a character that is not"):
        create2_addresses(ADDRESS[:-1] + odd, [bytes(32)], bytes(32))


@pytest.mark.kernels_only  # an error path: one backend policy is enough
def test_one_deployer_that_utf8_cannot_encode_is_a_value_error():
    from batchkeccak.ethereum import contract_addresses

    with pytest.raises(ValueError, match=r"^deployers holds a character that is not a hex"):
        contract_addresses(ADDRESS[:-1] + "\udc80", [0])


RAW_ADDRESS = bytes.fromhex(ADDRESS[2:])
EIP55_ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"  # EIP-55's own first example
LIST_RULE = "a list of addresses is all hex str or all 20-byte values"


@pytest.mark.kernels_only  # an error path: one backend policy is enough
@pytest.mark.parametrize("count", [3, COMPILED_READ_MIN + 6])
@pytest.mark.parametrize("lead", [0, 1])
def test_an_address_list_is_all_hex_str_or_all_bytes_whatever_comes_first(count, lead):
    """How a value is read never depends on the list's first value: a mix is a TypeError
    naming the first value of the other kind (None allowed anywhere, the first too), never
    the advice to encode a str; bytes holding hex text are refused, as eth_utils does."""
    from batchkeccak.ethereum import checksum_addresses, contract_addresses

    want = [EIP55_ADDRESS] * count
    for value in (ADDRESS, RAW_ADDRESS):
        values: list[object] = [None] * lead + [value] * (count - lead)
        assert checksum_addresses(values) == [None] * lead + want[lead:]
    for first, other, kind, holds in (
        (ADDRESS, RAW_ADDRESS, "bytes", "hex str"),
        (ADDRESS, bytearray(RAW_ADDRESS), "bytearray", "hex str"),
        (ADDRESS, ADDRESS.encode(), "bytes", "hex str"),  # was read as hex text
        (RAW_ADDRESS, ADDRESS, "a str", "20-byte values"),
        (RAW_ADDRESS, ADDRESS[2:], "a str", "20-byte values"),
    ):
        values = [None] * lead + [first] * (count - lead - 1) + [other]
        with pytest.raises(TypeError) as caught:
            checksum_addresses(values)
        message = str(caught.value)
        assert message.startswith(
            f"addresses[{count - 1}] is {kind} in a list of {holds}: {LIST_RULE}"
        )
        assert "encode" not in message
        assert ("decode it first" in message) is (other == ADDRESS.encode())
    with pytest.raises(TypeError, match=r"^deployers\[1\] is a str in a list of 20-byte"):
        contract_addresses([RAW_ADDRESS, ADDRESS], [0, 1])


@pytest.mark.kernels_only  # an error path: one backend policy is enough
@pytest.mark.parametrize("text", [ADDRESS, ADDRESS[2:], ADDRESS.upper().replace("0X", "0x")])
def test_bytes_of_hex_text_are_refused_with_the_way_out(text):
    from batchkeccak.ethereum import checksum_addresses, create2_addresses

    eth_utils = pytest.importorskip("eth_utils")
    with pytest.raises(ValueError):  # the oracle refuses them too
        eth_utils.to_checksum_address(text.encode())
    size = len(text)
    message = (
        rf"^addresses\[{{row}}\] is {size} bytes of hex text; an address is 20 bytes: pass "
        r"hex as str \(decode it first"
    )
    for values, row in (
        ([text.encode()], 0),
        ([RAW_ADDRESS, None, bytearray(text.encode())], 2),
        ([RAW_ADDRESS] * COMPILED_READ_MIN + [text.encode()], COMPILED_READ_MIN),
    ):
        with pytest.raises(ValueError, match=message.format(row=row)):
            checksum_addresses(values)
    with pytest.raises(ValueError, match=rf"^deployer is {size} bytes of hex text"):
        create2_addresses(text.encode(), [bytes(32)], bytes(32))
