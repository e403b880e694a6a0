// The page shell every console page shares: header, navigation, one main region.
import { readFileSync } from 'node:fs';
import { html, markupText, type Markup } from './html.ts';

export const consoleCss = readFileSync(new URL('./console.css', import.meta.url), 'utf8');

export type Section = 'apps' | 'webhooks' | 'plan' | 'none';

export interface PageInput {
  title: string;
  body: Markup;
  /** Signed-in pages show the navigation and a sign-out button bound to this CSRF token. */
  signedIn?: { email: string; csrf: string; section: Section } | undefined;
  narrow?: boolean;
}

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
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar">
  <span class="brand">Store admin</span>
  ${nav === undefined
    ? ''
    : html`<nav aria-label="Main">
    <a href="/admin/apps" ${current('apps')}>API Apps &amp; Integrations</a>
    <a href="/admin/webhooks" ${current('webhooks')}>Webhooks</a>
    <a href="/admin/plan" ${current('plan')}>Store plan</a>
  </nav>
  <span class="who">${nav.email}</span>
  <form method="post" action="/admin/sign-out"><input type="hidden" name="_csrf" value="${nav.csrf}"><button type="submit">Sign out</button></form>`}
</div></header>
<main id="main" class="${input.narrow === true ? 'narrow' : ''}">
${input.body}
</main>
</body>
</html>
`)
  );
}

export function crumbs(...items: string[]): Markup {
  return html`<nav aria-label="Breadcrumb"><ol class="crumbs">${items.map((item) => html`<li>${item}</li>`)}</ol></nav>`;
}

export function errorBox(messages: readonly string[]): Markup {
  if (messages.length === 0) return html``;
  return html`<div class="error" role="alert"><strong>Please fix this:</strong><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>`;
}
