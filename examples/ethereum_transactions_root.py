"""Check the transactionsRoot of every block of a Parquet file of transactions in one call.

    python examples/ethereum_transactions_root.py

Writes ``transactions.parquet`` (one row per transaction: block number, index in the block,
raw encoding) into a scratch folder, reads it back, orders it by (block, index), hashes every
block's transactions trie with one ``ordered_trie_roots`` call and compares each root with
the block's header, computed here one block at a time with py-trie.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from batchkeccak.ethereum import EMPTY_ROOT, ordered_trie_roots


def header_roots(rows: list[tuple[int, int, bytes]]) -> dict[int, bytes]:
    import rlp
    from trie import HexaryTrie

    tries: dict[int, HexaryTrie] = {}
    for block, index, raw in rows:
        tries.setdefault(block, HexaryTrie({}))[rlp.encode(index)] = raw
    return {block: t.root_hash for block, t in tries.items()}


def main() -> None:
    rng = np.random.default_rng(7)
    rows = [
        (block, index, rng.bytes(int(rng.integers(100, 300))))
        for block in range(20_000_000, 20_000_030)
        for index in range(int(rng.integers(0, 150)))
    ]
    headers = header_roots(rows)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "transactions.parquet"
        pq.write_table(
            pa.table(
                {
                    "block_number": [r[0] for r in rows],
                    "tx_index": [r[1] for r in rows],
                    "raw": pa.array([r[2] for r in rows], pa.binary()),
                }
            ),
            path,
        )
        txs = pq.read_table(path).sort_by(
            [("block_number", "ascending"), ("tx_index", "ascending")]
        )
    block_ids, counts = np.unique(txs["block_number"].to_numpy(), return_counts=True)
    roots = ordered_trie_roots(txs["raw"], np.concatenate([[0], np.cumsum(counts)]))
    found = dict(zip(block_ids.tolist(), (r.tobytes() for r in roots)))
    blocks = range(20_000_000, 20_000_030)
    bad = [b for b in blocks if found.get(b, EMPTY_ROOT) != headers.get(b, EMPTY_ROOT)]
    print(f"{len(blocks)} blocks, {len(rows)} transactions: {len(bad)} roots differ")


if __name__ == "__main__":
    main()
