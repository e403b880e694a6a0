// The message catalogue: text per locale for each MODULE:TAG and each test case. English is complete
// for what the engine emits; other locales fall back to English text where a translation is missing.
import type { Finding } from '../finding.ts';
import da from './da.json' with { type: 'json' };
import en from './en.json' with { type: 'json' };
import es from './es.json' with { type: 'json' };
import fi from './fi.json' with { type: 'json' };
import fr from './fr.json' with { type: 'json' };
import nb from './nb.json' with { type: 'json' };
import sv from './sv.json' with { type: 'json' };

interface LocaleTexts {
  testcases: Record<string, string>;
  messages: Record<string, string>;
}

const catalogues: Record<string, LocaleTexts> = { da, en, es, fi, fr, nb, sv };

export const locales: readonly string[] = Object.freeze(Object.keys(catalogues));

/** Accepts 'fr', 'fr_FR', 'fr-FR'; anything else is English. */
function textsFor(locale: string): LocaleTexts {
  return catalogues[locale.slice(0, 2).toLowerCase()] ?? en;
}

function fill(template: string, args: Finding['args']): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = args[name];
    return value === undefined || value === null ? whole : String(value);
  });
}

/** Text for MODULE:TAG, else for ALL:TAG (tags every module uses, such as TEST_CASE_START). */
export function messageTemplate(module: string, tag: string, locale: string): string | undefined {
  const texts = textsFor(locale).messages;
  const english: Record<string, string> = en.messages;
  const keys = [`${module}:${tag}`, `ALL:${tag}`];
  for (const key of keys) if (texts[key] !== undefined) return texts[key];
  for (const key of keys) if (english[key] !== undefined) return english[key];
  return undefined;
}

export function formatFinding(finding: Finding, locale: string): string {
  const template = messageTemplate(finding.module, finding.tag, locale);
  if (template !== undefined) return fill(template, finding.args);
  // A tag without text still tells the reader everything it carries.
  const args = Object.entries(finding.args).map(([k, v]) => `${k}=${String(v)}`).join('; ');
  return args ? `${finding.tag} (${args})` : finding.tag;
}

export function testCaseDescription(testcase: string, locale: string): string {
  const id = Object.keys(en.testcases).find((known) => known.toLowerCase() === testcase.toLowerCase()) ?? testcase;
  return textsFor(locale).testcases[id] ?? en.testcases[id as keyof typeof en.testcases] ?? testcase;
}

/** Keys present in English but not yet translated in `locale`. */
export function untranslated(locale: string): { testcases: string[]; messages: string[] } {
  const texts = textsFor(locale);
  return {
    testcases: Object.keys(en.testcases).filter((id) => !(id in texts.testcases)),
    messages: Object.keys(en.messages).filter((key) => !(key in texts.messages)),
  };
}

export function englishMessageKeys(): string[] {
  return Object.keys(en.messages);
}
