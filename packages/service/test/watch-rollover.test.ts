// The rollover alerts on runs told step by step (test/watch/rollover-story.ts): a clean KSK and ZSK
// rollover gives none; a DS or key that leaves before caches let it go is named; an expiring signature
// is told at least twice its TTL before it expires, once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRolloverIssues, rolloverIssues, type SnapshotRun } from '../src/watch/rollover.ts';
import { START, TTL, story, type Step } from './watch/rollover-story.ts';

const INTERVAL = 60;

/** Every alert the watch would send, run by run. */
function alertsAlong(runs: SnapshotRun[]) {
  return runs.flatMap((_, i) => newRolloverIssues(runs.slice(0, i + 1), INTERVAL).map((issue) => ({ run: i, issue })));
}

// Double-KSK (RFC 6781 §4.1.2) then pre-publish ZSK (§4.1.1.1), each step a full TTL or more after the one before.
const clean: Step[] = [
  { at: 0, keys: ['13/11*', '13/30001'], ds: [11], signers: [30001] },
  { at: 60, keys: ['13/11*', '13/12*', '13/30001'], ds: [11], signers: [30001] },
  { at: 120, keys: ['13/11*', '13/12*', '13/30001'], ds: [12], signers: [30001] },
  { at: 180, keys: ['13/12*', '13/30001'], ds: [12], signers: [30001] },
  { at: 240, keys: ['13/12*', '13/30001', '13/30002'], ds: [12], signers: [30001] },
  { at: 300, keys: ['13/12*', '13/30001', '13/30002'], ds: [12], signers: [30002] },
  { at: 360, keys: ['13/12*', '13/30002'], ds: [12], signers: [30002] },
];

test('a clean KSK and ZSK rollover, every step a TTL apart, gives no alert', () => {
  assert.deepEqual(alertsAlong(story(clean)), []);
});

test('a clean rollover seen by runs a second apart gives none either', () => {
  // Runs closer than the TTL see each step as it happens.
  const dense: Step[] = clean.flatMap((step, i) => {
    const next = clean[i + 1];
    if (next === undefined) return [step];
    return Array.from({ length: next.at - step.at }, (_, s) => ({ ...step, at: step.at + s }));
  });
  assert.deepEqual(alertsAlong(story(dense)), []);
});

test('the DS swapped before the new KSK signs the DNSKEY set: the old DS is named at once', () => {
  const rushed: Step[] = [
    { at: 0, keys: ['13/11*', '13/30001'], ds: [11], signers: [30001] },
    { at: 60, keys: ['13/11*', '13/12', '13/30001'], ds: [11], signers: [30001] },
    { at: 61, keys: ['13/11*', '13/12', '13/30001'], ds: [12], signers: [30001] },
  ];
  const alerts = alertsAlong(story(rushed));
  assert.deepEqual(
    alerts.map((a) => [a.run, a.issue.kind, 'record' in a.issue && a.issue.record]),
    [[2, 'ds_left_early', 'DS 13/11/2']],
  );
});

test('the DS swapped less than a DNSKEY TTL after the new KSK came: cached key sets still need the old DS', () => {
  const early: Step[] = [
    { at: 0, keys: ['13/11*', '13/30001'], ds: [11], signers: [30001] },
    { at: 60, keys: ['13/11*', '13/12*', '13/30001'], ds: [11], signers: [30001] },
    { at: 60 + TTL - 2, keys: ['13/11*', '13/12*', '13/30001'], ds: [12], signers: [30001] },
  ];
  // The run at 60 s saw a set with both keys, but the one at 0 s (without the new KSK) is past its TTL.
  assert.deepEqual(alertsAlong(story(early)), []);
  const seenLate: Step[] = [{ ...early[0], at: 55 }, { ...early[0], at: 59 }, early[2]];
  const alerts = alertsAlong(story(seenLate));
  assert.deepEqual(
    alerts.map((a) => [a.issue.kind, 'record' in a.issue && a.issue.record]),
    [['ds_left_early', 'DS 13/11/2']],
  );
});

test('the old KSK removed right after the DS swap: cached DS sets still name it', () => {
  const rushed: Step[] = [
    { at: 0, keys: ['13/11*', '13/12*', '13/30001'], ds: [11], signers: [30001] },
    { at: 58, keys: ['13/11*', '13/12*', '13/30001'], ds: [11], signers: [30001] },
    { at: 60, keys: ['13/11*', '13/12*', '13/30001'], ds: [12], signers: [30001] },
    { at: 58 + TTL - 3, keys: ['13/12*', '13/30001'], ds: [12], signers: [30001] },
  ];
  const waited: Step[] = [...rushed.slice(0, 3), { ...rushed[3], at: 58 + TTL }];
  assert.deepEqual(
    alertsAlong(story(rushed)).map((a) => [a.run, a.issue.kind, 'record' in a.issue && a.issue.record]),
    [[3, 'key_left_early', 'DNSKEY 13/11']],
  );
  assert.deepEqual(alertsAlong(story(waited)), []);
});

test('the old ZSK removed while RRsets it signed may still be cached', () => {
  const rushed: Step[] = [
    { at: 0, keys: ['13/12*', '13/30001', '13/30002'], ds: [12], signers: [30001] },
    { at: 60, keys: ['13/12*', '13/30002'], ds: [12], signers: [30002] },
  ];
  const withinTtl: Step[] = [{ ...rushed[0], at: 55 }, rushed[1]];
  assert.deepEqual(alertsAlong(story(rushed)), []);
  assert.deepEqual(
    alertsAlong(story(withinTtl)).map((a) => [a.issue.kind, 'record' in a.issue && a.issue.record]),
    [['key_left_early', 'DNSKEY 13/30001']],
  );
});

test('signatures that stop being renewed: told once, at least twice the TTL before they expire', () => {
  const expiresAt = 600;
  const steps: Step[] = Array.from({ length: 12 }, (_, i) => ({
    at: i * INTERVAL,
    keys: ['13/12*', '13/30001'],
    ds: [12],
    signers: [30001],
    expires: expiresAt,
  }));
  const alerts = alertsAlong(story(steps));
  assert.equal(alerts.length, 1);
  const { run, issue } = alerts[0];
  assert.equal(issue.kind, 'signature_expiry');
  const toldAt = steps[run].at;
  assert.ok(expiresAt - toldAt >= 2 * TTL, `told ${expiresAt - toldAt} s before expiry`);
  // The run before was not yet due, so it is not told needlessly early either.
  assert.ok(expiresAt - steps[run - 1].at > 2 * TTL + INTERVAL);
  assert.deepEqual(issue.kind === 'signature_expiry' && [issue.expiration, issue.owner, issue.type, issue.servers.length], [
    START + expiresAt,
    'roll.test.',
    'SOA',
    2,
  ]);
});

test('re-signed signatures move the expiry on, and the watch stays quiet', () => {
  const steps: Step[] = Array.from({ length: 20 }, (_, i) => ({
    at: i * INTERVAL,
    keys: ['13/12*', '13/30001'],
    ds: [12],
    signers: [30001],
    // Re-signed every 5 minutes with 10 minutes of validity.
    expires: Math.floor((i * INTERVAL) / 300) * 300 + 600,
  }));
  assert.deepEqual(alertsAlong(story(steps)), []);
  assert.deepEqual(rolloverIssues([], INTERVAL), []);
});
