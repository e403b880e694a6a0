// The servers the Compliance test cases probe: every name and address of the zone whose IP family is on.
import type { TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';

export async function probedServers({ zone }: TestContext): Promise<Nameserver[]> {
  return (await zone.allServers()).filter((s) => zone.familyEnabled(s.family));
}

/** Looked up from the start of the run (a test case's lookAhead), so that the probes need not wait for Basic's turn. */
export const serversAhead = (context: TestContext): Promise<unknown> => context.zone.allServers();

/**
 * `work` on every probed server, each started as soon as the server is known (the parent's glue comes
 * well before the zone's own name servers are resolved), in the order of zone.allServers().
 */
export async function onEachServer<T>(
  context: TestContext,
  work: (server: Nameserver) => Promise<T>,
): Promise<{ server: Nameserver; result: T }[]> {
  const { zone } = context;
  const started = new Map<string, Promise<T>>();
  const start = (servers: readonly Nameserver[]): void => {
    for (const server of servers)
      if (zone.familyEnabled(server.family) && !started.has(server.toString())) started.set(server.toString(), work(server));
  };
  await Promise.all([zone.glue().then(start), zone.ns().then(start)]);
  return Promise.all(
    (await probedServers(context)).map(async (server) => ({ server, result: await (started.get(server.toString()) ?? work(server)) })),
  );
}
