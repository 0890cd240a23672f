// Writes merkle_openzeppelin.json: trees, proofs, multiproofs and dumps made by the
// @openzeppelin/merkle-tree JavaScript library, for tests/test_merkle_openzeppelin.py.
//
// How the committed fixture was made (node 20):
//   mkdir /tmp/oz && cd /tmp/oz && npm install @openzeppelin/merkle-tree@1.0.8
//   NODE_PATH=/tmp/oz/node_modules node tests/data/make_merkle_fixtures.js
// The tests read only the JSON; running them needs no node.
'use strict';

const fs = require('fs');
const path = require('path');
const { SimpleMerkleTree, StandardMerkleTree } = require('@openzeppelin/merkle-tree');
const { keccak256 } = require('ethereum-cryptography/keccak');
const { bytesToHex, utf8ToBytes } = require('ethereum-cryptography/utils');

const hex = bytes => '0x' + bytesToHex(bytes);
const h = text => hex(keccak256(utf8ToBytes(text)));

// Deterministic pseudo-random index subsets (xorshift32), so the fixture is reproducible.
let seed = 2463534242;
function random() {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
}
function subsets(n) {
  const sets = [[], [0], [n - 1], [...Array(n).keys()]];
  if (n > 1) sets.push([0, 1], [n - 1, 0]);
  for (let k = 0; k < 4 && n > 2; k++) {
    const picked = [...Array(n).keys()].filter(() => random() < 0.4);
    if (picked.length) sets.push(picked.sort(() => random() - 0.5));
  }
  return sets;
}

function describe(tree, n, extra) {
  const proofs = [];
  for (let i = 0; i < n; i++) proofs.push(tree.getProof(i));
  const multiproofs = subsets(n).map(indices => ({ indices, ...tree.getMultiProof(indices) }));
  return { ...extra, root: tree.root, proofs, multiproofs, dump: tree.dump() };
}

const simple = [];
const simpleCases = [];
for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 17, 31, 33]) {
  simpleCases.push([`hashes-${n}`, Array.from({ length: n }, (_, i) => h(`leaf ${i}`))]);
}
// Equal leaves (the sort must be stable) and leaves equal in their first 8 bytes.
simpleCases.push(['duplicates-7', ['b', 'a', 'b', 'c', 'a', 'b', 'd'].map(h)]);
simpleCases.push(['shared-prefix-6', [5, 3, 250, 3, 0, 7].map(
  (x, i) => '0x' + '11'.repeat(8) + (i % 2 ? '00' : 'ff').repeat(23) + x.toString(16).padStart(2, '0'))]);
for (const [name, leaves] of simpleCases) {
  for (const sortLeaves of [true, false]) {
    const tree = SimpleMerkleTree.of(leaves, { sortLeaves });
    simple.push(describe(tree, leaves.length, { name, sortLeaves, leaves }));
  }
}

const standardCases = [
  ['airdrop', ['address', 'uint256'], Array.from({ length: 11 }, (_, i) => [
    '0x' + bytesToHex(keccak256(utf8ToBytes(`account ${i}`))).slice(0, 40),
    (BigInt(i + 1) * 10n ** 18n + BigInt(i)).toString(),
  ])],
  ['static-edges', ['bool', 'int8', 'uint8', 'int256', 'uint256', 'bytes1', 'bytes32', 'uint96', 'int24', 'bytes4', 'uint', 'int'], [
    [true, '-128', '255', (-(2n ** 255n)).toString(), (2n ** 256n - 1n).toString(), '0xff',
      h('x'), (2n ** 96n - 1n).toString(), '-8388608', '0xdeadbeef', '0', '-1'],
    [false, '127', '0', (2n ** 255n - 1n).toString(), '0', '0x00',
      '0x' + '00'.repeat(32), '0', '8388607', '0x00000000', '12345678901234567890', '1'],
    [true, '-1', '1', '-1', '1', '0x01', h('y'), '1', '-1', '0x01020304', '1', '-12345678901234567890'],
    [false, '0', '128', '0', (2n ** 64n).toString(), '0x80', h('z'), (2n ** 64n + 1n).toString(),
      '0', '0xffffffff', (2n ** 200n).toString(), (-(2n ** 200n)).toString()],
    [true, '5', '200', '9223372036854775807', '18446744073709551615', '0x7f', h('w'),
      '4294967296', '-300', '0x10203040', '7', '-9223372036854775808'],
  ]],
  ['dynamic', ['string', 'bytes', 'uint256[]', 'address[2]', 'bytes32', 'string[]'], [
    ['', '0x', [], ['0x' + '11'.repeat(20), '0x' + '22'.repeat(20)], h('a'), []],
    ['a', '0x01', ['1'], ['0x' + '33'.repeat(20), '0x' + '00'.repeat(20)], h('b'), ['x']],
    ['héllo wörld ✓', '0x' + 'ab'.repeat(33), ['1', '2', '3'],
      ['0x' + 'ff'.repeat(20), '0x' + '01'.repeat(20)], h('c'), ['', 'yz', 'a longer string that spans more than thirty-two bytes']],
    ['x'.repeat(64), '0x' + '00'.repeat(32), [(2n ** 256n - 1n).toString()],
      ['0x' + '44'.repeat(20), '0x' + '55'.repeat(20)], h('d'), ['one']],
    ['the quick brown fox', '0xdeadbeef', ['0', '0'], ['0x' + '66'.repeat(20), '0x' + '77'.repeat(20)],
      h('e'), ['a', 'b', 'c']],
  ]],
  ['strings', ['string'], 'abcdef'.split('').map(c => [c])],
];
const standard = [];
for (const [name, types, rows] of standardCases) {
  for (const sortLeaves of [true, false]) {
    const tree = StandardMerkleTree.of(rows, types, { sortLeaves });
    const leafHashes = rows.map(row => tree.leafHash(row));
    standard.push(describe(tree, rows.length, { name, types, sortLeaves, values: rows, leafHashes }));
  }
}

const version = require('@openzeppelin/merkle-tree/package.json').version;
// One tree per line: compact, yet a regenerated fixture diffs tree by tree.
const lines = cases => cases.map(c => '  ' + JSON.stringify(c)).join(',\n');
const text = `{\n "library": "@openzeppelin/merkle-tree@${version}",\n` +
  ` "simple": [\n${lines(simple)}\n ],\n "standard": [\n${lines(standard)}\n ]\n}\n`;
fs.writeFileSync(path.join(__dirname, 'merkle_openzeppelin.json'), text);
console.log(`wrote ${simple.length} simple and ${standard.length} standard trees`);
