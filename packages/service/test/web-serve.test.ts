// The web interface over HTTP (no browser): GET gives the page and its files, POST on the same
// paths stays JSON-RPC; the client's TypeScript arrives as JavaScript, compressed and cacheable.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import { testDatabaseTargets } from '@app/database/testing';
import * as engineLayout from '@app/engine/chain-layout';
import * as engineTones from '@app/engine/chain-tones';
import { useService } from './rpc-harness.ts';

const sqlite = (await testDatabaseTargets()).find((t) => t.dialect === 'sqlite');

describe('web interface served by the RPC service', { skip: sqlite === undefined ? 'no SQLite target' : false }, () => {
  const h = useService(sqlite!);

  const assetUrls = async (): Promise<string[]> => {
    const html = await (await fetch(h.url)).text();
    return [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
  };

  test('every page address gives the HTML shell with a strict CSP; an unknown one gives it with 404', async () => {
    for (const path of [
      '/',
      '/result/0123456789abcdef',
      '/history/example.com',
      '/compare/0123456789abcdef/fedcba9876543210',
      '/batch/12',
    ]) {
      const response = await fetch(`${h.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self' 'sha256-/);
      assert.match(await response.text(), /<script type="module" src="\/assets\/[\w-]+\/web\/client\/main\.ts">/);
    }
    for (const path of ['/result/not-an-id', '/admin', '/history/a/b', '/constructor', '/__proto__']) {
      const response = await fetch(`${h.url}${path}`);
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    }
    assert.equal((await fetch(`${h.url}/`, { method: 'HEAD' })).status, 200);
  });

  test("a first visit gets the shell in the browser's language: lang, title and the no-script text", async () => {
    const shell = async (acceptLanguage?: string) => {
      const response = await fetch(h.url, { headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage } });
      assert.match(response.headers.get('vary') ?? '', /accept-language/i, 'caches keep one shell per language');
      const html = await response.text();
      return [
        /<html lang="(\w+)">/.exec(html)?.[1],
        /<title>([^<]*)<\/title>/.exec(html)?.[1],
        /<noscript><p>([^<]*)<\/p>/.exec(html)?.[1],
      ];
    };
    assert.deepEqual(await shell('sv-SE,sv;q=0.9,en;q=0.5'), [
      'sv',
      'Domänhälsa',
      'Den här sidan behöver JavaScript. JSON-RPC-API:et svarar på POST-anrop på den här adressen.',
    ]);
    assert.equal((await shell('de-DE, fi;q=0.7, en;q=0.3'))[0], 'fi', 'the best language we have');
    assert.equal((await shell('nn-NO'))[0], 'nb', 'Nynorsk and "no" get Bokmål');
    assert.deepEqual((await shell('sl-SI,sl;q=0.9')).slice(0, 2), ['sl', 'Zdravje domene']);
    assert.deepEqual(await shell(), [
      'en',
      'Domain health',
      'This page needs JavaScript. The JSON-RPC API answers POST requests at this address.',
    ]);
    assert.equal((await shell('de, ja;q=0.5'))[0], 'en', 'none of ours: English');
    assert.equal((await shell('constructor, __proto__;q=0.9'))[0], 'en');
  });

  test('/favicon.ico is a real icon, for this interface and for a web interface served in front of the service', async () => {
    const response = await fetch(`${h.url}/favicon.ico`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/x-icon');
    assert.match(response.headers.get('cache-control') ?? '', /max-age=\d+/);
    const ico = Buffer.from(await response.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), then one 16-byte entry per image, each a PNG here.
    assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2)], [0, 1]);
    const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => {
      const entry = 6 + 16 * i;
      const [size, length, offset] = [ico.readUInt8(entry), ico.readUInt32LE(entry + 8), ico.readUInt32LE(entry + 12)];
      assert.equal(ico.subarray(offset, offset + 8).toString('latin1'), '\x89PNG\r\n\x1a\n');
      assert.equal(ico.readUInt32BE(offset + 16), size, 'the PNG is as wide as its entry says');
      assert.ok(offset + length <= ico.length);
      return size;
    });
    assert.deepEqual(sizes, [16, 32, 48]);
    assert.equal((await fetch(`${h.url}/favicon.ico`, { headers: { 'if-none-match': response.headers.get('etag') ?? '' } })).status, 304);
    assert.equal((await fetch(`${h.url}/favicon.ico`, { method: 'HEAD' })).status, 200);

    const svg = await fetch(`${h.url}/favicon.svg`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(await svg.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const html = await (await fetch(h.url)).text();
    assert.match(html, /<link rel="icon" href="\/favicon\.ico"/);
    assert.match(html, /<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml">/);
  });

  test('POST on the same paths stays JSON-RPC', async () => {
    for (const path of ['/', '/result/0123456789abcdef', '/assets/x/main.ts']) {
      const response = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":7,"method":"profile_names"}',
      });
      assert.deepEqual(await response.json(), { jsonrpc: '2.0', id: 7, result: ['default', 'extended'] });
    }
  });

  test('client modules are JavaScript without types, the vendored Preact included, under a versioned address', async () => {
    const urls = await assetUrls();
    const dir = mkdtempSync(join(tmpdir(), 'web-assets-'));
    assert.ok(urls.some((u) => u.endsWith('/vendor/preact.mjs')));
    // The shapes and languages the client shares with the server come from the shared folder, at their path in src/.
    assert.ok(
      urls.some((u) => u.endsWith('/shared/languages.ts')),
      urls.join(' '),
    );
    for (const url of urls.filter((u) => u.endsWith('.ts'))) {
      const response = await fetch(`${h.url}${url}`);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const text = await response.text();
      assert.doesNotMatch(text, /^\s*(?:export )?interface \w+|^\s*(?:export )?type \w+ =|: string\b/m, url);
      // Node checks its syntax as a module (imports are not resolved by --check).
      const file = join(dir, url.replaceAll('/', '_').replace(/\.ts$/, '.mjs'));
      writeFileSync(file, text);
      const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
      assert.equal(check.status, 0, `${url}: ${check.stderr}`);
    }
  });

  test("the Chain view's tones and layout are the engine's: the import map serves the engine's own modules, as JavaScript", async () => {
    const html = await (await fetch(h.url)).text();
    const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/.exec(html)?.[1] ?? '{}') as {
      imports?: Record<string, string>;
    };
    const served = async (specifier: string): Promise<unknown> => {
      const url = importMap.imports?.[specifier];
      assert.ok(url !== undefined, `the import map names ${specifier}`);
      const response = await fetch(`${h.url}${url}`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/javascript/);
      return import(`data:text/javascript,${encodeURIComponent(await response.text())}`);
    };
    const tones = (await served('@app/engine/chain-tones')) as typeof engineTones;
    assert.deepEqual(tones.TONE_LOOKS, engineTones.TONE_LOOKS);
    assert.deepEqual(
      ['SECURE', 'LAME', 'NONE', 'EXPIRED'].map(tones.toneOf),
      ['SECURE', 'LAME', 'NONE', 'EXPIRED'].map(engineTones.toneOf),
    );
    const layout = (await served('@app/engine/chain-layout')) as typeof engineLayout;
    const zones = [
      { name: '.', heading: 'root', keys: ['k1', 'k2', 'k3'], rrsets: ['soa'], ds: ['ds'] },
      { name: 'test.', heading: 'test', keys: [], rrsets: [], ds: [] },
    ];
    for (const width of [330, 900])
      assert.deepEqual(layout.layoutZones(zones, width, 100, 20), engineLayout.layoutZones(zones, width, 100, 20));
  });

  test('compressed with brotli or gzip as asked, with an ETag that answers 304', async () => {
    const [url] = (await assetUrls()).filter((u) => u.endsWith('main.ts'));
    assert.ok(url);
    const plain = await fetch(`${h.url}${url}`, { headers: { 'accept-encoding': 'identity' } });
    const text = await plain.text();
    const raw = await rawGet(`${h.url}${url}`, { 'accept-encoding': 'br' });
    assert.equal(raw.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(raw.body).toString(), text);
    const etag = plain.headers.get('etag') ?? '';
    assert.equal((await fetch(`${h.url}${url}`, { headers: { 'if-none-match': etag } })).status, 304);
    assert.equal((await fetch(`${h.url}/assets/old-version/web/client/main.ts`)).headers.get('cache-control'), 'no-cache');
    assert.equal((await fetch(`${h.url}/assets/${url.split('/')[2]}/../../package.json`)).status, 404);
    assert.equal((await fetch(`${h.url}/assets/${url.split('/')[2]}/missing.ts`)).status, 404);
  });
});

async function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}
