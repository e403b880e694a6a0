// The service's languages, one table for all of it: the interface's switcher and texts, the
// validation messages, and the locales a default configuration offers (LANGUAGE.locale). The
// engine's catalogue must speak each of them (test/languages.test.ts). No DOM here: the service
// reads it too, to send the page's first HTML in the browser's language.
export const LANGUAGE_TABLE = {
  da: { name: 'Dansk', locale: 'da_DK' },
  en: { name: 'English', locale: 'en_US' },
  es: { name: 'Español', locale: 'es_ES' },
  fi: { name: 'Suomi', locale: 'fi_FI' },
  fr: { name: 'Français', locale: 'fr_FR' },
  nb: { name: 'Norsk bokmål', locale: 'nb_NO' },
  sl: { name: 'Slovenščina', locale: 'sl_SI' },
  sv: { name: 'Svenska', locale: 'sv_SE' },
} as const;
export type Language = keyof typeof LANGUAGE_TABLE;
export const LANGUAGES = Object.keys(LANGUAGE_TABLE) as readonly Language[];

export const isLanguage = (tag: string): tag is Language => Object.hasOwn(LANGUAGE_TABLE, tag);

/** 'sv-SE' is Swedish; Norwegian ('no') and Nynorsk ('nn') get Bokmål; undefined when none of ours. */
export function languageOfTag(tag: string): Language | undefined {
  const primary = tag.toLowerCase().split('-')[0] ?? '';
  const language = primary === 'no' || primary === 'nn' ? 'nb' : primary;
  return isLanguage(language) ? language : undefined;
}
