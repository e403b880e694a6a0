// The params that describe a test, shared by start_domain_test and add_batch_job's test_params.
import type { LoadedProfile } from '../config/profiles.ts';
import { queuesText } from '../config/queues.ts';
import type { TestParams } from '../db/test-params.ts';
import {
  clientId,
  clientVersion,
  dsInfo,
  MAX_DS_RECORDS,
  MAX_NAME_SERVERS,
  nameServer,
  priority,
  profileName,
  queueIn,
} from '../validation/data-types.ts';
import { arrayOf, boolean, optional, text } from '../validation/param-rules.ts';

/** `queues`: those the configuration lists (SERVICE.queues). */
export function testParamFields(profiles: ReadonlyMap<string, LoadedProfile>, queues: readonly number[]) {
  return {
    ipv4: optional(boolean),
    ipv6: optional(boolean),
    nameservers: optional(arrayOf(nameServer, { max: MAX_NAME_SERVERS })),
    ds_info: optional(arrayOf(dsInfo, { max: MAX_DS_RECORDS })),
    profile: optional(profileName(new Set(profiles.keys()))),
    client_id: optional(clientId),
    client_version: optional(clientVersion),
    priority: optional(priority),
    queue: optional(queueIn(queues, queuesText(queues))),
    // Deprecated and ignored in the reference (RPCAPI.pm's start_domain_test schema), so taken and dropped.
    config: optional(text),
  };
}

type Given = Partial<Omit<TestParams, 'domain'>>;

/** Fills in the defaults: the profile's address families, empty lists, the given default priority, queue 0. */
export function normaliseTestParams(
  domain: string,
  given: Given,
  profiles: ReadonlyMap<string, LoadedProfile>,
  defaultPriority: number,
): TestParams {
  const profile = given.profile ?? 'default';
  const loaded = profiles.get(profile);
  const params: TestParams = {
    domain,
    ipv4: given.ipv4 ?? loaded?.ipv4 ?? true,
    ipv6: given.ipv6 ?? loaded?.ipv6 ?? true,
    nameservers: given.nameservers ?? [],
    ds_info: given.ds_info ?? [],
    profile,
    priority: given.priority ?? defaultPriority,
    queue: given.queue ?? 0,
  };
  if (given.client_id !== undefined) params.client_id = given.client_id;
  if (given.client_version !== undefined) params.client_version = given.client_version;
  if (given.language !== undefined) params.language = given.language;
  return params;
}
