// One lab run's world: the scenario's zone files (built, or reused from the cache) plus this run's
// own named.conf and plan in its working directory.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scenario } from '../scenario/scenario-format.ts';
import { backendPort, bindConfig, trustAnchorsText } from './bind-config.ts';
import { withPolicyCopies } from './bind-policy.ts';
import { buildZones, type BuildProgress } from './build-zones.ts';
import { cachedZones } from './world-cache.ts';
import { serverProcesses } from './server-processes.ts';
import { makeLabCertificates } from './tls-certificates.ts';
import type { Latency } from '../scenario/latency.ts';
import type { WorldPlan } from './world-plan.ts';

export async function buildWorld(
  scenario: Scenario,
  runDir: string,
  options: { cache?: boolean; latency?: Latency; progress?: BuildProgress } = {},
): Promise<WorldPlan> {
  const zones =
    options.cache === false
      ? await buildZones(scenario, runDir, undefined, options.progress)
      : await cachedZones(scenario, options.progress);
  // With latency, the responder fronts every server, since only it can wait before answering.
  const servers = await withPolicyCopies(
    options.latency === undefined ? zones.servers : zones.servers.map((server) => ({ ...server, engine: 'responder' as const })),
    runDir,
  );
  const certificates = await makeLabCertificates(servers, runDir);
  const namedConfPath = join(runDir, 'named.conf');
  await writeFile(
    namedConfPath,
    bindConfig({
      dir: runDir,
      hintsPath: zones.hintsPath,
      servers: servers.filter((s) => s.implementation === 'bind'),
      chaosZoneFiles: zones.chaosZoneFiles,
      trustAnchor: zones.trustAnchor,
      tls: certificates?.files,
    }),
  );
  let trustAnchorsPath: string | undefined;
  if (zones.trustAnchor !== undefined) {
    trustAnchorsPath = join(runDir, 'trust-anchors.conf');
    await writeFile(trustAnchorsPath, trustAnchorsText(zones.trustAnchor));
  }
  const processes = serverProcesses(servers, runDir, backendPort, certificates?.files);
  const silentDotAddresses = servers.flatMap((s) => (s.encrypted?.dot === 'silent' ? s.addresses : []));
  const plan: WorldPlan = {
    dir: runDir,
    hintsPath: zones.hintsPath,
    namedConfPath,
    backendPort,
    servers,
    processes,
    domains: scenario.domains,
    ...(trustAnchorsPath !== undefined && { trustAnchorsPath }),
    ...(options.latency && { latency: options.latency }),
    ...(certificates && { tlsCaPath: certificates.caPath }),
    ...(silentDotAddresses.length > 0 && { silentDotAddresses }),
  };
  await writeFile(join(runDir, 'world.json'), JSON.stringify(plan, null, 2));
  return plan;
}
