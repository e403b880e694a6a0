// --chain-json: the chain of a run (live or restored) written as grok-shaped JSON.
import { writeFile } from 'node:fs/promises';
import type { Exchange } from '../net/network.ts';
import { analyseChain } from './analyse-chain.ts';
import { toGrokJson } from './grok-json.ts';

export async function writeChainJson(path: string, run: { domain: string; exchanges: readonly Exchange[]; at?: Date }): Promise<void> {
  const analysis = analyseChain(run);
  await writeFile(path, `${JSON.stringify(toGrokJson(analysis), null, 1)}\n`);
}
