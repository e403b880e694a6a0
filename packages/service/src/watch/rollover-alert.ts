// A rollover alert's content: the webhook's JSON body (event watch.dnssec_rollover), and the e-mail's
// subject and text in the watch's language, naming the record and the time that matters.
import { isLanguage } from '../shared/languages.ts';
import type { WatchRow } from '../db/watches.ts';
import { webTexts } from './alert-message.ts';
import type { RolloverIssue } from './rollover.ts';

export interface RolloverAlert {
  watch: WatchRow;
  testId: string;
  issues: RolloverIssue[];
  /** The web interface's address as the recipients reach it, without a final slash. */
  publicUrl: string;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const shown = (seconds: number) => iso(seconds).replace('T', ' ').replace('Z', ' UTC');

export const historyUrl = (alert: RolloverAlert) => `${alert.publicUrl}/history/${encodeURIComponent(alert.watch.domain)}`;

function issueText(issue: RolloverIssue, t: (key: string, args: Record<string, string | number>) => string): string {
  if (issue.kind === 'signature_expiry')
    return t('rollover_signature_expiry', {
      rrset: `${issue.owner} ${issue.type}`,
      expires: shown(issue.expiration),
      deadline: shown(issue.expiration - issue.ttl),
      ttl: issue.ttl,
      servers: issue.servers.join(', '),
    });
  return t(`rollover_${issue.kind}`, { record: issue.record, until: shown(issue.neededUntil), ttl: issue.ttl });
}

function translator(alert: RolloverAlert) {
  const texts = webTexts(isLanguage(alert.watch.language) ? alert.watch.language : 'en');
  return (key: string, args: Record<string, string | number> = {}) =>
    (texts[key] ?? key).replace(/\{(\w+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
}

/** The webhook's body (documented in docs/domain-health-api.md, "Watches"). */
export function rolloverPayload(alert: RolloverAlert) {
  const t = translator(alert);
  return {
    event: 'watch.dnssec_rollover',
    watch_id: alert.watch.id,
    domain: alert.watch.domain,
    test_id: alert.testId,
    language: alert.watch.language,
    report_url: `${alert.publicUrl}/result/${alert.testId}`,
    history_url: historyUrl(alert),
    issues: alert.issues.map((issue) =>
      issue.kind === 'signature_expiry'
        ? {
            kind: issue.kind,
            owner: issue.owner,
            type: issue.type,
            expiration: iso(issue.expiration),
            ttl: issue.ttl,
            servers: issue.servers,
            message: issueText(issue, t),
          }
        : { kind: issue.kind, record: issue.record, ttl: issue.ttl, needed_until: iso(issue.neededUntil), message: issueText(issue, t) },
    ),
  };
}

export function rolloverEmail(alert: RolloverAlert): { subject: string; text: string } {
  const t = translator(alert);
  const domain = alert.watch.domain;
  const lines = [t('rollover_intro', { domain }), '', ...alert.issues.map((issue) => `- ${issueText(issue, t)}`), ''];
  lines.push(
    t('alert_report', { url: `${alert.publicUrl}/result/${alert.testId}` }),
    t('rollover_history', { url: historyUrl(alert) }),
    '',
  );
  return { subject: t('rollover_subject', { domain }), text: lines.join('\n') };
}
