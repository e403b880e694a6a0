// --chain-json and --chain-svg: the chain of a run (live or restored), written as grok-shaped JSON or drawn.
import { writeFile } from 'node:fs/promises';
import type { Exchange } from '../net/network.ts';
import { analyseChain } from './analyse-chain.ts';
import { drawChainSvg } from './draw-chain.ts';
import { toDnsvizJson } from './dnsviz-json.ts';

/** Writes the chain of a run as grok-shaped JSON (`json`) and/or as an SVG picture (`svg`). */
export async function writeChain(
  files: { json?: string; svg?: string },
  run: { domain: string; exchanges: readonly Exchange[]; at?: Date },
): Promise<void> {
  const analysis = analyseChain(run);
  if (files.json) await writeFile(files.json, `${JSON.stringify(toDnsvizJson(analysis), null, 1)}\n`);
  if (files.svg) await writeFile(files.svg, drawChainSvg(analysis));
}
