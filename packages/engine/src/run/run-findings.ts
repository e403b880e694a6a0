// How a run makes its findings and tells its progress: a finding takes its level from the profile and
// its time from the run's start; progress is reported for each test case done, even when the
// percentage stays the same (71 test cases, 100 steps).
import type { Finding, Message } from '../finding.ts';
import { levelOf, type Profile } from '../profile/profile.ts';

// The reference's name for findings made outside any test case.
export const systemTestCase = 'Unspecified';

export type FindingMaker = (module: string, testcase: string, message: Message) => Finding;

export function findingMaker(profile: Profile, onFinding?: (finding: Finding) => void): FindingMaker {
  const started = performance.now();
  return (module, testcase, message) => {
    const made: Finding = {
      module,
      testcase,
      tag: message.tag,
      level: levelOf(profile, module, message.tag),
      args: message.args,
      timestamp: Math.round(performance.now() - started) / 1000,
    };
    onFinding?.(made);
    return made;
  };
}

export interface ProgressCounter {
  /** One more test case done. */
  testCaseDone(): void;
  /** The run is over. */
  finished(): void;
}

export function progressCounter(
  total: number,
  onProgress?: (percent: number, detail: { done: number; total: number }) => void,
): ProgressCounter {
  let reported = -1;
  let done = 0;
  let reportedDone = -1;
  const report = (percent: number): void => {
    const count = percent === 100 ? total : done;
    if (percent > reported || (percent === reported && count > reportedDone)) onProgress?.(percent, { done: count, total });
    reported = Math.max(reported, percent);
    reportedDone = Math.max(reportedDone, count);
  };
  report(0);
  return {
    testCaseDone: () => {
      done++;
      report(Math.min(99, Math.floor((done / total) * 100)));
    },
    finished: () => report(100),
  };
}
