// Loads trees dumped by batchkeccak with @openzeppelin/merkle-tree and checks them.
//
//   python tests/data/python_dumps.py | NODE_PATH=/tmp/oz/node_modules \
//       node tests/data/check_merkle_dumps.js
//
// For every tree: SimpleMerkleTree.load / StandardMerkleTree.load (which validate every
// node and every value), the same root, every proof and the multiproof verified by the
// library. Exits 1 on the first disagreement.
'use strict';

const { SimpleMerkleTree, StandardMerkleTree } = require('@openzeppelin/merkle-tree');

const input = require('fs').readFileSync(0, 'utf8');
const cases = JSON.parse(input);
let checked = 0;
for (const [k, c] of cases.entries()) {
  const standard = c.dump.format === 'standard-v1';
  const tree = standard ? StandardMerkleTree.load(c.dump) : SimpleMerkleTree.load(c.dump);
  const fail = what => { console.error(`case ${k} (${c.dump.format}): ${what}`); process.exit(1); };
  if (tree.root !== c.root) fail(`root ${tree.root} != ${c.root}`);
  for (const [i, proof] of c.proofs.entries()) {
    if (JSON.stringify(tree.getProof(i)) !== JSON.stringify(proof)) fail(`proof ${i} differs`);
    const value = tree.at(i);
    const ok = standard
      ? StandardMerkleTree.verify(c.root, c.dump.leafEncoding, value, proof)
      : SimpleMerkleTree.verify(c.root, value, proof);
    if (!ok) fail(`proof ${i} does not verify`);
  }
  const ok = standard
    ? StandardMerkleTree.verifyMultiProof(c.root, c.dump.leafEncoding, c.multiproof)
    : SimpleMerkleTree.verifyMultiProof(c.root, c.multiproof);
  if (!ok) fail('multiproof does not verify');
  checked++;
}
console.log(`all ${checked} batchkeccak dumps load, validate and verify in @openzeppelin/merkle-tree`);
