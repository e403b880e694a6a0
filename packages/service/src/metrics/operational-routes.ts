// GET /metrics (Prometheus text format), /healthz (the process answers) and /readyz (the database
// answers and an agent was seen recently): for operators' monitoring, next to the RPC endpoint.
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { ServiceSchema } from '../db/tables.ts';
import { AGENT_ALIVE_SECONDS, agentsAlive, type ServiceMetrics } from './service-metrics.ts';

export function registerOperationalRoutes(app: FastifyInstance, db: Kysely<ServiceSchema>, metrics: ServiceMetrics): void {
  const noStore = { 'cache-control': 'no-store' };

  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.headers(noStore).type(metrics.registry.contentType).send(text);
  });

  app.get('/healthz', (_request, reply) => reply.headers(noStore).send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const problems: string[] = [];
    let agents = 0;
    try {
      await sql`select 1`.execute(db);
      agents = await agentsAlive(db);
      if (agents === 0) problems.push(`no agent seen in the last ${AGENT_ALIVE_SECONDS} s`);
    } catch {
      problems.push('the database does not answer');
    }
    return reply
      .code(problems.length === 0 ? 200 : 503)
      .headers(noStore)
      .send({ status: problems.length === 0 ? 'ready' : 'not ready', agents_alive: agents, ...(problems.length > 0 && { problems }) });
  });
}
