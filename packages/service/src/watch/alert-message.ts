// An alert's content: the webhook's JSON body, and the e-mail's subject and text in the watch's
// language (the frame from the web interface's texts, the findings from the engine's catalogue).
import { readFileSync } from 'node:fs';
import { isLanguage, type Language } from '../shared/languages.ts';
import type { WatchRow } from '../db/watches.ts';
import type { ChangedFinding, RunChange } from './changes.ts';

export interface Alert {
  watch: WatchRow;
  testId: string;
  previousTestId: string;
  change: RunChange;
  /** The web interface's address as the recipients reach it, without a final slash. */
  publicUrl: string;
}

export const reportUrl = (alert: Alert) => `${alert.publicUrl}/result/${alert.testId}`;
export const compareUrl = (alert: Alert) => `${alert.publicUrl}/compare/${alert.previousTestId}/${alert.testId}`;

/** The webhook's body (documented in docs/domain-health-api.md, "Watches"). */
export function webhookPayload(alert: Alert) {
  const finding = (f: ChangedFinding) => ({
    module: f.module,
    testcase: f.testcase,
    tag: f.tag,
    level: f.level,
    args: f.args,
    message: f.message,
  });
  return {
    event: 'watch.result_changed',
    watch_id: alert.watch.id,
    domain: alert.watch.domain,
    test_id: alert.testId,
    previous_test_id: alert.previousTestId,
    overall_result: alert.change.overallAfter,
    previous_overall_result: alert.change.overallBefore,
    worse: alert.change.worse,
    report_url: reportUrl(alert),
    compare_url: compareUrl(alert),
    language: alert.watch.language,
    appeared: alert.change.appeared.map(finding),
    disappeared: alert.change.disappeared.map(finding),
    not_tested: alert.change.notTested.map(finding),
  };
}

const textCache = new Map<Language, Record<string, string>>();

export function webTexts(language: Language): Record<string, string> {
  let texts = textCache.get(language);
  if (texts === undefined) {
    const read = (lang: Language) =>
      JSON.parse(readFileSync(new URL(`../shared/locales/${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
    // A key a language lacks reads as English, as in the browser.
    texts = language === 'en' ? read('en') : { ...read('en'), ...read(language) };
    textCache.set(language, texts);
  }
  return texts;
}

export function emailMessage(alert: Alert): { subject: string; text: string } {
  const language = isLanguage(alert.watch.language) ? alert.watch.language : 'en';
  const texts = webTexts(language);
  const t = (key: string, args: Record<string, string | number> = {}) =>
    (texts[key] ?? key).replace(/\{(\w+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
  const domain = alert.watch.domain;
  const { change } = alert;
  const lines = [
    t('alert_intro', { domain }),
    '',
    t('alert_overall', { before: t(`overall_${change.overallBefore}`), after: t(`overall_${change.overallAfter}`) }),
    '',
  ];
  for (const [key, list] of [
    ['appeared', change.appeared],
    ['disappeared', change.disappeared],
    ['alert_not_tested', change.notTested],
  ] as const) {
    if (list.length === 0) continue;
    lines.push(t(key, { count: list.length }));
    for (const f of list) lines.push(`- ${t(`level_${f.level}`)} (${f.testcase}): ${f.message}`);
    lines.push('');
  }
  lines.push(t('alert_report', { url: reportUrl(alert) }), t('alert_compare', { url: compareUrl(alert) }), '');
  return { subject: t('alert_subject', { domain }), text: lines.join('\n') };
}
