// Which form a counted text takes, by the language's plural rules: `<base>_one` and `<base>_other`
// in every locale file and, in a language that has them, `<base>_two` and `<base>_few` too
// (Slovenian: 1 strežnik, 2 strežnika, 3 strežniki, 5 strežnikov). A form the file does not have
// reads as `other`: French's "many" (millions). No DOM or Preact here, so that Node's tests can check
// the forms against the files.
const rules = new Map<string, Intl.PluralRules>();

/** The forms beyond one and other a locale file may add to a counted text. */
export const EXTRA_FORMS: readonly Intl.LDMLPluralRule[] = ['zero', 'two', 'few', 'many'];

export function pluralForm(language: string, count: number): Intl.LDMLPluralRule {
  let languageRules = rules.get(language);
  if (!languageRules) rules.set(language, (languageRules = new Intl.PluralRules(language)));
  return languageRules.select(count);
}

/** The key of `base`'s text for `count` things among `texts` (a locale file's). */
export function pluralKey(language: string, base: string, count: number, texts: Readonly<Record<string, string>>): string {
  const key = `${base}_${pluralForm(language, count)}`;
  return Object.hasOwn(texts, key) ? key : `${base}_other`;
}
