// Built worlds are reused, but never past the point where a future signature time turns past.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { labUnavailableReason, loadScenario } from '../src/index.ts';
import { cachedZones, reuseFor } from '../src/world/world-cache.ts';

// Building needs BIND's tools, which the lab's availability check covers.
const unavailable = await labUnavailableReason();

test('a scenario built once is reused: same files, same keys', { skip: unavailable ?? false }, async () => {
  const scenario = loadScenario('wrong-ds');
  const first = await cachedZones(scenario);
  const second = await cachedZones(scenario);
  assert.equal(second.hintsPath, first.hintsPath);
  assert.ok(existsSync(first.hintsPath));
  const signed = (set: typeof first): string =>
    readFileSync(set.servers.find((s) => s.name === 'ns1.wrongds.test.')!.zones[0].file, 'utf8');
  assert.equal(signed(second), signed(first));
  assert.match(signed(first), /IN DNSKEY\s+257 3 13 /);
});

test('reuse time: 12 hours, or half of the nearest future signature time', () => {
  const withTimes = (inception: string, expiration: string) => {
    const scenario = loadScenario('healthy-signed');
    return {
      ...scenario,
      zones: scenario.zones.map((z) => (z.dnssec === undefined ? z : { ...z, dnssec: { ...z.dnssec, inception, expiration } })),
    };
  };
  assert.equal(reuseFor(loadScenario('single-nameserver')), 12 * 3600_000);
  assert.equal(reuseFor(withTimes('-1h', '+30d')), 12 * 3600_000);
  assert.equal(reuseFor(withTimes('-1h', '+2h')), 3600_000);
  assert.equal(reuseFor(withTimes('+10m', '+30d')), 5 * 60_000);
  assert.equal(reuseFor(withTimes('-60d', '-30d')), 12 * 3600_000, 'expired stays expired');
});
