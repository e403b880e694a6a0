// Language tags as `LANGUAGE.locale` allows them: each listed locale (xx_YY, deprecated), and its
// two-letter prefix when exactly one listed locale has it.
import { isLocale, type Locale } from './messages.ts';
import { invalid, refine, text, type Rule } from './param-rules.ts';

const tagForm = /^[a-z]{2}$|^[a-z]{2}_[A-Z]{2}$/;

export interface LanguageTags {
  /** Every valid tag, sorted. */
  readonly tags: readonly string[];
  /** The two-letter language a valid tag stands for. */
  languageOf(tag: string): string | undefined;
}

export function languageTags(locales: readonly string[]): LanguageTags {
  const byTag = new Map<string, string>();
  const prefixes = new Map<string, number>();
  for (const locale of new Set(locales)) prefixes.set(locale.slice(0, 2), (prefixes.get(locale.slice(0, 2)) ?? 0) + 1);
  for (const locale of new Set(locales)) {
    const short = locale.slice(0, 2);
    if (locale.length === 5) byTag.set(locale, short);
    if (prefixes.get(short) === 1) byTag.set(short, short);
  }
  return { tags: [...byTag.keys()].sort(), languageOf: (tag) => byTag.get(tag) };
}

export function languageTag(tags: LanguageTags): Rule<string> {
  return refine(text, (value, path, issues) => {
    if (!tagForm.test(value)) {
      issues.push({ path, id: 'language_form' });
      return invalid;
    }
    if (tags.languageOf(value) === undefined) {
      issues.push({ path, id: 'language_unknown' });
      return invalid;
    }
    return value;
  });
}

/** The locale for texts in a language; English when we have no texts for it. */
export function messageLocale(tags: LanguageTags, tag: string | undefined): Locale {
  const language = tag === undefined ? undefined : tags.languageOf(tag);
  return language !== undefined && isLocale(language) ? language : 'en';
}
