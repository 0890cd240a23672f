"""``batchkeccak merkle root|proof|verify``: Merkle roots and proofs of leaves in a file."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

FORMATS = ("auto", "hex", "lines", "raw", "csv", "parquet")

_INPUT_HELP = """\
input formats (--format):
  hex      one hex value per line (0x optional, blank lines skipped; "0x" alone is empty)
  lines    every line of the file, without its newline, is one value (raw bytes)
  raw      fixed-size binary records of --record-size bytes (default 32)
  csv      a CSV file with a header row; --column picks columns (default: all), for
           --types (OpenZeppelin standard trees)
  parquet  --column C: a binary/string column (leaves or values), or with --types one
           column per type, in order
  auto     parquet for .parquet/.pq, csv for .csv, hex otherwise (the default)
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "merkle",
        help="Merkle roots, proofs and verification (OpenZeppelin, RFC 9162)",
        description="Build a Merkle tree over the leaves in a file, print its root, write "
        "proofs, or verify proofs. Schemes: openzeppelin (@openzeppelin/merkle-tree, "
        "Keccak-256) and rfc9162 (Certificate Transparency, any algorithm).",
    )
    commands = parser.add_subparsers(dest="merkle_command", metavar="ACTION", required=True)

    root = commands.add_parser(
        "root",
        help="print the root of the tree over INPUT",
        description="Print the root (0x hex) of the tree over INPUT.",
        epilog=_INPUT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_arguments(root, required=True)
    _tree_arguments(root)
    root.add_argument(
        "--dump",
        metavar="FILE",
        help="also write the whole tree as JSON (the JS library's format for "
        "openzeppelin trees), atomically",
    )
    root.set_defaults(run=run_root)

    proof = commands.add_parser(
        "proof",
        help="write inclusion proofs (or a multiproof / consistency proof)",
        description="Print inclusion proofs as JSON for the leaves at --index (input order), "
        "or write one proof per leaf as JSON Lines with --all. The tree comes from INPUT or "
        "from a dump written by 'root --dump' (--load).",
        epilog=_INPUT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_arguments(proof, required=False)
    proof.add_argument("--load", metavar="DUMP", help="read the tree from a JSON dump")
    _tree_arguments(proof)
    proof.add_argument(
        "--index",
        "-i",
        dest="indices",
        type=int,
        action="append",
        default=[],
        metavar="I",
        help="leaf index in input order; repeat for several",
    )
    proof.add_argument(
        "--all", action="store_true", help="one proof per leaf, as JSON Lines (use with --output)"
    )
    proof.add_argument(
        "--multi", action="store_true", help="one multiproof for all --index leaves (openzeppelin)"
    )
    proof.add_argument(
        "--consistency",
        type=int,
        metavar="OLD_SIZE",
        help="a consistency proof from the first OLD_SIZE leaves (rfc9162)",
    )
    proof.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE atomically instead of standard output"
    )
    proof.set_defaults(run=run_proof)

    verify = commands.add_parser(
        "verify",
        help="verify proofs written by 'proof' (exit status 1 if any fails)",
        description="Verify the proof(s) in PROOF (a file written by 'batchkeccak merkle "
        "proof', or '-' for standard input): inclusion proofs, JSON Lines of them, a "
        "multiproof or a consistency proof. Prints 'valid' and exits 0 when every proof "
        "holds, else prints what failed and exits 1.",
    )
    verify.add_argument("proof_file", metavar="PROOF", help="proof JSON / JSON Lines, or -")
    verify.add_argument(
        "--root",
        help="the root you trust (0x hex); without it the proofs are "
        "checked against the root written in PROOF",
    )
    verify.set_defaults(run=run_verify)


def _input_arguments(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument(
        "input",
        metavar="INPUT",
        nargs=None if required else "?",
        help="file of leaves (see input formats below)",
    )
    parser.add_argument(
        "--format",
        "-f",
        choices=FORMATS,
        default="auto",
        help="input format (see below; default auto)",
    )
    parser.add_argument(
        "--column",
        "-c",
        dest="columns",
        action="append",
        default=[],
        metavar="C",
        help="Parquet/CSV column; repeat for several (--types)",
    )
    parser.add_argument(
        "--record-size",
        type=int,
        default=32,
        metavar="BYTES",
        help="record size for --format raw (default 32)",
    )


def _tree_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheme",
        "-s",
        choices=("openzeppelin", "rfc9162"),
        help="tree construction (required unless --load gives it)",
    )
    parser.add_argument(
        "--algorithm",
        "-a",
        default=None,
        help="rfc9162: any batchkeccak algorithm (default sha3_256); openzeppelin: keccak_256 only",
    )
    parser.add_argument(
        "--length", type=int, default=None, help="rfc9162 with shake_*/turboshake*: output bytes"
    )
    parser.add_argument(
        "--types",
        default=None,
        metavar="T1,T2",
        help="openzeppelin standard tree: ABI types of the columns, e.g. address,uint256",
    )
    parser.add_argument(
        "--keep-order",
        action="store_true",
        help="openzeppelin: do not sort the leaves (sortLeaves: false)",
    )
    parser.add_argument(
        "--threads", type=int, default=None, help="hashing threads (default: every core)"
    )


# ----------------------------------------------------------------------------------------
# Reading leaves


def _format_of(args) -> str:
    if args.format != "auto":
        return args.format
    suffix = Path(args.input).suffix.lower()
    return {".parquet": "parquet", ".pq": "parquet", ".csv": "csv"}.get(suffix, "hex")


def _read_leaves(args, types: list[str] | None) -> object:
    """The leaves (or rows, with ``types``) of ``args.input`` in the form build() takes."""
    from batchkeccak.cli import CommandError

    fmt = _format_of(args)
    path = Path(args.input)
    if not path.exists():
        raise CommandError(f"INPUT {path} does not exist")
    if types is not None and fmt not in ("csv", "parquet"):
        raise CommandError("--types (a standard tree) needs rows: use --format csv or parquet")
    if fmt == "parquet":
        return _read_parquet(path, args.columns, types)
    if fmt == "csv":
        return _read_csv(path, args.columns, types)
    if args.columns:
        raise CommandError(f"--column applies to csv and parquet input, not {fmt}")
    if fmt == "raw":
        return _read_raw(path, args.record_size)
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # a final newline ends the last line; it does not start an empty one
    if fmt == "lines":
        return lines
    values = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        if text[:2] in (b"0x", b"0X"):
            text = text[2:]
        try:
            values.append(bytes.fromhex(text.decode("ascii")))
        except (ValueError, UnicodeDecodeError):
            raise CommandError(f"{path}:{number}: not a hex value: {line[:80]!r}") from None
    return values


def _read_raw(path: Path, record_size: int) -> object:
    import numpy as np

    from batchkeccak.cli import CommandError

    if record_size < 1:
        raise CommandError(f"--record-size must be >= 1, got {record_size}")
    size = path.stat().st_size
    if size % record_size:
        raise CommandError(
            f"{path} holds {size} bytes, not a whole number of {record_size}-byte records"
        )
    return np.fromfile(path, dtype=np.uint8).reshape(size // record_size, record_size)


def _read_parquet(path: Path, columns: list[str], types: list[str] | None) -> object:
    import pyarrow.parquet as pq

    from batchkeccak.cli import CommandError

    wanted = len(types) if types is not None else 1
    if len(columns) != wanted:
        raise CommandError(
            f"parquet input needs {'one --column per type' if types else 'one --column'}"
            f" ({wanted}), got {len(columns)}"
        )
    try:
        table = pq.read_table(path, columns=columns)
    except (OSError, KeyError, ValueError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from None
    table = table.select(columns)
    return table if types is not None else table.column(0)


def _read_csv(path: Path, columns: list[str], types: list[str] | None) -> object:
    import csv

    from batchkeccak.cli import CommandError

    if types is None:
        raise CommandError("csv input holds rows of values: give their --types")
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise CommandError(f"{path} is empty")
        names = columns or header
        missing = [c for c in names if c not in header]
        if missing:
            raise CommandError(f"{path} has no column {missing[0]!r}; columns: {', '.join(header)}")
        if len(names) != len(types):
            raise CommandError(f"{len(names)} columns but {len(types)} --types")
        picks = [header.index(c) for c in names]
        return [[row[k] for k in picks] for row in reader if row]


def _parse_types(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _tree_from_args(args):
    from batchkeccak import merkle
    from batchkeccak.cli import CommandError

    if getattr(args, "load", None):
        if args.input:
            raise CommandError("give INPUT or --load, not both")
        try:
            tree = merkle.MerkleTree.load(Path(args.load), threads=args.threads)
        except OSError as exc:
            raise CommandError(f"cannot read {args.load}: {exc.strerror or exc}") from None
        if args.scheme and args.scheme != tree.scheme:
            raise CommandError(f"--scheme {args.scheme} but the dump holds a {tree.scheme} tree")
        return tree, None
    if not args.input:
        raise CommandError("give INPUT (a file of leaves) or --load DUMP")
    if args.scheme is None:
        raise CommandError("--scheme is required: openzeppelin or rfc9162")
    types = _parse_types(args.types)
    leaves = _read_leaves(args, types)
    options = {}
    if args.scheme == "openzeppelin":
        options["sort_leaves"] = not args.keep_order
        options["types"] = types
    elif args.keep_order or types:
        raise CommandError("--keep-order and --types apply to the openzeppelin scheme only")
    tree = merkle.MerkleTree.build(
        leaves,
        scheme=args.scheme,
        algorithm=args.algorithm,
        length=args.length,
        threads=args.threads,
        **options,
    )
    return tree, leaves


def _user_errors(func):
    """Bad input from the command line becomes a CommandError (exit status 2)."""

    def wrapper(args) -> int:
        from batchkeccak.cli import CommandError

        try:
            return func(args)
        except (ValueError, TypeError, KeyError) as exc:
            raise CommandError(str(exc).strip("'\"")) from None

    return wrapper


# ----------------------------------------------------------------------------------------
# root


@_user_errors
def run_root(args) -> int:
    tree, _ = _tree_from_args(args)
    if args.dump:
        write_atomic(args.dump, tree.dumps() + "\n")
    print("0x" + tree.root.hex())
    return 0


# ----------------------------------------------------------------------------------------
# proof


def _hex(data: bytes) -> str:
    return "0x" + bytes(data).hex()


def _value_json(tree, leaves, index: int) -> dict:
    """What the verifier needs besides the proof: the leaf, in the scheme's terms."""
    if tree.scheme == "openzeppelin":
        if tree.types is None:
            return {"leaf": _hex(tree.value(index))}
        from batchkeccak.merkle.abi import json_value, parse_type

        row = tree.value(index)
        return {
            "types": list(tree.types),
            "value": [json_value(parse_type(t), v) for t, v in zip(tree.types, row)],
        }
    entry = {"leafHash": _hex(tree.leaf_hash(index))}
    if leaves is not None:
        entry["value"] = _hex(_rfc_value(leaves, index))
    return entry


def _rfc_value(leaves, index: int) -> bytes:
    import numpy as np

    if isinstance(leaves, np.ndarray):
        return leaves[index].tobytes()
    if hasattr(leaves, "to_pylist"):
        value = leaves[index].as_py()
        return value.encode("utf-8") if isinstance(value, str) else value
    return bytes(leaves[index])


def _inclusion_json(tree, leaves, index: int) -> dict:
    entry = {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "root": _hex(tree.root),
        "index": index,
    }
    if tree.scheme == "rfc9162":
        entry["digestSize"] = tree.digest_size
        entry["size"] = tree.size
    entry.update(_value_json(tree, leaves, index))
    entry["proof"] = [_hex(p) for p in tree.proof(index)]
    return entry


@_user_errors
def run_proof(args) -> int:
    from batchkeccak.cli import CommandError

    chosen = sum([bool(args.indices), args.all, args.consistency is not None])
    if chosen != 1:
        raise CommandError("choose one of --index, --all or --consistency")
    if args.multi and not args.indices:
        raise CommandError("--multi needs the leaves to prove, as --index")
    tree, leaves = _tree_from_args(args)
    if args.consistency is not None:
        if tree.scheme != "rfc9162":
            raise CommandError("--consistency applies to rfc9162 trees")
        result = {
            "scheme": tree.scheme,
            "algorithm": tree.algorithm,
            "digestSize": tree.digest_size,
            "oldSize": args.consistency,
            "newSize": tree.size,
            "oldRoot": _hex(tree.root_at(args.consistency)),
            "newRoot": _hex(tree.root),
            "proof": [_hex(p) for p in tree.consistency_proof(args.consistency)],
        }
        return _emit(args, json.dumps(result, indent=1) + "\n")
    if args.all:
        return _emit(args, _all_inclusion_lines(tree, leaves))
    if args.multi:
        if tree.scheme != "openzeppelin":
            raise CommandError("--multi applies to openzeppelin trees")
        multiproof = tree.multiproof(args.indices)
        result = {"scheme": tree.scheme, "algorithm": tree.algorithm, "root": _hex(tree.root)}
        if tree.types is not None:
            result["types"] = list(tree.types)
        result["multiproof"] = multiproof.to_json()
        return _emit(args, json.dumps(result, indent=1) + "\n")
    proofs = [_inclusion_json(tree, leaves, i) for i in args.indices]
    result = proofs[0] if len(proofs) == 1 else {"proofs": proofs}
    return _emit(args, json.dumps(result, indent=1) + "\n")


_BLOCK = 1 << 14
"""Proofs assembled per step of --all: the sibling nodes of a block of leaves are gathered and
hex-encoded level by level with numpy, and the block's lines are written before the next."""


def _all_inclusion_lines(tree, leaves) -> Iterator[str]:
    """One JSON line per leaf, in input order, without holding every proof in memory."""
    import numpy as np

    from batchkeccak.merkle._bytes import hex_list

    head = {"scheme": tree.scheme, "algorithm": tree.algorithm, "root": _hex(tree.root)}
    if tree.scheme == "rfc9162":
        head.update(digestSize=tree.digest_size, size=tree.size)
    values = tree._json_values() if tree.scheme == "openzeppelin" else None
    for start in range(0, tree.size, _BLOCK):
        indices = np.arange(start, min(tree.size, start + _BLOCK))
        steps = [(has, hex_list(nodes)) for has, nodes in tree._sibling_levels(indices)]
        if tree.scheme == "rfc9162":
            leaf_hashes = hex_list(tree.levels[0][indices])
        lines = []
        for k, index in enumerate(indices.tolist()):
            entry = dict(head, index=index)
            if tree.scheme == "openzeppelin":
                if tree.types is None:
                    entry["leaf"] = values[index]
                else:
                    entry.update(types=list(tree.types), value=values[index])
            else:
                entry["leafHash"] = leaf_hashes[k]
                if leaves is not None:
                    entry["value"] = _hex(_rfc_value(leaves, index))
            entry["proof"] = [nodes[k] for has, nodes in steps if has[k]]
            lines.append(json.dumps(entry) + "\n")
        yield "".join(lines)


def _emit(args, chunks: str | Iterable[str]) -> int:
    if isinstance(chunks, str):
        chunks = [chunks]
    if args.output:
        write_atomic(args.output, chunks)
    else:
        for chunk in chunks:
            sys.stdout.write(chunk)
    return 0


def write_atomic(path: str | os.PathLike, chunks: str | Iterable[str]) -> None:
    """Write ``chunks`` to ``path`` so that readers see the old file or the whole new one."""
    if isinstance(chunks, str):
        chunks = [chunks]
    target = Path(path)
    # Beside the target, so that os.replace is a rename within one filesystem.
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as handle:
            handle.writelines(chunks)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# ----------------------------------------------------------------------------------------
# verify


def _verify_entry(entry: dict, root: str | None) -> tuple[bool, str]:
    """Check one proof object; returns (valid, description)."""
    from batchkeccak import merkle
    from batchkeccak.merkle import rfc9162

    if not isinstance(entry, dict):
        raise TypeError("a proof must be a JSON object")
    scheme = entry.get("scheme")
    if "oldSize" in entry:
        new_root = root or entry["newRoot"]
        ok = merkle.verify_consistency(
            entry["oldRoot"],
            new_root,
            entry["proof"],
            old_size=entry["oldSize"],
            new_size=entry["newSize"],
            algorithm=entry.get("algorithm"),
            length=_xof_length(entry),
        )
        return ok, f"consistency {entry['oldSize']} -> {entry['newSize']}"
    trusted = root or entry.get("root")
    if trusted is None:
        raise ValueError("the proof names no root; pass --root")
    if "multiproof" in entry:
        ok = merkle.verify_multiproof(entry["multiproof"], trusted, types=entry.get("types"))
        return ok, "multiproof"
    if scheme == "openzeppelin":
        if "types" in entry:
            ok = merkle.verify(
                entry["value"], entry["proof"], trusted, scheme=scheme, types=entry["types"]
            )
        else:
            ok = merkle.verify(entry["leaf"], entry["proof"], trusted, scheme=scheme)
        return ok, f"leaf {entry.get('index', '?')}"
    if scheme == "rfc9162":
        if "value" in entry:
            from batchkeccak.merkle._bytes import hex_to_bytes

            value = hex_to_bytes(entry["value"], "value")
            ok = merkle.verify(
                value,
                entry["proof"],
                trusted,
                scheme=scheme,
                index=entry["index"],
                size=entry["size"],
                algorithm=entry.get("algorithm"),
                length=_xof_length(entry),
            )
        else:
            ok = rfc9162.verify_leaf_hash(
                entry["leafHash"],
                entry["proof"],
                trusted,
                index=entry["index"],
                size=entry["size"],
                algorithm=entry.get("algorithm"),
                length=_xof_length(entry),
            )
        return ok, f"leaf {entry['index']}"
    raise ValueError(f"unknown scheme {scheme!r} in proof")


def _verify_openzeppelin_batches(entries: list, root: str | None, failed: list) -> list:
    """Check OpenZeppelin inclusion proofs in batches (one hash call per proof step for all
    proofs with the same root and types); returns the entries left for one-by-one checks."""
    from batchkeccak.merkle import openzeppelin

    groups: dict = {}
    rest = []
    for entry in entries:
        if (
            isinstance(entry, dict)
            and entry.get("scheme") == "openzeppelin"
            and "proof" in entry
            and "multiproof" not in entry
        ):
            trusted = root or entry.get("root")
            types = tuple(entry["types"]) if "types" in entry else None
            groups.setdefault((trusted, types), []).append(entry)
        else:
            rest.append(entry)
    for (trusted, types), group in groups.items():
        if trusted is None:
            raise ValueError("the proof names no root; pass --root")
        leaves = [e["value"] for e in group] if types else [e["leaf"] for e in group]
        proofs = [e["proof"] for e in group]
        valid = openzeppelin.verify_many(leaves, proofs, trusted, types=types)
        failed.extend(f"leaf {e.get('index', '?')}" for e, ok in zip(group, valid) if not ok)
    return rest


def _xof_length(entry: dict) -> int | None:
    from batchkeccak.algorithms import get_algorithm

    spec = get_algorithm(entry.get("algorithm") or "sha3_256")
    return entry["digestSize"] if spec.xof else None


@_user_errors
def run_verify(args) -> int:
    from batchkeccak.cli import CommandError

    try:
        text = sys.stdin.read() if args.proof_file == "-" else Path(args.proof_file).read_text()
    except OSError as exc:
        raise CommandError(f"cannot read {args.proof_file}: {exc.strerror or exc}") from None
    try:
        document = json.loads(text)
        entries = (
            document["proofs"]
            if isinstance(document, dict) and "proofs" in document
            else [document]
        )
    except ValueError:
        try:  # JSON Lines, as 'proof --all' writes
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as exc:
            raise CommandError(f"{args.proof_file} is neither JSON nor JSON Lines: {exc}") from None
    if not entries:
        raise CommandError(f"{args.proof_file} holds no proofs")
    failed: list[str] = []
    try:
        for entry in _verify_openzeppelin_batches(entries, args.root, failed):
            ok, what = _verify_entry(entry, args.root)
            if not ok:
                failed.append(what)
    except KeyError as exc:
        raise CommandError(f"proof lacks {exc}") from None
    if args.root is None:
        print(
            "note: checked against the root written in the proof; pass --root to check "
            "against a root you trust",
            file=sys.stderr,
        )
    if failed:
        shown = ", ".join(failed[:10]) + (" ..." if len(failed) > 10 else "")
        print(f"invalid: {len(failed)} of {len(entries)} proofs fail ({shown})")
        return 1
    print("valid" if len(entries) == 1 else f"valid: all {len(entries)} proofs")
    return 0
