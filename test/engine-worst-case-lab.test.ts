// The zones that keep other engines busy for minutes or for ever (packages/lab/scenarios/worst-case/:
// 88 name servers; 100 with two addresses each, half silent; TCP only; a delegation loop with a lame
// server; 2 s per answer), in one lab whose servers answer after 30 ms as on the Internet. Each must
// end within 60 s with a whole report, and reach every (test case, tag, level) zonemaster-cli 8.0.1
// reached on it (recorded in test/reference-findings/ by `npm run bench:worst-case -- --record`).
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { catalogueDir, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { allModules, dnscheck, keysOf, recordedFullReference, strip, type Finding } from './support/lab-engines.ts';

const folder = join(catalogueDir, 'worst-case');
const scenarios = readdirSync(folder).map((file) => join(folder, file));
const boundSeconds = 60;
const skipReason = await labUnavailableReason();
const comparable = (findings: Finding[]): string[] =>
  keysOf(
    findings.filter((f) => !/^(GLOBAL|MODULE|DEPENDENCY)_VERSION$/.test(f.tag)),
    allModules,
  );

describe('the worst cases at 30 ms per answer', { skip: skipReason ?? false, timeout: 15 * 60_000 }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios, { latency: { minMs: 30, maxMs: 30 } });
  });
  after(async () => {
    await lab?.stop();
  });

  for (const path of scenarios) {
    const domain = strip(scenarioDomain(path));
    test(`${domain}: a whole report within ${boundSeconds} s, with every finding the reference reaches`, async (t) => {
      const started = performance.now();
      const run = await lab.exec(
        process.execPath,
        [dnscheck, domain, '--hints', lab.hintsPath, '--json', '--level', 'INFO', '--no-progress'],
        { timeoutMs: 5 * 60_000 },
      );
      const seconds = (performance.now() - started) / 1000;
      t.diagnostic(`${domain}: ${seconds.toFixed(1)} s`);
      assert.ok(run.stdout.trim().startsWith('['), `no report (exit ${run.code}): ${run.stderr.slice(-400)}`);
      const findings = JSON.parse(run.stdout) as Finding[];
      assert.ok(seconds <= boundSeconds, `${domain} took ${seconds.toFixed(1)} s`);
      // Whole: every module reported, or the run stopped where the reference stops (no working server).
      const modules = new Set(findings.map((f) => f.module.toLowerCase()));
      const stopped = findings.some((f) => f.tag === 'CANNOT_CONTINUE');
      assert.ok(stopped || allModules.every((m) => modules.has(m)), `modules reported: ${[...modules].join(', ')}`);

      const reference = recordedFullReference(domain);
      assert.ok(reference !== undefined, `no recorded reference run for ${domain}: run npm run bench:worst-case -- --record`);
      if (!reference.finished) {
        t.diagnostic(`zonemaster-cli 8.0.1 did not finish ${domain} within ${reference.seconds} s; nothing to compare`);
        return;
      }
      t.diagnostic(`zonemaster-cli 8.0.1: ${reference.seconds} s`);
      const ours = new Set(comparable(findings));
      assert.deepEqual(
        comparable(reference.findings).filter((key) => !ours.has(key)),
        [],
        'every (test case, tag, level) the reference reached',
      );
    });
  }
});
