// An engine stand-in for the agent's tests, scripted by the domain's first label, so one queue can
// mix tests that end at once, take a while, hang, ignore their abort signal or throw:
//   sleep<ms>-…  reports progress and ends after <ms>;   hang-…  reports 30 % and waits for the abort;
//   deaf-…       never settles, whatever the signal;      crash-…  throws;   anything else ends at once.
import { setTimeout as delay } from 'node:timers/promises';
import type { Finding } from '@app/engine';
import type { RunTests } from '../../src/agent/agent.ts';

export interface ScriptedEngine {
  runTests: RunTests;
  /** Domains in the order their runs began (a domain twice means it ran twice). */
  started: string[];
  /** Most runs in flight at one time. */
  peak: number;
  /** Signals the runs received, by domain. */
  signals: Map<string, AbortSignal>;
}

export interface ScriptOptions {
  onStart?: (domain: string) => void;
  /** False: hang-… ends at once (a second agent, after the first one died on it). */
  hang?: boolean;
}

export function scriptedEngine(options: ScriptOptions = {}): ScriptedEngine {
  let inFlight = 0;
  const engine: ScriptedEngine = {
    started: [],
    peak: 0,
    signals: new Map(),
    runTests: async (input, run) => {
      const domain = input.domain;
      engine.started.push(domain);
      options.onStart?.(domain);
      const signal = run.signal ?? new AbortController().signal;
      engine.signals.set(domain, signal);
      inFlight++;
      engine.peak = Math.max(engine.peak, inFlight);
      try {
        run.onProgress?.(0);
        const label = domain.split('.')[0] ?? '';
        const sleep = /^sleep(\d+)-/.exec(label);
        if (sleep) {
          const ms = Number(sleep[1]);
          for (const percent of [10, 5, 40, 70]) {
            run.onProgress?.(percent);
            await delay(ms / 4, undefined, { signal });
          }
        } else if (label.startsWith('hang-') && options.hang !== false) {
          run.onProgress?.(30);
          await delay(3_600_000, undefined, { signal });
        } else if (label.startsWith('deaf-')) {
          run.onProgress?.(30);
          await new Promise(() => undefined);
        } else if (label.startsWith('crash-')) {
          throw new Error('scripted crash');
        }
        run.onProgress?.(100);
        const finding: Finding = {
          module: 'BASIC',
          testcase: 'Basic01',
          tag: 'SCRIPTED_RUN',
          level: 'NOTICE',
          args: { domain },
          timestamp: 0.1,
        };
        return [finding];
      } finally {
        inFlight--;
      }
    },
  };
  return engine;
}
