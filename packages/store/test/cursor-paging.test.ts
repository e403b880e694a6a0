/* eslint-disable @typescript-eslint/no-unsafe-member-access -- replies are JSON checked by assertions */
// Cursor paging (issue 37 item 3): every list page with a next one answers `Link: <...>; rel="next"`, the URL
// next_page holds, with an opaque keyset position; a walk along it while others insert and delete sees every record
// that lives through the walk exactly once, and never one twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reply } from './support/store-under-test.ts';
import { describeOnEachDatabase } from './support/each-database.ts';

const nextOf = (link: unknown): string | undefined => (typeof link === 'string' ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined);
const idsOf = (json: unknown): number[] => (json as { products: { id: number }[] }).products.map((p) => p.id);

await describeOnEachDatabase('cursor paging', (s) => {
  const create = async (name: string) => {
    const made = await s.call('POST', '/products', { body: { item_name: name } });
    assert.equal(made.status, 201, made.text);
    return Number(made.json.id);
  };

  test('Link rel="next" is the next_page URL, on a cached answer too, and none on the last page', async () => {
    for (let i = 0; i < 3; i += 1) await create(`Linked ${i}`);
    const first = await s.call('GET', '/products?count=2');
    assert.equal(nextOf(first.headers.link), first.json.next_page);
    assert.match(String(first.json.next_page), /[?&]after=[A-Za-z0-9_-]+/);
    const cached = await s.call('GET', '/products?count=2');
    assert.equal(cached.headers.link, first.headers.link, 'a cached answer carries it too');
    const all = await s.call('GET', '/products?count=250');
    assert.equal(all.headers.link, undefined);
    assert.equal(all.json.next_page, undefined);
  });

  test('a walk along Link during concurrent inserts and deletes sees each surviving record once', async () => {
    const before = idsOf((await s.call('GET', '/products?count=250&fields=id', { headers: { 'cache-control': 'no-cache' } })).json);
    const start: number[] = [...before];
    for (let i = 0; i < 40; i += 1) start.push(await create(`Walked ${i}`));
    const deleted = new Set<number>();
    const seen: number[] = [];
    let url: string | undefined = `${s.api}/products?count=5&fields=id`;
    let round = 0;
    while (url !== undefined) {
      round += 1;
      // Others write while the page is read: two new products, and one deleted ahead of the walk and one behind it.
      const ahead = start.filter((id) => !deleted.has(id) && !seen.includes(id)).at(-1 - (round % 3));
      const behind = seen.filter((id) => !deleted.has(id)).at(round % 2);
      const writes = [create(`During ${round} a`), create(`During ${round} b`)];
      for (const id of [ahead, behind]) {
        if (id === undefined) continue;
        deleted.add(id);
        writes.push(s.call('DELETE', `/products/${id}`).then((reply) => (assert.equal(reply.status, 200, reply.text), id)));
      }
      const [page]: [Reply, ...number[]] = await Promise.all([s.call('GET', url, { headers: { 'cache-control': 'no-cache' } }), ...writes]);
      assert.equal(page.status, 200, page.text);
      seen.push(...idsOf(page.json));
      url = nextOf(page.headers.link);
      assert.ok(round < 200, 'the walk ends');
    }
    assert.equal(new Set(seen).size, seen.length, 'no record twice');
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      seen,
      'in the list order',
    );
    const survivors = start.filter((id) => !deleted.has(id));
    assert.deepEqual(
      survivors.filter((id) => !seen.includes(id)),
      [],
      'no surviving record skipped',
    );
  });

  test('a walk keeps the total_count of its first page, and a position with a made-up total is refused', async () => {
    for (let i = 0; i < 6; i += 1) await create(`Counted ${i}`);
    const since = 'item_name=startwith:Counted';
    const first = await s.call('GET', `/products?${since}&count=2`, { headers: { 'cache-control': 'no-cache' } });
    assert.equal(first.json.total_count, 6);
    // A record made during the walk is not in the walk's total, on every later page alike.
    await create('Counted late');
    const totals: number[] = [];
    for (let url = nextOf(first.headers.link); url !== undefined;) {
      const page = await s.call('GET', url, { headers: { 'cache-control': 'no-cache' } });
      assert.equal(page.status, 200, page.text);
      totals.push(Number(page.json.total_count));
      url = nextOf(page.headers.link);
    }
    assert.deepEqual(totals, [6, 6, 6]);
    const restarted = await s.call('GET', `/products?${since}&count=2`, { headers: { 'cache-control': 'no-cache' } });
    assert.equal(restarted.json.total_count, 7, 'a new walk counts again');
    const [id] = idsOf(first.json);
    const position = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = await s.call('GET', `/products?${since}&count=2&after=${position({ at: [id], total: -1 })}`);
    assert.equal(forged.status, 400, forged.text);
  });

  test('a position the list never gave out is a 400, never a page that skips records', async () => {
    const since = 'item_name=startwith:Guarded';
    for (let i = 0; i < 3; i++) await create(`Guarded ${i}`);
    const first = await s.call('GET', `/products?${since}&count=2`, { headers: { 'cache-control': 'no-cache' } });
    const given = new URL(String(first.json.next_page)).searchParams.get('after') ?? '';
    assert.ok(given !== '', first.text);
    const [payload = '', mac = ''] = given.split('.');
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { at: number[]; total: number };
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const refused = [
      // Made up: past every id, or the bare array and object positions this list once gave out unsealed.
      made({ at: [999_999_999], total: decoded.total }),
      made([decoded.at[0]]),
      made(decoded),
      // The real one's position moved on, its total changed, or its MAC or text corrupted or respelled.
      `${made({ ...decoded, at: [999_999_999] })}.${mac}`,
      `${made({ ...decoded, total: 1 })}.${mac}`,
      flip(given, 2),
      flip(given, given.length - 1),
      `${given}=`,
      `${given}!!`,
      given.slice(0, -1),
    ];
    for (const after of refused) {
      const reply = await s.call('GET', `/products?${since}&count=2&after=${encodeURIComponent(after)}`, {
        headers: { 'cache-control': 'no-cache' },
      });
      assert.equal(reply.status, 400, `${after}: ${reply.text}`);
      assert.match(String(reply.json.details), /^after: /);
    }
    // A position holds for the list, sort and filters it was made for only.
    for (const other of [
      `/products?count=2&after=${given}`,
      `/categories?${since}&count=2&after=${given}`,
      `/products?${since}&count=2&sort=-id&after=${given}`,
    ]) {
      assert.equal((await s.call('GET', other, { headers: { 'cache-control': 'no-cache' } })).status, 400, other);
    }
    assert.equal(
      (await s.call('GET', `/products?${since}&count=2&after=${given}`, { headers: { 'cache-control': 'no-cache' } })).status,
      200,
    );
  });
});
