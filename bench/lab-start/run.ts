// How long a lab takes to start, against the floor: BIND alone starting the same configuration in a
// bare namespace. Cold (zones built, keys made, zones signed) and cached (zone files reused) starts.
// Usage: npm run bench:lab-start [-- rounds]
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { catalogueNames, labUnavailableReason, startLab } from '@app/lab';
import type { WorldPlan } from '@app/lab';

const rounds = Number(process.argv[2] ?? 3);
const reason = await labUnavailableReason();
if (reason !== undefined) {
  console.error(`bench:lab-start: ${reason}`);
  process.exit(2);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function labStart(scenario: string[], cache: boolean): Promise<number> {
  const started = performance.now();
  const lab = await startLab(scenario, { cache });
  const ms = performance.now() - started;
  await lab.stop();
  return ms;
}

/** BIND alone: a namespace, the addresses, named until "running". */
async function bindAlone(plan: WorldPlan): Promise<number> {
  const ip = [
    'link set lo up',
    ...plan.servers.flatMap((s) =>
      s.addresses.map((a) => (a.includes(':') ? `addr add ${a}/128 dev lo nodad` : `addr add ${a}/32 dev lo`)),
    ),
  ].join('\n');
  const script = `printf '%s\\n' "$1" | ip -batch - && exec named -g -n 1 -c "$2"`;
  const started = performance.now();
  const child = spawn('unshare', ['--net', '--pid', '--fork', '--kill-child', 'sh', '-c', script, 'sh', ip, plan.namedConfPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (/\brunning$/m.test(log)) resolve();
    });
    child.once('exit', () => reject(new Error(`named exited:\n${log}`)));
  });
  const ms = performance.now() - started;
  child.removeAllListeners('exit');
  child.kill('SIGKILL');
  return ms;
}

for (const [label, scenario] of [
  ['healthy-signed', ['healthy-signed']],
  ['whole catalogue', catalogueNames()],
] as const) {
  const kept = await startLab([...scenario], { keepDir: true });
  await kept.stop();
  const plan = JSON.parse(readFileSync(join(kept.dir, 'world.json'), 'utf8')) as WorldPlan;
  const cold: number[] = [];
  const cached: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < rounds; i++) {
    cold.push(await labStart([...scenario], false));
    cached.push(await labStart([...scenario], true));
    floor.push(await bindAlone(plan));
  }
  rmSync(kept.dir, { recursive: true, force: true });
  const [c, h, b] = [median(cold), median(cached), median(floor)];
  console.log(`${label} (${plan.servers.length} servers, median of ${rounds}):`);
  console.log(
    `  BIND alone ${b.toFixed(0)} ms | lab cached ${h.toFixed(0)} ms (${(h / b).toFixed(2)}x BIND alone) | lab cold ${c.toFixed(0)} ms (${(c / h).toFixed(2)}x cached)`,
  );
}
