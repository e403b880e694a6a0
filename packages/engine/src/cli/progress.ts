// Progress on stderr while a run goes on: on a terminal one line redrawn in place (a bar, test cases
// done of total, the modules running, the time so far); otherwise a plain line per step, for logs.
import { uiText } from '../catalogue/catalogue.ts';
import type { Finding } from '../finding.ts';

export interface Progress {
  finding(finding: Finding): void;
  percent(percent: number): void;
  /** Clears the bar so a line can go to stdout; it comes back at the next redraw. */
  clear(): void;
  /** Clears the bar; call once the run is over, before anything else is printed. */
  finish(): void;
}

const BAR_WIDTH = 24;
const REDRAW_MS = 250;

export function startProgress(write: (text: string) => void, options: { interactive: boolean; total: number; locale: string }): Progress {
  const started = performance.now();
  const running = new Map<string, number>();
  let done = 0;
  let percent = 0;
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(1);
  // Test cases that never start (a precondition not met, or the run stopped after Basic) are done at 100%.
  const counted = (): string =>
    uiText('progress.testcases', options.locale, { done: percent === 100 ? options.total : done, total: options.total });

  const count = (finding: Finding): boolean => {
    if (finding.tag === 'TEST_CASE_START') running.set(finding.module, (running.get(finding.module) ?? 0) + 1);
    else if (finding.tag === 'TEST_CASE_END') {
      running.set(finding.module, (running.get(finding.module) ?? 1) - 1);
      done++;
      return true;
    }
    return false;
  };

  if (!options.interactive) {
    return {
      finding: count,
      percent: (value) => {
        percent = value;
        write(`progress ${value}% (${counted()}, ${seconds()} s)\n`);
      },
      clear: () => {},
      finish: () => {},
    };
  }

  const draw = (): void => {
    const filled = Math.round((percent / 100) * BAR_WIDTH);
    const modules = [...running.entries()].filter(([, n]) => n > 0).map(([m]) => m);
    const parts = [
      `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(percent).padStart(3)}%`,
      counted(),
      ...(modules.length ? [modules.join(', ')] : []),
      `${seconds()} s`,
    ];
    // \x1b[2K clears the line, so a shorter line leaves nothing of the longer one before it.
    write(`\r\x1b[2K${parts.join(' · ')}`);
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  return {
    finding(finding) {
      if (count(finding)) draw();
    },
    percent(value) {
      percent = value;
      draw();
    },
    clear() {
      write('\r\x1b[2K');
    },
    finish() {
      clearInterval(timer);
      write('\r\x1b[2K');
    },
  };
}
