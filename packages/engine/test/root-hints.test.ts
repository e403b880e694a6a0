import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ianaRootHints, readRootHints, RootHintsError } from '../src/resolver/root-hints.ts';

test('a named.root style file is read', () => {
  const hints = readRootHints(`; lab root
.                        3600000      NS    NS1.ROOT.LAB.
NS1.ROOT.LAB.            3600000      A     192.0.2.1
ns1.root.lab.            3600000 IN   AAAA  2001:db8::1
.                        3600000      NS    ns2.root.lab.
ns2.root.lab.            A     198.51.100.1
other.example.           A     203.0.113.9
`);
  assert.deepEqual(hints, [
    { name: 'ns1.root.lab', address: '192.0.2.1' },
    { name: 'ns1.root.lab', address: '2001:db8::1' },
    { name: 'ns2.root.lab', address: '198.51.100.1' },
  ]);
});

test('unreadable hints name the line', () => {
  assert.throws(
    () => readRootHints('. NS a.root.\na.root. A 300.1.1.1\n'),
    (e: Error) => e instanceof RootHintsError && /line 2/.test(e.message),
  );
  assert.throws(
    () => readRootHints('. NS a.root.\na.root. MX 10 mail.\n'),
    (e: Error) => e instanceof RootHintsError && /line 2/.test(e.message),
  );
  assert.throws(() => readRootHints('; nothing\n'), RootHintsError);
});

test('the built-in hints are the 13 IANA root servers over both families', () => {
  assert.equal(ianaRootHints.length, 26);
  assert.equal(new Set(ianaRootHints.map((h) => h.name)).size, 13);
  assert.ok(ianaRootHints.some((h) => h.name === 'a.root-servers.net' && h.address === '198.41.0.4'));
});
