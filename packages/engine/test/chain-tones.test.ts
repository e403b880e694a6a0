// The chain's tones: DNSViz's status words fall into four, each with a colour and a dash of its own,
// and the SVG draws a status in the tone the web view gives it (the web view reads the same file).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainAnalysis } from '../src/chain/analyse-chain.ts';
import { TONE_LOOKS, TONES, toneOf, worstTone, zoneTone } from '../src/chain/chain-tones.ts';
import { drawChainSvg } from '../src/chain/draw-chain.ts';

test("DNSViz's status words fall into four tones", () => {
  assert.deepEqual(
    [
      'SECURE',
      'VALID',
      'INSECURE',
      'NONE',
      'INDETERMINATE_NO_DNSKEY',
      'ALGORITHM_IGNORED',
      'LAME',
      'INCOMPLETE',
      'BOGUS',
      'INVALID_DIGEST',
      'EXPIRED',
      'PREMATURE',
    ].map(toneOf),
    [
      'secure',
      'secure',
      'insecure',
      'insecure',
      'indeterminate',
      'indeterminate',
      'indeterminate',
      'indeterminate',
      'bogus',
      'bogus',
      'bogus',
      'bogus',
    ],
  );
  assert.equal(worstTone(['secure', 'bogus', 'insecure'], 'secure'), 'bogus');
  assert.equal(worstTone([], 'insecure'), 'insecure');
});

test('each tone reads apart from the others by its colour and by its dash', () => {
  assert.equal(new Set(TONES.map((tone) => TONE_LOOKS[tone].colour)).size, TONES.length);
  assert.equal(new Set(TONES.map((tone) => TONE_LOOKS[tone].dash ?? '')).size, TONES.length);
});

test('the SVG draws a lame delegation in the indeterminate tone, as the web view does', () => {
  const lame: ChainAnalysis = {
    domain: 'lame.test.',
    judgedAt: 1_800_000_000,
    zones: [
      { name: '.', status: 'NOERROR', servers: [], dnskeys: [], queries: [], notes: [] },
      {
        name: 'lame.test.',
        parent: '.',
        status: 'NOERROR',
        servers: [],
        dnskeys: [],
        queries: [],
        notes: [],
        delegation: { status: 'LAME', ds: [], errors: [] },
      },
    ],
  };
  const box = /<g class="zone" data-zone="lame\.test\.">\s*<rect [^>]*stroke="([^"]+)"[^>]*stroke-dasharray="([^"]+)"/.exec(
    drawChainSvg(lame),
  );
  assert.deepEqual(box?.slice(1), [TONE_LOOKS.indeterminate.colour, TONE_LOOKS.indeterminate.dash]);
});

test("a DNSKEY is drawn in its zone's tone, as the web view draws it: a key under a bogus delegation is not secure", () => {
  const key = {
    id: '13/4242',
    flags: 257,
    protocol: 3,
    algorithm: 13,
    key: 'AAAA',
    ttl: 3600,
    keyLength: 256,
    keyTag: 4242,
    servers: [],
    signs: [],
  };
  const bogus: ChainAnalysis = {
    domain: 'bogus.test.',
    judgedAt: 1_800_000_000,
    zones: [
      { name: '.', status: 'NOERROR', servers: [], dnskeys: [], queries: [], notes: [] },
      {
        name: 'bogus.test.',
        parent: '.',
        status: 'NOERROR',
        servers: [],
        dnskeys: [key],
        queries: [],
        notes: [],
        delegation: { status: 'BOGUS', ds: [], errors: [] },
      },
    ],
  };
  const node =
    /<g class="node"[^>]*data-node-id="bogus\.test\.\|DNSKEY\|13\/4242">\s*<title>[^<]*<\/title>\s*<rect [^>]*stroke="([^"]+)"[^>]*stroke-dasharray="([^"]+)"/.exec(
      drawChainSvg(bogus),
    );
  assert.deepEqual(node?.slice(1), [TONE_LOOKS.bogus.colour, TONE_LOOKS.bogus.dash]);
  assert.equal(zoneTone('SECURE'), 'secure');
  assert.equal(zoneTone(undefined), 'insecure');
});
