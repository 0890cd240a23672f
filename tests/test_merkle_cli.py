"""``batchkeccak merkle root|proof|verify`` end to end, roots checked against the reference."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from batchkeccak.cli import main

from merkle_reference import RFC9162Reference, keccak256, oz_node, oz_tree


@pytest.fixture
def leaves():
    rng = random.Random(42)
    return [rng.randbytes(32) for _ in range(13)]


@pytest.fixture
def hex_file(tmp_path, leaves):
    path = tmp_path / "leaves.txt"
    path.write_text("".join("0x" + x.hex() + "\n" for x in leaves) + "\n")
    return path


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_root_of_hex_file(capsys, hex_file, leaves):
    code, out, _ = run(capsys, "merkle", "root", str(hex_file), "--scheme", "openzeppelin")
    assert code == 0
    assert out.strip() == "0x" + oz_tree(leaves, True)[0][0].hex()
    code, out, _ = run(
        capsys, "merkle", "root", str(hex_file), "-s", "openzeppelin", "--keep-order"
    )
    assert out.strip() == "0x" + oz_tree(leaves, False)[0][0].hex()


def test_root_of_raw_and_lines_files(capsys, tmp_path, leaves):
    raw = tmp_path / "leaves.bin"
    raw.write_bytes(b"".join(leaves))
    code, out, _ = run(capsys, "merkle", "root", str(raw), "-s", "openzeppelin", "-f", "raw")
    assert out.strip() == "0x" + oz_tree(leaves, True)[0][0].hex()

    values = [b"alpha", b"", b"gamma delta", b"\x00\xff"]
    lines = tmp_path / "values.txt"
    lines.write_bytes(b"\n".join(values) + b"\n")
    code, out, _ = run(capsys, "merkle", "root", str(lines), "-s", "rfc9162", "-f", "lines")
    assert code == 0
    assert out.strip() == "0x" + RFC9162Reference(values).root().hex()
    _, out, _ = run(
        capsys,
        "merkle",
        "root",
        str(raw),
        "-s",
        "rfc9162",
        "-f",
        "raw",
        "--record-size",
        "16",
        "-a",
        "keccak_256",
    )
    chunks = [b"".join(leaves)[i : i + 16] for i in range(0, 13 * 32, 16)]
    assert out.strip() == "0x" + RFC9162Reference(chunks, "keccak_256").root().hex()


def test_root_of_parquet_column_and_standard_tree(capsys, tmp_path, leaves):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = random.Random(5)
    accounts = [rng.randbytes(20) for _ in range(9)]
    amounts = [rng.randint(0, 10**24) for _ in range(9)]
    path = tmp_path / "data.parquet"
    pq.write_table(
        pa.table(
            {
                "leaf": pa.array(leaves[:9], pa.binary(32)),
                "account": pa.array(["0x" + a.hex() for a in accounts]),
                "amount": pa.array([str(a) for a in amounts]),
            }
        ),
        path,
    )
    code, out, _ = run(capsys, "merkle", "root", str(path), "-s", "openzeppelin", "-c", "leaf")
    assert out.strip() == "0x" + oz_tree(leaves[:9], True)[0][0].hex()

    eth_abi = pytest.importorskip("eth_abi")
    standard_leaves = [
        keccak256(keccak256(eth_abi.encode(["address", "uint256"], [a, v])))
        for a, v in zip(accounts, amounts)
    ]
    columns = ["-s", "openzeppelin", "--types", "address,uint256", "-c", "account", "-c", "amount"]
    code, out, _ = run(capsys, "merkle", "root", str(path), *columns)
    assert code == 0
    assert out.strip() == "0x" + oz_tree(standard_leaves, True)[0][0].hex()

    csv_path = tmp_path / "airdrop.csv"
    csv_path.write_text(
        "amount,account\n" + "".join(f"{v},0x{a.hex()}\n" for a, v in zip(accounts, amounts))
    )
    code, out, _ = run(capsys, "merkle", "root", str(csv_path), *columns)
    assert out.strip() == "0x" + oz_tree(standard_leaves, True)[0][0].hex()


def test_dump_proof_verify_round_trip(capsys, tmp_path, hex_file, leaves):
    dump = tmp_path / "tree.json"
    code, out, _ = run(
        capsys, "merkle", "root", str(hex_file), "-s", "openzeppelin", "--dump", str(dump)
    )
    root = out.strip()
    assert json.loads(dump.read_text())["format"] == "simple-v1"
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed away

    proof_path = tmp_path / "proof.json"
    code, _, _ = run(
        capsys, "merkle", "proof", "--load", str(dump), "-i", "5", "-o", str(proof_path)
    )
    proof = json.loads(proof_path.read_text())
    assert proof["leaf"] == "0x" + leaves[5].hex() and proof["root"] == root
    ref_tree, ref_index = oz_tree(leaves, True)
    expected = []
    position = ref_index[5]
    while position > 0:
        expected.append("0x" + ref_tree[position - (-1) ** (position % 2)].hex())
        position = (position - 1) // 2
    assert proof["proof"] == expected

    code, out, _ = run(capsys, "merkle", "verify", str(proof_path), "--root", root)
    assert (code, out.strip()) == (0, "valid")
    code, out, _ = run(capsys, "merkle", "verify", str(proof_path), "--root", "0x" + "00" * 32)
    assert code == 1 and out.startswith("invalid")

    proof["proof"][0] = "0x" + "11" * 32
    proof_path.write_text(json.dumps(proof))
    code, out, _ = run(capsys, "merkle", "verify", str(proof_path), "--root", root)
    assert code == 1


def test_all_proofs_and_multiproof(capsys, tmp_path, hex_file):
    out_path = tmp_path / "proofs.jsonl"
    code, _, _ = run(
        capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "--all", "-o", str(out_path)
    )
    lines = out_path.read_text().splitlines()
    assert len(lines) == 13 and [json.loads(x)["index"] for x in lines] == list(range(13))
    code, out, _ = run(capsys, "merkle", "verify", str(out_path))
    assert (code, out.strip()) == (0, "valid: all 13 proofs")

    code, out, _ = run(
        capsys,
        "merkle",
        "proof",
        str(hex_file),
        "-s",
        "openzeppelin",
        "-i",
        "1",
        "-i",
        "7",
        "-i",
        "12",
        "--multi",
    )
    multi = json.loads(out)
    assert len(multi["multiproof"]["leaves"]) == 3
    path = tmp_path / "multi.json"
    path.write_text(out)
    assert run(capsys, "merkle", "verify", str(path))[0] == 0


def test_rfc9162_proofs(capsys, tmp_path):
    values = [f"entry {i}".encode() for i in range(11)]
    lines = tmp_path / "log.txt"
    lines.write_bytes(b"\n".join(values) + b"\n")
    ref = RFC9162Reference(values, "sha3_512")
    proof_args = ["merkle", "proof", str(lines), "-s", "rfc9162", "-f", "lines", "-a", "sha3_512"]
    code, out, _ = run(capsys, *proof_args, "-i", "9")
    proof = json.loads(out)
    assert proof["proof"] == ["0x" + p.hex() for p in ref.path(9)]
    path = tmp_path / "p.json"
    path.write_text(out)
    assert run(capsys, "merkle", "verify", str(path), "--root", "0x" + ref.root().hex())[0] == 0

    code, out, _ = run(capsys, *proof_args, "--consistency", "4")
    assert code == 0
    consistency = json.loads(out)
    assert consistency["oldRoot"] == "0x" + ref.root(4).hex()
    assert consistency["proof"] == ["0x" + p.hex() for p in ref.consistency(4)]
    path.write_text(out)
    assert run(capsys, "merkle", "verify", str(path))[0] == 0
    consistency["oldRoot"] = "0x" + ref.root(5).hex()
    path.write_text(json.dumps(consistency))
    assert run(capsys, "merkle", "verify", str(path))[0] == 1

    # From a dump the values are gone; the proof carries the leaf hash instead.
    dump = tmp_path / "log.json"
    run(
        capsys,
        "merkle",
        "root",
        str(lines),
        "-s",
        "rfc9162",
        "-f",
        "lines",
        "-a",
        "sha3_512",
        "--dump",
        str(dump),
    )
    _, out, _ = run(capsys, "merkle", "proof", "--load", str(dump), "-i", "3")
    assert "value" not in json.loads(out)
    path.write_text(out)
    assert run(capsys, "merkle", "verify", str(path), "--root", "0x" + ref.root().hex())[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["root", "{missing}", "-s", "openzeppelin"], "No such file or directory"),
        (["root", "{short}", "-s", "openzeppelin"], "leaves[0] is 3 bytes"),
        (["proof", "{hex}", "-s", "openzeppelin", "-i", "13"], "index 13 is out of range"),
        (["proof", "{hex}", "-s", "openzeppelin", "--consistency", "3"], "rfc9162 trees"),
        (["root", "{bad_hex}", "-s", "openzeppelin"], "not a hex value"),
        (["root", "{hex}", "-s", "openzeppelin", "--types", "address"], "needs rows"),
        (
            ["root", "{raw}", "-s", "rfc9162", "-f", "raw", "--record-size", "5"],
            "whole number of 5-byte records",
        ),
        (["verify", "{values}"], "neither JSON nor JSON Lines"),
    ],
)
def test_bad_input_exits_2(capsys, tmp_path, hex_file, argv, message):
    values = tmp_path / "values.txt"
    values.write_text("abc\n")
    bad_hex = tmp_path / "bad.txt"
    bad_hex.write_text("0x" + "00" * 32 + "\nnot hex\n")
    raw = tmp_path / "r.bin"
    raw.write_bytes(bytes(12))
    short = tmp_path / "short.txt"
    short.write_text("0xabcdef\n")
    names = {
        "hex": hex_file,
        "missing": tmp_path / "nope.txt",
        "values": values,
        "bad_hex": bad_hex,
        "raw": raw,
        "short": short,
    }
    code, _, err = run(capsys, "merkle", *[a.format(**names) for a in argv])
    assert code == 2
    assert message in err


def test_raw_records_are_read_without_copying_lines(capsys, tmp_path):
    rows = np.arange(64 * 32, dtype=np.uint32).astype(np.uint8).reshape(64, 32)
    raw = tmp_path / "l.bin"
    rows.tofile(raw)
    _, out, _ = run(capsys, "merkle", "root", str(raw), "-s", "openzeppelin", "-f", "raw")
    assert out.strip() == "0x" + oz_tree([bytes(r) for r in rows], True)[0][0].hex()


@pytest.mark.parametrize("n", [1, 2, 5, 13, 64, 100])
def test_all_proofs_match_the_reference(capsys, tmp_path, n):
    rng = random.Random(n)
    leaves = [rng.randbytes(32) for _ in range(n)]
    path = tmp_path / "leaves.txt"
    path.write_text("".join(x.hex() + "\n" for x in leaves))
    ref_tree, ref_index = oz_tree(leaves, True)
    out_path = tmp_path / "all.jsonl"
    assert (
        run(
            capsys, "merkle", "proof", str(path), "-s", "openzeppelin", "--all", "-o", str(out_path)
        )[0]
        == 0
    )
    for i, line in enumerate(out_path.read_text().splitlines()):
        entry = json.loads(line)
        position, expected = ref_index[i], []
        while position > 0:
            expected.append("0x" + ref_tree[position - (-1) ** (position % 2)].hex())
            position = (position - 1) // 2
        assert (entry["index"], entry["leaf"], entry["proof"]) == (
            i,
            "0x" + leaves[i].hex(),
            expected,
        )

    ref = RFC9162Reference(leaves)
    code, out, _ = run(capsys, "merkle", "proof", str(path), "-s", "rfc9162", "--all")
    assert code == 0
    for i, line in enumerate(out.splitlines()):
        entry = json.loads(line)
        assert entry["value"] == "0x" + leaves[i].hex()
        assert entry["proof"] == ["0x" + p.hex() for p in ref.path(i)]


def test_verify_reports_each_failing_proof(capsys, tmp_path, hex_file):
    out_path = tmp_path / "all.jsonl"
    run(
        capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "--all", "-o", str(out_path)
    )
    lines = out_path.read_text().splitlines()
    for k in (2, 7):
        entry = json.loads(lines[k])
        entry["proof"][-1] = "0x" + "00" * 32
        lines[k] = json.dumps(entry)
    out_path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "merkle", "verify", str(out_path))
    assert code == 1
    assert out.strip() == "invalid: 2 of 13 proofs fail (leaf 2, leaf 7)"


# --- verify streams: proofs are read and checked a batch at a time --------------------------
# Expected results come from the plain reference (merkle_reference): each proof document is
# walked up one hash at a time and compared with the reference root.


def _many_proofs(capsys, tmp_path, count=300, seed=7):
    """JSON Lines of openzeppelin and rfc9162 inclusion proofs, interleaved, and the list
    of what the reference says fails, in the order verify has always reported it:
    openzeppelin inclusion proofs first (one group: one root), then the others."""
    rng = random.Random(seed)
    leaves = [rng.randbytes(32) for _ in range(count)]
    path = tmp_path / "leaves.txt"
    path.write_text("".join("0x" + x.hex() + "\n" for x in leaves))
    lines = {}
    for scheme in ("openzeppelin", "rfc9162"):
        code, out, err = run(capsys, "merkle", "proof", str(path), "-s", scheme, "--all")
        assert code == 0, err
        lines[scheme] = [json.loads(line) for line in out.splitlines()]
    oz_nodes, _ = oz_tree(leaves, True)
    ref = RFC9162Reference(leaves)
    zero = "0x" + "00" * 32
    for k in (3, count // 2, count - 1):  # wrong proofs at the start, middle and end
        lines["openzeppelin"][k]["proof"][-1] = zero
    lines["rfc9162"][5]["proof"][0] = zero  # one in the first batch of the small batches
    entries = [e for pair in zip(lines["openzeppelin"], lines["rfc9162"]) for e in pair]

    def holds(entry):
        if entry["scheme"] == "openzeppelin":
            node = bytes.fromhex(entry["leaf"][2:])
            for sibling in entry["proof"]:
                node = oz_node(node, bytes.fromhex(sibling[2:]))
            return node == oz_nodes[0]
        return [bytes.fromhex(p[2:]) for p in entry["proof"]] == ref.path(entry["index"])

    failed = [f"leaf {e['index']}" for e in lines["openzeppelin"] if not holds(e)]
    failed += [f"leaf {e['index']}" for e in lines["rfc9162"] if not holds(e)]
    assert failed == [f"leaf {k}" for k in (3, count // 2, count - 1, 5)]
    return entries, failed


@pytest.mark.parametrize("layout", ["lines", "document"])
@pytest.mark.parametrize("batch, read_size", [(None, None), (16, 100), (1, 7)])
def test_verify_in_batches_reports_what_the_reference_does(
    capsys, monkeypatch, tmp_path, layout, batch, read_size
):
    from batchkeccak.merkle import proofs

    entries, failed = _many_proofs(capsys, tmp_path)
    path = tmp_path / "proofs.json"
    if layout == "lines":
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    else:  # as 'proof' writes several proofs
        path.write_text(json.dumps({"proofs": entries}, indent=1) + "\n")
    if batch is not None:
        monkeypatch.setattr(proofs, "VERIFY_BATCH", batch)
        monkeypatch.setattr(proofs, "READ_SIZE", read_size)
    code, out, _ = run(capsys, "merkle", "verify", str(path))
    assert code == 1
    assert out == f"invalid: 4 of 600 proofs fail ({', '.join(failed)})\n"
    assert proofs.verify_proofs(proofs.parse_proofs(path.read_text())) == failed
    with open(path, encoding="utf-8") as stream:
        streamed = proofs.verify_proof_stream(proofs.iter_proofs(stream), batch=batch)
    assert streamed == (600, 4, failed)


def test_verify_shows_the_first_ten_failures_in_order(capsys, monkeypatch, tmp_path, hex_file):
    from batchkeccak.merkle import proofs

    code, out, _ = run(capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "--all")
    entries = [json.loads(line) for line in out.splitlines()]
    for entry in entries[1:]:
        entry["proof"][0] = "0x" + "00" * 32
    path = tmp_path / "all.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    monkeypatch.setattr(proofs, "VERIFY_BATCH", 4)
    code, out, _ = run(capsys, "merkle", "verify", str(path))
    shown = ", ".join(f"leaf {k}" for k in range(1, 11))
    assert (code, out) == (1, f"invalid: 12 of 13 proofs fail ({shown} ...)\n")


class _CountingText:
    """A text file that counts the characters it has handed out."""

    def __init__(self, text):
        import io

        self.inner, self.given = io.StringIO(text), 0

    def read(self, size=-1):
        chunk = self.inner.read(size)
        self.given += len(chunk)
        return chunk

    def readline(self):
        line = self.inner.readline()
        self.given += len(line)
        return line

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line


@pytest.mark.parametrize("layout", ["lines", "document"])
def test_verify_reads_the_proofs_as_it_checks_them(capsys, monkeypatch, tmp_path, layout):
    from batchkeccak.merkle import openzeppelin, proofs

    entries, _ = _many_proofs(capsys, tmp_path)
    entries = [e for e in entries if e["scheme"] == "openzeppelin"]
    if layout == "lines":
        text = "".join(json.dumps(e) + "\n" for e in entries)
    else:
        text = json.dumps({"proofs": entries}, indent=1) + "\n"
    stream = _CountingText(text)
    seen = []
    verify_many = openzeppelin.verify_many

    def counting(leaves, *args, **kwargs):
        seen.append((len(leaves), stream.given))
        return verify_many(leaves, *args, **kwargs)

    monkeypatch.setattr(openzeppelin, "verify_many", counting)
    monkeypatch.setattr(proofs, "READ_SIZE", 1000)
    result = proofs.verify_proof_stream(proofs.iter_proofs(stream), batch=50)
    assert (result.total, result.failures) == (300, 3)
    assert [n for n, _ in seen] == [50] * 6
    # Each batch is checked once it is read (its 50 proofs, a line or a read ahead), before
    # the rest of the file is read.
    per_proof = len(text) / 300
    for k, (_, given) in enumerate(seen, start=1):
        assert given <= 50 * k * per_proof * 1.2 + 1000


# ----------------------------------------------------------------------------------------
# User errors: one line on stderr, exit status 2, never a traceback


@pytest.fixture
def bad_paths(tmp_path, hex_file):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "folder"
    folder.mkdir()
    parquet = tmp_path / "leaves.parquet"
    pq.write_table(pa.table({"leaf": pa.array([bytes(32)] * 3, pa.binary(32))}), parquet)
    not_parquet = tmp_path / "text.parquet"
    not_parquet.write_text("not parquet\n")
    onecol = tmp_path / "onecol.csv"
    onecol.write_text("account\n0x" + "11" * 20 + "\n")
    return {
        "hex": hex_file,
        "folder": folder,
        "parquet": parquet,
        "not_parquet": not_parquet,
        "nowhere": tmp_path / "missing-folder" / "out.json",
        "onecol": onecol,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["root", "{folder}", "-s", "openzeppelin"],
            "{folder}: Is a directory; give a file of leaves",
        ),
        (
            ["proof", "{folder}", "-s", "rfc9162", "--all"],
            "{folder}: Is a directory; give a file of leaves",
        ),
        (["proof", "--load", "{folder}", "-i", "0"], "cannot read {folder}: Is a directory"),
        (["verify", "{folder}"], "cannot read {folder}: Is a directory"),
        (
            ["root", "{hex}", "-s", "openzeppelin", "--dump", "{nowhere}"],
            "--dump: folder '{nowhere.parent}' does not exist",
        ),
        (
            ["proof", "{hex}", "-s", "openzeppelin", "--all", "-o", "{nowhere}"],
            "--output: folder '{nowhere.parent}' does not exist",
        ),
        (
            ["root", "{hex}", "-s", "openzeppelin", "--dump", "{hex}/x.json"],
            "--dump: '{hex}' is not a folder",
        ),
        (
            ["root", "{onecol}", "-s", "openzeppelin", "--types", "address,uint256"],
            "{onecol} has 1 column (account) but --types gives 2 (address,uint256)",
        ),
        (["root", "{hex}", "-s", "openzeppelin", "--dump", "{folder}"], "is a directory"),
        (
            ["root", "{parquet}", "-s", "openzeppelin", "-c", "nope"],
            "{parquet} has no column 'nope'; columns: leaf",
        ),
        (
            ["root", "{not_parquet}", "-s", "openzeppelin", "-c", "leaf"],
            "cannot read {not_parquet} as Parquet",
        ),
        (["root", "{folder}", "-s", "openzeppelin", "-f", "parquet", "-c", "x"], "no Parquet"),
    ],
)
def test_user_errors_are_one_line_with_exit_status_2(capsys, bad_paths, argv, message):
    code, out, err = run(capsys, "merkle", *[a.format(**bad_paths) for a in argv])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("batchkeccak: error: ")
    assert message.format(**bad_paths) in err
    assert not list(bad_paths["folder"].iterdir())  # nothing was written, no temporary file


@pytest.mark.slow  # a child process per case; the whole suite runs it
def test_user_errors_print_no_traceback_from_the_installed_command(bad_paths):
    import os
    import subprocess
    import sys

    for argv in (
        ["root", str(bad_paths["folder"]), "-s", "openzeppelin"],
        ["root", str(bad_paths["parquet"]), "-s", "openzeppelin", "-c", "nope"],
        ["root", str(bad_paths["hex"]), "-s", "openzeppelin", "--dump", str(bad_paths["nowhere"])],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "batchkeccak", "merkle", *argv],
            check=False,
            capture_output=True,
            text=True,
            env=os.environ.copy(),
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("batchkeccak: error: ")


def test_error_messages_keep_their_quotes(capsys, tmp_path, hex_file):
    proof = tmp_path / "proof.json"
    _, out, _ = run(capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "-i", "0")
    proof.write_text(out)
    code, _, err = run(capsys, "merkle", "verify", str(proof), "--root", "0xzz")
    assert code == 2
    assert err.strip() == "batchkeccak: error: --root is not a hex string: '0xzz'"
    entry = json.loads(out)
    del entry["proof"]
    proof.write_text(json.dumps(entry))
    code, _, err = run(capsys, "merkle", "verify", str(proof))
    assert code == 2
    assert err.strip() == f"batchkeccak: error: {proof}: proof lacks 'proof'"


@pytest.mark.parametrize("option", ["--dump", "--output"])
def test_an_empty_output_path_is_refused_by_the_one_output_check(capsys, hex_file, option):
    from batchkeccak.support.output import output_path_problem

    action = ["root"] if option == "--dump" else ["proof", "-i", "0"]
    code, out, err = run(capsys, "merkle", *action, str(hex_file), "-s", "openzeppelin", option, "")
    assert (code, out) == (2, "")
    # In the words every command uses (support.output), after the option's name.
    assert err == f"batchkeccak: error: {option}: {output_path_problem('')}\n"


def _stdin(monkeypatch, data: bytes) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_root_reads_standard_input(capsys, monkeypatch, hex_file, leaves):
    _stdin(monkeypatch, hex_file.read_bytes())
    code, out, _ = run(capsys, "merkle", "root", "-", "-s", "openzeppelin")
    assert code == 0
    assert out.strip() == "0x" + oz_tree(leaves, True)[0][0].hex()

    values = [b"alpha", b"", b"beta"]
    _stdin(monkeypatch, b"\n".join(values) + b"\n")
    code, out, _ = run(capsys, "merkle", "root", "-", "-s", "rfc9162", "-f", "lines")
    assert out.strip() == "0x" + RFC9162Reference(values).root().hex()

    _stdin(monkeypatch, b"".join(leaves))
    _, out, _ = run(capsys, "merkle", "root", "-", "-s", "openzeppelin", "-f", "raw")
    assert out.strip() == "0x" + oz_tree(leaves, True)[0][0].hex()

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"leaf": pa.array(leaves, pa.binary(32))}), sink)
    _stdin(monkeypatch, sink.getvalue().to_pybytes())
    _, out, _ = run(
        capsys, "merkle", "root", "-", "-s", "openzeppelin", "-f", "parquet", "-c", "leaf"
    )
    assert out.strip() == "0x" + oz_tree(leaves, True)[0][0].hex()

    _stdin(monkeypatch, hex_file.read_bytes())
    code, out, _ = run(capsys, "merkle", "proof", "-", "-s", "openzeppelin", "-i", "4")
    assert code == 0
    assert json.loads(out)["leaf"] == "0x" + leaves[4].hex()


def test_output_files_are_replaced_whole_or_not_at_all(capsys, tmp_path, hex_file, leaves):
    from batchkeccak.merkle import proofs

    target = tmp_path / "proofs.jsonl"
    target.write_text("old contents\n")

    def failing_chunks():
        yield "first line\n"
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        proofs.write_text_atomic(target, failing_chunks())
    assert target.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaves.txt", "proofs.jsonl"]

    code, _, _ = run(
        capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "--all", "-o", str(target)
    )
    assert code == 0
    lines = target.read_text().splitlines()
    assert [json.loads(line)["leaf"] for line in lines] == ["0x" + x.hex() for x in leaves]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaves.txt", "proofs.jsonl"]


def test_output_to_a_fifo_or_through_a_link_keeps_them(capsys, tmp_path, hex_file, leaves):
    # -o /dev/stdout, a FIFO: written in place, as cp and sort -o write them; a rename over
    # them would replace the device node or the FIFO itself.
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, err = run(
        capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "--all", "-o", str(fifo)
    )
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    reader.join(timeout=60)
    lines = received[0].decode().splitlines()
    assert [json.loads(line)["leaf"] for line in lines] == ["0x" + x.hex() for x in leaves]

    # Through a symbolic link the file it names is replaced; the link stays a link.
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old\n")
    link.symlink_to(target)
    code, _, err = run(
        capsys, "merkle", "proof", str(hex_file), "-s", "openzeppelin", "-i", "3", "-o", str(link)
    )
    assert code == 0, err
    assert link.is_symlink() and json.loads(target.read_text())["leaf"] == "0x" + leaves[3].hex()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "leaves.txt",
        "link.json",
        "pipe",
        "real.json",
    ]


@pytest.mark.parametrize("argv", [["root", "-", "-s", "openzeppelin"], ["verify", "-"]])
def test_closed_standard_input_is_one_line(monkeypatch, capsys, argv):
    import sys

    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of a closed descriptor 0
    code, out, err = run(capsys, "merkle", *argv)
    assert (code, out) == (2, "")
    assert err == "batchkeccak: error: cannot read standard input: Bad file descriptor\n"


# --- proofs by value: --value / --leaf and --address -----------------------------------------
# Checked against the JavaScript library's own proofs (tests/data/merkle_openzeppelin.json,
# @openzeppelin/merkle-tree's getProof), the plain reference tree and tree.proof_for.


def openzeppelin_case(kind: str, name: str, sort_leaves: bool = True) -> dict:
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "merkle_openzeppelin.json").read_text())
    return next(c for c in data[kind] if c["name"] == name and c["sortLeaves"] == sort_leaves)


@pytest.mark.parametrize("sort_leaves", [True, False])
def test_proof_by_address_is_the_javascript_librarys(capsys, tmp_path, sort_leaves):
    case = openzeppelin_case("standard", "airdrop", sort_leaves)
    values = tmp_path / "airdrop.json"
    values.write_text(json.dumps(case["values"]))
    order = [] if sort_leaves else ["--keep-order"]
    for index, (address, _) in enumerate(case["values"]):
        shown = address.upper().replace("0X", "0x")  # any case: the checksum is not checked
        code, out, err = run(
            capsys,
            "merkle",
            "proof",
            str(values),
            "-s",
            "openzeppelin",
            "--types",
            "address,uint256",
            *order,
            "--address",
            shown,
        )
        assert code == 0, err
        document = json.loads(out)
        assert document["index"] == index and document["root"] == case["root"]
        assert document["proof"] == case["proofs"][index]
        assert document["value"] == case["values"][index]


def test_proof_by_value_as_json_or_csv_row(capsys, tmp_path):
    from batchkeccak import merkle

    case = openzeppelin_case("standard", "airdrop")
    rows = case["values"]
    csv_file = tmp_path / "airdrop.csv"
    csv_file.write_text("account,amount\n" + "".join(f"{a},{v}\n" for a, v in rows))
    tree = merkle.MerkleTree.build(rows, scheme="openzeppelin", types=["address", "uint256"])
    options = ["-s", "openzeppelin", "--types", "address,uint256"]
    for index in (0, 4, len(rows) - 1):
        address, amount = rows[index]
        for given in (
            json.dumps([address, amount]),
            json.dumps([address, int(amount)]),
            f"{address},{amount}",
            f" {address.upper().replace('0X', '0x')},{amount}",
        ):
            for option in ("--value", "--leaf"):
                code, out, err = run(
                    capsys, "merkle", "proof", str(csv_file), *options, option, given
                )
                assert code == 0, (given, err)
                proof = json.loads(out)["proof"]
                assert proof == case["proofs"][index]
                assert proof == ["0x" + p.hex() for p in tree.proof_for(rows[index])]
    # Several leaves: a list of proofs, or one multiproof, as for several --index.
    two = [json.dumps(rows[2]), json.dumps(rows[7])]
    code, out, _ = run(
        capsys, "merkle", "proof", str(csv_file), *options, "--value", two[0], "--value", two[1]
    )
    assert [p["index"] for p in json.loads(out)["proofs"]] == [2, 7]
    code, out, _ = run(
        capsys,
        "merkle",
        "proof",
        str(csv_file),
        *options,
        "--multi",
        "--value",
        two[0],
        "--address",
        rows[7][0],
    )
    _, by_index, _ = run(
        capsys, "merkle", "proof", str(csv_file), *options, "--multi", "-i", "2", "-i", "7"
    )
    assert code == 0 and json.loads(out) == json.loads(by_index)


def test_proof_by_leaf_of_a_simple_tree_and_from_a_dump(capsys, tmp_path):
    from merkle_reference import oz_proof

    case = openzeppelin_case("simple", "hashes-13")
    leaves = [bytes.fromhex(x[2:]) for x in case["leaves"]]
    hex_file = tmp_path / "leaves.txt"
    hex_file.write_text("".join(x + "\n" for x in case["leaves"]))
    dump = tmp_path / "tree.json"
    run(capsys, "merkle", "root", str(hex_file), "-s", "openzeppelin", "--dump", str(dump))
    reference, tree_index = oz_tree(leaves, True)
    for index in (0, 6, 12):
        want = ["0x" + p.hex() for p in oz_proof(reference, tree_index[index])]
        assert want == case["proofs"][index]
        for source in ([str(hex_file), "-s", "openzeppelin"], ["--load", str(dump)]):
            for given in (
                case["leaves"][index],
                json.dumps(case["leaves"][index].upper().replace("0X", "0x")),
            ):
                code, out, err = run(capsys, "merkle", "proof", *source, "--leaf", given)
                assert code == 0, err
                assert json.loads(out)["proof"] == want


def test_proof_by_value_from_a_dump_of_a_standard_tree(capsys, tmp_path):
    case = openzeppelin_case("standard", "airdrop")
    dump = tmp_path / "tree.json"
    dump.write_text(json.dumps(case["dump"]))
    address, amount = case["values"][5]
    for option, given in (("--address", address), ("--value", f"{address},{amount}")):
        code, out, err = run(capsys, "merkle", "proof", "--load", str(dump), option, given)
        assert code == 0, err
        assert json.loads(out)["proof"] == case["proofs"][5]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--types", "address,uint256", "--value", '["0x' + "99" * 20 + '", "1"]'],
            "value is not a leaf of this tree",
        ),
        (["--types", "address,uint256", "--value", "0x11,2,3"], "has 3 fields"),
        (["--types", "address,uint256", "--value", "[1, 2"], "is not a JSON array"),
        (["--types", "address,uint256", "--address", "0x1234"], "is not 0x and 40 hex digits"),
        (["--types", "address,uint256", "--address", "0x" + "99" * 20], "no leaf of this tree"),
        (["--types", "uint256,uint256", "--address", "0x" + "99" * 20], "one address column"),
    ],
)
def test_proof_by_value_errors_are_one_line(capsys, tmp_path, argv, message):
    rows = tmp_path / "rows.csv"
    rows.write_text("a,b\n0x" + "11" * 20 + ",5\n0x" + "22" * 20 + ",6\n")
    code, out, err = run(capsys, "merkle", "proof", str(rows), "-s", "openzeppelin", *argv)
    assert (code, out) == (2, "")
    assert err.startswith("batchkeccak: error: ") and err.count("\n") == 1 and message in err


def test_proof_by_value_needs_an_openzeppelin_tree(capsys, hex_file):
    code, _, err = run(capsys, "merkle", "proof", str(hex_file), "-s", "rfc9162", "--value", "0x00")
    assert code == 2 and "openzeppelin trees" in err and "give --index" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["root", "{hex}"], "--scheme is required"),
        (["proof", "{hex}", "-s", "openzeppelin"], "choose the leaves (--index, --value"),
        (["proof", "{hex}", "-s", "openzeppelin", "--multi", "--all"], "--multi needs"),
        (["proof", "{hex}", "--load", "{hex}", "-i", "0"], "not both"),
        (["root", "{hex}", "-s", "rfc9162", "--keep-order"], "openzeppelin scheme only"),
        (["root", "{hex}", "-s", "rfc9162", "--threads", "0"], "positive integer, got '0'"),
        (["proof", "{hex}", "-s", "rfc9162", "-i", "0", "--threads", "-2"], "positive integer"),
    ],
)
def test_misused_options_are_usage_errors(capsys, hex_file, argv, message):
    code, out, err = run(capsys, "merkle", *[a.format(hex=hex_file) for a in argv])
    assert (code, out) == (1, "")
    first, second = err.splitlines()
    assert first.startswith("batchkeccak: ") and message in first
    assert second == f"Try 'batchkeccak merkle {argv[0]} --help' for more information."


@pytest.mark.parametrize(
    ("types", "got"),
    [
        (None, "NoneType"),
        ("uint256", "str"),
        ({"address": 1, "uint256": 2}, "dict"),
        ([], "an empty list"),
        ([["address"], ["uint256"]], "a list holding something else"),
    ],
)
def test_a_proof_whose_types_are_not_a_list_of_names_is_refused(capsys, tmp_path, types, got):
    # An inclusion proof of a standard tree, its "types" replaced: never read another way
    # (a dict's keys, a str's letters) and never an internal error.
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([["0x" + "11" * 20, "5"], ["0x" + "22" * 20, "6"]]))
    argv = ["merkle", "proof", str(rows), "-s", "openzeppelin", "-i", "0"]
    _, out, _ = run(capsys, *argv, "--types", "address,uint256")
    entry = json.loads(out)
    entry["types"] = types
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps(entry))
    code, _, err = run(capsys, "merkle", "verify", str(proof))
    assert code == 2
    assert err.strip() == (
        f'batchkeccak: error: {proof}: a proof\'s "types" must be a non-empty list of ABI '
        f"type names, got {got}"
    )


def test_a_loaded_tree_checks_the_algorithm_given(capsys, tmp_path):
    leaves = tmp_path / "leaves.hex"
    leaves.write_text("".join(f"{i:064x}\n" for i in range(1, 4)))
    dump = tmp_path / "tree.json"
    assert (
        run(capsys, "merkle", "root", str(leaves), "-s", "openzeppelin", "--dump", str(dump))[0]
        == 0
    )
    code, _, err = run(capsys, "merkle", "proof", "--load", str(dump), "--all", "-a", "sha3_265")
    assert code == 1 and "did you mean 'sha3_256'" in err and "Try 'batchkeccak merkle proof" in err
    code, _, err = run(capsys, "merkle", "proof", "--load", str(dump), "--all", "-a", "sha3_512")
    assert code == 2 and err == (
        "batchkeccak: error: --algorithm sha3_512 but the dump's tree is of keccak_256\n"
    )
    assert run(capsys, "merkle", "proof", "--load", str(dump), "--all", "-a", "keccak256")[0] == 0
