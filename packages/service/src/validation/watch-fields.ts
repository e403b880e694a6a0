// The fields a watch adds to a test's params: its schedule, the alerts' language, and where alerts go.
import { LANGUAGES } from '../web/client/languages.ts';
import { parseSchedule } from '../watch/schedule.ts';
import { invalid, oneOf, refine, text, type Rule } from './param-rules.ts';

export const scheduleRule: Rule<string> = refine(text, (value, path, issues) => {
  if (value.length > 64 || parseSchedule(value) === undefined) {
    issues.push({ path, id: 'schedule' });
    return invalid;
  }
  return value;
});

export const watchLanguage = oneOf(LANGUAGES, 'watch_language');

/** An https address with a host: alerts carry findings, which should not cross a network in the clear. */
export const webhookUrl: Rule<string> = refine(text, (value, path, issues) => {
  const url = value.length <= 2000 && URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    issues.push({ path, id: 'webhook_url' });
    return invalid;
  }
  return url.toString();
});

// One address, no display name: enough to refuse a list or a header injection; the SMTP server judges the rest.
export const emailAddress: Rule<string> = refine(text, (value, path, issues) => {
  if (value.length > 254 || !/^[^\s@<>(),;:"[\]\\]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i.test(value)) {
    issues.push({ path, id: 'email' });
    return invalid;
  }
  return value;
});
