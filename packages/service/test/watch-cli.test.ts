// `dns-service watch add|list|remove` as an operator runs it, each call a process of its own, so what
// one adds the next one finds (the watches live in the database, not in a process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const bin = new URL('../bin/dns-service.ts', import.meta.url).pathname;
const env = { ...process.env, DNS_SERVICE_DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'watch-cli-')), 'db.sqlite')}` };
const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'watch', ...args], { env, encoding: 'utf8' });

test('watch add, list and remove, each in its own process; bad input is named and exits 2', () => {
  const added = run(
    'add',
    'Example.SE',
    '--schedule',
    'daily 03:00',
    '--ns',
    'ns1.example.se/192.0.2.1',
    '--no-ipv6',
    '--language',
    'sv',
    '--webhook',
    'https://hooks.example.org/dns',
  );
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /^Watch 1: example\.se daily 03:00, first run \d{4}-\d\d-\d\dT03:00:00Z\./);
  assert.match(added.stdout, /Webhook secret .*: [A-Za-z0-9_-]{32}\n/);

  const listed = run('list', '--json');
  assert.equal(listed.status, 0, listed.stderr);
  const [watch] = JSON.parse(listed.stdout) as {
    watch_id: number;
    domain: string;
    schedule: string;
    language: string;
    params: { ipv6: boolean; nameservers: unknown[]; priority: number };
  }[];
  assert.equal(watch?.domain, 'example.se');
  assert.equal(watch.language, 'sv');
  assert.deepEqual(watch.params.nameservers, [{ ns: 'ns1.example.se', ip: '192.0.2.1' }]);
  assert.equal(watch.params.ipv6, false);
  assert.equal(watch.params.priority, 1);

  const bad = run('add', 'example.se', '--schedule', 'weekly', '--webhook', 'http://hooks.example.org/');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /\/schedule: Must be "every <N>m".*\/webhook_url: Must be an https:\/\/ address/);
  assert.equal(run('add', 'example.se', '--schedule', 'every 6h', '--email', 'a@example.se').status, 2, 'no SMTP server configured');

  assert.equal(run('remove', '1').status, 0);
  const again = run('remove', '1');
  assert.equal(again.status, 1);
  assert.match(again.stderr, /no watch 1/);
  assert.match(run('list').stdout, /^No watches\./);
});

test("an operator's webhook into loopback needs the operator's list (WATCH.allowed_networks by environment)", () => {
  const refused = run('add', 'example.se', '--schedule', 'every 6h', '--webhook', 'https://0x7f000001:8443/hook');
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /\/webhook_url: Points to a loopback, private or reserved address/);
  const allowed = spawnSync(
    process.execPath,
    [bin, 'watch', 'add', 'example.se', '--schedule', 'every 6h', '--webhook', 'https://0x7f000001:8443/hook'],
    {
      env: { ...env, DNS_SERVICE_WATCH_ALLOWED_NETWORKS: '127.0.0.0/8, ::1' },
      encoding: 'utf8',
    },
  );
  assert.equal(allowed.status, 0, allowed.stderr);
  assert.match(run('list').stdout, /https:\/\/127\.0\.0\.1:8443\/hook/, 'stored in its plain spelling');
});
