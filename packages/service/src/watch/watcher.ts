// The agent side of watches: enqueues due runs as normal tests with a low priority, and once a run is
// finished compares it with the watch's previous one and sends the alerts. Every step is a
// compare-and-set in the database, so several instances share the work without doing any of it twice.
import { readFileSync } from 'node:fs';
import type { Database } from '@app/database';
import type { OutboundPolicy } from '@app/outbound-address';
import type { WatchSettings } from '../config/service-config.ts';
import type { ServiceSchema } from '../db/tables.ts';
import {
  claimDueRun,
  claimFinishedRun,
  dueWatches,
  releaseLostRuns,
  watchesWithFinishedRun,
  type FinishedRun,
  type WatchRow,
} from '../db/watches.ts';
import type { EngineAdapter } from '../engine-adapter.ts';
import { isLanguage } from '../shared/languages.ts';
import { emailMessage, webhookPayload, type Alert } from './alert-message.ts';
import { alertTargets } from '../alerts/alert-targets.ts';
import { compareRuns, worthAlerting } from './changes.ts';
import { newRolloverIssues } from './rollover.ts';
import { rolloverEmail, rolloverPayload, type RolloverAlert } from './rollover-alert.ts';
import { RolloverRuns } from './rollover-runs.ts';
import { parseSchedule } from '../schedules/schedule.ts';
import { sendEmail } from '../alerts/email.ts';
import { deliverWebhook, type WebhookOptions } from '../alerts/webhook.ts';

/** Below batch tests (5) and tests started by hand (10): a watch's run never holds up a person's. */
export const WATCH_PRIORITY = 1;

export interface WatcherOptions {
  database: Database<ServiceSchema>;
  engine: Pick<EngineAdapter, 'formatFinding'>;
  settings: WatchSettings;
  /** The webhook's retries (tests shorten them). */
  webhook?: Omit<WebhookOptions, 'ca' | 'targets'>;
  log?: (line: string) => void;
}

export interface TickOutcome {
  /** Tests enqueued by this instance. */
  enqueued: string[];
  /** Finished runs this instance compared. */
  compared: FinishedRun[];
}

export class Watcher {
  readonly #options: WatcherOptions;
  readonly #log: (line: string) => void;
  readonly #ca: string | undefined;
  readonly #targets: OutboundPolicy;
  readonly #sending = new Set<Promise<void>>();
  readonly #rolloverRuns: RolloverRuns;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<unknown> | undefined;
  #ticks = 0;

  constructor(options: WatcherOptions) {
    this.#options = options;
    this.#log = options.log ?? ((line) => console.error(`watcher: ${line}`));
    this.#ca = options.settings.caFile === undefined ? undefined : readFileSync(options.settings.caFile, 'utf8');
    this.#targets = alertTargets(options.settings);
    this.#rolloverRuns = new RolloverRuns(options.database.db);
  }

  start(): void {
    if (this.#timer !== undefined) return;
    const pollMs = this.#options.settings.pollSeconds * 1000;
    const run = () => {
      this.#ticking = this.tick().catch((error: unknown) => this.#log(`cannot look at the watches (${describe(error)})`));
    };
    this.#timer = setInterval(() => {
      if (this.#ticking === undefined) run();
    }, pollMs);
    run();
  }

  /** Stops polling; alerts being sent are finished (their retries included). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#ticking;
    await this.idle();
  }

  /** Resolves when no alert is being sent. */
  async idle(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all(this.#sending);
  }

  /** One round: enqueue what is due at `at`, compare what has finished. */
  async tick(at = new Date()): Promise<TickOutcome> {
    try {
      const { db } = this.#options.database;
      if (this.#ticks++ % 60 === 0) await releaseLostRuns(db);
      const enqueued: string[] = [];
      for (const watch of await dueWatches(db, at)) {
        const testId = await claimDueRun(db, watch, at, WATCH_PRIORITY, this.#options.database.sqlite);
        if (testId !== undefined) enqueued.push(testId);
      }
      const compared: FinishedRun[] = [];
      for (const watch of await watchesWithFinishedRun(db)) {
        const run = await claimFinishedRun(db, watch);
        if (run === undefined) continue;
        compared.push(run);
        if (run.previousTestId !== null) await this.#compare(run, run.previousTestId);
        await this.#rollover(run);
      }
      return { enqueued, compared };
    } finally {
      this.#ticking = undefined;
    }
  }

  async #compare(run: FinishedRun, previousTestId: string): Promise<void> {
    const { watch } = run;
    const change = await compareRuns(
      this.#options.database.db,
      this.#options.engine as EngineAdapter,
      previousTestId,
      run.testId,
      isLanguage(watch.language) ? watch.language : 'en',
    );
    if (!worthAlerting(change)) return;
    const alert: Alert = { watch, testId: run.testId, previousTestId, change, publicUrl: this.#options.settings.publicUrl };
    this.#log(
      `${watch.domain} changed (${change.overallBefore} → ${change.overallAfter}, ${change.appeared.length} appeared, ${change.disappeared.length} went away); alerting`,
    );
    this.#send(watch, webhookPayload(alert), emailMessage(alert));
  }

  /** DNSSEC over the domain's recent runs: an alert for each rollover issue this run is the first to see. */
  async #rollover(run: FinishedRun): Promise<void> {
    const { watch } = run;
    const schedule = parseSchedule(watch.schedule);
    const intervalSeconds = schedule?.kind === 'every' ? schedule.minutes * 60 : 86_400;
    let issues;
    try {
      issues = newRolloverIssues(await this.#rolloverRuns.upTo(run.testId), intervalSeconds);
    } catch (error) {
      this.#log(`${watch.domain}: DNSSEC rollover not followed (${describe(error)})`);
      return;
    }
    if (issues.length === 0) return;
    const alert: RolloverAlert = { watch, testId: run.testId, issues, publicUrl: this.#options.settings.publicUrl };
    this.#log(`${watch.domain}: DNSSEC ${issues.map((i) => ('record' in i ? `${i.kind} ${i.record}` : i.kind)).join(', ')}; alerting`);
    this.#send(watch, rolloverPayload(alert), rolloverEmail(alert));
  }

  #send(watch: WatchRow, payload: Record<string, unknown>, email: { subject: string; text: string }): void {
    const sending = Promise.all([this.#webhook(watch, payload), this.#email(watch, email)]).then(() => undefined);
    this.#sending.add(sending);
    void sending.finally(() => this.#sending.delete(sending));
  }

  async #webhook(watch: WatchRow, payload: Record<string, unknown>): Promise<void> {
    const { webhook_url: url, webhook_secret: secret } = watch;
    if (url === null || secret === null) return;
    const delivery = await deliverWebhook(url, secret, payload, {
      ...this.#options.webhook,
      targets: this.#targets,
      ...(this.#ca !== undefined && { ca: this.#ca }),
    });
    if (!delivery.delivered)
      this.#log(`webhook of watch ${watch.id} not delivered after ${delivery.attempts} attempt(s): ${delivery.reason}`);
  }

  async #email(watch: WatchRow, message: { subject: string; text: string }): Promise<void> {
    const to = watch.email;
    const smtp = this.#options.settings.smtp;
    if (to === null) return;
    if (smtp === undefined) {
      this.#log(`watch ${watch.id} has an e-mail address but no SMTP server is configured`);
      return;
    }
    try {
      // Only to the operator's SMTP server: the recipient's domain never chooses where this connects.
      await sendEmail({ ...smtp, ...(this.#ca !== undefined && { ca: this.#ca }) }, to, message);
    } catch (error) {
      this.#log(`e-mail of watch ${watch.id} not sent: ${describe(error)}`);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
