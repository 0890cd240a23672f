"""Every program in examples/ runs, and what it computes is checked against independent oracles.

Each example runs in this process (as ``python examples/NAME.py`` would run it) inside
``checked_against_oracles()``, so every digest and Merkle tree it computes through batchkeccak's
public functions is compared with hashlib / pycryptodome / eth-abi as it is made. Then what it
printed is checked by ``OUTPUT_CHECKS[NAME]``, which recomputes the printed values with those
oracles. A new example needs no entry here when it calls those functions in this process, or
asserts its own results against hashlib / pycryptodome / eth-abi; otherwise (work done in
other processes, say) this test fails until it gets an output check.

An example that imports an engine which is not installed (pyspark, ray, ...) is skipped, naming
the engine; one that starts a cluster is marked slow.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
import runpy
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from Crypto.Hash import keccak

from example_oracles import checked_against_oracles
from merkle_reference import RFC9162Reference, keccak256, oz_process_proof
from oracles import RATES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CLUSTER_MODULES = ("distributed", "dask.distributed", "pyspark", "ray")
"""Imports that mean the example starts a cluster: slow."""

ORACLE_MODULES = ("hashlib", "Crypto", "eth_abi", "eth_hash")
"""Modules whose use in an example's own ``assert`` counts as a check against an oracle."""

LONG_RUNNING = {"merkle_airdrop"}
"""Examples measured at more than about 3 s in this process (the 100,000-row airdrop)."""

RUN_ON_THEIR_ENGINES_SESSION = {
    "spark_column": "test_spark.py",
    "ray_column": "test_ray.py",
}
"""Examples whose ``main()`` the engine's own test module runs on the session it keeps
(Spark's JVM, Ray's cluster): starting one more here costs 15-20 s and checks nothing more,
as their ``__main__`` part only starts the engine, calls ``main()`` and stops it."""


def keccak_hex(data: bytes) -> str:
    return keccak.new(digest_bits=256, data=data).hexdigest()


# ----------------------------------------------------------------------------------------
# What each example prints, recomputed


def check_hash_many_basics(out: str) -> None:
    lines = out.splitlines()
    assert lines[0] == keccak_hex(b"")
    table = [re.match(r"(\w+)\s+rate\s+(\d+) bytes, output (\w+)$", line) for line in lines[1:-1]]
    assert all(table) and len(table) == len(RATES)
    for match in table:
        name, rate, size = match.groups()
        assert int(rate) == RATES[name]
        if size != "any":
            assert int(size) == hashlib.new(name.replace("keccak", "sha3")).digest_size


def check_arrow_column(out: str) -> None:
    lines = out.splitlines()
    assert lines[1] == keccak_hex(b"ada@example.org")
    countries = ["UK", "US", "US", "UK"]
    assert json.loads(lines[2].replace("'", '"')) == [
        hashlib.sha3_256(c.encode()).hexdigest() for c in countries
    ]


def _printed_hex_prefixes(out: str, name_pattern: str) -> list[tuple[str, str]]:
    """(value, hex digits shown) for table rows that print a value beside its digest."""
    pattern = rf"({name_pattern})\W+([0-9a-f]{{16,}})"
    return re.findall(pattern, out)


def check_dask_column(out: str) -> None:
    shown = _printed_hex_prefixes(out, r"user\d+@example\.org")
    assert len(shown) == 5
    for email, digits in shown:
        assert keccak_hex(email.encode()).startswith(digits)


def check_polars_column(out: str) -> None:
    shown = _printed_hex_prefixes(out, r"[a-z.]+@example\.org")
    assert {email for email, _ in shown} == {"ada@example.org", "grace.hopper@example.org"}
    for email, digits in shown:
        assert hashlib.sha3_256(email.encode()).hexdigest().startswith(digits)


def check_duckdb_udf(out: str) -> None:
    rows = [ast.literal_eval(line) for line in out.splitlines()]
    blobs = [b"\x01", b"", None]
    assert [r[0] for r in rows] == ["0x" + "ab" * 20, None, "0x" + "Cd" * 20]
    for (address, address_keccak, blob_sha3), blob in zip(rows, blobs):
        # An address is hashed as its 20 bytes, as Ethereum does, not as its text.
        expected = None if address is None else keccak256(bytes.fromhex(address[2:]))
        assert address_keccak == expected
        assert blob_sha3 == (None if blob is None else hashlib.sha3_256(blob).hexdigest())


def check_parquet_file(out: str) -> None:
    rows = ast.literal_eval(out.splitlines()[-1])
    assert [r["id"] for r in rows] == [0, 1, 2]
    for row in rows:
        assert row["email_sha3_256"] == hashlib.sha3_256(row["email"].encode()).hexdigest()


def check_merkle_airdrop(out: str) -> None:
    eth_abi = pytest.importorskip("eth_abi")
    root = bytes.fromhex(re.search(r"^root: 0x([0-9a-f]{64})$", out, re.MULTILINE).group(1))
    claim = json.loads(re.search(r"^claim \d+: (\{.*\})$", out, re.MULTILINE).group(1))
    row = [bytes.fromhex(claim["account"][2:]), int(claim["amount"])]
    leaf = keccak256(keccak256(eth_abi.encode(["address", "uint256"], row)))
    proof = [bytes.fromhex(node[2:]) for node in claim["proof"]]
    assert oz_process_proof(leaf, proof) == root


def check_merkle_transparency_log(out: str) -> None:
    entries = [f"entry {i}: user {i % 97} signed in".encode() for i in range(1_500)]
    log = RFC9162Reference(entries)
    roots = dict(re.findall(r"^root (.*): 0x([0-9a-f]+)$", out, re.MULTILINE))
    assert roots.get("of the first 1000 entries") == log.root(1_000).hex()
    assert roots.get("of all 1500 entries") == log.root().hex()
    shake = RFC9162Reference(entries, "shake_128", 20)
    assert roots.get("with shake_128, 20-byte nodes") == shake.root().hex()
    assert f"consistency 1000 -> 1500: {len(log.consistency(1_000))} nodes" in out
    assert f"inclusion of entry 1234: {len(log.path(1_234))} nodes" in out


def check_ethereum_transactions_root(out: str) -> None:
    # The example compares every root with py-trie's; it must say that none differ.
    assert out.startswith("30 blocks, ") and out.rstrip().endswith(": 0 roots differ"), out


OUTPUT_CHECKS: dict[str, Callable[[str], None]] = {
    "arrow_column": check_arrow_column,
    "dask_column": check_dask_column,
    "duckdb_udf": check_duckdb_udf,
    "ethereum_transactions_root": check_ethereum_transactions_root,
    "hash_many_basics": check_hash_many_basics,
    "merkle_airdrop": check_merkle_airdrop,
    "merkle_transparency_log": check_merkle_transparency_log,
    "parquet_file": check_parquet_file,
    "polars_column": check_polars_column,
}


# ----------------------------------------------------------------------------------------
# What an example needs, read from its source


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def missing_engine(path: Path) -> str | None:
    """The first third-party module the example imports that is not installed."""
    for name in sorted(imports_of(path)):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or top == "batchkeccak":
            continue
        if importlib.util.find_spec(top) is None:
            return top
    return None


def asserts_against_an_oracle(path: Path) -> bool:
    tree = ast.parse(path.read_text())
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                source = module or alias.name
                if source.split(".")[0] in ORACLE_MODULES:
                    aliases.add((alias.asname or alias.name).split(".")[0])
    return any(
        isinstance(node, ast.Assert)
        and any(isinstance(n, ast.Name) and n.id in aliases for n in ast.walk(node.test))
        for node in ast.walk(tree)
    )


def example_params() -> list:
    params = []
    for path in sorted(EXAMPLES.glob("*.py")):
        if path.stem in RUN_ON_THEIR_ENGINES_SESSION:
            continue
        slow = path.stem in LONG_RUNNING or any(
            name == cluster or name.startswith(cluster + ".")
            for name in imports_of(path)
            for cluster in CLUSTER_MODULES
        )
        params.append(pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if slow else []))
    return params


@pytest.mark.parametrize("path", example_params())
def test_example_computes_what_the_oracles_compute(path, capsys, tmp_path, monkeypatch):
    engine = missing_engine(path)
    if engine is not None:
        pytest.skip(f"examples/{path.name} needs {engine}, which is not installed")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(path)])
    with checked_against_oracles() as record:
        runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    check = OUTPUT_CHECKS.get(path.stem)
    if check is not None:
        check(out)
    assert check is not None or record.checked or asserts_against_an_oracle(path), (
        f"examples/{path.name} computed nothing that was checked against an oracle: assert "
        "its results against hashlib / pycryptodome there, or add an output check to "
        "OUTPUT_CHECKS in tests/test_examples.py"
    )


@pytest.mark.parametrize("stem", sorted(RUN_ON_THEIR_ENGINES_SESSION))
def test_examples_left_to_their_engines_module_are_run_and_checked_there(stem):
    path = EXAMPLES / f"{stem}.py"
    tree = ast.parse(path.read_text())
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    entry = next(n for n in tree.body if isinstance(n, ast.If))  # if __name__ == "__main__"
    calls = [n.func for n in ast.walk(entry) if isinstance(n, ast.Call)]
    assert any(isinstance(f, ast.Name) and f.id == "main" for f in calls), stem
    # main() itself asserts a digest against hashlib, so running it anywhere checks it.
    assert any(
        isinstance(n, ast.Assert) and "hashlib" in ast.unparse(n.test) for n in ast.walk(main)
    ), stem
    module = Path(__file__).with_name(RUN_ON_THEIR_ENGINES_SESSION[stem]).read_text()
    assert f'"{stem}.py"' in module and 'example["main"](' in module, stem


def test_the_checks_can_fail(tmp_path):
    """Each output check rejects a wrong printed value, and a silent example is noticed."""
    wrong = "0" * 64
    with pytest.raises(AssertionError):
        check_hash_many_basics(wrong + "\n")
    with pytest.raises(AssertionError):
        check_merkle_transparency_log(f"root of all 1500 entries: 0x{wrong}\n")
    silent = tmp_path / "silent.py"
    silent.write_text("import hashlib\nprint(hashlib.sha3_256(b'').hexdigest())\n")
    assert not asserts_against_an_oracle(silent)
    silent.write_text("import hashlib\nassert hashlib.sha3_256(b'').digest_size == 32\n")
    assert asserts_against_an_oracle(silent)
    silent.write_text("import surely_not_installed_engine\n")
    assert missing_engine(silent) == "surely_not_installed_engine"


def test_the_oracles_catch_a_wrong_digest(monkeypatch):
    import batchkeccak

    real = batchkeccak.hash_many

    def one_bit_off(messages, algorithm="sha3_256", **options):
        digests = real(messages, algorithm, **options).copy()
        digests[-1, 0] ^= 1
        return digests

    monkeypatch.setattr(batchkeccak, "hash_many", one_bit_off)
    with (
        pytest.raises(AssertionError, match="message 1 .* differs from the oracle"),
        checked_against_oracles(),
    ):
        batchkeccak.hash_many([b"a", b"b"], "keccak_256")
