// An agent process for the process tests: `dns-service agent`'s own code path, with the scripted
// engine. It prints "started <domain>" as each run begins.
// Environment: AGENT_DATABASE_URL, AGENT_CAPACITY, AGENT_GRACE_MS, AGENT_LEASE_SECONDS, AGENT_HANG=0.
import { runAgentProcess } from '../../src/commands/agent-command.ts';
import { loadConfig } from '../../src/config/service-config.ts';
import { scriptedEngine } from './scripted-engine.ts';

const env = process.env;
const config = {
  ...loadConfig({ env: { DNS_SERVICE_DATABASE_URL: env.AGENT_DATABASE_URL } }),
  frontendProcesses: Number(env.AGENT_CAPACITY ?? '2'),
  batchProcesses: 0,
  pollingIntervalSeconds: 0.05,
};
const engine = scriptedEngine({ hang: env.AGENT_HANG !== '0', onStart: (domain) => console.log(`started ${domain}`) });
const stopped = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
await runAgentProcess(config, Number(env.AGENT_GRACE_MS ?? '10000'), stopped, {
  runTests: engine.runTests,
  leaseSeconds: Number(env.AGENT_LEASE_SECONDS ?? '60'),
});
console.log('exited cleanly');
