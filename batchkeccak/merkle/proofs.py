"""Proofs as JSON: the documents that ``batchkeccak merkle proof`` writes and ``verify`` reads.

A proof document carries everything a verifier needs besides the root it trusts:

- an inclusion proof: ``{"scheme", "algorithm", "root", "index", <leaf>, "proof"}``, where
  ``<leaf>`` is ``"leaf"`` (an OpenZeppelin simple tree), ``"types"`` and ``"value"`` (a
  standard tree), or ``"leafHash"`` and, when the values are at hand, ``"value"`` (RFC 9162,
  which adds ``"digestSize"`` and ``"size"``); ``proof`` lists ``0x`` hex nodes, leaf to root;
- several inclusion proofs: ``{"proofs": [...]}``, or JSON Lines of single proofs;
- a multiproof: ``{"scheme", "algorithm", "root", ["types"], "multiproof"}`` with the
  JavaScript library's ``{"leaves", "proof", "proofFlags"}``;
- a consistency proof: ``{"scheme", "algorithm", "digestSize", "oldSize", "newSize",
  "oldRoot", "newRoot", "proof"}``.

Tree dumps (``MerkleTree.dump``) are written and read here too, atomically.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

import numpy as np

from batchkeccak.merkle import abi, openzeppelin, rfc9162, schemes
from batchkeccak.merkle._bytes import hex_to_bytes
from batchkeccak.merkle.base import MerkleTree
from batchkeccak.support.hextext import encode_hex_rows, hex_0x
from batchkeccak.support.output import check_output_path, open_output

__all__ = [
    "VERIFY_BATCH",
    "ProofTextError",
    "Verified",
    "consistency_proof_json",
    "inclusion_proof_json",
    "inclusion_proof_lines",
    "iter_proofs",
    "load_dump",
    "multiproof_json",
    "parse_proofs",
    "verify_proof_stream",
    "verify_proofs",
    "write_dump",
    "write_text_atomic",
]

BLOCK = 1 << 14
"""Proofs assembled per step of :func:`inclusion_proof_lines`: the sibling nodes of a block of
leaves are gathered and hex-encoded level by level with numpy, and the block's lines are
handed out before the next."""

VERIFY_BATCH = 4096
"""Proof documents held at once by :func:`verify_proof_stream`: they are read, checked (the
OpenZeppelin inclusion proofs among them with one :func:`~batchkeccak.merkle.openzeppelin.\
verify_many` call per root and types) and dropped before the next are read."""

READ_SIZE = 1 << 16
"""Characters read at a time by :func:`iter_proofs` from a ``{"proofs": [...]}`` document."""


# ----------------------------------------------------------------------------------------
# Writing proofs


def _value_bytes(values: object, index: int) -> bytes:
    """Value ``index`` of RFC 9162 leaves given in any form ``MerkleTree.build`` takes."""
    if isinstance(values, np.ndarray):
        return values[index].tobytes()
    if hasattr(values, "to_pylist"):
        value = values[index].as_py()  # type: ignore[index]  # an Arrow array (has to_pylist): indexable, untyped pyarrow
        return value.encode("utf-8") if isinstance(value, str) else value
    return bytes(values[index])  # type: ignore[index]  # any other form MerkleTree.build took is a sequence of bytes-like values


def _leaf_fields(tree: MerkleTree, values: object, index: int) -> dict:
    """What the verifier needs besides the proof: the leaf, in the scheme's terms."""
    if isinstance(tree, openzeppelin.OpenZeppelinTree):
        if tree.types is None:
            return {"leaf": hex_0x(tree.value(index))}
        row = tree.value(index)
        return {
            "types": list(tree.types),
            "value": [abi.json_value(t, v) for t, v in zip(tree.types, row)],  # type: ignore[call-overload]  # types is not None (checked above), so each row is a list of values
        }
    entry = {"leafHash": hex_0x(tree.leaf_hash(index))}
    if values is not None:
        entry["value"] = hex_0x(_value_bytes(values, index))
    return entry


def _head(tree: MerkleTree) -> dict:
    head: dict[str, object] = {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "root": hex_0x(tree.root),
    }
    if isinstance(tree, rfc9162.RFC9162Tree):
        head.update(digestSize=tree.digest_size, size=tree.size)
    return head


def inclusion_proof_json(tree: MerkleTree, index: int, values: object = None) -> dict:
    """The inclusion proof of leaf ``index`` (input order) as a JSON-ready dict.

    Parameters
    ----------
    tree
        Any :class:`~batchkeccak.merkle.MerkleTree`.
    index
        The leaf, in input order.
    values
        RFC 9162 trees: the values the tree was built from, to put the value itself into the
        proof (without them the proof carries the leaf hash alone). Ignored otherwise.

    Returns
    -------
    dict
        The document described in this module's docstring; :func:`verify_proofs` reads it.
    """
    proof = [hex_0x(node) for node in tree.proof(index)]
    entry = dict(_head(tree), index=int(index))
    entry.update(_leaf_fields(tree, values, int(index)))
    entry["proof"] = proof
    return entry


def inclusion_proof_lines(
    tree: MerkleTree, values: object = None, block: int = BLOCK
) -> Iterator[str]:
    """One JSON line per leaf, in input order, ``block`` leaves per yielded chunk.

    The same documents as :func:`inclusion_proof_json`, without holding every proof in
    memory: each block's sibling nodes come from one :meth:`MerkleTree.sibling_levels` call.
    """
    head = _head(tree)
    simple = isinstance(tree, openzeppelin.OpenZeppelinTree)
    json_values = tree.json_values() if simple else None  # type: ignore[attr-defined]  # simple is the isinstance check above; mypy does not narrow through it
    types = list(tree.types) if simple and tree.types is not None else None  # type: ignore[attr-defined]  # simple is the isinstance check above; mypy does not narrow through it
    for start in range(0, tree.size, block):
        indices = np.arange(start, min(tree.size, start + block))
        steps = [(has, encode_hex_rows(nodes, "0x")) for has, nodes in tree.sibling_levels(indices)]
        if not simple:
            leaf_hashes = encode_hex_rows(tree.levels[0][indices], "0x")  # type: ignore[attr-defined]  # not simple: an RFC 9162 tree, which has levels
        lines = []
        for k, index in enumerate(indices.tolist()):
            entry = dict(head, index=index)
            if simple:
                if types is None:
                    entry["leaf"] = json_values[index]  # type: ignore[index]  # simple: json_values was set above
                else:
                    entry.update(types=types, value=json_values[index])  # type: ignore[index]  # simple: json_values was set above
            else:
                entry["leafHash"] = leaf_hashes[k]
                if values is not None:
                    entry["value"] = hex_0x(_value_bytes(values, index))
            entry["proof"] = [nodes[k] for has, nodes in steps if has[k]]
            lines.append(json.dumps(entry) + "\n")
        yield "".join(lines)


def multiproof_json(tree: MerkleTree, indices: Sequence[int]) -> dict:
    """One OpenZeppelin multiproof for the leaves at ``indices``, as a JSON-ready dict."""
    if not isinstance(tree, openzeppelin.OpenZeppelinTree):
        raise TypeError(
            f"multiproofs are defined by the openzeppelin scheme; this tree is {tree.scheme}"
        )
    multiproof = tree.multiproof(indices)
    result: dict[str, object] = {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "root": hex_0x(tree.root),
    }
    if tree.types is not None:
        result["types"] = list(tree.types)
    result["multiproof"] = multiproof.to_json()
    return result


def consistency_proof_json(tree: MerkleTree, old_size: int) -> dict:
    """An RFC 9162 consistency proof from the first ``old_size`` leaves, as a JSON-ready dict."""
    if not isinstance(tree, rfc9162.RFC9162Tree):
        raise TypeError(
            f"consistency proofs are defined by the rfc9162 scheme; this tree is {tree.scheme}"
        )
    proof = tree.consistency_proof(old_size)
    return {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "digestSize": tree.digest_size,
        "oldSize": old_size,
        "newSize": tree.size,
        "oldRoot": hex_0x(tree.root_at(old_size)),
        "newRoot": hex_0x(tree.root),
        "proof": [hex_0x(p) for p in proof],
    }


# ----------------------------------------------------------------------------------------
# Dumps


def write_text_atomic(path: str | os.PathLike, chunks: str | Iterable[str]) -> None:
    """Write text to ``path`` so that readers see the old file or the whole new one.

    Through ``batchkeccak.support.atomic`` (a temporary file beside ``path``, flushed, then renamed
    over it). A folder, or a path in a folder that does not exist, is refused first with an
    error that says so.
    """
    check_output_path(path)
    target = Path(path)
    with open_output(target, "w") as handle:
        handle.writelines([chunks] if isinstance(chunks, str) else chunks)


def write_dump(tree: MerkleTree, path: str | os.PathLike) -> None:
    """Write :meth:`MerkleTree.dumps` to ``path`` atomically (old file or whole new one)."""
    write_text_atomic(path, tree.dumps() + "\n")


def load_dump(path: str | os.PathLike, *, threads: int | None = None) -> MerkleTree:
    """:meth:`MerkleTree.load` of the JSON file at ``path``, every node checked."""
    return MerkleTree.load(Path(path), threads=threads)


# ----------------------------------------------------------------------------------------
# Reading and verifying proofs


class ProofTextError(ValueError):
    """Proof text that is neither a JSON document nor JSON Lines, or holds no proofs."""


class _DuplicateKey(ValueError):
    """A JSON object that names one key twice."""

    def __init__(self, key: str):
        super().__init__(
            f"key {key!r} appears twice in one object (JSON readers differ on which copy counts)"
        )


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's members as a dict; :class:`_DuplicateKey` when a key repeats, as
    ``json.loads`` would keep the last copy and others the first."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


_JSON_SPACE = " \t\n\r"
"""JSON's whitespace: a blank line holds these alone (not any Unicode space)."""
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_CONTAINER = re.compile(r'[ \t\n\r]*\{[ \t\n\r]*"proofs"[ \t\n\r]*:[ \t\n\r]*\[')
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)
"""``json.loads``' reading, every object's keys checked to be distinct."""


def _not_json(reason: str) -> ProofTextError:
    return ProofTextError(f"proof text is neither JSON nor JSON Lines: {reason}")


def _decode_error(exc: json.JSONDecodeError, line: int = 1, column: int = 0) -> str:
    """``exc`` at its place in the file, for text decoded from line ``line``, column
    ``column + 1`` on (``exc``'s own line and column count from the decoded text)."""
    if exc.lineno == 1:
        column += exc.colno
    else:
        column = exc.colno
    return f"{exc.msg}: line {line + exc.lineno - 1} column {column}"


def parse_proofs(text: str) -> list:
    """The proof documents in ``text``: one JSON document, ``{"proofs": [...]}``, or JSON
    Lines (as :func:`inclusion_proof_lines` writes). :func:`iter_proofs` reads them from a
    file without holding them all.

    Text that ``json.loads`` reads is read as it reads it: a ``{"proofs": [...]}`` document
    gives its proofs, any other document is one proof. Other text must be JSON Lines, one
    proof document per line (a ``{"proofs": [...]}`` line among them is refused). A key named
    twice in one object is refused wherever it stands: JSON readers differ on which copy
    counts (``json.loads`` and JavaScript keep the last, others the first), so such a file
    would hold different proofs for different readers.

    Raises
    ------
    ProofTextError
        A ``ValueError``: when ``text`` is neither JSON nor JSON Lines (the message gives the
        line and column where it stops being either), names a key twice in one object, or
        holds no proofs.
    """
    return list(iter_proofs(io.StringIO(text)))


def iter_proofs(stream: TextIO) -> Iterator[object]:
    """The proof documents of a text stream, one at a time, read as they are needed.

    The layouts :func:`parse_proofs` reads, with its checks: JSON Lines are read line by
    line; a ``{"proofs": [...]}`` document (``"proofs"`` its first member, as ``batchkeccak
    merkle proof`` writes it) is read ``READ_SIZE`` characters at a time, one array item
    decoded after another, and the members after the array are read to check that the
    object closes and names ``"proofs"`` no more; any other text is one JSON document (one
    inclusion, multi- or consistency proof), read whole. So what is held at once is a line
    or an item and a read buffer, not the file, and the proofs are those ``json.loads``
    finds in the whole text.

    Raises
    ------
    ProofTextError
        As :func:`parse_proofs`; JSON Lines and array items are checked as they are reached,
        so the proofs before a malformed one have been handed out.
    """
    head = stream.read(READ_SIZE)
    container = _CONTAINER.match(head)
    if container:
        count = yield from _container_items(stream, head, container.end())
    else:
        count = yield from _lines_or_document(stream, head)
    if not count:
        raise ProofTextError("proof text holds no proofs")


_TAIL_PREFIX = '{"proofs": []'
"""What the members after the ``"proofs"`` array are decoded after: the object they close."""


def _container_items(stream: TextIO, head: str, start: int) -> Generator[object, None, int]:
    """The items of ``{"proofs": [...]}``, from ``head[start:]`` (just past the ``[``) on;
    returns how many there were."""
    reader = _Reader(stream, head, start)
    count = 0
    if reader.skip_whitespace() == "]":
        reader.pos += 1
    else:
        while True:
            if reader.skip_whitespace() == "":
                raise _not_json(f"Expecting value: {reader.where()} (the text ends in 'proofs')")
            try:
                item = reader.value()
            except _DuplicateKey as exc:
                raise ProofTextError(f"item {count} of 'proofs': {exc}") from None
            except json.JSONDecodeError as exc:
                raise _not_json(f"{exc.msg}: {reader.where(exc.pos)}") from None
            yield item
            count += 1
            following = reader.skip_whitespace()
            if following == "]":
                reader.pos += 1
                break
            if following != ",":
                raise _not_json(
                    f"Expecting ',' delimiter: {reader.where()} (after item {count - 1} of "
                    "'proofs')"
                )
            reader.pos += 1
    # The members after "proofs" (usually none): the object must still close, and a second
    # "proofs" (which json.loads would read instead of the first) is a duplicated key.
    reader.read_all()
    try:
        _DECODER.decode(_TAIL_PREFIX + reader.buffer[reader.pos :])
    except _DuplicateKey as exc:
        raise ProofTextError(str(exc)) from None
    except json.JSONDecodeError as exc:
        where = reader.where(reader.pos + exc.pos - len(_TAIL_PREFIX))
        raise _not_json(f"{exc.msg}: {where}") from None
    return count


def _lines_or_document(stream: TextIO, head: str) -> Generator[object, None, int]:
    """JSON Lines, one document per line, or one JSON document over several lines; returns
    how many proofs there were."""
    lines = enumerate(_lines(stream, head), start=1)
    first = next(((n, line) for n, line in lines if line.strip(_JSON_SPACE)), None)
    if first is None:
        return 0
    number, line = first
    try:
        document = _decode_line(number, line)
    except json.JSONDecodeError as error:
        # Not a whole document on its own line: the text is one document over several lines.
        try:
            document = _DECODER.decode(line + "".join(text for _, text in lines))
        except _DuplicateKey as exc:
            raise ProofTextError(str(exc)) from None
        except json.JSONDecodeError as exc:
            as_json, as_lines = _decode_error(exc, number), _decode_error(error, number)
            if as_json == as_lines:
                raise _not_json(as_json) from None
            raise ProofTextError(
                f"proof text is neither JSON ({as_json}) nor JSON Lines ({as_lines})"
            ) from None
        return (yield from _documents_of(document))
    following = next(((n, text) for n, text in lines if text.strip(_JSON_SPACE)), None)
    if following is None:
        return (yield from _documents_of(document))  # a document on one line
    yield _line_proof(number, document)
    count = 1
    for number, line in itertools.chain([following], lines):
        if not line.strip(_JSON_SPACE):
            continue
        try:
            entry = _decode_line(number, line)
        except json.JSONDecodeError as exc:
            raise _not_json(_decode_error(exc, number)) from None
        yield _line_proof(number, entry)
        count += 1
    return count


def _decode_line(number: int, line: str) -> object:
    """Line ``number`` of the file as JSON, without its line end (so that an error at the
    end of the line is placed there, not on the next)."""
    try:
        return _DECODER.decode(line.rstrip("\r\n"))
    except _DuplicateKey as exc:
        raise ProofTextError(f"line {number}: {exc}") from None


def _line_proof(number: int, entry: object) -> object:
    """A document of JSON Lines: one proof, never a ``{"proofs": [...]}`` of several."""
    if isinstance(entry, Mapping) and "proofs" in entry:
        raise ProofTextError(
            f'line {number}: a {{"proofs": [...]}} document among JSON Lines; '
            "give one proof per line, or one document"
        )
    return entry


def _documents_of(document: object) -> Generator[object, None, int]:
    """The proofs of one JSON document: its ``"proofs"``, or the document itself."""
    if isinstance(document, Mapping) and "proofs" in document:
        entries = document["proofs"]
        if not isinstance(entries, list):
            raise ProofTextError("'proofs' must be a list of proof objects")
        yield from entries
        return len(entries)
    yield document
    return 1


def _lines(stream: TextIO, head: str) -> Iterator[str]:
    """The lines of ``head`` followed by the rest of ``stream``, each with its newline."""
    pending = ""
    for line in io.StringIO(head):
        if line.endswith("\n"):
            yield pending + line
            pending = ""
        else:
            pending = line  # the head stops inside this line
    if pending:
        yield pending + stream.readline()
    yield from stream


class _Reader:
    """A window on a text stream, for decoding one JSON value after another; it keeps count
    of the lines before the window, to say where in the text a position is."""

    def __init__(self, stream: TextIO, text: str, pos: int):
        self.stream, self.buffer, self.pos, self.eof = stream, text, pos, False
        self.lines = 0
        """Line ends before ``buffer``."""
        self.column = 0
        """Characters between the last line end before ``buffer`` and ``buffer``."""

    def _append(self, chunk: str) -> None:
        """Add ``chunk`` to the buffer, dropping the characters before ``pos``."""
        newlines = self.buffer.count("\n", 0, self.pos)
        if newlines:
            self.lines += newlines
            self.column = self.pos - self.buffer.rindex("\n", 0, self.pos) - 1
        else:
            self.column += self.pos
        self.buffer = self.buffer[self.pos :] + chunk
        self.pos = 0

    def more(self, size: int) -> bool:
        """Read ``size`` more characters, dropping those before ``pos``; False at the end."""
        chunk = self.stream.read(size)
        if not chunk:
            self.eof = True
            return False
        self._append(chunk)
        return True

    def read_all(self) -> None:
        """Read the rest of the stream into the buffer."""
        self._append(self.stream.read())
        self.eof = True

    def where(self, index: int | None = None) -> str:
        """``line L column C`` of ``buffer[index]`` (default ``pos``) in the whole text."""
        index = self.pos if index is None else index
        newlines = self.buffer.count("\n", 0, index)
        if newlines:
            column = index - self.buffer.rindex("\n", 0, index)
        else:
            column = self.column + index + 1
        return f"line {self.lines + newlines + 1} column {column}"

    def skip_whitespace(self) -> str:
        """Move past whitespace; the next character, or "" at the end of the text."""
        while True:
            match = _WHITESPACE.match(self.buffer, self.pos)
            assert match is not None  # the pattern matches the empty string
            self.pos = match.end()
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self.more(READ_SIZE):
                return ""

    def value(self) -> object:
        """Decode the JSON value at ``pos``, reading on while the buffer ends inside it."""
        size = READ_SIZE
        while True:
            try:
                item, end = _DECODER.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError:
                if not self.more(size):
                    raise
                size *= 2  # a long item: read ahead in growing steps, not quadratically
                continue
            # A value that ends where the buffer ends may go on (a number): read on to see.
            if end < len(self.buffer) or not self.more(size):
                self.pos = end
                return item


def _xof_length(entry: Mapping) -> int | None:
    from batchkeccak.core.parameters import get_algorithm

    spec = get_algorithm(entry.get("algorithm") or rfc9162.DEFAULT_ALGORITHM)
    return entry["digestSize"] if spec.xof else None


def _trusted_root(entry: Mapping, root: object) -> object:
    trusted = root if root is not None else entry.get("root")
    if trusted is None:
        raise ValueError("the proof names no root; give the root you trust")
    return trusted


def _verify_entry(entry: object, root: object) -> tuple[bool, str]:
    """Check one proof document; returns (valid, what it proves)."""
    if not isinstance(entry, Mapping):
        raise TypeError("a proof must be a JSON object")
    scheme = entry.get("scheme")
    if "oldSize" in entry:
        ok = schemes.verify_consistency(
            entry["oldRoot"],
            root if root is not None else entry["newRoot"],
            entry["proof"],
            old_size=entry["oldSize"],
            new_size=entry["newSize"],
            algorithm=entry.get("algorithm"),
            length=_xof_length(entry),
        )
        return ok, f"consistency {entry['oldSize']} -> {entry['newSize']}"
    trusted = _trusted_root(entry, root)
    if "multiproof" in entry:
        ok = schemes.verify_multiproof(entry["multiproof"], trusted, types=entry.get("types"))
        return ok, "multiproof"
    if scheme == "openzeppelin":
        if "types" in entry:
            ok = schemes.verify(
                entry["value"], entry["proof"], trusted, scheme=scheme, types=entry["types"]
            )
        else:
            ok = schemes.verify(entry["leaf"], entry["proof"], trusted, scheme=scheme)
        return ok, f"leaf {entry.get('index', '?')}"
    if scheme == "rfc9162":
        options = {
            "index": entry["index"],
            "size": entry["size"],
            "algorithm": entry.get("algorithm"),
            "length": _xof_length(entry),
        }
        if "value" in entry:
            value = hex_to_bytes(entry["value"], "value")
            ok = schemes.verify(value, entry["proof"], trusted, scheme=scheme, **options)
        else:
            ok = rfc9162.verify_leaf_hash(entry["leafHash"], entry["proof"], trusted, **options)
        return ok, f"leaf {entry['index']}"
    raise ValueError(f"unknown scheme {scheme!r} in proof")


def _openzeppelin_groups(entries: list, root: object) -> tuple[dict, list]:
    """The OpenZeppelin inclusion proofs of ``entries`` grouped by trusted root and types (in
    order of first appearance), and the entries left for one-by-one checks."""
    groups: dict = {}
    rest = []
    for entry in entries:
        if (
            isinstance(entry, Mapping)
            and entry.get("scheme") == "openzeppelin"
            and "proof" in entry
            and "multiproof" not in entry
        ):
            types = _proof_types(entry["types"]) if "types" in entry else None
            groups.setdefault((_trusted_root(entry, root), types), []).append(entry)
        else:
            rest.append(entry)
    return groups, rest


def _proof_types(types: object) -> tuple[str, ...]:
    """An inclusion proof's ``"types"``: a non-empty list of ABI type names."""
    if not isinstance(types, list):
        shown = type(types).__name__
    elif not types:
        shown = "an empty list"
    elif not all(isinstance(t, str) for t in types):
        shown = "a list holding something else"
    else:
        return tuple(types)
    raise ValueError(f'a proof\'s "types" must be a non-empty list of ABI type names, got {shown}')


class Verified(NamedTuple):
    """What :func:`verify_proof_stream` found."""

    total: int
    """Proof documents checked."""
    failures: int
    """How many of them fail."""
    failed: list[str]
    """What failed (``"leaf 7"``), in :func:`verify_proofs`' order; at most ``keep`` names."""


class _Failures:
    """Names of failed proofs, kept in the order :func:`verify_proofs` has always reported
    them: OpenZeppelin inclusion proofs by group (groups in order of first appearance, proofs
    in input order), then the others in input order; at most ``keep`` names per list."""

    def __init__(self, keep: int | None):
        self.keep = keep
        self.groups: dict[object, list[str]] = {}
        self.rest: list[str] = []
        self.count = 0

    def add(self, names: list[str], what: str) -> None:
        if self.keep is None or len(names) < self.keep:
            names.append(what)
        self.count += 1

    def names(self) -> list[str]:
        joined = [name for names in self.groups.values() for name in names] + self.rest
        return joined if self.keep is None else joined[: self.keep]


def verify_proof_stream(
    entries: Iterable[object],
    root: object = None,
    *,
    batch: int | None = None,
    keep: int | None = None,
) -> Verified:
    """Check proof documents ``batch`` (default :data:`VERIFY_BATCH`) at a time, as
    :func:`iter_proofs` reads them.

    The results are :func:`verify_proofs`' (the same failures, in the same order), but at
    most ``batch`` documents are held at once, so memory does not grow with the number of
    proofs; ``keep`` bounds the failure names kept (None keeps them all).

    Raises
    ------
    ValueError, TypeError
        As :func:`verify_proofs`, at the first malformed document of a batch.
    """
    batch = VERIFY_BATCH if batch is None else batch
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    failures = _Failures(keep)
    count = 0
    iterator = iter(entries)
    try:
        while chunk := list(itertools.islice(iterator, batch)):
            count += len(chunk)
            groups, rest = _openzeppelin_groups(chunk, root)
            for key, group in groups.items():
                names = failures.groups.setdefault(key, [])
                trusted, types = key
                leaves = [e["value"] for e in group] if types else [e["leaf"] for e in group]
                valid = openzeppelin.verify_many(
                    leaves, [e["proof"] for e in group], trusted, types=types
                )
                for entry, ok in zip(group, valid.tolist()):
                    if not ok:
                        failures.add(names, f"leaf {entry.get('index', '?')}")
            del groups, chunk
            for entry in rest:
                ok, what = _verify_entry(entry, root)
                if not ok:
                    failures.add(failures.rest, what)
    except KeyError as exc:
        raise ValueError(f"proof lacks {exc.args[0]!r}") from None
    return Verified(count, failures.count, failures.names())


def verify_proofs(entries: Sequence[object], root: object = None) -> list[str]:
    """Check proof documents (as :func:`parse_proofs` returns them).

    Parameters
    ----------
    entries
        Inclusion, multi- and consistency proof documents, in any mix.
    root
        The root you trust (bytes or hex); None checks each proof against the root written
        in it, which proves only that the document is consistent with itself.

    Returns
    -------
    list of str
        What failed (``"leaf 7"``, ``"multiproof"``, ``"consistency 3 -> 9"``); empty when
        every proof holds.

    Raises
    ------
    ValueError, TypeError
        For malformed documents: a missing field, nodes of the wrong size, an unknown scheme.
    """
    return verify_proof_stream(entries, root, batch=max(1, len(entries))).failed
