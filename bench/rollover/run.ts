// The rollover bench: in a world of its own (world.ts) with minute-long key lifetimes, three runs:
// a clean double-KSK and pre-publish ZSK rollover, a rushed one (the DS swapped before the new KSK
// signs), and one whose re-signing stops. Beside them a watch polls the engine (DNSSEC module, chain
// questions, every INTERVAL s), judged by the service's rollover rules, and delv asks the lab's
// validator every second. Prints, per run, each alert and the first failure delv saw, and for the
// stopped run the expiry check_zone_rrsig_expiration reports, found to the second.
//   npm run bench:rollover [-- clean|rushed|stopped ...] [--record FILE]   (a lab around node bench/rollover/run.ts)
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { dnssecSnapshot, runTestsWithChain, type Exchange } from '@app/engine';
import { newRolloverIssues, type SnapshotRun } from '../../packages/service/src/watch/rollover.ts';
import { ROOT_ADDRESS, RolloverWorld, VALIDATOR, ZONE, type ChildState } from './world.ts';
import { pluginExpiry } from './plugin-expiry.ts';

const run = promisify(execFile);
// --fast (the lab test): the same steps in less time; the watch's 60 s allowance for a run stays.
const FAST = process.argv.includes('--fast');
const TTL = FAST ? 4 : 10;
const DS_TTL = FAST ? 24 : 60;
const INTERVAL = FAST ? 6 : 15;
const WARM = FAST ? 8 : 30;
const PAD = FAST ? 4 : 10;
const STOPPED_VALIDITY = FAST ? 90 : 300;
const now = () => Math.floor(Date.now() / 1000);

interface Outcome {
  scenario: string;
  alerts: { at: number; text: string }[];
  firstDelvFailure?: number;
  firstServfail?: number;
  notes: string[];
}

const RUN_LIMIT_MS = 60_000;

/** The watch: an engine run every INTERVAL s, its snapshot judged with the runs before it. */
function startWatch(outcome: Outcome, start: number, lastLog: { exchanges: Exchange[] }) {
  const runs: SnapshotRun[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const began = Date.now();
      const exchanges: Exchange[] = [];
      await runTestsWithChain(
        { domain: ZONE, ipv6: false },
        // A run is bounded as the service bounds one: a run that never ends must not hold the watch (and the bench) forever.
        {
          rootHints: [{ name: 'ns.root', address: ROOT_ADDRESS }],
          only: ['DNSSEC'],
          onExchange: (e) => exchanges.push(e),
          signal: AbortSignal.timeout(RUN_LIMIT_MS),
        },
      );
      lastLog.exchanges = exchanges;
      runs.push({ testId: String(runs.length), at: Date.now(), snapshot: dnssecSnapshot(ZONE, exchanges) });
      for (const issue of newRolloverIssues(runs, INTERVAL)) {
        const what =
          issue.kind === 'signature_expiry'
            ? `${issue.kind} ${issue.owner} ${issue.type} expires at +${issue.expiration - start}s (ttl ${issue.ttl})`
            : `${issue.kind} ${issue.record} needed until +${issue.neededUntil - start}s`;
        outcome.alerts.push({ at: now() - start, text: what });
        console.log(`  +${now() - start}s alert: ${what}`);
      }
      await delay(Math.max(0, INTERVAL * 1000 - (Date.now() - began)));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** delv through the validator every second, and dig for the validator's own answer. */
function startProbes(world: RolloverWorld, outcome: Outcome, start: number) {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const [delv, dig] = await Promise.all([
        run('delv', ['-a', join(world.dir, 'anchors.conf'), `@${VALIDATOR}`, `${ZONE}.`, 'SOA'], { timeout: 8000 }).then(
          (r) => r.stdout + r.stderr,
          (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
        ),
        run('dig', [`@${VALIDATOR}`, `${ZONE}.`, 'SOA', '+tries=1', '+time=3'], { timeout: 8000 }).then(
          (r) => r.stdout,
          () => 'status: TIMEOUT',
        ),
      ]);
      const at = now() - start;
      if (!delv.includes('; fully validated') && outcome.firstDelvFailure === undefined) {
        outcome.firstDelvFailure = at;
        console.log(
          `  +${at}s delv fails: ${
            delv
              .split('\n')
              .find((l) => l.startsWith(';;'))
              ?.trim() ?? delv.trim().slice(0, 120)
          }`,
        );
      }
      if (/status: SERVFAIL/.test(dig) && outcome.firstServfail === undefined) {
        outcome.firstServfail = at;
        console.log(`  +${at}s the validator answers SERVFAIL`);
      }
      await delay(1000);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** Waits until the validator has just fetched roll.'s DS (its cached TTL at least DS_TTL - 2). */
async function afterDsFetch(): Promise<void> {
  for (let i = 0; i < DS_TTL + 5; i++) {
    const { stdout } = await run('dig', [`@${VALIDATOR}`, `${ZONE}.`, 'DS', '+noall', '+answer']);
    const ttl = Number(stdout.trim().split(/\s+/)[1]);
    if (ttl >= DS_TTL - 2) return;
    await delay(1000);
  }
}

async function scenario(name: string, record?: string): Promise<Outcome> {
  const world = new RolloverWorld(mkdtempSync(join(tmpdir(), `rollover-${name}-`)), TTL, DS_TTL);
  const outcome: Outcome = { scenario: name, alerts: [], notes: [] };
  const k1 = world.key(ZONE, true);
  const z1 = world.key(ZONE, false);
  const t0 = now();
  const validity = () => ({ inception: now() - 60, expiration: now() + 600 });
  let state: ChildState = { published: [k1, z1], signing: [k1, z1], ds: [k1], ...validity() };
  if (name === 'stopped') state = { ...state, expiration: t0 + STOPPED_VALIDITY };
  await world.start(state);
  const start = t0;
  const lastLog = { exchanges: [] as Exchange[] };
  const stopProbes = startProbes(world, outcome, start);
  const stopWatch = startWatch(outcome, start, lastLog);
  const step = async (label: string, next: Partial<ChildState>, wait: number) => {
    state = { ...state, ...next, ...(name === 'stopped' ? {} : validity()) };
    world.writeChild(state);
    console.log(`  +${now() - start}s ${label}`);
    await delay(wait * 1000);
  };
  console.log(`${name}: TTL ${TTL} s, DS TTL ${DS_TTL} s, watch every ${INTERVAL} s`);
  await delay(WARM * 1000);
  if (name === 'clean') {
    const k2 = world.key(ZONE, true);
    const z2 = world.key(ZONE, false);
    await step(`KSK ${k2.tag} published and signing the DNSKEY set`, { published: [k1, k2, z1], signing: [k1, k2, z1] }, TTL + PAD);
    await step(`DS swapped ${k1.tag} -> ${k2.tag}`, { ds: [k2] }, DS_TTL + PAD);
    await step(`KSK ${k1.tag} removed`, { published: [k2, z1], signing: [k2, z1] }, TTL + PAD);
    await step(`ZSK ${z2.tag} published`, { published: [k2, z1, z2] }, TTL + PAD);
    await step(`ZSK ${z2.tag} signs, ${z1.tag} no more`, { signing: [k2, z2] }, TTL + PAD);
    await step(`ZSK ${z1.tag} removed`, { published: [k2, z2] }, 4 * PAD);
  } else if (name === 'rushed') {
    const k2 = world.key(ZONE, true);
    await step(`KSK ${k2.tag} published, not signing yet`, { published: [k1, k2, z1] }, TTL + PAD);
    await afterDsFetch();
    await step(`DS swapped ${k1.tag} -> ${k2.tag} while ${k2.tag} signs nothing (rushed)`, { ds: [k2] }, DS_TTL + 3 * PAD);
  } else {
    console.log(`  signatures expire at +${state.expiration - start}s and are never renewed`);
    if (record !== undefined) {
      await delay((state.expiration - now() - 120) * 1000);
      const expiry = await pluginExpiry(world.dir, ZONE, VALIDATOR, ROOT_ADDRESS);
      const ours = dnssecSnapshot(ZONE, lastLog.exchanges).servers.map((s) => s.earliestExpiry?.expiration);
      outcome.notes.push(`check_zone_rrsig_expiration: ${expiry.expiration} (${expiry.status}); ours per server: ${ours.join(', ')}`);
      console.log(`  ${outcome.notes.at(-1)}`);
      const saved = { domain: ZONE, plugin: expiry, savedAt: new Date().toISOString(), exchanges: lastLog.exchanges };
      writeFileSync(record, `${JSON.stringify(saved)}\n`);
    }
    await delay((state.expiration - now() + 2 * PAD) * 1000);
  }
  await stopWatch();
  await stopProbes();
  await world.stop();
  return outcome;
}

const args = process.argv.slice(2);
const recordAt = args.indexOf('--record');
const record = recordAt >= 0 ? args[recordAt + 1] : undefined;
const chosen = args.filter((a) => ['clean', 'rushed', 'stopped'].includes(a));
const outcomes: Outcome[] = [];
for (const name of chosen.length > 0 ? chosen : ['clean', 'rushed', 'stopped']) outcomes.push(await scenario(name, record));
console.log('\nscenario  alerts  first alert  first delv failure  first SERVFAIL  lead (s)  2×TTL');
for (const o of outcomes) {
  const first = o.alerts[0]?.at;
  const failure = o.firstDelvFailure;
  const lead = first !== undefined && failure !== undefined ? failure - first : undefined;
  console.log(
    [
      o.scenario.padEnd(8),
      String(o.alerts.length).padEnd(6),
      `+${first ?? '-'}`.padEnd(11),
      `+${failure ?? '-'}`.padEnd(18),
      `+${o.firstServfail ?? '-'}`.padEnd(14),
      String(lead ?? '-').padEnd(8),
      2 * TTL,
    ].join('  '),
  );
}
// For the lab test: the outcomes in one line.
console.log(`RESULT ${JSON.stringify({ ttl: TTL, dsTtl: DS_TTL, interval: INTERVAL, outcomes })}`);
