"""``batchkeccak digest DATASET...``: one digest per table, whatever its row order and layout."""

from __future__ import annotations

import json

from batchkeccak.cli.table_options import add_table_command, table_keywords


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
    from batchkeccak.cli import CommandError
    from batchkeccak.tables import table_digest

    for dataset in args.datasets:
        try:
            result = table_digest(dataset, key=args.key, **table_keywords(args))
        except (OSError, ValueError, TypeError, RuntimeError) as exc:
            raise CommandError(str(exc)) from None
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
