"""batchkeccak.polars: the ``bk`` namespace on expressions and Series, against hashlib,
hmac, pycryptodome and the SP 800-185 / RFC 9861 transcriptions."""

from __future__ import annotations

import pytest

pl = pytest.importorskip("polars")

import pyarrow as pa
from Crypto.Hash import keccak

import batchkeccak.polars  # noqa: F401 - registers the namespace
from batchkeccak._sql import sql_functions
from batchkeccak.arrow import hash_rows as arrow_hash_rows

from engine_oracles import engine_oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

KEY = bytes(range(40))
TEXTS = ["", "abc", "caf\u00e9 \u2603", "x" * 300, None, "abc"]


def keywords(function) -> dict:
    found = {}
    if function.keyed:
        found["key"] = KEY
    if function.takes_length:
        found["length"] = 20
    if function.customized:
        found["customization"] = b"Email"
    return found


@pytest.mark.parametrize("name", list(sql_functions()))
def test_every_shortcut_on_string_and_binary(name):
    kw = keywords(sql_functions()[name])
    frame = pl.DataFrame({"s": TEXTS}).with_columns(b=pl.col("s").cast(pl.Binary))
    out = frame.select(
        raw=getattr(pl.col("s").bk, name)(**kw),
        blob=getattr(pl.col("b").bk, name)(**kw),
        hex=pl.col("s").bk.hash(name, hex=True, **kw),
    )
    assert out.schema == {"raw": pl.Binary, "blob": pl.Binary, "hex": pl.String}
    for text, raw, blob, hex_text in zip(TEXTS, *out.get_columns()):
        if text is None:
            assert (raw, blob, hex_text) == (None, None, None)
            continue
        oracle_kw = {k: v for k, v in kw.items()}
        want = engine_oracle(name, text.encode(), **oracle_kw)
        assert raw == want and blob == want and hex_text == want.hex(), (name, text)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lazy_and_streaming_queries_over_many_batches(engine):
    texts = [f"user{i}@example.org" if i % 7 else None for i in range(20_000)]
    frames = [pl.DataFrame({"s": texts[i : i + 3000]}) for i in range(0, len(texts), 3000)]
    lazy = pl.concat(frames, rechunk=False).lazy()
    out = lazy.select(d=pl.col("s").bk.sha3_256(), k=pl.col("s").bk.keccak_256(hex=True))
    got = out.collect(engine=engine)
    for text, digest, hex_text in zip(texts, got["d"], got["k"]):
        if text is None:
            assert digest is None and hex_text is None
        else:
            assert digest == engine_oracle("sha3_256", text.encode())
            assert hex_text == engine_oracle("keccak_256", text.encode()).hex()


def test_categorical_and_enum_hash_their_strings():
    texts = ["b", "a", None, "b"]
    for dtype in (pl.Categorical, pl.Enum(["a", "b"])):
        series = pl.Series("s", texts, dtype=dtype)
        got = series.bk.sha3_256(hex=True).to_list()
        want = [None if t is None else engine_oracle("sha3_256", t.encode()).hex() for t in texts]
        assert got == want


def test_series_namespace_keeps_the_name():
    series = pl.Series("email", ["abc", None])
    got = series.bk.kmac_256(key=KEY, length=32)
    assert got.name == "email" and got.dtype == pl.Binary
    assert got.to_list() == [engine_oracle("kmac_256", b"abc", length=32, key=KEY), None]


def test_hash_rows_equals_arrow_hash_rows():
    frame = pl.DataFrame(
        {
            "id": [1, 2, None],
            "email": ["a@x", None, ""],
            "score": [1.5, None, -0.0],
            "flag": [True, None, False],
        }
    )
    columns = ["id", "email", "score", "flag"]
    want = arrow_hash_rows(frame.to_arrow(), columns, "sha3_256").to_pylist()
    got = frame.select(r=pl.struct(columns).bk.hash_rows())["r"].to_list()
    assert got == want
    lazy = frame.lazy().select(r=pl.struct(columns).bk.hash_rows("keccak_256", hex=True))
    want_hex = arrow_hash_rows(frame.to_arrow(), columns, "keccak_256", hex=True).to_pylist()
    assert lazy.collect(engine="streaming")["r"].to_list() == want_hex


def test_an_ethereum_address_is_decoded_before_hashing():
    address = "0x" + "Ab" * 20
    frame = pl.DataFrame({"address": [address]})
    got = frame.select(
        pl.col("address").str.strip_prefix("0x").str.decode("hex").bk.keccak_256()
    ).item()
    assert got == keccak.new(digest_bits=256, data=bytes.fromhex("ab" * 20)).digest()


def test_clear_errors():
    frame = pl.DataFrame({"n": [1, 2]})
    with pytest.raises(
        Exception, match="expected String, Binary, Categorical or Enum input, got Int64"
    ):
        frame.select(pl.col("n").bk.sha3_256())
    with pytest.raises(TypeError, match="length is required"):
        pl.col("s").bk.shake_128()
    with pytest.raises(ValueError, match="unknown algorithm"):
        pl.col("s").bk.hash("sha3_257")
    with pytest.raises(ValueError, match="a key per row"):
        pl.col("s").bk.kmac_256(key=[KEY, KEY], length=32)
    with pytest.raises(Exception, match="expected Struct input"):
        frame.select(pl.col("n").bk.hash_rows())
    assert pa  # pyarrow is what the namespace hands batches through


@pytest.mark.parametrize("namespace", [pl.col("s").bk, pl.Series("s", ["a"]).bk])
def test_an_unknown_method_gives_the_hint_hash_many_gives(namespace):
    import batchkeccak as bk

    with pytest.raises(ValueError, match="unknown algorithm") as from_hash_many:
        bk.hash_many([b"a"], "sha256")
    hint = str(from_hash_many.value).split(": ", 1)[1].split(" (see ")[0]
    with pytest.raises(AttributeError) as error:
        namespace.sha256()
    message = str(error.value)
    assert "no method 'sha256'" in message and "did you mean 'sha3_256'" in message
    assert f"no method 'sha256': {hint} (" in message, message  # the same hint as hash_many
    assert "batchkeccak.algorithms and batchkeccak.modes" in message
    assert "hash, hash_rows" in message
    assert not hasattr(namespace, "_not_there") and hasattr(namespace, "sha3_256")
