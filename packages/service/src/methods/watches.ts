// Our watch_add, watch_list and watch_remove: scheduled re-tests of a domain and where their alerts go.
// Each call names an API user and key, as add_batch_job does; a user sees and removes only their own.
import { randomBytes } from 'node:crypto';
import { verifyUser } from '../db/users.ts';
import { addWatch, listWatches, removeWatch, type WatchRow } from '../db/watches.ts';
import { MethodError } from '../rpc/errors.ts';
import { method } from '../rpc/method.ts';
import { apiKey, batchId, domainName, username } from '../validation/data-types.ts';
import { object, optional, required } from '../validation/param-rules.ts';
import { emailAddress, scheduleRule, watchLanguage, webhookUrl } from '../validation/watch-fields.ts';
import { alertTargets } from '../alerts/alert-targets.ts';
import { firstRun, parseSchedule, scheduleText } from '../schedules/schedule.ts';
import { WATCH_PRIORITY } from '../watch/watcher.ts';
import type { ServiceContext } from './context.ts';
import { normaliseTestParams, testParamFields } from './test-params-rule.ts';

/** A watch as the methods and the CLI show it; the webhook's secret is never shown again. */
export function watchView(row: WatchRow) {
  return {
    watch_id: row.id,
    domain: row.domain,
    schedule: row.schedule,
    language: row.language,
    params: JSON.parse(row.params) as unknown,
    webhook_url: row.webhook_url,
    email: row.email,
    created_at: `${row.created_at.slice(0, 19)}Z`,
    next_run_at: `${row.next_run_at.slice(0, 19)}Z`,
    last_test_id: row.last_test,
    pending_test_id: row.pending_test,
  };
}

export function watchMethods(context: ServiceContext) {
  const { db, dialect } = context.database;
  const credentials = { username: required(username), api_key: required(apiKey) };
  const { ipv4, ipv6, nameservers, ds_info, profile } = testParamFields(context.profiles, context.config.queues);
  const authorized = async (name: string, key: string) => {
    if (!(await verifyUser(db, name, key))) throw new MethodError('User not authorized to use watches', { username: name });
  };

  return {
    watch_add: method(
      object({
        ...credentials,
        domain: required(domainName),
        schedule: required(scheduleRule),
        language: optional(watchLanguage),
        webhook_url: optional(webhookUrl(alertTargets(context.config.watch))),
        email: optional(emailAddress),
        ipv4,
        ipv6,
        nameservers,
        ds_info,
        profile,
      }),
      {
        // The alerts' language is also the language of the validation messages.
        acceptsLanguage: true,
        run: async ({ username: name, api_key, domain, schedule, language, webhook_url, email, ...given }) => {
          await authorized(name, api_key);
          if (email !== undefined && context.config.watch.smtp === undefined)
            throw new MethodError('No SMTP server is configured for e-mail alerts', { email });
          const parsed = parseSchedule(schedule);
          if (parsed === undefined) throw new MethodError('Invalid schedule', { schedule });
          // Made here and shown once: the receiver checks signatures with it.
          const secret = webhook_url === undefined ? undefined : randomBytes(24).toString('base64url');
          const firstRunAt = firstRun(parsed, new Date()).toISOString();
          const id = await addWatch(db, dialect, {
            username: name,
            params: normaliseTestParams(domain, given, context.profiles, WATCH_PRIORITY),
            schedule: scheduleText(parsed),
            language: language ?? 'en',
            ...(webhook_url !== undefined && secret !== undefined && { webhookUrl: webhook_url, webhookSecret: secret }),
            ...(email !== undefined && { email }),
            firstRunAt,
          });
          return {
            watch_id: id,
            schedule: scheduleText(parsed),
            next_run_at: `${firstRunAt.slice(0, 19)}Z`,
            ...(secret !== undefined && { webhook_secret: secret }),
          };
        },
      },
    ),
    watch_list: method(object({ ...credentials, domain: optional(domainName) }), {
      run: async ({ username: name, api_key, domain }) => {
        await authorized(name, api_key);
        return { watches: (await listWatches(db, { username: name, ...(domain !== undefined && { domain }) })).map(watchView) };
      },
    }),
    watch_remove: method(object({ ...credentials, watch_id: required(batchId) }), {
      run: async ({ username: name, api_key, watch_id }) => {
        await authorized(name, api_key);
        if (!(await removeWatch(db, watch_id, name))) throw new MethodError('Unknown watch', { watch_id });
        return { removed: true };
      },
    }),
  };
}
