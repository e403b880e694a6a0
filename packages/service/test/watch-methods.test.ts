// watch_add, watch_list and watch_remove over JSON-RPC on each database: authentication as
// add_batch_job's, validation in the protocol's format, and a user's watches kept apart from another's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseTargets } from '@app/database/testing';
import { addUser } from '../src/db/users.ts';
import { useService } from './rpc-harness.ts';

const smtp = { host: '127.0.0.1', port: 2525, secure: false, from: 'dns@example.org' };

for (const target of await testDatabaseTargets()) {
  describe(`watch methods on ${target.name}`, { skip: target.skip }, () => {
    const h = useService(target, (c) => ({ ...c, watch: { ...c.watch, smtp } }));

    test('watch_add needs a known user and key, checks its fields, and the watch is listed and removed', async () => {
      const { db } = h.service.context.database;
      await addUser(db, 'alice', 'alice-key');
      await addUser(db, 'bob', 'bob-key');
      const base = { username: 'alice', api_key: 'alice-key', domain: 'Watched.Example', schedule: 'daily 03:00' };

      const wrongKey = await h.call('watch_add', { ...base, api_key: 'nope' });
      assert.equal(wrongKey.error?.code, -32603);
      assert.equal(wrongKey.error?.message, 'User not authorized to use watches');

      const bad = await h.call('watch_add', {
        ...base,
        schedule: 'weekly',
        webhook_url: 'http://hooks.example.org/',
        email: 'not an address',
        language: 'de',
        nameservers: [{ ns: 'ns1.example', ip: '300.1.1.1' }],
      });
      assert.equal(bad.error?.code, -32602);
      const paths = (bad.error?.data as { path: string }[]).map((d) => d.path).sort();
      assert.deepEqual(paths, ['/email', '/language', '/nameservers/0/ip', '/schedule', '/webhook_url']);
      const swedish = await h.call('watch_add', { ...base, schedule: 'weekly', language: 'sv' });
      assert.equal(swedish.error?.code, -32602);
      assert.match((swedish.error?.data as { message: string }[])[0]?.message ?? '', /Måste vara ”every <N>m”/);

      const added = await h.call('watch_add', {
        ...base,
        webhook_url: 'https://hooks.example.org/dns',
        email: 'hostmaster@example.org',
        language: 'fi',
        ipv6: false,
        nameservers: [{ ns: 'ns1.watched.example', ip: '192.0.2.1' }],
      });
      const result = added.result as { watch_id: number; schedule: string; next_run_at: string; webhook_secret: string };
      assert.equal(result.schedule, 'daily 03:00');
      assert.match(result.next_run_at, /T03:00:00Z$/);
      assert.match(result.webhook_secret, /^[A-Za-z0-9_-]{32}$/);

      const listed = (await h.call('watch_list', { username: 'alice', api_key: 'alice-key' })).result as {
        watches: Record<string, unknown>[];
      };
      assert.equal(listed.watches.length, 1);
      const watch = listed.watches[0] ?? {};
      assert.equal(watch.domain, 'watched.example');
      assert.equal(watch.language, 'fi');
      assert.equal(watch.webhook_url, 'https://hooks.example.org/dns');
      assert.equal(watch.email, 'hostmaster@example.org');
      assert.equal(watch.webhook_secret, undefined, 'the secret is shown once, when added');
      assert.deepEqual(watch.params, {
        domain: 'watched.example',
        ipv4: true,
        ipv6: false,
        nameservers: [{ ns: 'ns1.watched.example', ip: '192.0.2.1' }],
        ds_info: [],
        profile: 'default',
        priority: 1,
        queue: 0,
      });

      assert.deepEqual(
        (await h.call('watch_list', { username: 'bob', api_key: 'bob-key' })).result,
        { watches: [] },
        "another user's watches are not shown",
      );
      const stolen = await h.call('watch_remove', { username: 'bob', api_key: 'bob-key', watch_id: result.watch_id });
      assert.equal(stolen.error?.message, 'Unknown watch');
      assert.deepEqual((await h.call('watch_remove', { username: 'alice', api_key: 'alice-key', watch_id: result.watch_id })).result, {
        removed: true,
      });
      assert.deepEqual((await h.call('watch_list', { username: 'alice', api_key: 'alice-key' })).result, { watches: [] });
      assert.equal((await h.call('watch_remove', { username: 'alice', api_key: 'alice-key', watch_id: 0 })).error?.code, -32602);
    });

    test("watch_add refuses webhooks into loopback, private and metadata addresses in every spelling, in the protocol's error format", async () => {
      const { db } = h.service.context.database;
      await addUser(db, 'carol', 'carol-key');
      const base = { username: 'carol', api_key: 'carol-key', domain: 'watched.example', schedule: 'every 6h' };
      const internal = [
        'https://127.0.0.1:6379/',
        'https://169.254.169.254/latest/meta-data/iam/security-credentials/',
        'https://2130706433/',
        'https://[::ffff:7f00:1]/',
        'https://017700000001/',
        'https://0x7f.0.0.1/',
        'https://127.1:8080/',
        'https://10.0.0.5/',
        'https://192.168.1.1/admin',
        'https://[::1]:8443/',
        'https://[fd12::1]/',
        'https://0/',
        'https://localhost:9000/',
      ];
      for (const webhook_url of internal) {
        const refused = await h.call('watch_add', { ...base, webhook_url });
        assert.equal(refused.error?.code, -32602, webhook_url);
        assert.equal(refused.error?.message, 'Invalid method parameter(s).');
        assert.deepEqual(
          refused.error?.data,
          [
            {
              path: '/webhook_url',
              message: 'Points to a loopback, private or reserved address, which this service does not send alerts to',
            },
          ],
          webhook_url,
        );
      }
      const swedish = await h.call('watch_add', { ...base, language: 'sv', webhook_url: 'https://2130706433/' });
      assert.match((swedish.error?.data as { message: string }[])[0]?.message ?? '', /loopback-, privat eller reserverad adress/);
      assert.deepEqual(
        (await h.call('watch_list', { username: 'carol', api_key: 'carol-key' })).result,
        { watches: [] },
        'nothing was stored',
      );
      // A public address and a name (judged again when the alert is sent) are fine.
      for (const webhook_url of ['https://203.0.113.7/hook', 'https://hooks.example.net/hook'])
        assert.equal((await h.call('watch_add', { ...base, webhook_url })).error, undefined, webhook_url);
    });
  });
}
