"""Ethereum at batch speed: Merkle Patricia trie roots and proofs for many tries at once, and
the Keccak-256 columns of Ethereum data (checksummed addresses, CREATE and CREATE2 addresses,
selectors, event topics, storage slots of mappings).

Every function takes its byte columns in any form :func:`batchkeccak.hash_many` takes (a
sequence of bytes-like objects, a 2-D uint8 array, ``FlatMessages``, a pyarrow binary column)
and hashes them in batches; see ``docs/ethereum.md``.
"""

from __future__ import annotations

from batchkeccak.ethereum.columns import (
    checksum_addresses,
    contract_addresses,
    create2_addresses,
    event_topics,
    mapping_slots,
    selectors,
)
from batchkeccak.ethereum.patricia import (
    EMPTY_ROOT,
    ordered_trie_root,
    ordered_trie_roots,
    trie_proofs,
    trie_root,
    trie_roots,
    verify_trie_proofs,
)

__all__ = [
    "EMPTY_ROOT",
    "checksum_addresses",
    "contract_addresses",
    "create2_addresses",
    "event_topics",
    "mapping_slots",
    "ordered_trie_root",
    "ordered_trie_roots",
    "selectors",
    "trie_proofs",
    "trie_root",
    "trie_roots",
    "verify_trie_proofs",
]
