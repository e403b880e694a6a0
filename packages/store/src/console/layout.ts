// The page shell every console page shares: header, navigation, one main region, and the parts pages
// reuse (breadcrumbs, error box, a value with a copy button).
import { readFileSync } from 'node:fs';
import { html, markupText, type Markup } from './html.ts';

export const consoleCss = readFileSync(new URL('./console.css', import.meta.url), 'utf8');
/** The console's only script: copy buttons. Served from /admin/console.js, so the CSP needs no inline script. */
export const consoleJs = readFileSync(new URL('./console.js', import.meta.url), 'utf8');

export type Section = 'home' | 'apps' | 'webhooks' | 'plan' | 'admins' | 'account' | 'none';

export interface PageInput {
  title: string;
  body: Markup;
  /** Signed-in pages show the navigation and a sign-out button bound to this CSRF token. */
  signedIn?:
    | {
        email: string;
        csrf: string;
        section: Section;
        /** Whether to offer the settings sections; false for admins without settings access. */ settings?: boolean;
      }
    | undefined;
  narrow?: boolean;
}

/** Every one of these pages manages the store, so needs settings access. */
const sections: readonly { section: Section; href: string; text: string }[] = [
  { section: 'apps', href: '/admin/apps', text: 'API Apps & Integrations' },
  { section: 'webhooks', href: '/admin/webhooks', text: 'Webhooks' },
  { section: 'plan', href: '/admin/plan', text: 'Store plan' },
  { section: 'admins', href: '/admin/admins', text: 'Admins' },
];

export function page(input: PageInput): string {
  const nav = input.signedIn;
  const current = (section: Section) => (nav?.section === section ? html`aria-current="page"` : '');
  return (
    '<!doctype html>\n' +
    markupText(html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · Store admin</title>
<link rel="stylesheet" href="/admin/console.css">
<script src="/admin/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar">
  ${nav === undefined ? html`<span class="brand">Store admin</span>` : html`<a class="brand" href="/admin" ${current('home')}>Store admin</a>`}
  ${
    nav === undefined
      ? ''
      : html`<nav aria-label="Main">
    ${nav.settings === false ? '' : sections.map((s) => html`<a href="${s.href}" ${current(s.section)}>${s.text}</a>`)}
    <a href="/api/v1/docs">API docs</a>
  </nav>
  <div class="who"><a href="/admin/account" ${current('account')}>${nav.email}</a>
  <form method="post" action="/admin/sign-out"><input type="hidden" name="_csrf" value="${nav.csrf}"><button type="submit">Sign out</button></form></div>`
  }
</div></header>
<main id="main" class="${input.narrow === true ? 'narrow' : ''}">
${input.body}
</main>
</body>
</html>
`)
  );
}

/** One step of the trail; the last is the page itself and is not a link. */
export interface Crumb {
  text: string;
  href?: string;
}

export const HOME: Crumb = { text: 'Store admin', href: '/admin' };
export const TOOLS_TRAIL: readonly Crumb[] = [
  HOME,
  { text: 'Tools', href: '/admin#tools' },
  { text: 'Apps & Addons', href: '/admin#apps-addons' },
];
export const SETTINGS_TRAIL: readonly Crumb[] = [HOME, { text: 'Settings', href: '/admin#settings' }];

export function crumbs(...items: Crumb[]): Markup {
  const last = items.length - 1;
  return html`<nav aria-label="Breadcrumb"><ol class="crumbs">${items.map((item, i) =>
    i === last || item.href === undefined
      ? html`<li${i === last ? html` aria-current="page"` : ''}>${item.text}</li>`
      : html`<li><a href="${item.href}">${item.text}</a></li>`,
  )}</ol></nav>`;
}

export function errorBox(messages: readonly string[]): Markup {
  if (messages.length === 0) return html``;
  return html`<div class="error" role="alert"><strong>Please fix this:</strong><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>`;
}

/**
 * A value to copy (an id, a secret, a token): the text, selectable, and a Copy button that console.js
 * shows and wires up; without scripts the button stays hidden and the text can still be selected.
 */
export function copyable(id: string, value: string, what: string, secret = true): Markup {
  return html`<div class="copyable"><code class="${secret ? 'secret' : 'value'}" id="${id}">${value}</code><button type="button" class="secondary copy" data-copy="${id}" aria-label="Copy ${what}" hidden>Copy</button><span class="copy-status" role="status" aria-live="polite"></span></div>`;
}
