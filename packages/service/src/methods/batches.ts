// add_api_user (administrative), add_batch_job (authenticated), get_batch_job_result.
import { batchStatus, createBatch } from '../db/batches.ts';
import { deprecatedTimestamp, timestamp } from '../db/timestamps.ts';
import { addUser, verifyUser } from '../db/users.ts';
import { MethodError } from '../rpc/errors.ts';
import { method, type CallContext } from '../rpc/method.ts';
import { apiKey, batchId, domainName, username } from '../validation/data-types.ts';
import { arrayOf, object, optional, required } from '../validation/schema.ts';
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
  const methods = {
    add_api_user: method(object({ username: required(username), api_key: required(apiKey) }), {
      guard: onlyFromLoopback,
      run: async ({ username: name, api_key }) => {
        if (!(await addUser(db, name, api_key))) throw new MethodError('User already exists', { username: name });
        return 1;
      },
    }),

    add_batch_job: method(object({
        username: required(username),
        api_key: required(apiKey),
        domains: required(arrayOf(domainName, { min: 1, max: context.config.maxBatchSize })),
        test_params: optional(object(testParamFields(context.profiles))),
      }), {
      run: async ({ username: name, api_key, domains, test_params }) => {
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
      },
    }),

    get_batch_job_result: method(object({ batch_id: required(batchId) }), {
      run: async ({ batch_id }) => {
        const status = await batchStatus(db, batch_id);
        if (status === undefined) throw new MethodError('Unknown batch', { batch_id });
        return status;
      },
    }),
  };
  const { add_api_user, add_batch_job, ...always } = methods;
  // A disabled method is simply absent, which the client sees as -32601.
  return {
    ...always,
    ...(context.config.enableAddApiUser ? { add_api_user } : {}),
    ...(context.config.enableAddBatchJob ? { add_batch_job } : {}),
  };
}
