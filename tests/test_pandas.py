"""batchkeccak.pandas: the ``bk`` accessor on Series and DataFrames, against hashlib and
pycryptodome."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

import numpy as np
import pyarrow as pa

import batchkeccak.pandas  # noqa: F401 - registers the accessor
from batchkeccak._sql import sql_functions
from batchkeccak.arrow import hash_rows as arrow_hash_rows

from engine_oracles import engine_oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

KEY = bytes(range(40))
TEXTS = ["", "abc", "caf\u00e9 \u2603", "x" * 300, None, "abc"]


def series_forms(texts):
    raw = [None if t is None else t.encode() for t in texts]
    no_missing = [b"" if t is None else t.encode() for t in texts]
    return {
        "object bytes": (pd.Series(raw, dtype=object), raw),
        "object bytes, nothing missing": (pd.Series(no_missing, dtype=object), no_missing),
        "object str with NaN": (
            pd.Series([np.nan if t is None else t for t in texts], dtype=object),
            raw,
        ),
        "str": (pd.Series(texts, dtype="str"), raw),
        "string[python]": (pd.Series(texts, dtype="string[python]"), raw),
        "string[pyarrow]": (pd.Series(texts, dtype="string[pyarrow]"), raw),
        "ArrowDtype binary": (pd.Series(raw, dtype=pd.ArrowDtype(pa.binary())), raw),
        "category": (pd.Series(texts, dtype="category"), raw),
    }


@pytest.mark.parametrize("form", list(series_forms(TEXTS)))
def test_every_series_form(form):
    series, values = series_forms(TEXTS)[form]
    series.index = pd.RangeIndex(10, 10 + len(series))
    series.name = "email"
    got = series.bk.sha3_256()
    assert got.name == "email" and list(got.index) == list(series.index)
    assert isinstance(got.dtype, pd.ArrowDtype)
    want = [None if v is None else engine_oracle("sha3_256", v) for v in values]
    assert [None if pd.isna(d) else d for d in got.tolist()] == want
    hex_got = series.bk.keccak_256(hex=True).tolist()
    assert [None if pd.isna(h) else h for h in hex_got] == [
        None if v is None else engine_oracle("keccak_256", v).hex() for v in values
    ]


@pytest.mark.parametrize("name", list(sql_functions()))
def test_every_shortcut(name):
    function = sql_functions()[name]
    kw = {}
    if function.keyed:
        kw["key"] = KEY
    if function.takes_length:
        kw["length"] = 20
    if function.customized:
        kw["customization"] = b"Email"
    series = pd.Series([b"abc", b"", b"y" * 200])
    got = getattr(series.bk, name)(**kw).tolist()
    assert got == [engine_oracle(name, v, **kw) for v in series]


def test_frame_hash_rows_equals_arrow_hash_rows():
    frame = pd.DataFrame({"id": [1, 2, 3], "email": ["a@x", None, ""]}, index=[7, 8, 9])
    got = frame[["id", "email"]].bk.hash_rows(hex=True)
    table = pa.Table.from_pandas(frame[["id", "email"]], preserve_index=False)
    assert got.tolist() == arrow_hash_rows(table, hex=True).to_pylist()
    assert list(got.index) == [7, 8, 9]


def test_clear_errors():
    with pytest.raises(TypeError, match="expected a Series of bytes or str, got dtype int64"):
        pd.Series([1, 2]).bk.sha3_256()
    with pytest.raises(TypeError, match="length is required"):
        pd.Series([b"a"]).bk.shake_128()


MISSING = {
    "None": None,
    "float NaN": float("nan"),
    "numpy NaN": np.float64("nan"),
    "float32 NaN": np.float32("nan"),
    "NA": pd.NA,
    "NaT": pd.NaT,
    "datetime64 NaT": np.datetime64("NaT"),
    "timedelta64 NaT": np.timedelta64("NaT"),
}


@pytest.mark.parametrize(
    "first", [b"abc", "abc", None], ids=["bytes first", "str first", "missing first"]
)
@pytest.mark.parametrize("missing", list(MISSING))
def test_missing_values_stay_missing(first, missing):
    """A NaN (numpy.float64) or a NaT has a buffer: it must not be hashed as its raw bytes,
    whatever the first value is."""
    series = pd.Series([first, MISSING[missing], b"xyz"], dtype=object)
    got = [None if pd.isna(d) else d for d in series.bk.sha3_256().tolist()]
    first_bytes = first.encode() if isinstance(first, str) else first
    assert got == [
        None if first is None else engine_oracle("sha3_256", first_bytes),
        None,
        engine_oracle("sha3_256", b"xyz"),
    ]


NOT_BYTES = {
    "numpy int64": np.int64(7),
    "numpy float64": np.float64(1.5),
    "int": 7,
    "float": 2.5,
    "uint8 array": np.frombuffer(b"xyz", dtype=np.uint8),
    "list": [1, 2],
    "numpy bool": np.bool_(True),
}


@pytest.mark.parametrize(
    "first", [b"abc", "abc", None], ids=["bytes first", "str first", "missing first"]
)
@pytest.mark.parametrize("value", list(NOT_BYTES))
def test_a_value_that_is_not_bytes_is_named(first, value):
    series = pd.Series([first, b"xyz", NOT_BYTES[value]], dtype=object, index=[10, 11, 12])
    kind = type(NOT_BYTES[value])
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    with pytest.raises(TypeError, match=rf"row 2 \(index 12\) is of type {name}, not bytes"):
        series.bk.sha3_256()


def test_bytes_like_values_of_an_object_column():
    values = [b"abc", bytearray(b"de"), memoryview(b"fgh"), np.bytes_(b"ij"), "k\u00e9"]
    got = pd.Series(values, dtype=object).bk.keccak_256().tolist()
    assert got == [
        engine_oracle("keccak_256", bytes(v) if not isinstance(v, str) else v.encode())
        for v in values
    ]


@pytest.mark.kernels_only  # an error message: no digest path to vary
def test_an_unknown_method_gives_the_hint_hash_many_gives():
    import batchkeccak as bk

    with pytest.raises(ValueError, match="unknown algorithm") as from_hash_many:
        bk.hash_many([b"a"], "sha256")
    hint = str(from_hash_many.value).split(": ", 1)[1].split(" (see ")[0]
    series = pd.Series([b"a"], dtype=object)
    with pytest.raises(AttributeError) as error:
        series.bk.sha256()
    message = str(error.value)
    assert "no method 'sha256'" in message and "did you mean 'sha3_256'" in message
    assert f"no method 'sha256': {hint} (" in message, message  # the same hint as hash_many
    assert "batchkeccak.algorithms and batchkeccak.modes" in message
    with pytest.raises(AttributeError, match="no method 'hash_row'.*'hash_rows'"):
        pd.DataFrame({"a": [1]}).bk.hash_row()
    assert hasattr(series.bk, "kmac_256") and not hasattr(series.bk, "_not_there")
