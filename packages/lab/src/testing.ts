// For test files of any package: one lab per file, started before its tests and stopped after, or a
// skip reason when this machine cannot run labs.
//   const shared = await useLab(['lame-delegation']);
//   test('...', { skip: shared.skip }, async () => { await shared.lab.exec(...) });
import { after, before } from 'node:test';
import { labUnavailableReason } from './namespace/availability.ts';
import { startLab, type Lab, type StartLabOptions } from './namespace/start-lab.ts';

export interface SharedLab {
  /** false when labs run here; otherwise the reason, ready for `test(name, { skip })`. */
  skip: string | false;
  /** The running lab (inside tests only). */
  readonly lab: Lab;
}

export async function useLab(scenarios: string | string[], options?: StartLabOptions): Promise<SharedLab> {
  const reason = await labUnavailableReason();
  if (reason !== undefined) console.log(`# skipping lab tests: ${reason}`);
  let running: Lab | undefined;
  if (reason === undefined) {
    before(async () => {
      running = await startLab(scenarios, options);
    });
    after(async () => {
      await running?.stop();
    });
  }
  return {
    skip: reason ?? false,
    get lab(): Lab {
      if (running === undefined) throw new Error('the lab is only there inside tests (it starts in before())');
      return running;
    },
  };
}
