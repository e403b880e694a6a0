// The service's lookups without a root that answers: bounded in time, and failing with the finding a
// run gives rather than an empty answer. Loopback addresses where nothing listens stand in for root
// servers behind a firewall (the lab test with silent servers: test/lookups-without-root-lab.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServiceLookups, LookupFailure } from '../src/index.ts';

const deadRoots = [251, 252, 253, 254, 255].map((last, i) => ({ name: `${'abcde'[i]}.root.invalid`, address: `127.0.0.${last}` }));

const seconds = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
};

test("no root server answering: the lookup fails after one query's wait, not one per server, with ROOT_SERVERS_UNREACHABLE", async () => {
  for (const lookup of [
    (l: ReturnType<typeof createServiceLookups>) => l.parentData('example.com'),
    (l: ReturnType<typeof createServiceLookups>) => l.hostAddresses('www.example.com'),
  ]) {
    const took = await seconds(() =>
      assert.rejects(lookup(createServiceLookups({ rootHints: deadRoots, ipv6: false })), (error: unknown) => {
        assert.ok(error instanceof LookupFailure, String(error));
        assert.deepEqual(error.finding && { ...error.finding, timestamp: 0 }, {
          module: 'BASIC',
          testcase: 'Basic01',
          tag: 'ROOT_SERVERS_UNREACHABLE',
          level: 'CRITICAL',
          timestamp: 0,
          args: {
            ns_list: deadRoots
              .map((r) => `${r.name}/${r.address}`)
              .sort()
              .join(';'),
          },
        });
        return true;
      }),
    );
    // Five silent servers one after another would take 40 s (8 s each by the default profile).
    assert.ok(took < 10, `failed after ${took.toFixed(1)} s`);
  }
});

test('a lookup that runs out of time is cut at its budget, saying so', async () => {
  const took = await seconds(() =>
    assert.rejects(
      createServiceLookups({ rootHints: deadRoots, ipv6: false, budgetMs: 1000 }).parentData('example.com'),
      (error: unknown) => {
        assert.ok(error instanceof LookupFailure, String(error));
        assert.equal(error.finding, undefined);
        assert.match(error.message, /did not finish within 1 s/);
        return true;
      },
    ),
  );
  assert.ok(took < 3, `cut after ${took.toFixed(1)} s`);
});
