// Rollover monitoring against a validating resolver, in compressed time (bench/rollover/run.ts --fast:
// TTL 4 s, DS TTL 24 s, a watch run every 6 s): a clean KSK and ZSK rollover gives no alert and delv
// never fails; a DS swapped before the new KSK signs and signatures that stop being renewed each give
// an alert at least twice the TTL before delv, through the lab's validating BIND, first fails.
// Lives outside packages/ because it joins the lab, the engine and the service's rollover rules.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { labUnavailableReason } from '@app/lab';

const root = fileURLToPath(new URL('..', import.meta.url));
const skip = (await labUnavailableReason()) ?? false;

interface Outcome {
  scenario: string;
  alerts: { at: number; text: string }[];
  firstDelvFailure?: number;
}

test(
  'rollovers in the lab: quiet when clean, told at least 2 × TTL before delv fails when rushed or not re-signed',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const child = spawn(
      process.execPath,
      [
        'packages/lab/bin/lab.ts',
        'run',
        'healthy-signed',
        '--',
        process.execPath,
        'bench/rollover/run.ts',
        '--fast',
        'clean',
        'rushed',
        'stopped',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // On a timeout too: the lab stops its servers on SIGTERM, and pipes a leftover process still holds are let go,
    // or this file's process (and the whole test run) would wait on them.
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      child.stdout.destroy();
      child.stderr.destroy();
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, `${stdout.slice(-3000)}\n${stderr.slice(-2000)}`);
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, stdout.slice(-3000));
    const result = JSON.parse(line.slice('RESULT '.length)) as { ttl: number; outcomes: Outcome[] };
    for (const o of result.outcomes)
      t.diagnostic(
        `${o.scenario}: alerts ${o.alerts.map((a) => `+${a.at}s ${a.text}`).join('; ') || 'none'}; first delv failure ${o.firstDelvFailure === undefined ? 'none' : `+${o.firstDelvFailure}s`}`,
      );
    const of = (name: string) => result.outcomes.find((o) => o.scenario === name);
    const clean = of('clean');
    assert.deepEqual(clean?.alerts, [], stdout);
    assert.equal(clean?.firstDelvFailure, undefined, 'delv validated all through the clean rollover');
    for (const name of ['rushed', 'stopped']) {
      const outcome = of(name);
      const alert = outcome?.alerts[0];
      assert.ok(alert !== undefined && outcome?.firstDelvFailure !== undefined, `${name}: an alert and a failure\n${stdout}`);
      assert.ok(
        outcome.firstDelvFailure - alert.at >= 2 * result.ttl,
        `${name}: alert at +${alert.at} s, delv fails at +${outcome.firstDelvFailure} s`,
      );
    }
    assert.match(of('rushed')?.alerts[0]?.text ?? '', /^ds_left_early DS 13\/\d+\/2/);
    assert.match(of('stopped')?.alerts[0]?.text ?? '', /^signature_expiry roll\. /);
  },
);
