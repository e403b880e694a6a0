// add_api_user judged by the real socket peer: the server runs in a private network namespace
// where a documentation-range address is a non-loopback peer (root and unshare needed).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const inside = fileURLToPath(new URL('./inside/remote-peer.ts', import.meta.url));
const probe = spawnSync('unshare', ['-n', 'true']);
const unavailable =
  probe.error !== undefined || probe.status !== 0
    ? `no private network namespace (unshare -n: ${probe.error?.message ?? probe.stderr.toString().trim()})`
    : false;
if (unavailable) console.log(`# skipping: ${unavailable}`);

test('administrative methods refuse a non-loopback socket peer', { skip: unavailable, timeout: 60_000 }, async () => {
  const script =
    'ip link set lo up && ip addr add 192.0.2.1/24 dev lo && ip addr add 192.0.2.2/24 dev lo && exec "$0" --test --test-reporter=tap "$1"';
  const child = spawn('unshare', ['-n', 'sh', '-c', script, process.execPath, inside], {
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_TEST_CONTEXT')),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, output.slice(-4000));
  assert.match(output, /# pass 2/);
});
