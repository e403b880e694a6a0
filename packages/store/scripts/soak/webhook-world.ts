// What the webhook soak and its CI-sized test run on: an HTTPS receiver with a certificate of its own, a private
// PostgreSQL and Redis, and store instances behind HAProxy that may deliver to the receiver and trust its certificate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivatePostgres } from '@app/database/testing';
import { receiverCertificate } from '../../test/webhooks/receiver.ts';
import { startPrivateRedis } from '../../test/support/private-redis.ts';
import { startCluster, type Cluster } from '../cluster/cluster.ts';
import { startSoakReceiver, type SoakReceiver } from './receiver-process.ts';

export interface WebhookWorld {
  readonly cluster: Cluster;
  readonly databaseUrl: string;
  readonly receiver: SoakReceiver;
  /** Stops everything and removes its files. */
  readonly stop: () => Promise<void>;
}

/** `name` starts its folder's name in the temporary directory. */
export async function startWebhookWorld(name: string, instances?: number): Promise<WebhookWorld> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const tls = await receiverCertificate();
  const caFile = join(dir, 'receiver-ca.pem');
  writeFileSync(caFile, tls.cert);
  const receiver = await startSoakReceiver({ key: tls.private, cert: tls.cert });
  const postgres = await startPrivatePostgres();
  const redis = await startPrivateRedis();
  const remove = async () => {
    await receiver.close();
    await redis.stop();
    await postgres.remove();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const databaseUrl = await postgres.createDatabase('store');
    const cluster = await startCluster({
      databaseUrl,
      redisUrl: redis.url,
      dir: join(dir, 'cluster'),
      ...(instances === undefined ? {} : { instances }),
      webhookNetworks: '127.0.0.0/8',
      webhookCaFile: caFile,
    });
    return {
      cluster,
      databaseUrl,
      receiver,
      stop: async () => {
        try {
          await cluster.stop();
        } finally {
          await remove();
        }
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
