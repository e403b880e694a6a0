// Rollovers told run by run for the rollover tests: what each run of a watch saw of a zone's keys,
// DS and signatures, as the engine's dnssecSnapshot gives it.
import type { DnssecSnapshot } from '@app/engine';
import type { SnapshotRun } from '../../src/watch/rollover.ts';

export interface Step {
  /** Seconds after the story's start. */
  at: number;
  /** DNSKEY ids ("13/tag", flags 257 when the tag is below 20000, else 256); a trailing * signs the DNSKEY set. */
  keys: string[];
  /** Key tags named by the parent's DS (algorithm 13, digest type 2). */
  ds: number[];
  /** Key tags signing the other RRsets. */
  signers: number[];
  /** Seconds after the start when the first signature expires. */
  expires?: number;
}

export const START = 1_800_000_000;
export const TTL = 10;

export function story(steps: Step[]): SnapshotRun[] {
  return steps.map((step, index) => {
    const keys = step.keys.map((text) => {
      const tag = Number(text.replace(/\D/g, '').slice(2));
      return { id: `13/${tag}`, tag, algorithm: 13, flags: tag < 20000 ? 257 : 256, ttl: TTL, signsKeys: text.endsWith('*') };
    });
    const snapshot: DnssecSnapshot = {
      zone: 'roll.test.',
      servers: ['ns1.roll.test/192.0.2.1', 'ns2.roll.test/192.0.2.2'].map((server) => ({
        server,
        keys,
        signingKeys: step.signers.map((tag) => ({ tag, ttl: TTL })),
        earliestExpiry: {
          expiration: START + (step.expires ?? 100_000),
          inception: START - 3600,
          owner: 'roll.test.',
          type: 'SOA',
          keyTag: step.signers[0] ?? 0,
          ttl: TTL,
        },
      })),
      parents: [
        {
          server: 'ns1.nic.test/192.0.2.9',
          ds: step.ds.map((tag) => ({ id: `13/${tag}/2`, tag, algorithm: 13, digestType: 2, digest: 'AA', ttl: TTL })),
        },
      ],
    };
    return { testId: `run${index}`, at: (START + step.at) * 1000, snapshot };
  });
}
