// The interface's languages, and which of them a browser's language tag means. No DOM here: the
// service reads it too, to send the page's first HTML in the browser's language.
export const LANGUAGES = ['da', 'en', 'es', 'fi', 'fr', 'nb', 'sv'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (tag: string): tag is Language => (LANGUAGES as readonly string[]).includes(tag);

/** 'sv-SE' is Swedish; Norwegian ('no') and Nynorsk ('nn') get Bokmål; undefined when none of ours. */
export function languageOfTag(tag: string): Language | undefined {
  const primary = tag.toLowerCase().split('-')[0] ?? '';
  const language = primary === 'no' || primary === 'nn' ? 'nb' : primary;
  return isLanguage(language) ? language : undefined;
}
