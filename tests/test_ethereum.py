"""batchkeccak.ethereum against independent oracles: py-trie (``trie.HexaryTrie``, its proofs),
the Ethereum test suite's TrieTests, eth_utils, ``rlp`` and EIP-1014's examples."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from batchkeccak import FlatMessages
from batchkeccak.ethereum import (
    EMPTY_ROOT,
    checksum_addresses,
    contract_addresses,
    create2_addresses,
    event_topics,
    mapping_slots,
    ordered_trie_root,
    ordered_trie_roots,
    selectors,
    trie_proofs,
    trie_root,
    trie_roots,
    verify_trie_proofs,
)

rlp = pytest.importorskip("rlp")
eth_utils = pytest.importorskip("eth_utils")
trie = pytest.importorskip("trie")
HexaryTrie = trie.HexaryTrie
keccak = eth_utils.keccak

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

VECTORS = Path(__file__).parent / "data" / "TrieTests"


def reference_trie(pairs, secure=False):
    """The trie py-trie builds from ``pairs``, node by node."""
    t = HexaryTrie({})
    with t.squash_changes() as batch:
        for key, value in pairs:
            if value:
                batch[keccak(key) if secure else key] = value
    return t


def reference_root(pairs, secure=False) -> bytes:
    return reference_trie(pairs, secure).root_hash


# A plain model of the trie's root (Yellow Paper, appendix D), written here: for the large
# trie, where py-trie's node-by-node build takes most of the test's time (7 times the
# model's). It is checked against py-trie on every shape below.


def _hex_prefix(nibbles: tuple[int, ...], leaf: bool) -> bytes:
    flag = 2 if leaf else 0
    padded = (flag + 1, *nibbles) if len(nibbles) % 2 else (flag, 0, *nibbles)
    return bytes(16 * padded[i] + padded[i + 1] for i in range(0, len(padded), 2))


def _model_node(items, depth: int):
    """The node (an RLP structure) over ``items``: sorted (nibbles, value) pairs that share
    their first ``depth`` nibbles."""
    if not items:
        return b""
    if len(items) == 1:
        key, value = items[0]
        return [_hex_prefix(key[depth:], True), value]
    first, last = items[0][0], items[-1][0]  # sorted: what these two share, all share
    shared = depth
    while shared < min(len(first), len(last)) and first[shared] == last[shared]:
        shared += 1
    if shared > depth:
        return [_hex_prefix(first[depth:shared], False), _model_ref(_model_node(items, shared))]
    children: list = [b""] * 16
    value, k = b"", 0
    if len(items[0][0]) == depth:  # the key that ends here sorts first
        value, k = items[0][1], 1
    while k < len(items):
        nibble, end = items[k][0][depth], k
        while end < len(items) and items[end][0][depth] == nibble:
            end += 1
        children[nibble] = _model_ref(_model_node(items[k:end], depth + 1))
        k = end
    return [*children, value]


def _model_ref(node):
    """How a parent holds a node: inline under 32 bytes of RLP, else by its Keccak-256."""
    encoded = rlp.encode(node)
    return node if len(encoded) < 32 else keccak(encoded)


def model_root(pairs, secure=False) -> bytes:
    items = sorted(
        (tuple(n for b in (keccak(k) if secure else k) for n in (b >> 4, b & 15)), v)
        for k, v in pairs
        if v
    )
    return keccak(rlp.encode(_model_node(items, 0)))


def random_key_set(rng: random.Random, count: int, shape: str) -> list[bytes]:
    keys: set[bytes] = set()
    while len(keys) < count:
        if shape == "random32":
            key = rng.randbytes(32)
        elif shape == "short":  # 0- to 2-byte keys: many prefixes of others
            key = rng.randbytes(rng.randint(0, 2))
        elif shape == "prefixes":  # keys that are prefixes of one another
            key = b"\x12\x34\x56"[: rng.randint(0, 3)] + bytes(rng.randint(0, 3))
        elif shape == "shared":  # a long shared prefix: extension nodes
            key = b"\xab" * 20 + bytes(rng.choice([0, 1, 0x10, 0xFF]) for _ in range(3))
        else:  # mixed lengths over a small alphabet: embedded nodes, odd paths
            key = bytes(rng.choice(b"\x00\x01\x10\x11") for _ in range(rng.randint(1, 6)))
        keys.add(key)
    keys_list = sorted(keys)
    rng.shuffle(keys_list)
    return keys_list


SHAPES = {"random32": 200, "short": 200, "prefixes": 20, "shared": 60, "small": 300}
VALUE_SIZES = [1, 31, 32, 33, 1000]


def random_value(rng: random.Random) -> bytes:
    size = rng.choice(VALUE_SIZES + [1, 2, 5])
    value = rng.randbytes(size)
    if size == 1 and rng.random() < 0.5:
        value = bytes([rng.randrange(0x80)])  # a byte that is its own RLP
    return value


# -- roots -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape",
    # The largest shape's tries are hashed by the kernels on every policy: it runs once.
    [
        pytest.param(s, marks=pytest.mark.kernels_only) if s == "prefixes" else s
        for s in sorted(SHAPES)
    ],
)
@pytest.mark.parametrize("secure", [False, True])
def test_random_tries_match_py_trie(shape, secure):
    rng = random.Random(f"{shape}-{secure}")
    for count in (0, 1, 2, 3, 7, 17, SHAPES[shape] // 2, SHAPES[shape]):
        keys = random_key_set(rng, min(count, 4 if shape == "prefixes" else count), shape)
        values = [random_value(rng) for _ in keys]
        expected = reference_root(zip(keys, values), secure)
        assert trie_root(keys, values, secure=secure) == expected, (shape, count)


@pytest.mark.parametrize("size", VALUE_SIZES)
def test_every_value_size_and_one_key(size):
    rng = random.Random(size)
    for key in (b"", b"\x00", b"\x7f", b"\x80", rng.randbytes(32)):
        value = rng.randbytes(size)
        assert trie_root([key], [value]) == reference_root([(key, value)])
    keys = random_key_set(rng, 40, "small")
    values = [rng.randbytes(size) for _ in keys]
    assert trie_root(keys, values) == reference_root(zip(keys, values))


def test_empty_trie_and_empty_values():
    assert trie_root([], []) == EMPTY_ROOT
    assert EMPTY_ROOT == keccak(b"\x80")
    # An empty value leaves its key out.
    assert trie_root([b"a", b"b"], [b"", b""]) == EMPTY_ROOT
    assert trie_root([b"a", b"b"], [b"x", b""]) == reference_root([(b"a", b"x")])


def test_input_forms_give_one_root():
    rng = random.Random(5)
    keys = [rng.randbytes(32) for _ in range(300)]
    values = [rng.randbytes(rng.choice([1, 40, 100])) for _ in keys]
    expected = reference_root(zip(keys, values))
    flat_values = FlatMessages(
        np.frombuffer(b"".join(values), np.uint8),
        np.cumsum([0] + [len(v) for v in values]),
    )
    key_array = np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 32)
    assert trie_root(key_array, flat_values) == expected
    assert trie_root(pa.array(keys), pa.array(values)) == expected
    assert trie_root(pa.chunked_array([keys[:100], keys[100:]]), values) == expected
    assert trie_root(tuple(bytearray(k) for k in keys), values) == expected


def test_many_tries_in_one_call():
    rng = random.Random(7)
    sizes = [0, 1, 2, 5, 0, 40, 130, 1, 300]
    tries = [
        (
            keys := random_key_set(rng, n, rng.choice(["random32", "small"])),
            [random_value(rng) for _ in keys],
        )
        for n in sizes
    ]
    offsets = np.cumsum([0] + [len(k) for k, _ in tries])
    all_keys = [k for keys, _ in tries for k in keys]
    all_values = [v for _, values in tries for v in values]
    for secure in (False, True):
        roots = trie_roots(all_keys, all_values, offsets, secure=secure)
        assert roots.shape == (len(sizes), 32) and roots.dtype == np.uint8
        for g, (keys, values) in enumerate(tries):
            assert roots[g].tobytes() == reference_root(zip(keys, values), secure), g
    # The same key in two different tries is fine.
    roots = trie_roots([b"k", b"k"], [b"1", b"2"], [0, 1, 2])
    assert roots[0].tobytes() == reference_root([(b"k", b"1")])
    assert trie_roots([], [], [0]).shape == (0, 32)


@pytest.mark.parametrize("count", [0, 1, 2, 127, 128, 129, 255, 256, 257, 400])
def test_ordered_trie_matches_rlp_index_keys(count):
    rng = random.Random(count)
    values = [rng.randbytes(rng.choice([1, 20, 33, 120])) for _ in range(count)]
    pairs = [(rlp.encode(i), v) for i, v in enumerate(values)]
    assert ordered_trie_root(values) == reference_root(pairs)


def test_many_ordered_tries():
    rng = random.Random(11)
    sizes = [3, 0, 150, 1, 128, 129, 20]
    values = [rng.randbytes(rng.choice([1, 50, 200])) for _ in range(sum(sizes))]
    offsets = np.cumsum([0] + sizes)
    roots = ordered_trie_roots(pa.array(values), offsets)
    for g in range(len(sizes)):
        block = values[offsets[g] : offsets[g + 1]]
        expected = reference_root([(rlp.encode(i), v) for i, v in enumerate(block)])
        assert roots[g].tobytes() == expected


@pytest.mark.parametrize("secure", [False, True])
def test_pieces_and_threads_change_nothing(monkeypatch, secure):
    """Levels and leaves cut into pieces of two nodes shared out among the threads, and a
    buffer too small for most nodes (each gets one of its size): the same roots and proofs
    as py-trie's."""
    from batchkeccak.ethereum import patricia

    monkeypatch.setattr(patricia, "MIN_PART_NODES", 2)
    monkeypatch.setattr(patricia, "CHUNK_BYTES", 40)
    rng = random.Random(f"pieces-{secure}")
    for shape in sorted(SHAPES):
        keys = random_key_set(rng, 4 if shape == "prefixes" else min(SHAPES[shape], 120), shape)
        values = [random_value(rng) for _ in keys]
        t = reference_trie(zip(keys, values), secure)
        assert trie_root(keys, values, secure=secure) == t.root_hash, shape
        proofs = trie_proofs(keys, values, keys[:12], secure=secure)
        for key, proof in zip(keys[:12], proofs):
            assert proof == reference_proof(t, keccak(key) if secure else key), shape
    sizes = [3, 0, 150, 1, 40]
    values = [rng.randbytes(rng.choice([1, 50, 200])) for _ in range(sum(sizes))]
    offsets = np.cumsum([0] + sizes)
    roots = ordered_trie_roots(values, offsets)
    for g in range(len(sizes)):
        block = values[offsets[g] : offsets[g + 1]]
        expected = reference_root([(rlp.encode(i), v) for i, v in enumerate(block)])
        assert roots[g].tobytes() == expected


def test_more_small_roots_than_a_buffer_has_rows(monkeypatch):
    """Roots under 32 bytes are hashed, not embedded, and a buffer holds more of them than
    one per 32 bytes: each still gets its digest."""
    from batchkeccak.ethereum import patricia

    monkeypatch.setattr(patricia, "CHUNK_BYTES", 256)
    monkeypatch.setattr(patricia, "_scratch", [])
    keys = [bytes([i]) for i in range(40)]
    roots = trie_roots(keys, [b"v"] * 40, range(41))
    assert [bytes(root) for root in roots] == [reference_root([(k, b"v")]) for k in keys]
    ordered = ordered_trie_roots([b"w"] * 40, range(41))
    assert bytes(ordered[-1]) == reference_root([(rlp.encode(0), b"w")])


@pytest.mark.kernels_only
@pytest.mark.parametrize("secure", [False, True])
def test_the_plain_model_agrees_with_py_trie(secure):
    """The model the large trie is checked against, on every shape of keys here (empty keys,
    keys that are prefixes of others, embedded nodes, extensions) and on the empty trie."""
    rng = random.Random(f"model-{secure}")
    assert model_root([], secure) == reference_root([], secure) == EMPTY_ROOT
    for shape, count in sorted(SHAPES.items()):
        for size in (1, 2, min(count, 60)):
            keys = random_key_set(rng, min(size, 4) if shape == "prefixes" else size, shape)
            pairs = [(key, random_value(rng)) for key in keys]
            assert model_root(pairs, secure) == reference_root(pairs, secure), (shape, size)


@pytest.mark.slow
@pytest.mark.kernels_only
def test_large_secure_trie():
    # 40,000 keys still cut the leaf level into the most pieces the threads take (at least
    # 4,096 nodes each, 4 per thread: 8 pieces on two cores) and give branch levels of
    # thousands of nodes. The reference is the plain model (checked against py-trie above),
    # which builds it in a seventh of py-trie's time.
    rng = random.Random(3)
    keys = [rng.randbytes(20) for _ in range(40_000)]
    values = [rng.randbytes(rng.choice([1, 40, 80])) for _ in keys]
    assert trie_root(keys, values, secure=True) == model_root(zip(keys, values), True)


# -- the Ethereum test suite -----------------------------------------------------------------


def vector_bytes(text: str | None) -> bytes:
    if text is None:
        return b""
    return bytes.fromhex(text[2:]) if text.startswith("0x") else text.encode()


def final_pairs(operations) -> dict[bytes, bytes]:
    state: dict[bytes, bytes] = {}
    for key, value in operations:
        state[vector_bytes(key)] = vector_bytes(value)
    return {k: v for k, v in state.items() if v}


TRIETEST = json.loads((VECTORS / "trietest.json").read_text())


@pytest.mark.parametrize("name", sorted(TRIETEST))
def test_trietest_vectors(name):
    case = TRIETEST[name]
    state = final_pairs(case["in"])
    expected = bytes.fromhex(case["root"][2:])
    keys, values = list(state), list(state.values())
    assert trie_root(keys, values) == expected
    # Any order: the root depends on the set of pairs only.
    order = list(range(len(keys)))
    random.Random(name).shuffle(order)
    assert trie_root([keys[i] for i in order], [values[i] for i in order]) == expected
    # The secure variant of the same case, against py-trie.
    assert trie_root(keys, values, secure=True) == reference_root(state.items(), True)


TRIETEST_SECURE = json.loads((VECTORS / "trietest_secureTrie.json").read_text())


@pytest.mark.parametrize("name", sorted(TRIETEST_SECURE))
def test_trietest_secure_vectors(name):
    case = TRIETEST_SECURE[name]
    state = final_pairs(case["in"])
    keys, values = list(state), list(state.values())
    assert trie_root(keys, values, secure=True).hex() == case["root"][2:]


ANY_ORDER = [
    pytest.param(secure, name, case, id=f"{file_name[:-5]}-{name}")
    for file_name, secure in (("trieanyorder.json", False), ("trieanyorder_secureTrie.json", True))
    for name, case in sorted(json.loads((VECTORS / file_name).read_text()).items())
]


@pytest.mark.parametrize(("secure", "name", "case"), ANY_ORDER)
def test_trieanyorder_vectors(secure, name, case):
    keys = [vector_bytes(k) for k in case["in"]]
    values = [vector_bytes(v) for v in case["in"].values()]
    expected = case["root"][2:]
    assert trie_root(keys, values, secure=secure).hex() == expected
    order = list(range(len(keys)))
    random.Random(name).shuffle(order)
    shuffled = trie_root([keys[i] for i in order], [values[i] for i in order], secure=secure)
    assert shuffled.hex() == expected


def test_hex_encoded_secure_trie_vector():
    text = (VECTORS / "hex_encoded_securetrie_test.json").read_text()
    cases = json.loads(text.replace("},\n}", "}\n}"))  # the published file's trailing comma
    for case in cases.values():
        keys = [vector_bytes(k) for k, _ in case["data"]]
        values = [vector_bytes(v) for _, v in case["data"]]
        assert trie_root(keys, values, secure=True).hex() == case["result"][2:]


# -- proofs ----------------------------------------------------------------------------------


def reference_proof(t, key: bytes) -> list[bytes]:
    """py-trie's proof as eth_getProof lists it: embedded nodes stay inside their parent."""
    encoded = [rlp.encode(node) for node in t.get_proof(key)]
    return [node for i, node in enumerate(encoded) if i == 0 or len(node) >= 32]


@pytest.mark.parametrize("secure", [False, True])
@pytest.mark.parametrize("shape", ["random32", "small", "short"])
def test_proofs_match_py_trie(secure, shape):
    rng = random.Random(f"proof-{shape}-{secure}")
    for count in (1, 2, 9, 150):
        keys = random_key_set(rng, count, shape)
        values = [random_value(rng) for _ in keys]
        t = reference_trie(zip(keys, values), secure)
        truth = dict(zip(keys, values))
        absent = [k for k in random_key_set(rng, 8, shape) if k not in set(keys)]
        queries = keys[:20] + absent
        proofs = trie_proofs(keys, values, queries, secure=secure)
        for query, proof in zip(queries, proofs):
            path = keccak(query) if secure else query
            assert proof == reference_proof(t, path)
            try:
                proven = HexaryTrie.get_from_proof(
                    t.root_hash, path, [rlp.decode(n) for n in proof]
                )
            except trie.exceptions.ValidationError:
                # py-trie cannot look up (get, or get_from_proof) a key that goes on below
                # an embedded extension node; the pairs themselves say what it holds.
                continue
            assert proven == truth.get(query, b"")
        got = verify_trie_proofs(t.root_hash, queries, proofs, secure=secure)
        assert got == [truth.get(q) for q in queries]


def test_empty_trie_proofs():
    assert trie_proofs([], [], [b"a"]) == [[]]
    assert verify_trie_proofs(EMPTY_ROOT, [b"a"], [[]]) == [None]


def test_account_proofs_against_a_state_root():
    rng = random.Random(13)
    addresses = [rng.randbytes(20) for _ in range(500)]
    accounts = [
        rlp.encode(
            [rng.randrange(100), rng.randrange(10**20), rng.randbytes(32), rng.randbytes(32)]
        )
        for _ in addresses
    ]
    t = reference_trie(zip(addresses, accounts), secure=True)
    queries = addresses[::7] + [rng.randbytes(20) for _ in range(5)]
    proofs = trie_proofs(addresses, accounts, queries, secure=True)
    root = trie_root(addresses, accounts, secure=True)
    assert root == t.root_hash
    got = verify_trie_proofs("0x" + root.hex(), queries, proofs, secure=True)
    assert got == [t.get(keccak(q)) or None for q in queries]


def test_bad_proofs_are_named():
    keys = [bytes([i]) * 32 for i in range(40)]
    values = [b"v" * 40] * 40
    root = trie_root(keys, values)
    proofs = trie_proofs(keys, values, keys[:3])
    assert all(len(p) >= 2 for p in proofs)
    with pytest.raises(ValueError, match=r"proofs\[0\] does not lead to the root"):
        verify_trie_proofs(bytes(32), keys[:1], proofs[:1])
    tampered = [list(p) for p in proofs]
    node = bytearray(tampered[1][1])
    node[-1] ^= 1
    tampered[1][1] = bytes(node)
    with pytest.raises(ValueError, match=r"proofs\[1\] does not lead to the root: its node 1"):
        verify_trie_proofs(root, keys[:3], tampered)
    with pytest.raises(ValueError, match=r"proofs\[2\] ends before"):
        verify_trie_proofs(root, keys[:3], [proofs[0], proofs[1], proofs[2][:1]])
    with pytest.raises(ValueError, match=r"proofs\[0\] has nodes past"):
        verify_trie_proofs(root, keys[:1], [proofs[0] + [proofs[0][-1]]])
    # A node that hashes right but is not RLP of a trie node.
    garbage = b"\xc3\x01\x02\x03" + bytes(40)
    with pytest.raises(ValueError, match=r"proofs\[0\] is malformed"):
        verify_trie_proofs(keccak(garbage), keys[:1], [[garbage]])
    with pytest.raises(ValueError, match="one proof per key"):
        verify_trie_proofs(root, keys[:2], proofs[:1])
    with pytest.raises(ValueError, match="root must be 32 bytes"):
        verify_trie_proofs(root[:31], keys[:1], proofs[:1])
    with pytest.raises(TypeError, match=r"proofs\[0\]"):
        verify_trie_proofs(root, keys[:1], [b"not a list"])


# -- bad input -------------------------------------------------------------------------------


def test_duplicate_keys_name_their_rows():
    with pytest.raises(ValueError, match="keys rows 0 and 2 are equal"):
        trie_root([b"a", b"b", b"a"], [b"1", b"2", b"3"])
    with pytest.raises(ValueError, match="rows 2 and 3 of trie 1 are equal"):
        trie_roots([b"a", b"b", b"c", b"c"], [b"1"] * 4, [0, 2, 4])
    # Keys that tie on their first 8 bytes but differ later are not duplicates.
    keys = [b"12345678a", b"12345678", b"12345678b"]
    assert trie_root(keys, [b"x"] * 3) == reference_root(zip(keys, [b"x"] * 3))
    with pytest.raises(ValueError, match="rows 0 and 1"):
        trie_root([b"12345678a", b"12345678a"], [b"x", b"y"])
    # The same key in two tries is no duplicate; an empty trie between them changes nothing.
    twice = [b"12345678a", b"12345678b", b"12345678a"]
    roots = trie_roots(twice, [b"x"] * 3, [0, 2, 2, 3])
    assert roots[2].tobytes() == trie_root(twice[2:], [b"x"])
    with pytest.raises(ValueError, match="rows 3 and 4 of trie 2 are equal"):
        trie_roots(twice + [b"12345678b", b"12345678b"], [b"x"] * 5, [0, 2, 2, 5])


def test_offsets_must_cover_the_rows():
    keys, values = [b"a", b"b", b"c"], [b"1", b"2", b"3"]
    with pytest.raises(ValueError, match=r"offsets\[-1\] must be 3"):
        trie_roots(keys, values, [0, 2])
    with pytest.raises(ValueError, match=r"offsets\[0\] must be 0"):
        trie_roots(keys, values, [1, 3])
    with pytest.raises(ValueError, match=r"offsets must not decrease: offsets\[1\] = 3"):
        trie_roots(keys, values, [0, 3, 2, 3])
    with pytest.raises(ValueError, match=r"offsets\[-1\] must be 3"):
        ordered_trie_roots(values, [0, 1, 2])
    with pytest.raises(TypeError, match="offsets must hold ints"):
        trie_roots(keys, values, [0.0, 3.0])
    with pytest.raises(ValueError, match="values has 2 rows but keys has 3"):
        trie_root(keys, values[:2])
    with pytest.raises(TypeError, match="keys"):
        trie_root(["a"], [b"1"])


# -- columns ---------------------------------------------------------------------------------


def test_checksum_addresses_match_eth_utils():
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 256, size=(2000, 20), dtype=np.uint8)
    expected = [eth_utils.to_checksum_address(bytes(r)) for r in rows]
    assert checksum_addresses(rows) == expected
    assert checksum_addresses([bytes(r) for r in rows]) == expected
    assert checksum_addresses(["0x" + bytes(r).hex() for r in rows]) == expected
    assert checksum_addresses([e.upper().replace("0X", "0x") for e in expected]) == expected
    assert checksum_addresses([bytes(r).hex() for r in rows[:5]]) == expected[:5]
    arrow = checksum_addresses(pa.array(["0x" + bytes(r).hex() for r in rows]))
    assert isinstance(arrow, pa.Array) and arrow.type == pa.string()
    assert arrow.to_pylist() == expected
    assert checksum_addresses(pa.array([bytes(r) for r in rows])).to_pylist() == expected
    assert checksum_addresses(np.zeros((0, 20), np.uint8)) == []
    wide = np.zeros((rows.shape[0], 32), np.uint8)
    wide[:, 7:27] = rows
    assert checksum_addresses(wide[:, 7:27]) == expected  # a view with a row stride of 32


def test_bad_addresses_are_named():
    good = bytes(20)
    with pytest.raises(ValueError, match=r"addresses\[1\] is 19 bytes"):
        checksum_addresses([good, bytes(19)])
    with pytest.raises(ValueError, match=r"addresses\[1\] has 41 characters"):
        checksum_addresses(["0x" + "00" * 20, "0x" + "0" * 39])
    with pytest.raises(ValueError, match=r"addresses\[0\] holds a character that is not"):
        checksum_addresses(["0x" + "g" * 40])
    with pytest.raises(ValueError, match="20 bytes per row"):
        checksum_addresses(np.zeros((2, 19), np.uint8))
    with pytest.raises(TypeError, match=r"addresses\[1\] must be a str"):
        checksum_addresses(["0x" + "00" * 20, 5])
    with pytest.raises(ValueError, match=r"deployers\[0\] is 19 bytes"):
        contract_addresses([bytes(19)], [0])


def test_a_sliced_column_hashes_its_own_rows():
    """A slice's offsets point past the rows before it: those rows are not the ones hashed
    (every other layout is run by test_arrow_readers.py)."""
    addresses = [
        "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
    ]
    assert checksum_addresses(pa.array(addresses)[1:]).to_pylist() == [
        eth_utils.to_checksum_address(addresses[1])
    ]
    signatures = ["transfer(address,uint256)", "approve(address,uint256)", "f()"]
    for start in (1, 2):
        assert [bytes(s) for s in selectors(pa.array(signatures)[start:])] == [
            eth_utils.function_signature_to_4byte_selector(s) for s in signatures[start:]
        ]
        assert [bytes(t) for t in event_topics(pa.array(signatures)[start:])] == [
            keccak(s.encode()) for s in signatures[start:]
        ]
    deployers = pa.array(addresses)[1:]
    assert (
        contract_addresses(deployers, [0])[0].tobytes()
        == keccak(rlp.encode([bytes.fromhex(addresses[1][2:]), 0]))[12:]
    )


def test_address_forms_match_eth_utils():
    """With or without 0x (or 0X), in any case: as eth_utils.to_checksum_address takes them."""
    digits = "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    forms = [
        digits,
        "0x" + digits,
        "0X" + digits,
        digits.upper(),
        "0x" + digits.upper(),
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    ]
    expected = [eth_utils.to_checksum_address(form) for form in forms]
    assert checksum_addresses(forms) == expected
    assert checksum_addresses(pa.array(forms)).to_pylist() == expected


def test_checksum_addresses_keep_nulls():
    address = "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"
    want = eth_utils.to_checksum_address(address)
    assert checksum_addresses([None, address, None]) == [None, want, None]
    assert checksum_addresses([None, None]) == [None, None]
    raw = bytes.fromhex(address[2:])
    assert checksum_addresses([raw, None]) == [want, None]
    column = pa.array([address] * 9 + [None, address, None])[9:]  # the bitmap mid-byte
    got = checksum_addresses(column)
    assert got.null_count == 2 and got.to_pylist() == [None, want, None]
    fixed = pa.array([None, raw], pa.binary(20))
    assert checksum_addresses(fixed).to_pylist() == [None, want]


@pytest.mark.parametrize(
    "bad",
    [
        "0x" + "0" * 39,
        "0x" + "0" * 41,
        "0" * 38,
        "",
        "0x",
        "0x" + "g" * 40,
        "zz" + "0" * 40,
        "0x" + "0" * 38 + "\u00e9",
        "0x" + "0" * 39 + " ",
    ],
)
def test_malformed_addresses_name_their_row(bad):
    with pytest.raises(ValueError, match=r"addresses\[1\]"):
        checksum_addresses(["0x" + "00" * 20, bad])
    with pytest.raises(ValueError, match=r"addresses\[1\]"):
        checksum_addresses(pa.array(["0x" + "00" * 20, bad]))
    with pytest.raises(ValueError, match=r"deployers\[1\]"):
        contract_addresses(["0x" + "00" * 20, bad], [0, 1])


def test_signatures_that_are_empty_or_null_name_their_row():
    for signatures in ([""], ["f()", ""], pa.array(["f()", ""]), [b"f()", b""]):
        with pytest.raises(ValueError, match=r"signatures\[\d\] = '' is not a canonical"):
            selectors(signatures)
    for signatures in (["f()", None], pa.array(["f()", None]), pa.array([b"f()", None])):
        with pytest.raises(ValueError, match=r"signatures\[1\] is null"):
            event_topics(signatures)
    with pytest.raises(ValueError, match=r"salts\[1\] is null"):
        create2_addresses(bytes(20), pa.array([bytes(32), None]), bytes(32))


EIP_1014_EXAMPLES = [
    # (address, salt, init_code, result): the examples of EIP-1014
    (
        "0x0000000000000000000000000000000000000000",
        "00" * 32,
        "00",
        "0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38",
    ),
    (
        "0xdeadbeef00000000000000000000000000000000",
        "00" * 32,
        "00",
        "0xB928f69Bb1D91Cd65274e3c79d8986362984fDA3",
    ),
    (
        "0xdeadbeef00000000000000000000000000000000",
        "000000000000000000000000feed000000000000000000000000000000000000",
        "00",
        "0xD04116cDd17beBE565EB2422F2497E06cC1C9833",
    ),
    (
        "0x0000000000000000000000000000000000000000",
        "00" * 32,
        "deadbeef",
        "0x70f2b2914A2a4b783FaEFb75f459A580616Fcb5e",
    ),
    (
        "0x00000000000000000000000000000000deadbeef",
        "00000000000000000000000000000000000000000000000000000000cafebabe",
        "deadbeef",
        "0x60f3f640a8508fC6a86d45DF051962668E1e8AC7",
    ),
    (
        "0x00000000000000000000000000000000deadbeef",
        "00000000000000000000000000000000000000000000000000000000cafebabe",
        "deadbeef" * 11,
        "0x1d8bfDC5D46DC4f61D6b6115972536eBE6A8854C",
    ),
    (
        "0x0000000000000000000000000000000000000000",
        "00" * 32,
        "",
        "0xE33C0C7F7df4809055C3ebA6c09CFe4BaF1BD9e0",
    ),
]


@pytest.mark.parametrize(("deployer", "salt", "code", "result"), EIP_1014_EXAMPLES)
def test_create2_eip_1014_examples(deployer, salt, code, result):
    address = create2_addresses(deployer, [bytes.fromhex(salt)], keccak(bytes.fromhex(code)))
    assert eth_utils.to_checksum_address(address[0].tobytes()) == result


def test_create2_many_rows():
    rng = np.random.default_rng(2)
    deployers = rng.integers(0, 256, size=(300, 20), dtype=np.uint8)
    salts = rng.integers(0, 256, size=(300, 32), dtype=np.uint8)
    code_hash = keccak(b"init code")
    got = create2_addresses(deployers, salts, code_hash)
    for i in range(300):
        message = b"\xff" + bytes(deployers[i]) + bytes(salts[i]) + code_hash
        assert got[i].tobytes() == keccak(message)[12:]
    one = create2_addresses(bytes(deployers[0]), salts, code_hash)
    assert one[0].tobytes() == got[0].tobytes()
    with pytest.raises(ValueError, match=r"salts\[1\] is 31 bytes"):
        create2_addresses(bytes(20), [bytes(32), bytes(31)], code_hash)
    with pytest.raises(ValueError, match="deployer has 2 rows but there are 300"):
        create2_addresses(deployers[:2], salts, code_hash)


def test_contract_addresses_match_rlp_and_keccak():
    nonces = [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 2**32, 2**64 - 1]
    rng = np.random.default_rng(3)
    senders = rng.integers(0, 256, size=(len(nonces), 20), dtype=np.uint8)
    got = contract_addresses(senders, nonces)
    for i, nonce in enumerate(nonces):
        expected = keccak(rlp.encode([bytes(senders[i]), nonce]))[12:]
        assert got[i].tobytes() == expected, nonce
    # A well-known one: the first contract of 0x6ac7ea33...dbf0.
    sender = "0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0"
    first = contract_addresses(sender, np.array([0, 1], dtype=np.uint64))
    assert first[0].tobytes().hex() == "cd234a471b72ba2f1ccf0a70fcaba648a5eecd8d"
    with pytest.raises(ValueError, match=r"nonces\[0\] = -1 is negative"):
        contract_addresses(sender, [-1])
    with pytest.raises(ValueError, match=r"nonces\[0\] = 18446744073709551616"):
        contract_addresses(sender, [2**64])


def test_selectors_and_topics():
    signatures = [
        "transfer(address,uint256)",
        "balanceOf(address)",
        "approve(address,uint256)",
        "Transfer(address,address,uint256)",
    ]
    assert [s.hex() for s in map(bytes, selectors(signatures))][:3] == [
        "a9059cbb",
        "70a08231",
        "095ea7b3",
    ]
    topics = event_topics(pa.array(signatures))
    assert topics[3].tobytes().hex() == (
        "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    )
    for i, s in enumerate(signatures):
        assert topics[i].tobytes() == keccak(s.encode())
    assert selectors([s.encode() for s in signatures]).shape == (4, 4)
    with pytest.raises(ValueError, match=r"signatures\[1\] = 'transfer\(address, uint256\)'"):
        selectors(["f()", "transfer(address, uint256)"])
    with pytest.raises(ValueError, match=r"signatures\[0\]"):
        selectors(["transfer"])


def test_mapping_slots():
    rng = np.random.default_rng(4)
    words = rng.integers(0, 256, size=(50, 32), dtype=np.uint8)
    addresses = rng.integers(0, 256, size=(50, 20), dtype=np.uint8)
    slot = 7
    slot_word = slot.to_bytes(32, "big")
    got = mapping_slots(words, slot)
    for i in range(50):
        assert got[i].tobytes() == keccak(bytes(words[i]) + slot_word)
    got = mapping_slots(addresses, slot_word)
    for i in range(50):
        assert got[i].tobytes() == keccak(bytes(12) + bytes(addresses[i]) + slot_word)
    assert mapping_slots([bytes(a) for a in addresses], slot).tobytes() == got.tobytes()
    ints = [0, 1, 2**255, 2**256 - 1, -1]
    got = mapping_slots(ints, 3)
    for i, k in enumerate(ints):
        assert got[i].tobytes() == keccak(
            (k % 2**256).to_bytes(32, "big") + (3).to_bytes(32, "big")
        )
    with pytest.raises(
        ValueError,
        match=r"keys\[0\] = 115792089237316195423570985008687907853269984665640564039457584007913129639936",
    ):
        mapping_slots([2**256], 0)
    with pytest.raises(ValueError, match=r"keys\[1\] is 19 bytes"):
        mapping_slots([bytes(20), bytes(19)], 0)


@pytest.mark.parametrize("value_size", [28, 29, 30, 60])
def test_an_embedded_node_over_32_bytes_is_refused_as_go_ethereum_refuses_it(value_size):
    """go-ethereum's ``decodeRef`` (trie/node.go) refuses an embedded node whose RLP is over 32
    bytes (``oversized embedded node``): such a child must be referenced by its hash. A branch
    whose slot 1 embeds the leaf ``[hp([2]), value]``, whose RLP is ``value_size + 3`` bytes."""
    from Crypto.Hash import keccak as pycryptodome_keccak

    leaf = [b"\x32", b"v" * value_size]  # hex-prefix of the odd leaf path [2]
    branch = rlp.encode([b"", leaf] + [b""] * 15)
    root = pycryptodome_keccak.new(digest_bits=256, data=branch).digest()
    if len(rlp.encode(leaf)) > 32:
        with pytest.raises(ValueError):
            verify_trie_proofs(root, [b"\x12"], [[branch]])
    else:
        assert verify_trie_proofs(root, [b"\x12"], [[branch]]) == [b"v" * value_size]
