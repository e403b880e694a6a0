// `dns-service serve [--config FILE]`: the RPC API. (The agent command belongs to issue 7.)
import { parseArgs } from 'node:util';
import { createRpcService } from './app.ts';
import { ConfigError, loadConfig } from './config/service-config.ts';

const usage = 'Usage: dns-service serve [--config FILE] [--listen HOST:PORT]';

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string' }, listen: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const [command] = parsed.positionals;
  if (parsed.values.help === true || command !== 'serve') {
    console.error(usage);
    return parsed.values.help === true ? 0 : 2;
  }
  let config;
  try {
    const env = parsed.values.listen === undefined ? process.env : { ...process.env, DNS_SERVICE_LISTEN: parsed.values.listen };
    config = loadConfig({ ...(parsed.values.config === undefined ? {} : { file: parsed.values.config }), env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  const service = await createRpcService(config);
  const address = await service.app.listen({ host: config.listen.host, port: config.listen.port });
  console.log(`dns-service: JSON-RPC API on ${address} (${service.context.database.description})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await service.close();
  return 0;
}
