// `dns-service watch add|list|remove`: an operator's hand on the watches, straight in the database
// (no API user needed). Input goes through the same rules as the JSON-RPC methods.
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '@app/database';
import { loadProfiles, type LoadedProfile } from '../config/profiles.ts';
import { ConfigError, loadConfig, type ServiceConfig } from '../config/service-config.ts';
import { migrations, PRODUCT } from '../db/migrations.ts';
import type { ServiceSchema } from '../db/tables.ts';
import { addWatch, listWatches, removeWatch } from '../db/watches.ts';
import { watchView } from '../methods/watches.ts';
import { normaliseTestParams, testParamFields } from '../methods/test-params-rule.ts';
import { validationMessage } from '../validation/messages.ts';
import { batchId, domainName } from '../validation/data-types.ts';
import { invalid, object, optional, required, type Issue } from '../validation/param-rules.ts';
import { emailAddress, scheduleRule, watchLanguage, webhookUrl } from '../validation/watch-fields.ts';
import { alertTargets } from '../alerts/alert-targets.ts';
import { firstRun, parseSchedule, scheduleText } from '../schedules/schedule.ts';
import { WATCH_PRIORITY } from '../watch/watcher.ts';
import { randomBytes } from 'node:crypto';

export const watchUsage = `dns-service watch add DOMAIN --schedule "every 6h"|"daily 03:00" [--ns NAME[/IP]]... [--ds KEYTAG,ALG,DIGTYPE,DIGEST]...
           [--profile NAME] [--no-ipv4] [--no-ipv6] [--language xx] [--webhook https://...] [--email ADDRESS] [--config FILE]
       dns-service watch list [--domain DOMAIN] [--json] [--config FILE]
       dns-service watch remove ID [--config FILE]`;

const watchOptions = {
  config: { type: 'string' },
  schedule: { type: 'string' },
  ns: { type: 'string', multiple: true },
  ds: { type: 'string', multiple: true },
  profile: { type: 'string' },
  'no-ipv4': { type: 'boolean' },
  'no-ipv6': { type: 'boolean' },
  language: { type: 'string' },
  webhook: { type: 'string' },
  email: { type: 'string' },
  domain: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function watchCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: watchOptions,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\nUsage: ${watchUsage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [action, argument] = positionals;
  if (!(action === 'add' && argument !== undefined) && action !== 'list' && !(action === 'remove' && argument !== undefined)) {
    console.error(`Usage: ${watchUsage}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(values.config === undefined ? {} : { file: values.config });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return 2;
  }
  const profiles = loadProfiles(config.profiles);
  const database = await openDatabase<ServiceSchema>(config.databaseUrl);
  try {
    await migrateToLatest(database, PRODUCT, migrations);
    if (action === 'list') return await listCommand(database.db, values);
    if (action === 'remove') return await removeCommand(database.db, argument);
    return await addCommand(database, argument, values, config, profiles);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`dns-service: ${error.message}`);
    return 2;
  } finally {
    await database.close();
  }
}

type Values = ReturnType<typeof parseArgs<{ options: typeof watchOptions; allowPositionals: true }>>['values'];

async function listCommand(db: Kysely<ServiceSchema>, values: Values): Promise<number> {
  const domain = values.domain === undefined ? undefined : check(domainName, values.domain, '--domain');
  const watches = (await listWatches(db, domain === undefined ? {} : { domain })).map(watchView);
  if (values.json === true) console.log(JSON.stringify(watches, null, 2));
  else if (watches.length === 0) console.log('No watches.');
  else {
    for (const w of watches) {
      const to = [w.webhook_url, w.email].filter((t) => t !== null).join(', ') || 'no alerts';
      console.log(`${w.watch_id}\t${w.domain}\t${w.schedule}\tnext ${w.next_run_at}\t${w.language}\t${to}`);
    }
  }
  return 0;
}

async function removeCommand(db: Kysely<ServiceSchema>, argument: string): Promise<number> {
  const id = check(batchId, argument, 'ID');
  if (!(await removeWatch(db, id))) {
    console.error(`dns-service: no watch ${id}`);
    return 1;
  }
  console.log(`Removed watch ${id}.`);
  return 0;
}

async function addCommand(
  { db, dialect }: Database<ServiceSchema>,
  argument: string,
  values: Values,
  config: ServiceConfig,
  profiles: Map<string, LoadedProfile>,
): Promise<number> {
  const { ipv4, ipv6, nameservers, ds_info, profile } = testParamFields(profiles, config.queues);
  const rule = object({
    domain: required(domainName),
    schedule: required(scheduleRule),
    language: optional(watchLanguage),
    webhook_url: optional(webhookUrl(alertTargets(config.watch))),
    email: optional(emailAddress),
    ipv4,
    ipv6,
    nameservers,
    ds_info,
    profile,
  });
  const given = check(
    rule,
    {
      domain: argument,
      schedule: values.schedule,
      ...(values.language !== undefined && { language: values.language }),
      ...(values.webhook !== undefined && { webhook_url: values.webhook }),
      ...(values.email !== undefined && { email: values.email }),
      ...(values['no-ipv4'] === true && { ipv4: false }),
      ...(values['no-ipv6'] === true && { ipv6: false }),
      ...(values.profile !== undefined && { profile: values.profile }),
      ...(values.ns !== undefined && {
        nameservers: values.ns.map((text) => ({
          ns: text.split('/')[0],
          ...(text.includes('/') && { ip: text.slice(text.indexOf('/') + 1) }),
        })),
      }),
      ...(values.ds !== undefined && {
        ds_info: values.ds.map((text) => {
          const [keytag, algorithm, digtype, digest] = text.split(',');
          return { keytag, algorithm, digtype, digest };
        }),
      }),
    },
    'watch add',
  );
  const { domain, schedule, language, webhook_url, email, ...testFields } = given;
  if (email !== undefined && config.watch.smtp === undefined)
    throw new UsageError('--email needs an SMTP server: set [SMTP] host and from in the configuration');
  const parsedSchedule = parseSchedule(schedule);
  if (parsedSchedule === undefined) throw new UsageError(`--schedule: ${validationMessage('schedule', 'en')}`);
  const secret = webhook_url === undefined ? undefined : randomBytes(24).toString('base64url');
  const firstRunAt = firstRun(parsedSchedule, new Date()).toISOString();
  const id = await addWatch(db, dialect, {
    username: null,
    params: normaliseTestParams(domain, testFields, profiles, WATCH_PRIORITY),
    schedule: scheduleText(parsedSchedule),
    language: language ?? 'en',
    ...(webhook_url !== undefined && secret !== undefined && { webhookUrl: webhook_url, webhookSecret: secret }),
    ...(email !== undefined && { email }),
    firstRunAt,
  });
  console.log(`Watch ${id}: ${domain} ${scheduleText(parsedSchedule)}, first run ${firstRunAt.slice(0, 19)}Z.`);
  if (secret !== undefined) console.log(`Webhook secret (shown once; the receiver checks X-Watch-Signature with it): ${secret}`);
  return 0;
}

class UsageError extends Error {
  override name = 'UsageError';
}

/** The rule's value, or a UsageError naming each field's problem in English. */
function check<T>(rule: (value: unknown, path: string, issues: Issue[]) => T | typeof invalid, value: unknown, what: string): T {
  const issues: Issue[] = [];
  const result = rule(value, '', issues);
  if (result === invalid || issues.length > 0) {
    throw new UsageError(
      `${what}: ${issues.map((i) => `${i.path === '' ? '' : `${i.path}: `}${validationMessage(i.id, 'en', i.args)}`).join('; ')}`,
    );
  }
  return result;
}
