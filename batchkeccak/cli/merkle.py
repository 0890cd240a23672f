"""``batchkeccak merkle root|proof|verify``: Merkle roots and proofs of leaves in a file.

This module parses the command line, reads the leaves and prints; trees come from
``batchkeccak.merkle`` and the proof documents from ``batchkeccak.merkle.proofs``.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from batchkeccak.cli import CommandError, UsageError
from batchkeccak.cli.options import (
    add_algorithm_option,
    add_length_option,
    add_output_option,
    add_threads_option,
    check_algorithm_name,
)
from batchkeccak.support.hextext import hex_0x

FORMATS = ("auto", "hex", "lines", "raw", "csv", "parquet", "json")

_INPUT_HELP = """\
input formats (--format):
  hex      one hex value per line (0x optional, blank lines skipped; "0x" alone is empty)
  lines    every line of the file, without its newline, is one value (raw bytes)
  raw      fixed-size binary records of --record-size bytes (default 32)
  csv      a CSV file with a header row; --column picks columns (default: all), for
           --types (OpenZeppelin standard trees)
  parquet  --column C: a binary/string column (leaves or values), or with --types one
           column per type, in order
  json     OpenZeppelin's value files: a JSON array of rows (with --types, as
           StandardMerkleTree.of(values, types) takes) or of bytes32 hex strings
           (SimpleMerkleTree.of(values))
  auto     parquet for .parquet/.pq, csv for .csv, json for .json, hex otherwise (the
           default)
"""


TROUBLE_STATUS = 2
"""Exit status on trouble: bad input (a malformed value, proof or dump) or a write error."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "merkle",
        help="Merkle roots, proofs and verification (OpenZeppelin, RFC 9162)",
        description="Build a Merkle tree over the leaves in a file, print its root, write "
        "proofs, or verify proofs. Schemes: openzeppelin (@openzeppelin/merkle-tree, "
        "Keccak-256) and rfc9162 (Certificate Transparency, any algorithm).",
    )
    commands = parser.add_subparsers(dest="merkle_command", metavar="ACTION", required=True)

    root = _leaves_command(
        commands,
        "root",
        input_required=True,
        help="print the root of the tree over INPUT",
        description="Print the root (0x hex) of the tree over INPUT.",
    )
    _tree_arguments(root)
    root.add_argument(
        "--dump",
        metavar="FILE",
        help="also write the whole tree as JSON (the JS library's format for "
        "openzeppelin trees), atomically",
    )
    root.set_defaults(run=run_root)

    proof = _leaves_command(
        commands,
        "proof",
        input_required=False,
        help="write inclusion proofs (or a multiproof / consistency proof)",
        description="Print inclusion proofs as JSON for the leaves at --index (input order), "
        "equal to --value or of --address, or write one proof per leaf as JSON Lines with "
        "--all. The tree comes from INPUT or from a dump written by 'root --dump' (--load).",
    )
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
        "--value",
        "--leaf",
        dest="values",
        action="append",
        default=[],
        metavar="V",
        help="openzeppelin: the leaf equal to V, as tree.proof_for(V) finds it: a row of a "
        'standard tree as a JSON array or a CSV row (\'["0x11..", "5"]\' or 0x11..,5), '
        "a bytes32 hex leaf of a simple tree; repeat for several",
    )
    proof.add_argument(
        "--address",
        dest="addresses",
        action="append",
        default=[],
        metavar="0x...",
        help="openzeppelin standard tree with one address column (an airdrop): every row of "
        "that address (any case); repeat for several",
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
    add_output_option(proof, help="write to FILE atomically instead of standard output")
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


def _leaves_command(
    commands, name: str, *, input_required: bool, help: str, description: str
) -> argparse.ArgumentParser:
    """The parser of an action that reads leaves (root, proof): INPUT and the options that
    say how to read it, with the input formats explained below the options."""
    parser = commands.add_parser(
        name,
        help=help,
        description=description,
        epilog=_INPUT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_arguments(parser, required=input_required)
    return parser


def _input_arguments(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument(
        "input",
        metavar="INPUT",
        nargs=None if required else "?",
        help="file of leaves (see input formats below), or - for standard input",
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
    add_algorithm_option(
        parser,
        default=None,
        help="rfc9162: any batchkeccak algorithm (default sha3_256); openzeppelin: keccak_256 only",
    )
    add_length_option(parser, help="rfc9162 with shake_*/turboshake*: output bytes")
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
    add_threads_option(parser, "hashing threads (default: every core)")


# ----------------------------------------------------------------------------------------
# Reading leaves


def _format_of(args) -> str:
    if args.format != "auto":
        return args.format
    suffix = Path(args.input).suffix.lower() if args.input != "-" else ""
    formats = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json"}
    return formats.get(suffix, "hex")


def _standard_input():
    """Standard input as Python has it; CommandError when it is closed (``<&-``)."""
    if sys.stdin is None:
        raise CommandError(f"cannot read standard input: {os.strerror(errno.EBADF)}")
    return sys.stdin


def _input_bytes(name: str) -> bytes:
    """The whole of INPUT: a file, or standard input for ``-``."""
    if name == "-":
        return _standard_input().buffer.read()
    path = Path(name)
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    if path.is_dir():
        raise CommandError(f"{name}: {os.strerror(errno.EISDIR)}; give a file of leaves")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror or exc}") from None


def _read_leaves(args, types: list[str] | None) -> object:
    """The leaves (or rows, with ``types``) of ``args.input`` in the form build() takes."""
    fmt = _format_of(args)
    if types is not None and fmt not in ("csv", "parquet", "json"):
        raise CommandError(
            "--types (a standard tree) needs rows: use --format json, csv or parquet"
        )
    if fmt not in ("parquet", "csv") and args.columns:
        raise CommandError(f"--column applies to csv and parquet input, not {fmt}")
    if fmt == "raw" and args.record_size < 1:
        raise CommandError(f"--record-size must be >= 1, got {args.record_size}")
    if fmt == "csv" and types is None:
        raise CommandError("csv input holds rows of values: give their --types")
    if fmt == "parquet":
        return _read_parquet(args.input, args.columns, types)
    data = _input_bytes(args.input)
    if fmt == "csv":
        assert types is not None  # csv without --types was refused above
        return _read_csv(args.input, data, args.columns, types)
    if fmt == "json":
        try:
            return _read_json(args.input, data, types)
        except CommandError as exc:
            if types is None and str(exc).startswith(f"{args.input} is not JSON"):
                raise CommandError(f"{exc}{_lines_hint(args, data)}") from None
            raise
    if fmt == "raw":
        return _read_raw(args.input, data, args.record_size)
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
            raise CommandError(
                f"{args.input}:{number}: not a hex value: {line[:80]!r}{_lines_hint(args, data)}"
            ) from None
    return values


LINES_HINT = " (for one value per line, use --format lines)"


def _lines_hint(args, data: bytes) -> str:
    """:data:`LINES_HINT` where the format was assumed (``auto``) and ``data`` looks like
    lines of text (a log, a list of names), which ``--format lines`` takes as they are."""
    if args.format != "auto" or b"\0" in data[:65536]:
        return ""
    try:
        data[:65536].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < min(len(data), 65536) - 3:  # not a character cut at the sample's end
            return ""
    return LINES_HINT


def _read_raw(name: str, data: bytes, record_size: int) -> object:
    import numpy as np

    if len(data) % record_size:
        raise CommandError(
            f"{name} holds {len(data)} bytes, not a whole number of {record_size}-byte records"
        )
    return np.frombuffer(data, dtype=np.uint8).reshape(len(data) // record_size, record_size)


def _read_parquet(name: str, columns: list[str], types: list[str] | None) -> object:
    import pyarrow as pa
    import pyarrow.dataset as ds

    wanted = len(types) if types is not None else 1
    if len(columns) != wanted:
        raise CommandError(
            f"parquet input needs one --column per --types entry ({wanted}), got {len(columns)}"
            if types is not None
            else f"parquet input needs one --column, got {len(columns)}"
        )
    if name != "-" and not Path(name).exists():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    try:
        # The schema first, so that a missing column is named before anything is read.
        if name != "-" and Path(name).is_dir():
            source = ds.dataset(name, format="parquet")  # a folder of files: a dataset
            names = source.schema.names
            if not names:
                raise CommandError(f"{name} holds no Parquet data")
        else:
            import pyarrow.parquet as pq

            source = pq.ParquetFile(pa.BufferReader(_input_bytes(name)) if name == "-" else name)
            names = source.schema_arrow.names
        for column in columns:
            if column not in names:
                raise CommandError(f"{name} has no column {column!r}; columns: {', '.join(names)}")
        table = source.to_table(columns) if isinstance(source, ds.Dataset) else source.read(columns)
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read {name} as Parquet: {_first_line(exc)}") from None
    return table if types is not None else table.column(0)


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _read_csv(name: str, data: bytes, columns: list[str], types: list[str]) -> object:
    import csv

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name} is not UTF-8 text: {exc}") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        raise CommandError(f"{name} is empty")
    names = columns or header
    missing = [c for c in names if c not in header]
    if missing:
        raise CommandError(f"{name} has no column {missing[0]!r}; columns: {', '.join(header)}")
    if len(names) != len(types):
        raise CommandError(
            f"{name} has {len(names)} column{'' if len(names) == 1 else 's'} "
            f"({','.join(names)}) but --types gives {len(types)} ({','.join(types)})"
        )
    picks = [header.index(c) for c in names]
    rows = []
    start = reader.line_num + 1  # the file line where the next row starts
    for row in reader:
        if row:
            if len(row) != len(header):
                raise _arity_error(name, f"line {start}", len(header), len(row), ",".join(header))
            rows.append([row[k] for k in picks])
        start = reader.line_num + 1
    return rows


def _arity_error(name: str, where: str, expected: int, found: int, what: str) -> CommandError:
    """The one error for a row of a value file with too few or too many fields."""
    return CommandError(f"{name}: {where}: expected {expected} fields ({what}), found {found}")


def _read_json(name: str, data: bytes, types: list[str] | None) -> list:
    """OpenZeppelin's input: ``StandardMerkleTree.of(values, types)`` takes a JSON array of
    rows, ``SimpleMerkleTree.of(values)`` one of bytes32 hex strings."""
    import json

    try:
        values = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandError(f"{name} is not JSON: {_first_line(exc)}") from None
    except RecursionError:
        raise CommandError(f"{name}: {_NESTED}") from None
    if not isinstance(values, list):
        raise CommandError(
            f"{name}: expected a JSON array of values, got a JSON {type(values).__name__}"
        )
    if types is not None:
        for number, row in enumerate(values):
            if not isinstance(row, list):
                raise CommandError(
                    f"{name}: row {number} is {json.dumps(row)[:80]}; expected an array of "
                    f"{len(types)} values, one per --types entry"
                )
            if len(row) != len(types):
                raise _arity_error(name, f"row {number}", len(types), len(row), ",".join(types))
        return values
    for number, value in enumerate(values):
        if isinstance(value, list):
            raise CommandError(
                f"{name}: value {number} is an array (a row): give its --types for a standard tree"
            )
        if not isinstance(value, str):
            raise CommandError(
                f"{name}: value {number} is {json.dumps(value)[:80]}; a simple tree takes "
                "bytes32 hex strings"
            )
    return values


def _parse_types(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _tree_from_args(args):
    from batchkeccak import merkle
    from batchkeccak.derived.table import canonical_algorithm
    from batchkeccak.merkle import proofs

    if args.algorithm is not None:
        check_algorithm_name(args.algorithm)  # an unknown name: a did-you-mean, as in hash
    if getattr(args, "load", None):
        if args.input:
            raise UsageError("give INPUT or --load, not both")
        try:
            tree = proofs.load_dump(args.load, threads=args.threads)
        except OSError as exc:
            raise CommandError(f"cannot read {args.load}: {exc.strerror or exc}") from None
        if args.scheme and args.scheme != tree.scheme:
            raise CommandError(f"--scheme {args.scheme} but the dump holds a {tree.scheme} tree")
        if args.algorithm is not None and canonical_algorithm(args.algorithm) != tree.algorithm:
            raise CommandError(
                f"--algorithm {args.algorithm} but the dump's tree is of {tree.algorithm}"
            )
        return tree, None
    if not args.input:
        raise UsageError("give INPUT (a file of leaves) or --load DUMP")
    if args.scheme is None:
        raise UsageError("--scheme is required: openzeppelin or rfc9162")
    types = _parse_types(args.types)
    options = {}
    if args.scheme == "openzeppelin":
        options["sort_leaves"] = not args.keep_order
        options["types"] = types
    elif args.keep_order or types:
        raise UsageError("--keep-order and --types apply to the openzeppelin scheme only")
    leaves = _read_leaves(args, types)
    tree = merkle.MerkleTree.build(
        leaves,
        scheme=args.scheme,
        algorithm=args.algorithm,
        length=args.length,
        threads=args.threads,
        **options,
    )
    return tree, leaves


def _check_output(name: str | None, option: str, source: object = None) -> None:
    """Refuse an output path that cannot be written before any work is done, in the words
    of the one check every command makes (``support.output``), after the option's name;
    ``source`` the input file, which the output must not replace."""
    if name is None:
        return
    from batchkeccak.support.output import output_path_problem

    problem = output_path_problem(name, inputs=(source,))
    if problem is not None:
        raise CommandError(f"{option}: {problem}")


_NESTED = "arrays or objects nested too deeply to read (a few thousand levels or more)"


# ----------------------------------------------------------------------------------------
# root


def run_root(args) -> int:
    from batchkeccak.merkle import proofs

    _check_output(args.dump, "--dump", args.input)
    tree, _ = _tree_from_args(args)
    if args.dump:
        proofs.write_dump(tree, args.dump)
    print(hex_0x(tree.root))
    return 0


# ----------------------------------------------------------------------------------------
# proof


def run_proof(args) -> int:
    from batchkeccak.merkle import proofs

    by_leaf = bool(args.indices or args.values or args.addresses)
    chosen = sum([by_leaf, args.all, args.consistency is not None])
    if chosen != 1:
        raise UsageError("choose the leaves (--index, --value, --address), --all or --consistency")
    if args.multi and not by_leaf:
        raise UsageError("--multi needs the leaves to prove: --index, --value or --address")
    _check_output(args.output, "--output", getattr(args, "input", None))
    tree, leaves = _tree_from_args(args)
    if args.values or args.addresses:
        args.indices = args.indices + _indices_of_values(tree, args.values, args.addresses)
    if args.consistency is not None:
        if tree.scheme != "rfc9162":
            raise CommandError("--consistency applies to rfc9162 trees")
        document = proofs.consistency_proof_json(tree, args.consistency)
    elif args.all:
        return _emit(args, proofs.inclusion_proof_lines(tree, leaves))
    elif args.multi:
        if tree.scheme != "openzeppelin":
            raise CommandError("--multi applies to openzeppelin trees")
        document = proofs.multiproof_json(tree, args.indices)
    else:
        entries = [proofs.inclusion_proof_json(tree, i, leaves) for i in args.indices]
        document = entries[0] if len(entries) == 1 else {"proofs": entries}
    return _emit(args, json.dumps(document, indent=1) + "\n")


def _indices_of_values(tree, values: list[str], addresses: list[str]) -> list[int]:
    """The input indices of the leaves ``--value`` and ``--address`` name, in that order."""
    from batchkeccak.merkle.openzeppelin import OpenZeppelinTree

    if not isinstance(tree, OpenZeppelinTree):
        raise CommandError(
            f"--value and --address find the leaves of openzeppelin trees; this tree is "
            f"{tree.scheme}: give --index"
        )
    types = list(tree.types) if tree.types is not None else None
    found = [tree.index_of(_parse_value(text, types)) for text in values]
    if addresses:
        found += _indices_of_addresses(tree, types, addresses)
    return found


def _parse_value(text: str, types: list[str] | None) -> object:
    """A leaf as ``--value`` gives it: a JSON array or CSV row (blanks around a field are
    dropped) of a standard tree's row, a hex string (JSON or bare) for a simple tree's leaf."""
    stripped = text.strip()
    if types is None:
        if stripped.startswith('"'):
            try:
                return json.loads(stripped)
            except ValueError:
                raise CommandError(f"--value {text!r} is not a JSON string") from None
        return stripped
    if stripped.startswith("["):
        try:
            row = json.loads(stripped)
        except (ValueError, RecursionError):
            raise CommandError(f"--value {text!r} is not a JSON array") from None
    else:
        import csv

        row = [field.strip() for field in next(csv.reader([text]), [])]
    if not isinstance(row, list) or len(row) != len(types):
        raise CommandError(
            f"--value {text!r} has {len(row) if isinstance(row, list) else 'no'} fields; "
            f"the tree's rows have {len(types)} ({', '.join(types)})"
        )
    return row


_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")


def _indices_of_addresses(tree, types: list[str] | None, addresses: list[str]) -> list[int]:
    """Every row whose one ``address`` column holds one of ``addresses``, in address order
    and row order; the EIP-55 checksum is not checked (as the trees do not check it). A row
    given several times counts once, at its last copy, as ``--value`` finds it."""
    columns = [k for k, t in enumerate(types or ()) if t == "address"]
    if len(columns) != 1:
        raise CommandError(
            "--address finds the rows of a standard tree with one address column; this tree's "
            f"types are {', '.join(types) if types else 'none (a simple tree)'}: give --value"
        )
    column = columns[0]
    held: dict[str, list[int]] = {}
    leaves = [bytes(leaf) for leaf in tree.nodes[tree.tree_index]]
    last = {leaf: index for index, leaf in enumerate(leaves)}
    for index, row in enumerate(tree.json_values()):
        if last[leaves[index]] != index:
            continue  # an earlier copy of a repeated row
        value = row[column]
        key = value.lower() if isinstance(value, str) else hex_0x(value)
        held.setdefault(key, []).append(index)
    found = []
    for address in addresses:
        if not _ADDRESS.fullmatch(address.strip()):
            raise CommandError(f"--address {address!r} is not 0x and 40 hex digits")
        rows = held.get(address.strip().lower())
        if not rows:
            raise CommandError(f"no leaf of this tree has address {address.strip()}")
        found += rows
    return found


def _emit(args, chunks: str | Iterable[str]) -> int:
    from batchkeccak.merkle import proofs

    if isinstance(chunks, str):
        chunks = [chunks]
    if args.output:
        proofs.write_text_atomic(args.output, chunks)
    else:
        for chunk in chunks:
            sys.stdout.write(chunk)
    return 0


# ----------------------------------------------------------------------------------------
# verify


def run_verify(args) -> int:
    from batchkeccak.merkle import proofs

    # The proofs are read and checked proofs.VERIFY_BATCH at a time, so memory stays bounded
    # however many the file holds (docs/merkle.md gives the bound).
    try:
        with (
            contextlib.nullcontext(_standard_input())
            if args.proof_file == "-"
            else open(args.proof_file, encoding="utf-8")
        ) as stream:
            result = proofs.verify_proof_stream(proofs.iter_proofs(stream), args.root, keep=10)
    except OSError as exc:
        raise CommandError(f"cannot read {args.proof_file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CommandError(f"{args.proof_file} is not UTF-8 text") from None
    except proofs.ProofTextError as exc:
        raise CommandError(f"{args.proof_file}: {exc}") from None
    except (ValueError, TypeError, OverflowError) as exc:
        error = _verify_error(args, exc)
        if error is None:
            raise  # a bug, not bad input: reported as one
        raise error from None
    if args.root is None:
        print(
            "note: checked against the root written in the proof; pass --root to check "
            "against a root you trust",
            file=sys.stderr,
        )
    if result.failures:
        shown = ", ".join(result.failed) + (" ..." if result.failures > 10 else "")
        print(f"invalid: {result.failures} of {result.total} proofs fail ({shown})")
        return 1
    print("valid" if result.total == 1 else f"valid: all {result.total} proofs")
    return 0


def _verify_error(args, exc: Exception) -> CommandError | None:
    """A malformed proof as one line naming the proof file, or ``--root`` where the root
    given there is what is wrong; None where ``exc`` is a bug, not bad input."""
    from batchkeccak.cli import is_user_error, user_message

    if not is_user_error(exc):
        return None
    message = user_message(exc, ["merkle"])
    if args.root is not None:
        for word in ("root ", "new_root "):
            if message.startswith(word):
                return CommandError(f"--root {message[len(word) :]}")
    return CommandError(f"{args.proof_file}: {message}")
