// The chain picture: same analysis, same file; DNS names and texts escaped; a legend and a text
// alternative; edges for signatures and digests coloured by status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainAnalysis } from '../src/chain/analyse-chain.ts';
import { drawChainSvg } from '../src/chain/draw-chain.ts';

const hostile = 'a<script>alert(1)</script>&"\'.test.';

const analysis: ChainAnalysis = {
  domain: hostile,
  judgedAt: 1_800_000_000,
  zones: [
    { name: '.', status: 'NOERROR', servers: [], dnskeys: [], queries: [], notes: [] },
    {
      name: hostile,
      parent: '.',
      status: 'NOERROR',
      servers: [],
      notes: [],
      dnskeys: [
        {
          id: '13/100',
          flags: 257,
          protocol: 3,
          algorithm: 13,
          key: 'AA==',
          ttl: 3600,
          keyLength: 512,
          keyTag: 100,
          servers: [],
          signs: [],
        },
        {
          id: '13/200',
          flags: 256,
          protocol: 3,
          algorithm: 13,
          key: 'AQ==',
          ttl: 3600,
          keyLength: 512,
          keyTag: 200,
          servers: [],
          signs: [],
        },
      ],
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
      queries: [
        {
          name: hostile,
          type: 48,
          kind: 'answer',
          servers: [],
          rrsets: [
            {
              name: hostile,
              type: 48,
              ttl: 3600,
              rdata: [],
              servers: [],
              rrsigs: [
                {
                  id: `${hostile}/13/100`,
                  signer: hostile,
                  algorithm: 13,
                  keyTag: 100,
                  originalTtl: 3600,
                  labels: 2,
                  inception: 0,
                  expiration: 1,
                  ttl: 3600,
                  status: 'EXPIRED',
                  key: '13/100',
                  errors: [],
                  servers: [],
                },
              ],
            },
          ],
        },
        {
          name: hostile,
          type: 6,
          kind: 'answer',
          servers: [],
          rrsets: [
            {
              name: hostile,
              type: 6,
              ttl: 3600,
              rdata: [],
              servers: [],
              rrsigs: [
                {
                  id: `${hostile}/13/200`,
                  signer: hostile,
                  algorithm: 13,
                  keyTag: 200,
                  originalTtl: 3600,
                  labels: 2,
                  inception: 0,
                  expiration: 1,
                  ttl: 3600,
                  status: 'VALID',
                  key: '13/200',
                  errors: [],
                  servers: [],
                },
              ],
            },
          ],
        },
      ],
    },
  ],
};

test('the picture escapes DNS data, has a title, a description and a legend, and is drawn the same every time', () => {
  const svg = drawChainSvg(analysis);
  assert.equal(svg, drawChainSvg(structuredClone(analysis)));
  assert.ok(!svg.includes('<script'), 'a name with markup stays text');
  assert.match(svg, /a&#60;script&#62;alert/);
  assert.match(svg, /<title id="chain-title">DNSSEC chain of /);
  assert.match(svg, /<desc id="chain-desc">[^<]*BOGUS/);
  assert.match(svg, /Legend/);
  // The DS node, the digest edge to the KSK in red (bogus), the ZSK's signature over SOA in green.
  assert.match(svg, /data-node-id="\.\|DS\|[^"]*\|13\/100\/2"/);
  assert.match(svg, /<path class="edge"[^>]*stroke="#b00020"[^>]*><title>digest of: 13\/100\/2 → 13\/100/);
  assert.match(svg, /<path class="edge"[^>]*stroke="#0a6b2b"[^>]*><title>signs: 13\/200 → SOA/);
  // Every node can be reached and named by assistive technology.
  assert.equal((svg.match(/class="node" tabindex="0" role="img" aria-label="/g) ?? []).length, 4);
});

test('a zone without nodes says whether its DNSKEY was asked (unsigned) or nothing was', () => {
  const plain: ChainAnalysis = {
    domain: 'plain.test.',
    judgedAt: 1_800_000_000,
    zones: [
      { name: '.', status: 'NOERROR', servers: [], dnskeys: [], queries: [], notes: [] },
      {
        name: 'plain.test.',
        parent: '.',
        status: 'NOERROR',
        servers: [],
        dnskeys: [],
        notes: [],
        delegation: { status: 'INSECURE', ds: [], errors: [] },
        queries: [{ name: 'plain.test.', type: 48, kind: 'nodata', servers: ['192.0.2.1'], rrsets: [] }],
      },
    ],
  };
  const texts = [...drawChainSvg(plain).matchAll(/font-size="11">([^<]*)</g)].map((m) => m[1]);
  assert.deepEqual(texts.slice(0, 2), ['no DNSSEC records asked in this run', 'unsigned: no DNSKEY records']);
});
