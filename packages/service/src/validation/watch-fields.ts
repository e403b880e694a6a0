// The fields a watch adds to a test's params: its schedule, the alerts' language, and where alerts go.
import { hostProblem, type OutboundPolicy } from '@app/outbound-address';
import { LANGUAGES } from '../shared/languages.ts';
import { parseSchedule } from '../schedules/schedule.ts';
import { invalid, oneOf, refine, text, type Rule } from './param-rules.ts';

export const scheduleRule: Rule<string> = refine(text, (value, path, issues) => {
  if (value.length > 64 || parseSchedule(value) === undefined) {
    issues.push({ path, id: 'schedule' });
    return invalid;
  }
  return value;
});

export const watchLanguage = oneOf(LANGUAGES, 'watch_language');

/**
 * An https address with a host: alerts carry findings, which should not cross a network in the clear. The
 * caller names it, so it must not point into the operator's network (`targets` says what is allowed); a
 * name is judged again on its addresses when the alert is sent.
 */
export function webhookUrl(targets: OutboundPolicy): Rule<string> {
  return refine(text, (value, path, issues) => {
    const url = value.length <= 2000 && URL.canParse(value) ? new URL(value) : undefined;
    if (url?.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
      issues.push({ path, id: 'webhook_url' });
      return invalid;
    }
    if (hostProblem(targets, url) !== undefined) {
      issues.push({ path, id: 'webhook_address' });
      return invalid;
    }
    return url.toString();
  });
}

// One address, no display name: enough to refuse a list or a header injection; the SMTP server judges the rest.
export const emailAddress: Rule<string> = refine(text, (value, path, issues) => {
  if (value.length > 254 || !/^[^\s@<>(),;:"[\]\\]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i.test(value)) {
    issues.push({ path, id: 'email' });
    return invalid;
  }
  return value;
});
