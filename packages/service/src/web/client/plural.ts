// Which form a counted text takes (`<base>_one` or `<base>_other` in the locale files), by the
// language's plural rules. The seven languages need no other forms: French's "many" (millions) reads
// as "other". No DOM or Preact here, so that Node's tests can check the forms against the files.
const rules = new Map<string, Intl.PluralRules>();

export function pluralForm(language: string, count: number): 'one' | 'other' {
  let languageRules = rules.get(language);
  if (!languageRules) rules.set(language, (languageRules = new Intl.PluralRules(language)));
  return languageRules.select(count) === 'one' ? 'one' : 'other';
}
