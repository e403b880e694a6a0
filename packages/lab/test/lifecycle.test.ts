// A lab leaves nothing behind: not after stop, not when its owner is killed, not when it fails to start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RRType } from '@app/dns';
import { labUnavailableReason, startLab } from '../src/index.ts';

const unavailable = await labUnavailableReason();
if (unavailable !== undefined) console.log(`# skipping lab lifecycle tests: ${unavailable}`);
const skip = unavailable ?? false;

/** Processes whose command line mentions the text (the lab's working directory). */
function processesMentioning(text: string): string[] {
  return readdirSync('/proc').flatMap((pid) => {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) return [];
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return cmdline.includes(text) ? [`${pid}: ${cmdline}`] : [];
    } catch {
      return [];
    }
  });
}

async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

test('stop ends every process of the lab and removes its working directory', { skip }, async () => {
  const lab = await startLab('single-nameserver');
  assert.ok(
    processesMentioning(lab.dir).some((p) => p.includes('named')),
    'named runs with the lab config',
  );
  const marker = `lab-sleeper-${process.pid}`;
  const sleeper = lab.spawn('sh', ['-c', 'sleep 300', marker]);
  const sleeperEnded = new Promise((resolve) => sleeper.once('exit', resolve));
  assert.ok(await eventually(() => processesMentioning(marker).length > 0), 'a spawned command runs');
  const reply = await lab.query('ns1.single.test', { name: 'single.test', type: RRType.SOA }, { timeoutMs: 1000 });
  assert.equal(reply.outcome, 'response');
  await lab.stop();
  assert.deepEqual(processesMentioning(lab.dir), []);
  assert.ok(await eventually(() => processesMentioning(marker).length === 0), 'a command still running when the lab stops ends with it');
  await sleeperEnded;
  assert.equal(existsSync(lab.dir), false);
  await assert.rejects(lab.query('ns1.single.test', { name: 'single.test', type: RRType.SOA }), /the lab has stopped/);
  await assert.rejects(lab.exec('true'), /the lab has stopped/);
  await lab.stop();
});

test('when the lab owner is killed outright, the whole namespace goes with it', { skip }, async () => {
  const script = `import { startLab } from ${JSON.stringify(join(import.meta.dirname, '../src/index.ts'))};
const lab = await startLab('single-nameserver', { keepDir: true });
console.log(lab.dir);
setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = await new Promise<string>((resolve, reject) => {
    owner.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)));
  });
  try {
    assert.ok(processesMentioning(dir).length > 0);
    owner.kill('SIGKILL');
    assert.ok(await eventually(() => processesMentioning(dir).length === 0), `left running: ${processesMentioning(dir).join('\n')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a zone BIND cannot read stops the start with its message, and nothing is left', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-broken-'));
  const path = join(dir, 'broken.yaml');
  writeFileSync(
    path,
    `extends: ${JSON.stringify(join(import.meta.dirname, '../scenarios/base.yaml'))}
servers:
  - name: ns1.broken.test.
    addresses: [192.0.2.250]
zones:
  - origin: broken.test.
    servers: [ns1.broken.test.]
    text: |
      @ SOA ns1 hostmaster 1 2 3 4 5
      @ NS ns1
      www A not-an-address
`,
  );
  // The lab's working directory goes under TMPDIR: a private one shows whether it is cleaned up.
  const privateTmp = join(dir, 'tmp');
  mkdirSync(privateTmp);
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  try {
    await assert.rejects(startLab(path, { cache: false }), /named-compilezone failed[\s\S]*broken\.test/);
    assert.deepEqual(readdirSync(privateTmp), [], 'no working directory left behind');
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(dir, { recursive: true });
  }
});
