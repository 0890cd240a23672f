"""``batchkeccak diff A B --key COLUMN``: the rows added, removed and changed between two tables.

Exit status as ``diff`` and ``cmp``: 0 when the tables agree, 1 when they differ, 2 on
trouble (a missing file, a duplicate or null key, columns that do not compare).
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

from batchkeccak.cli.options import add_output_option
from batchkeccak.cli.table_options import add_table_command, table_keywords

CHANGE_MARKS = {"added": "+", "removed": "-", "changed": "~"}


TROUBLE_STATUS = 2
"""Exit status on trouble: as GNU ``diff`` and ``cmp``, whose 1 means that the tables differ."""


def command_line_words(args) -> dict[str, str]:
    """The library names the two tables ``a`` and ``b``; the command line names them by the
    paths it was given (for the one error map, :mod:`batchkeccak.cli.words`)."""
    return {"a": str(args.a), "b": str(args.b)}


def register(subparsers) -> None:
    parser = add_table_command(
        subparsers,
        "diff",
        key_required=True,
        usage_status=2,  # as GNU diff and cmp: 1 means "the tables differ"
        default_algorithm=None,
        algorithm_help="the row digests compared, which never leave the command: "
        "turboshake128 with 32 bytes (default), or any table algorithm (sha3_256, ...)",
        help="the keys added, removed and changed between two tables",
        description="Compare tables A and B (Parquet files or datasets, Arrow IPC files) row "
        "by row on --key, in memory bounded by --memory-limit. Prints one line per "
        "difference in key order: '+' (only in B), '-' (only in A) or '~' (changed), the key "
        "value(s) and, for changed rows, the columns that differ, tab-separated; or writes "
        "them to a Parquet file (-o). Exit status 0 if the tables agree, 1 if they differ, "
        "2 on trouble.",
    )
    parser.add_argument("a", metavar="A", help="the table before")
    parser.add_argument("b", metavar="B", help="the table after")
    add_output_option(
        parser, help="write the differences to FILE as Parquet (atomically) and print a summary"
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="report only whether the tables differ",
    )
    parser.add_argument(
        "--no-changed-columns",
        dest="changed_columns",
        action="store_false",
        help="do not name the columns that changed (saves reading the changed rows again)",
    )
    parser.add_argument(
        "--widen",
        action="store_true",
        help="compare integer columns of different widths by value (int32 against int64; "
        "signed with signed, unsigned with unsigned)",
    )
    parser.set_defaults(run=run)


def _render(value: object) -> str:
    """A key value on one line: numbers as they are, strings as JSON strings, bytes as hex."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bytes):
        return "0x" + value.hex()
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    return str(value)


def _summary(table) -> str:
    metadata = table.schema.metadata or {}
    counts = {kind: 0 for kind in CHANGE_MARKS}
    for kind in table["change"].to_pylist():
        counts[kind] += 1
    rows_a = int(metadata.get(b"batchkeccak.rows_a", 0))
    rows_b = int(metadata.get(b"batchkeccak.rows_b", 0))
    return (
        f"{counts['added']:,} added, {counts['removed']:,} removed, {counts['changed']:,} "
        f"changed ({rows_a:,} rows in A, {rows_b:,} in B)"
    )


def run(args) -> int:
    from batchkeccak.cli import CommandError
    from batchkeccak.tables import diff

    output = None
    if args.output is not None:
        from batchkeccak.support.output import output_path_problem

        problem = output_path_problem(args.output, inputs=(args.a, args.b))
        if problem is not None:
            raise CommandError(f"--output: {problem}")
        output = Path(args.output)
    # Errors go to batchkeccak.cli's one map: bad input and write errors exit 2, never 1.
    keywords = table_keywords(args)
    changes = diff(
        args.a,
        args.b,
        key=args.key,
        widen=args.widen,
        changed_columns=args.changed_columns and not args.quiet,
        **keywords,
    )
    differ = changes.num_rows > 0
    if output is not None:
        import pyarrow.parquet as pq

        from batchkeccak.support.output import arrow_sink, open_output

        # An opened file object, never the path: pyarrow removes a path it fails to write
        # (a FIFO, /dev/stdout).
        with open_output(output) as sink:
            pq.write_table(changes, arrow_sink(sink))
    if args.quiet:
        if differ:
            print(f"Tables {args.a} and {args.b} differ")
    elif output is not None:
        from batchkeccak.support.output import summary_stream

        # Onto stderr when the Parquet data went to a stream (-o /dev/stdout, a FIFO).
        print(_summary(changes), file=summary_stream(output))
    else:
        _print_changes(changes, len(args.key))
    return 1 if differ else 0


def _print_changes(changes, key_count: int) -> None:
    keys = [changes.column(k) for k in range(key_count)]
    write = sys.stdout.write
    for start in range(0, changes.num_rows, 65536):
        stop = min(start + 65536, changes.num_rows)
        key_values = [column.slice(start, stop - start).to_pylist() for column in keys]
        kinds = changes["change"].slice(start, stop - start).to_pylist()
        columns = changes["changed_columns"].slice(start, stop - start).to_pylist()
        lines = []
        for row, kind in enumerate(kinds):
            fields = [CHANGE_MARKS[kind], *(_render(values[row]) for values in key_values)]
            if columns[row]:
                fields.append(",".join(columns[row]))
            lines.append("\t".join(fields) + "\n")
        write("".join(lines))
    sys.stdout.flush()
