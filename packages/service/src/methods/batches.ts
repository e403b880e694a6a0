// add_api_user (administrative), add_batch_job (authenticated), get_batch_job_result, and their newer names.
import { BatchStatusCache } from '../db/batch-status-cache.ts';
import { createBatch } from '../db/batches.ts';
import { deprecatedTimestamp, timestamp } from '../db/timestamps.ts';
import { addUser, verifyUser } from '../db/users.ts';
import { MethodError } from '../rpc/errors.ts';
import { JsonText } from '../rpc/json-text.ts';
import { method, type CallContext } from '../rpc/method.ts';
import { apiKey, batchId, domainName, username } from '../validation/data-types.ts';
import { arrayOf, boolean, eitherName, object, optional, required } from '../validation/param-rules.ts';
import type { ServiceContext } from './context.ts';
import { normaliseTestParams, testParamFields } from './test-params-rule.ts';

const BATCH_PRIORITY = 5;

/** Loopback by the socket's own peer address; forwarded headers are never consulted. */
export function isLoopback(address: string): boolean {
  return address === '::1' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

function onlyFromLoopback(call: CallContext): void {
  if (!isLoopback(call.remoteAddress)) {
    throw new MethodError('Call to the method not permitted from a remote IP', { remote_ip: call.remoteAddress });
  }
}

export function batchMethods(context: ServiceContext) {
  const { db, dialect } = context.database;
  const batchStatuses = new BatchStatusCache(db, dialect);
  const userParams = object({ username: required(username), api_key: required(apiKey) });
  const createUser = async ({ username: name, api_key }: { username: string; api_key: string }) => {
    if (!(await addUser(db, name, api_key))) throw new MethodError('User already exists', { username: name });
    return 1;
  };
  const batchFields = {
    username: required(username),
    api_key: required(apiKey),
    domains: required(arrayOf(domainName, { min: 1, max: context.config.maxBatchSize })),
    test_params: optional(object(testParamFields(context.profiles, context.config.queues))),
  };
  const batchParams = object(batchFields);
  const batchCreateParams = eitherName(
    object({ ...batchFields, job_params: optional(object(testParamFields(context.profiles, context.config.queues))) }),
    { reference: 'job_params', ours: 'test_params' },
    { required: false },
  );
  const createBatchJob = async ({
    username: name,
    api_key,
    domains,
    test_params,
  }: {
    username: string;
    api_key: string;
    domains: string[];
    test_params?: Parameters<typeof normaliseTestParams>[1];
  }) => {
    if (!(await verifyUser(db, name, api_key))) throw new MethodError('User not authorized to use batch mode', { username: name });
    const tests = domains.map((domain: string) => normaliseTestParams(domain, test_params ?? {}, context.profiles, BATCH_PRIORITY));
    const outcome = await createBatch(db, dialect, name, tests, context.database.sqlite);
    if ('running' in outcome) {
      throw new MethodError('Batch job still running', {
        creation_time: deprecatedTimestamp(outcome.running.created_at),
        created_at: timestamp(outcome.running.created_at),
        batch_id: outcome.running.id,
      });
    }
    return outcome.created;
  };
  const methods = {
    add_api_user: method(userParams, { guard: onlyFromLoopback, run: createUser }),
    add_batch_job: method(batchParams, { run: createBatchJob }),
    get_batch_job_result: method(object({ batch_id: required(batchId) }), {
      run: async ({ batch_id }) => {
        const status = await batchStatuses.json(batch_id);
        if (status === undefined) throw new MethodError('Unknown batch', { batch_id });
        return new JsonText(status);
      },
    }),
    // The reference's newer names (Backend 11).
    user_create: method(userParams, { guard: onlyFromLoopback, run: async (params) => ({ success: await createUser(params) }) }),
    // The reference names the tests' params `job_params` here; our earlier `test_params` is still taken.
    batch_create: method(batchCreateParams, {
      run: async ({ job_params, test_params, ...rest }) => ({
        batch_id: await createBatchJob({ ...rest, test_params: job_params ?? test_params }),
      }),
    }),
    batch_status: method(
      object({
        batch_id: required(batchId),
        list_waiting_tests: optional(boolean),
        list_running_tests: optional(boolean),
        list_finished_tests: optional(boolean),
      }),
      {
        run: async ({ batch_id, list_waiting_tests, list_running_tests, list_finished_tests }) => {
          const status = await batchStatuses.progressJson(batch_id, {
            waiting: list_waiting_tests,
            running: list_running_tests,
            finished: list_finished_tests,
          });
          if (status === undefined) throw new MethodError('Unknown batch', { batch_id });
          return new JsonText(status);
        },
      },
    ),
  };
  const { add_api_user, add_batch_job, user_create, batch_create, ...always } = methods;
  // A disabled method is simply absent, under either name, which the client sees as -32601.
  return {
    ...always,
    ...(context.config.enableAddApiUser ? { add_api_user, user_create } : {}),
    ...(context.config.enableAddBatchJob ? { add_batch_job, batch_create } : {}),
  };
}
