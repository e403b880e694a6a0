// The message catalogue: text per locale for each MODULE:TAG and each test case. It is data on disk,
// `<locale>/<module>.json` ({ TAG: text }) plus `<locale>/testcases.json` and `<locale>/ui.json` (the
// words around findings: column headers, summaries), so each module's texts are edited on their own.
// A text missing in a locale falls back to English.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../finding.ts';
import { utcDate } from './utc-dates.ts';

interface LocaleTexts {
  testcases: Record<string, string>;
  ui: Record<string, string>;
  /** Keyed `MODULE:TAG`. */
  messages: Record<string, string>;
}

function readJson(path: string): Record<string, string> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
}

/** Every `<module>.json` of a locale's folder, keyed MODULE:TAG, beside its testcases.json and ui.json. */
function loadLocale(dir: string): LocaleTexts {
  const texts: LocaleTexts = { testcases: {}, ui: {}, messages: {} };
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const content = readJson(join(dir, file));
    const name = file.slice(0, -'.json'.length);
    if (name === 'testcases' || name === 'ui') texts[name] = content;
    else for (const [tag, text] of Object.entries(content)) texts.messages[`${name.toUpperCase()}:${tag}`] = text;
  }
  return texts;
}

// A locale's files are read the first time one of its texts is asked for: a run shows one locale
// (plus English for fallbacks), and JSON output with --raw none at all.
const localeDirs: ReadonlyMap<string, string> = new Map(
  readdirSync(import.meta.dirname, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => [entry.name, join(import.meta.dirname, entry.name)]),
);
const catalogues = new Map<string, LocaleTexts>();

function loaded(locale: string): LocaleTexts | undefined {
  const dir = localeDirs.get(locale);
  if (dir === undefined) return undefined;
  let texts = catalogues.get(locale);
  if (!texts) {
    texts = loadLocale(dir);
    catalogues.set(locale, texts);
  }
  return texts;
}

const english = (): LocaleTexts => loaded('en')!;

export const locales: readonly string[] = Object.freeze([...localeDirs.keys()].sort());

/** Accepts 'fr', 'fr_FR', 'fr-FR'; anything else is English. */
function textsLocale(locale: string): string {
  const language = locale.slice(0, 2).toLowerCase();
  return localeDirs.has(language) ? language : 'en';
}

function textsFor(locale: string): LocaleTexts {
  return loaded(textsLocale(locale))!;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const gmtime = /^(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})$/;

// Findings carry times as the reference writes them (C's asctime, in UTC), so their arguments stay
// comparable; the reader gets the date in their own language.
function readableTime(text: string, locale: string): string {
  const m = gmtime.exec(text);
  const month = m ? months.indexOf(m[1]) : -1;
  if (!m || month < 0) return text;
  const time = Date.UTC(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return utcDate(time, locale);
}

const given = (args: Finding['args'], name: string): boolean =>
  Object.hasOwn(args, name) && args[name] !== undefined && args[name] !== null;

/**
 * Arguments that engine 9.0.1 renamed, by their older names: a finding stored by an earlier engine
 * (a service's database, a --save file) fills the new placeholder from what it carries.
 */
const formerNames: Readonly<Record<string, readonly string[]>> = {
  ns_list: ['ns_ip_list', 'nsname_list', 'ns'],
  mxrdata_list: ['mailtarget_list'],
};

/** The argument a placeholder names, or the one an earlier engine gave it under another name. */
function argument(args: Finding['args'], name: string): string | undefined {
  const source = [name, ...(formerNames[name] ?? [])].find((candidate) => given(args, candidate));
  return source === undefined ? undefined : String(args[source]);
}

function fill(template: string, args: Finding['args'], locale: string): string {
  // An aside that only names an argument the finding lacks goes: the reference gives no mnemonic for
  // an algorithm number without one, and "algorithm 100 ()" reads as a fault.
  const present = template.replace(/ \(\{(\w+)\}\)/g, (aside, name: string) => (argument(args, name) !== undefined ? aside : ''));
  return present.replace(/\{(\w+)\}/g, (whole, name: string, offset: number) => {
    const value = argument(args, name);
    // An older finding may lack an argument the text now names: a gap reads better than a brace.
    if (value === undefined) return '…';
    const text = name === 'date' ? readableTime(value, locale) : value;
    // A name given fully qualified ('ns1.example.') before the sentence's full stop: one dot, not two.
    return text.length > 1 && text.endsWith('.') && present[offset + whole.length] === '.' ? text.slice(0, -1) : text;
  });
}

function lookup(texts: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(texts, key) ? texts[key] : undefined;
}

/** Text for MODULE:TAG, else for ALL:TAG (tags every module uses, such as TEST_CASE_START). */
export function messageTemplate(module: string, tag: string, locale: string): string | undefined {
  const keys = [`${module.toUpperCase()}:${tag}`, `ALL:${tag}`];
  for (const texts of [textsFor(locale).messages, english().messages]) {
    for (const key of keys) {
      const text = lookup(texts, key);
      if (text !== undefined) return text;
    }
  }
  return undefined;
}

export function formatFinding(finding: Finding, locale: string): string {
  const template = messageTemplate(finding.module, finding.tag, locale);
  if (template !== undefined) return fill(template, finding.args, textsLocale(locale));
  // A tag without text still tells the reader everything it carries.
  const args = Object.entries(finding.args)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('; ');
  return args ? `${finding.tag} (${args})` : finding.tag;
}

export function testCaseDescription(testcase: string, locale: string): string {
  const id = Object.keys(english().testcases).find((known) => known.toLowerCase() === testcase.toLowerCase()) ?? testcase;
  return lookup(textsFor(locale).testcases, id) ?? lookup(english().testcases, id) ?? testcase;
}

/** A piece of the interface (a column header, a summary line) in `locale`, with `{arg}` filled in. */
export function uiText(key: string, locale: string, args: Finding['args'] = {}): string {
  return fill(lookup(textsFor(locale).ui, key) ?? lookup(english().ui, key) ?? key, args, textsLocale(locale));
}

/** Every text of one locale exactly as written there (no English fallback), for the catalogue's tests. */
export function localeTexts(locale: string): Readonly<LocaleTexts> | undefined {
  return loaded(locale);
}
