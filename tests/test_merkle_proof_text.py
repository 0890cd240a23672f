"""Reading proof files (``proofs.parse_proofs``, ``proofs.iter_proofs``, ``merkle verify``):
the proofs read are those ``json.loads`` reads, or the file is refused.

A JSON object that names a key twice is read differently by different JSON readers
(``json.loads`` and JavaScript keep the last copy, others the first; the streaming reader
used to keep the first ``"proofs"``), so a proof file holding one must be refused, never
certified. Errors say where in the file they are.
"""

from __future__ import annotations

import io
import json
import random

import pytest

from batchkeccak.cli import main
from batchkeccak.merkle import proofs

from merkle_reference import oz_proof, oz_tree


def _proof(k: int) -> dict:
    return {
        "scheme": "openzeppelin",
        "algorithm": "keccak_256",
        "root": "0x" + "ab" * 32,
        "index": k,
        "leaf": "0x" + f"{k:02x}" * 32,
        "proof": ["0x" + "cd" * 32, "0x" + f"{k + 1:02x}" * 32],
    }


def _object(*members: str) -> str:
    """A JSON object of the members as written (a key may repeat)."""
    return "{" + ", ".join(members) + "}"


def _read_both(text: str, monkeypatch, read_size: int = 64) -> list:
    """``parse_proofs(text)``, checked to be what ``iter_proofs`` streams in small reads."""
    whole = proofs.parse_proofs(text)
    monkeypatch.setattr(proofs, "READ_SIZE", read_size)
    assert list(proofs.iter_proofs(io.StringIO(text))) == whole
    return whole


def _refused(text: str, monkeypatch, read_size: int = 64) -> str:
    """The message of the ProofTextError that both readers raise for ``text``."""
    with pytest.raises(proofs.ProofTextError) as whole:
        proofs.parse_proofs(text)
    monkeypatch.setattr(proofs, "READ_SIZE", read_size)
    with pytest.raises(proofs.ProofTextError) as streamed:
        list(proofs.iter_proofs(io.StringIO(text)))
    assert str(streamed.value) == str(whole.value)
    return str(whole.value)


# ----------------------------------------------------------------------------------------
# Keys named twice


@pytest.mark.parametrize("indent", [None, 1])
def test_a_second_proofs_member_is_refused(monkeypatch, indent):
    first, second = json.dumps([_proof(0)], indent=indent), json.dumps([_proof(1)], indent=indent)
    text = _object(f'"proofs": {first}', f'"proofs": {second}') + "\n"
    assert json.loads(text)["proofs"] == [_proof(1)]  # what json.loads (and JavaScript) read
    message = _refused(text, monkeypatch)
    assert "'proofs' appears twice" in message
    # Spelled with an escape, it is the same key to every JSON reader.
    for text in (
        _object(f'"proofs": {first}', f'"pro\\u006ffs": {second}'),
        _object(f'"pro\\u006ffs": {first}', f'"proofs": {second}'),
        _object('"note": 1', f'"proofs": {first}', f'"proofs": {second}'),
    ):
        assert "'proofs' appears twice" in _refused(text, monkeypatch)


def test_any_key_named_twice_is_refused_where_it_stands(monkeypatch):
    doubled = json.dumps(_proof(1))[:-1] + ', "leaf": "0x' + "00" * 32 + '"}'
    # One proof document.
    assert "'leaf' appears twice" in _refused(doubled, monkeypatch)
    # An item of "proofs".
    container = _object(f'"proofs": [{json.dumps(_proof(0))}, {doubled}]')
    message = _refused(container, monkeypatch)
    assert message.startswith("item 1 of 'proofs': key 'leaf' appears twice")
    # A line of JSON Lines, and an object nested in one.
    lines = json.dumps(_proof(0)) + "\n\n" + doubled + "\n"
    assert _refused(lines, monkeypatch).startswith("line 3: key 'leaf' appears twice")
    nested = json.dumps(_proof(0)) + '\n{"multiproof": {"proof": [], "proof": []}}\n'
    assert _refused(nested, monkeypatch).startswith("line 2: key 'proof' appears twice")
    # Other members after the array.
    after = _object(f'"proofs": [{json.dumps(_proof(0))}]', '"note": 1', '"note": 2')
    assert "'note' appears twice" in _refused(after, monkeypatch)


# ----------------------------------------------------------------------------------------
# The layouts that the streaming reader takes apart


def test_members_after_the_array_are_read_as_json_loads_reads_them(monkeypatch):
    entries = [_proof(k) for k in range(5)]
    text = json.dumps({"proofs": entries, "note": {"a": [1, 2]}, "count": 5}, indent=1)
    assert _read_both(text, monkeypatch) == json.loads(text)["proofs"] == entries


def test_several_proofs_documents_are_refused(monkeypatch):
    one, two = {"proofs": [_proof(0)]}, {"proofs": [_proof(1)]}
    # One per line, "proofs" first: the streaming layout, which must not stop at the first.
    message = _refused(json.dumps(one) + "\n" + json.dumps(two) + "\n", monkeypatch)
    assert message.endswith("Extra data: line 2 column 1")
    # A {"proofs": ...} line among JSON Lines of single proofs.
    text = json.dumps(_proof(0)) + "\n" + json.dumps(dict(two, note=1)) + "\n"
    assert _refused(text, monkeypatch).startswith('line 2: a {"proofs": [...]} document')
    text = json.dumps({"note": 1, **one}) + "\n" + json.dumps(_proof(1)) + "\n"
    assert _refused(text, monkeypatch).startswith('line 1: a {"proofs": [...]} document')


def test_what_is_read_is_what_json_loads_reads_or_a_refusal(monkeypatch):
    """Damaged copies of each layout: a copy that ``json.loads`` reads gives its proofs (or,
    with a key named twice, is refused); one it does not read is JSON Lines, each line the
    proof ``json.loads`` reads there, or is refused, with ``json.loads``' own words and place
    for the whole text where it is one document."""
    entries = [_proof(k) for k in range(12)]
    layouts = [
        json.dumps({"proofs": entries}, indent=1),
        json.dumps({"proofs": entries, "note": [1, {"a": 2}]}),
        "".join(json.dumps(e) + "\n" for e in entries),
        json.dumps(entries[0], indent=2),
    ]
    rng = random.Random(19)
    pieces = ["", "x", ",", "]", "}", "{", '"', "\n", '"proofs": []', '"leaf": 1', "[]"]
    refusals = 0
    for trial in range(400):
        base = layouts[trial % len(layouts)]
        if trial % 4 == 3:  # a member added at the end of an object: often one it has
            at = rng.choice([k for k, c in enumerate(base) if c == "}"])
            text = base[:at] + rng.choice([', "proofs": []', ', "leaf": 1', ', "x": 0']) + base[at:]
        else:
            at = rng.randrange(len(base))
            text = base[:at] + rng.choice(pieces) + base[at + rng.randrange(3) :]
        try:
            document = json.loads(text)
        except ValueError as exc:
            document, error = None, exc
        try:
            read = _read_both(text, monkeypatch, read_size=rng.choice([16, 100, 1 << 16]))
        except proofs.ProofTextError as refused:
            message = str(refused)
            if document is not None:
                reasons = ("appears twice", "holds no proofs", "must be a list")
                assert any(reason in message for reason in reasons), (text, message)
                refusals += 1
            elif text.startswith('{"proofs"') and isinstance(error, json.JSONDecodeError):
                # The streaming layout, read as one document: json.loads' words and place.
                assert f"{error.msg}: line {error.lineno} column {error.colno}" in message
            continue
        if document is not None:
            expected = (
                document["proofs"]
                if isinstance(document, dict) and "proofs" in document
                else [document]
            )
            assert read == expected, text
        else:
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
            assert read == lines, text
    assert refusals  # some copies named a key twice


def test_only_json_whitespace_makes_a_line_blank(monkeypatch):
    proof = json.dumps(_proof(0))
    assert _read_both(" \t\r\n" + proof + "\n\n" + proof + "\n", monkeypatch) == [_proof(0)] * 2
    # json.loads reads no-break space as no whitespace: neither may the lines between proofs.
    for space in ("\u00a0", "\u2003", "\x0c"):
        with pytest.raises(ValueError):
            json.loads(space + "\n" + proof)
        assert _refused(space + "\n" + proof + "\n", monkeypatch).endswith("line 1 column 1")
        message = _refused(proof + "\n" + space + "\n" + proof + "\n", monkeypatch)
        assert message.endswith("line 2 column 1")


# ----------------------------------------------------------------------------------------
# Where an error is


def test_errors_name_the_files_line_and_column(monkeypatch):
    good = [json.dumps(_proof(k)) for k in range(4)]
    assert _refused("\n".join([good[0], good[1], "not json", good[2]]), monkeypatch) == (
        "proof text is neither JSON nor JSON Lines: Expecting value: line 3 column 1"
    )
    # An error at the end of a line is on that line, not the next.
    text = "\n".join([good[0], "", good[1], '{"bad": ', good[2]]) + "\n"
    assert _refused(text, monkeypatch).endswith("Expecting value: line 4 column 9")
    # Neither one document nor one per line: where each reading stops.
    text = '{"bad": \n' + good[0] + "\n"
    assert _refused(text, monkeypatch) == (
        "proof text is neither JSON (Expecting ',' delimiter: line 3 column 1) "
        "nor JSON Lines (Expecting value: line 1 column 9)"
    )
    # Far into a {"proofs": [...]} document, past the first reads: json.loads' place.
    entries = json.dumps({"proofs": [_proof(k) for k in range(40)]}, indent=1)
    at = entries.index('"leaf"', len(entries) // 2)
    text = entries[:at] + "?" + entries[at:]
    with pytest.raises(json.JSONDecodeError) as reference:
        json.loads(text)
    where = f"line {reference.value.lineno} column {reference.value.colno}"
    assert reference.value.lineno > 100
    assert _refused(text, monkeypatch, read_size=50).endswith(f"{reference.value.msg}: {where}")


# ----------------------------------------------------------------------------------------
# merkle verify


def _valid_and_forged(tmp_path):
    """An inclusion proof that holds against its root, and a copy for another leaf."""
    leaves = [bytes([k]) * 32 for k in range(6)]
    tree, index = oz_tree(leaves, True)
    proof = {
        "scheme": "openzeppelin",
        "algorithm": "keccak_256",
        "root": "0x" + tree[0].hex(),
        "index": 2,
        "leaf": "0x" + leaves[2].hex(),
        "proof": ["0x" + node.hex() for node in oz_proof(tree, index[2])],
    }
    return proof, dict(proof, leaf="0x" + "ee" * 32)


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_verify_refuses_a_file_whose_proofs_json_readers_read_differently(capsys, tmp_path):
    valid, forged = _valid_and_forged(tmp_path)
    path = tmp_path / "proofs.json"
    path.write_text(json.dumps({"proofs": [valid]}))
    assert run(capsys, "merkle", "verify", str(path), "--root", valid["root"])[:2] == (0, "valid\n")
    path.write_text(json.dumps({"proofs": [forged]}))
    assert run(capsys, "merkle", "verify", str(path), "--root", valid["root"])[0] == 1
    # json.loads and JavaScript read the forged proof; the file must not be certified.
    path.write_text(
        _object(f'"proofs": {json.dumps([valid])}', f'"proofs": {json.dumps([forged])}')
    )
    code, out, err = run(capsys, "merkle", "verify", str(path), "--root", valid["root"])
    assert (code, out) == (2, "")
    assert err == (
        f"batchkeccak: error: {path}: key 'proofs' appears twice in one object "
        "(JSON readers differ on which copy counts)\n"
    )


def test_verify_errors_name_the_file_and_line(capsys, tmp_path):
    valid, _ = _valid_and_forged(tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    code, out, err = run(capsys, "merkle", "verify", str(empty))
    assert (code, out) == (2, "")
    assert err == f"batchkeccak: error: {empty}: the proof names no root; give the root you trust\n"
    lines = tmp_path / "proofs.jsonl"
    lines.write_text(json.dumps(valid) + "\n" + json.dumps(valid) + "\n[oops\n")
    code, out, err = run(capsys, "merkle", "verify", str(lines))
    assert (code, out) == (2, "")
    assert err == (
        f"batchkeccak: error: {lines}: proof text is neither JSON nor JSON Lines: "
        "Expecting value: line 3 column 2\n"
    )
    # A bad --root is the option's fault, not the file's.
    lines.write_text(json.dumps(valid) + "\n")
    code, _, err = run(capsys, "merkle", "verify", str(lines), "--root", "0x1234")
    assert (code, err) == (2, "batchkeccak: error: --root must be 32 bytes, got 2\n")
