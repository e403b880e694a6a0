// The interface's own texts (labels, buttons) in the service's languages (languages.ts). English is part of
// the page; another language is fetched when chosen. Findings and test case descriptions come from
// the API in the same language.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import english from '../../shared/locales/en.json' with { type: 'json' };
import { isLanguage, languageOfTag, type Language } from '../../shared/languages.ts';
import { pluralKey } from './plural.ts';

export type StringKey = keyof typeof english;
export type Strings = Record<StringKey, string>;
/** Texts that depend on a number come as `<base>_one` and `<base>_other`, named here by their base. */
export type PluralKey = { [K in StringKey]: K extends `${infer Base}_other` ? Base : never }[StringKey];

export { LANGUAGE_TABLE, LANGUAGES, type Language } from '../../shared/languages.ts';

const STORAGE_KEY = 'language';

/** The language chosen before on this browser, else the browser's first one we have, else English. */
export function initialLanguage(): Language {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(STORAGE_KEY);
  } catch {
    // storage disabled: fall through to the browser's languages
  }
  if (stored !== null && isLanguage(stored)) return stored;
  for (const tag of navigator.languages) {
    const language = languageOfTag(tag);
    if (language) return language;
  }
  return 'en';
}

export function rememberLanguage(language: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not remembered; the switch still applies to this page
  }
}

const loaded = new Map<Language, Strings>([['en', english]]);

export async function loadStrings(language: Language): Promise<Strings> {
  const known = loaded.get(language);
  if (known) return known;
  const response = await fetch(new URL(`../../shared/locales/${language}.json`, import.meta.url));
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  const strings = { ...english, ...((await response.json()) as Partial<Strings>) };
  loaded.set(language, strings);
  return strings;
}

export interface I18n {
  language: Language;
  t: (key: StringKey, args?: Record<string, string | number>) => string;
  /** The text for `count` things (its {count} filled in), in the form the language's plural rules pick. */
  plural: (base: PluralKey, count: number) => string;
  dateTime: (iso: string) => string;
  /** 0 to 100 as a percentage: "40%" in English, "40 %" in Swedish or French. */
  percent: (value: number) => string;
}

/**
 * Where the browser asks for a regional form of the page's language (en-GB, fr-CA), dates and
 * numbers follow it: an English page for a British browser shows "25 Nov 2026, 19:25", not the
 * American "Nov 25, 2026, 7:25 PM".
 */
function regionalLocale(language: Language): string {
  return navigator.languages.find((tag) => languageOfTag(tag) === language) ?? language;
}

export function makeI18n(language: Language, strings: Strings): I18n {
  const locale = regionalLocale(language);
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
  const percentages = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const fill = (text: string, args?: Record<string, string | number>) =>
    text.replace(/\{(\w+)\}/g, (whole, name: string) => (args && name in args ? String(args[name]) : whole));
  const t: I18n['t'] = (key, args) => fill(strings[key], args);
  return {
    language,
    t,
    plural: (base, count) => {
      const texts: Readonly<Record<string, string>> = strings;
      return fill(texts[pluralKey(language, base, count, texts)] ?? base, { count });
    },
    dateTime: (iso) => {
      const date = new Date(iso);
      return Number.isNaN(date.getTime()) ? iso : dates.format(date);
    },
    percent: (value) => percentages.format(value / 100),
  };
}

export const I18nContext = createContext<I18n>(makeI18n('en', english));
export const useI18n = (): I18n => useContext(I18nContext);
