// The entries the agent itself writes when a test ends without the engine's findings. Their text
// comes from the engine's catalogue (module BACKEND), like every other message.
import type { Finding } from '@app/engine';
import { NO_TEST_CASE } from '../test-case.ts';

const BACKEND = 'BACKEND';

/** The test ran past `max_zonemaster_execution_time` and was stopped. */
export function unableToFinish(maxExecutionSeconds: number): Finding {
  return {
    module: BACKEND,
    testcase: NO_TEST_CASE,
    tag: 'UNABLE_TO_FINISH_TEST',
    level: 'CRITICAL',
    args: { max_execution_time: maxExecutionSeconds },
    timestamp: maxExecutionSeconds,
  };
}

/** The run failed (it threw, or its agent died too often while running it). */
export function testDied(elapsedSeconds: number): Finding {
  return { module: BACKEND, testcase: NO_TEST_CASE, tag: 'TEST_DIED', level: 'CRITICAL', args: {}, timestamp: elapsedSeconds };
}
