// The Chain view and `dnscheck --chain-svg` lay a chain out alike: the same chain, through grok's JSON
// to the view's model, lands on the same rectangles at the SVG's 400 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawChainSvg, toDnsvizJson, type ChainAnalysis } from '@app/engine';
import type { ChainJson } from '../src/web/client/api.ts';
import { layoutChain } from '../src/web/client/chain-layout.ts';
import { chainModel } from '../src/web/client/chain-model.ts';
import { nodeTexts, type Translate } from '../src/web/client/chain-texts.ts';
import english from '../src/shared/locales/en.json' with { type: 'json' };

const zone = 'wrongds.test.';
const sig = (keyTag: number, status: 'VALID' | 'EXPIRED') => ({
  id: `${zone}/13/${keyTag}`,
  signer: zone,
  algorithm: 13,
  keyTag,
  originalTtl: 3600,
  labels: 2,
  inception: 0,
  expiration: 1,
  ttl: 3600,
  status,
  key: `13/${keyTag}`,
  errors: [],
  servers: [],
});
const signed = (type: number, keyTag: number, status: 'VALID' | 'EXPIRED') => ({
  name: zone,
  type,
  kind: 'answer' as const,
  servers: [],
  rrsets: [{ name: zone, type, ttl: 3600, rdata: [], servers: [], rrsigs: [sig(keyTag, status)] }],
});
const key = (tag: number, flags: number, algorithm = 13) => ({
  id: `${algorithm}/${tag}`,
  flags,
  protocol: 3,
  algorithm,
  key: 'AA==',
  ttl: 3600,
  keyLength: 512,
  keyTag: tag,
  servers: [],
  signs: [],
});

/** A signed root, a lame TLD holding a DS whose digest is wrong, and a zone with two keys, an expired SOA signature and a good NS one. */
const analysis: ChainAnalysis = {
  domain: zone,
  judgedAt: 1_800_000_000,
  zones: [
    { name: '.', status: 'NOERROR', servers: [], dnskeys: [key(20326, 257, 8)], queries: [], notes: [] },
    {
      name: 'test.',
      parent: '.',
      status: 'NOERROR',
      servers: [],
      dnskeys: [],
      queries: [],
      notes: [],
      delegation: { status: 'LAME', ds: [], errors: [] },
    },
    {
      name: zone,
      parent: 'test.',
      status: 'NOERROR',
      servers: [],
      notes: [],
      dnskeys: [key(100, 257), key(200, 256)],
      delegation: {
        status: 'BOGUS',
        errors: [],
        ds: [
          {
            id: '13/100/2',
            algorithm: 13,
            keyTag: 100,
            digestType: 2,
            digest: '',
            ttl: 3600,
            status: 'INVALID_DIGEST',
            key: '13/100',
            errors: [],
            warnings: [],
            servers: [],
          },
        ],
      },
      queries: [signed(48, 100, 'VALID'), signed(6, 200, 'EXPIRED'), signed(2, 200, 'VALID')],
    },
  ],
};

test("at 400 px the Chain view puts every node where dnscheck's SVG does", () => {
  const svg = drawChainSvg(analysis);
  const drawn = [...svg.matchAll(/<g class="node"[^]*?<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g)]
    .map((m) => m.slice(1).join(' '))
    .sort();
  const model = chainModel(toDnsvizJson(analysis) as ChainJson);
  const layout = layoutChain(model, 400, 0, 0);
  const viewed = [...model.nodes.values()]
    .filter((node) => node.kind !== 'zone')
    .map((node) => {
      const r = layout.places.get(node.id)!;
      return `${r.x} ${r.y} ${r.width} ${r.height}`;
    })
    .sort();
  assert.equal(drawn.length, 6, 'the root key, the DS, two keys and two RRsets');
  assert.deepEqual(viewed, drawn);
});

const t: Translate = (key, args) => english[key].replace(/\{(\w+)\}/g, (whole, name: string) => String(args?.[name] ?? whole));
const unescape = (text: string): string => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)));

test("the Chain view and dnscheck's SVG put the same words on the same chain: headings, key parts and sizes, signing", () => {
  const svg = drawChainSvg(analysis);
  const drawn = [...svg.matchAll(/<g class="node"[^]*?<text[^>]*>([^<]*)<\/text>\s*<text[^>]*>([^<]*)<\/text>/g)]
    .map((m) => `${unescape(m[1] ?? '')} | ${unescape(m[2] ?? '')}`)
    .sort();
  const headings = [...svg.matchAll(/<g class="zone"[^]*?<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1] ?? ''));
  const model = chainModel(toDnsvizJson(analysis) as ChainJson);
  const viewed = [...model.nodes.values()]
    .filter((node) => node.kind !== 'zone')
    .map((node) => {
      const { label, detail } = nodeTexts(node, t);
      return `${label} | ${detail}`;
    })
    .sort();
  assert.deepEqual(viewed, drawn);
  assert.deepEqual(
    viewed,
    [
      'DNSKEY 13/100 | KSK, 256 bits',
      'DNSKEY 13/200 | ZSK, 256 bits',
      'DNSKEY 8/20326 | KSK, 512 bits',
      'DS 13/100/2 | INVALID_DIGEST',
      'NS RRset | signed',
      'SOA RRset | RRSIG EXPIRED',
    ],
    'a P-256 key is 256 bits; an RRset is signed, or names what is wrong with its RRSIGs',
  );
  const viewedHeadings = model.zones.map((zone) => {
    const { label, detail } = nodeTexts(zone.node, t);
    return detail === '' ? label : `${label} — ${detail}`;
  });
  assert.deepEqual(viewedHeadings, headings);
  assert.deepEqual(headings, ['. (root)', 'test — LAME', 'wrongds.test — BOGUS']);
});
