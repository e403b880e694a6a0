// A tagged template that escapes every interpolated value unless it is already markup.
const MARKUP = Symbol('markup');

export interface Markup {
  readonly [MARKUP]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function piece(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(piece).join('');
  if (typeof value === 'object') return MARKUP in value ? (value as Markup)[MARKUP] : escapeText(JSON.stringify(value));
  return escapeText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? '');
  });
  return { [MARKUP]: out };
}

export function markupText(markup: Markup): string {
  return markup[MARKUP];
}
