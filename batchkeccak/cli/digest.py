"""``batchkeccak digest DATASET...``: one digest per table, whatever its row order and layout."""

from __future__ import annotations

import json

from batchkeccak.cli.table_options import add_table_command, table_keywords

TROUBLE_STATUS = 2
"""Exit status on trouble: bad input (a missing file, a bad column, a file that is not Parquet) or a write error."""


def register(subparsers) -> None:
    parser = add_table_command(
        subparsers,
        "digest",
        key_required=False,
        help="one digest of a table (Parquet file or dataset, Arrow IPC file)",
        description="Print one digest per DATASET: the same for two tables exactly when they "
        "hold the same rows, whatever their row order, row groups, file splits or column "
        "order. With --key the rows are ordered by key (unique, never null) and the digest "
        "covers a Merkle tree over them; without, the rows are compared as a multiset. "
        "Exit status 0, or 2 on trouble.",
    )
    parser.add_argument(
        "datasets",
        metavar="DATASET",
        nargs="+",
        help="Parquet file, directory of Parquet files, or Arrow IPC file (.arrow, .feather)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per dataset: digest, root, rows, key, columns, algorithm",
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from batchkeccak.tables import table_digest

    # Errors go to batchkeccak.cli's one map: bad input and write errors exit 2.
    keywords = table_keywords(args)
    for dataset in args.datasets:
        result = table_digest(dataset, key=args.key, **keywords)
        if args.json:
            print(
                json.dumps(
                    {
                        "dataset": dataset,
                        "digest": result.hexdigest(),
                        "root": result.root.hex(),
                        "rows": result.rows,
                        "key": result.key,
                        "columns": result.columns,
                        "algorithm": result.algorithm,
                    }
                ),
                flush=True,
            )
        else:
            print(f"{result.hexdigest()}  {dataset}", flush=True)
    return 0
