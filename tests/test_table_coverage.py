"""A row added to a table is followed by every place that lists the rows by name.

An algorithm is one row of ``_TABLE`` in ``batchkeccak/core/parameters.py``, a mode one row of
``_TABLE`` in ``batchkeccak/derived/table.py``. Most code reads the tables at run time; these
places name the rows themselves and must follow by hand (docs/architecture.md, "How to add
an algorithm or a mode"):

- ``ALGORITHM_NAMES`` in ``batchkeccak/__init__.py`` (a literal, so ``import batchkeccak``
  loads no table), which is also the list of hashlib-style constructors;
- ``TAGS`` in ``batchkeccak/cli/hash.py``: the name ``batchkeccak hash --tag`` writes;
- ``ORACLES`` in ``tests/oracles.py``: the independent implementation every test compares
  with, and ``MODE_ORACLES`` below for the modes.
"""

from __future__ import annotations

import hmac

import pytest
import sp800_185_reference as ref

import batchkeccak as bk
from batchkeccak.cli import main
from batchkeccak.cli.hash import TAGS

from oracles import ORACLES, oracle

MESSAGE = b"abc" * 70  # longer than the largest rate: two blocks
KEY = bytes(range(40))


def missing_followers(name: str) -> list[str]:
    """The places that do not list the algorithm ``name``."""
    places = [
        (bk.ALGORITHM_NAMES, "ALGORITHM_NAMES in batchkeccak/__init__.py"),
        (TAGS, "TAGS in batchkeccak/cli/hash.py"),
        (ORACLES, "ORACLES in tests/oracles.py"),
    ]
    return [where for names, where in places if name not in names]


def test_every_algorithm_row_is_followed():
    assert {name: missing_followers(name) for name in bk.algorithms} == {
        name: [] for name in bk.algorithms
    }
    assert bk.ALGORITHM_NAMES == tuple(bk.algorithms)  # in the table's order, too


def test_a_row_added_alone_is_reported():
    assert missing_followers("sha3_1024") == [
        "ALGORITHM_NAMES in batchkeccak/__init__.py",
        "TAGS in batchkeccak/cli/hash.py",
        "ORACLES in tests/oracles.py",
    ]


def test_every_table_row_has_an_oracle():
    assert set(ORACLES) == set(bk.algorithms)
    for name, spec in bk.algorithms.items():
        assert spec.rate == ORACLES[name][0], name


def test_the_lists_name_nothing_else():
    """A removed or renamed row leaves no stale name behind: TAGS holds the table's rows and
    every mode that hashes a file as one message (all but TupleHash), nothing more."""
    file_modes = {name for name, mode in bk.modes.items() if mode.family != "tuplehash"}
    assert set(TAGS) == set(bk.algorithms) | file_modes
    assert set(bk.ALGORITHM_NAMES) == set(bk.algorithms)


@pytest.mark.parametrize("name", list(bk.ALGORITHM_NAMES))
def test_every_algorithm_row_reaches_every_entry_point(name, tmp_path, capsys):
    xof = bk.algorithms[name].xof
    length = 24 if xof else None
    want = oracle(name, MESSAGE, length)
    assert bk.hash_one(MESSAGE, name, length=length) == want
    constructed = getattr(bk, name)(MESSAGE)
    assert (constructed.digest(length) if xof else constructed.digest()) == want
    assert name in bk.algorithms_available

    path = tmp_path / "m"
    path.write_bytes(MESSAGE)
    assert main(["hash", "--tag", "-a", name, *(["--length", "24"] if xof else []), str(path)]) == 0
    assert capsys.readouterr().out == f"{TAGS[name]} ({path}) = {want.hex()}\n"


# ----------------------------------------------------------------------------------------
# Modes: each row's family has a construction, and a reference model to check it against.


def _sp800_bits(mode) -> int:
    return 128 if mode.sponge.endswith("128") else 256


MODE_ORACLES = {
    # family: (parameters for the check, reference digest of MESSAGE at 24 bytes)
    "cshake": (
        {"customization": b"C", "function_name": b"F"},
        lambda m: ref.cshake(_sp800_bits(m), MESSAGE, 24, b"F", b"C"),
    ),
    "kmac": (
        {"key": KEY, "customization": b"C"},
        lambda m: ref.kmac(_sp800_bits(m), KEY, MESSAGE, 24, b"C", m.xof),
    ),
    "hmac": (
        {"key": KEY},
        lambda m: hmac.new(KEY, MESSAGE, m.sponge).digest(),
    ),
    "tuplehash": (
        {"customization": b"C"},
        lambda m: ref.tuplehash(_sp800_bits(m), [MESSAGE], 24, b"C", m.xof),
    ),
    "parallelhash": (
        {"block_size": 64, "customization": b"C"},
        lambda m: ref.parallelhash(_sp800_bits(m), MESSAGE, 64, 24, b"C", m.xof),
    ),
    "kangarootwelve": (
        {"customization": b"C"},
        lambda m: ref.kangarootwelve(_sp800_bits(m), MESSAGE, b"C", 24),
    ),
    "turboshake": (
        {"domain": 0x0B},
        lambda m: ref.turboshake(_sp800_bits(m), MESSAGE, 0x0B, 24),
    ),
}


def test_every_mode_family_has_a_reference():
    assert {mode.family for mode in bk.modes.values()} <= set(MODE_ORACLES)


@pytest.mark.parametrize("name", list(bk.modes))
def test_every_mode_row_equals_its_reference(name):
    mode = bk.modes[name]
    assert mode.sponge in bk.algorithms
    params, reference = MODE_ORACLES[mode.family]
    assert set(params) <= set(mode.params) | {"block_size"}
    length = None if mode.fixed_length else 24
    hasher = bk.hasher(name, length=length, threads=1, **params)
    # TupleHash through hash_many hashes each message as a tuple of one field.
    assert bk.hash_many([MESSAGE], hasher)[0].tobytes() == reference(mode)
