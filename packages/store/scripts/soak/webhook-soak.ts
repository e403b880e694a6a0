// `npm run soak:webhooks`: webhook delivery under faults at full size. Three `store serve` instances on one private
// PostgreSQL and Redis behind HAProxy (scripts/cluster); subscriptions to ProductCreated at an HTTPS receiver; 500
// products created a second for 5 minutes through HAProxy; at 60 s the instance holding the most subscriptions' leases
// is SIGKILLed (started again 5 s later), from 120 s to 240 s the receiver is down. Prints, per subscription, events
// lost, out of order and duplicated without the same webhook-id (goals 0), then the delivery latency while the
// receiver was up, how long its backlog took to go once it was back, and the load average.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { privatePostgresUnavailableReason } from '@app/database/testing';
import { runWebhookSoak } from './webhook-scenario.ts';
import { startWebhookWorld } from './webhook-world.ts';

const { values } = parseArgs({
  options: {
    rate: { type: 'string' },
    seconds: { type: 'string' },
    subscriptions: { type: 'string' },
    instances: { type: 'string' },
    'kill-at': { type: 'string' },
    'down-at': { type: 'string' },
    'down-for': { type: 'string' },
  },
});
const RATE = Number(values.rate ?? 500);
const SECONDS = Number(values.seconds ?? 300);
const SUBSCRIPTIONS = Number(values.subscriptions ?? 2);
const INSTANCES = Number(values.instances ?? 3);
const KILL_AT_S = Number(values['kill-at'] ?? 60);
const DOWN_AT_S = Number(values['down-at'] ?? 120);
const DOWN_FOR_S = Number(values['down-for'] ?? 120);

const unavailable = privatePostgresUnavailableReason();
if (unavailable !== undefined) {
  console.error(`soak:webhooks needs a private PostgreSQL: ${unavailable}`);
  process.exit(1);
}
const loads = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const { cluster, databaseUrl, receiver, stop } = await startWebhookWorld('webhook-soak', INSTANCES);
try {
  console.log(
    `${RATE} ProductCreated events/s for ${SECONDS} s through HAProxy to ${INSTANCES} instances on PostgreSQL, ${SUBSCRIPTIONS} subscriptions; SIGKILL at ${KILL_AT_S} s, receiver down ${DOWN_AT_S}-${DOWN_AT_S + DOWN_FOR_S} s; load average ${loads()}`,
  );
  const started = Date.now();
  const result = await runWebhookSoak({
    cluster,
    databaseUrl,
    receiver,
    rate: RATE,
    seconds: SECONDS,
    subscriptions: SUBSCRIPTIONS,
    killAtS: KILL_AT_S,
    restartAfterS: 5,
    downAtS: DOWN_AT_S,
    downForS: DOWN_FOR_S,
    drainLimitS: 300,
    log: (line) => console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${line}`),
  });
  console.log(
    `${result.writes} writes, ${result.acknowledged} acknowledged (${result.answeredPerS.toFixed(0)}/s while the load ran), ${result.unanswered} never answered; every event arrived ${result.drainedS.toFixed(1)} s after the load; load average ${loads()}`,
  );
  for (const each of result.subscriptions)
    console.log(
      `subscription ${each.path}: ${each.produced} events; lost ${each.lost}, out of order ${each.outOfOrder}, duplicated without the same webhook-id ${each.duplicatedWithoutSameId} (goals 0); repeats of a webhook-id ${each.repeatsOfSameId}; first arrivals in another order than the event log's ${each.otherThanLog} (concurrent writes)`,
    );
  const { latency, latencyAfterTakeover } = result;
  console.log(
    `delivery latency while the receiver was up (${latency.count} events): p50 ${seconds(latency.p50)}, p99 ${seconds(latency.p99)}, max ${seconds(latency.max)} (goal p99 <= 1 s)`,
  );
  console.log(
    `  leaving out writes from 1 s before the SIGKILL to 30 s after (${latencyAfterTakeover.count} events): p50 ${seconds(latencyAfterTakeover.p50)}, p99 ${seconds(latencyAfterTakeover.p99)}, max ${seconds(latencyAfterTakeover.max)}`,
  );
  console.log(
    `backlog gone ${result.backlogGoneMs === undefined ? '(no outage)' : seconds(result.backlogGoneMs)} after the receiver came back (goal <= 60 s)`,
  );
  const broken = result.subscriptions.some((each) => each.lost + each.outOfOrder + each.duplicatedWithoutSameId > 0);
  if (broken || result.unanswered > 0) process.exitCode = 1;
} finally {
  await stop();
}
