"""The Merkle schemes' one registry: each tree class is its scheme's object."""

from __future__ import annotations

import pytest

from batchkeccak import merkle
from batchkeccak.merkle import base


def test_the_scheme_registry_is_what_schemes_and_dump_formats_name():
    # Each tree class carries its root-only function, its proof check and the proofs it
    # defines; the public tuples name exactly what the registry holds.
    registry = base._TREE_CLASSES
    assert tuple(registry) == merkle.SCHEMES
    assert tuple(f for cls in registry.values() for f in cls.dump_formats) == merkle.DUMP_FORMATS
    assert [name for name, cls in registry.items() if cls.multiproofs] == ["openzeppelin"]
    assert [name for name, cls in registry.items() if cls.consistency_proofs] == ["rfc9162"]
    for cls in registry.values():
        assert cls.root_only is not base.MerkleTree.root_only
        assert cls.verify_proof is not base.MerkleTree.verify_proof


def test_each_scheme_refuses_the_other_schemes_arguments_by_name():
    leaf = bytes(32)
    with pytest.raises(TypeError, match="index, size and length apply to the rfc9162"):
        merkle.verify(leaf, [], leaf, scheme="openzeppelin", index=0)
    with pytest.raises(TypeError, match="types applies to the openzeppelin scheme only"):
        merkle.verify(leaf, [], leaf, scheme="rfc9162", types=["uint256"], index=0, size=1)
    with pytest.raises(TypeError, match="needs index= and size="):
        merkle.verify(leaf, [], leaf, scheme="rfc9162")
    with pytest.raises(ValueError, match="multiproofs are defined by the openzeppelin"):
        merkle.verify_multiproof({}, leaf, scheme="rfc9162")
    with pytest.raises(ValueError, match="consistency proofs are defined by the rfc9162"):
        merkle.verify_consistency(leaf, leaf, [], old_size=1, new_size=1, scheme="openzeppelin")


@pytest.mark.parametrize("scheme", ["openzeppelin", "rfc9162"])
def test_merkle_root_refuses_an_unknown_keyword_by_its_own_name(scheme):
    # merkle_root passes MerkleTree.build's options on to the scheme: a keyword that is none
    # of them is refused where it was given, not by a helper of the scheme.
    with pytest.raises(
        TypeError, match=r"^merkle_root\(\) got an unexpected keyword argument 'bogus'$"
    ):
        merkle.merkle_root([bytes(32)], scheme=scheme, bogus=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'"):
        merkle.MerkleTree.build([bytes(32)], scheme=scheme, bogus=1)  # type: ignore[call-arg]
