// Signs in to the console over HTTP the way a browser does: a pre-session cookie, the form's CSRF
// token, then the session cookie.
import type { Reply, StoreUnderTest } from '../../support/store-under-test.ts';

export function cookiesOf(reply: Reply): Record<string, string> {
  const header = reply.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return Object.fromEntries(
    lines
      .map((line) => /^([^=]+)=([^;]*)/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

export function csrfIn(text: string): string {
  const value = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
  if (value === undefined) throw new Error('the page has no CSRF token');
  return value;
}

export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
  return params.toString();
}

export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

export const FORM = 'application/x-www-form-urlencoded';

export async function signInOverHttp(
  sut: StoreUnderTest,
  email: string,
  password: string,
): Promise<{ reply: Reply; session?: ConsoleSession }> {
  const origin = new URL(sut.api).origin;
  const page = await sut.call('GET', `${origin}/admin/sign-in`);
  const pre = cookiesOf(page)['__Host-store_presession'];
  const reply = await sut.call('POST', `${origin}/admin/sign-in`, {
    rawBody: form({ _csrf: csrfIn(page.text), email, password, next: '/admin/apps' }),
    headers: { 'content-type': FORM, cookie: `__Host-store_presession=${pre}` },
  });
  const sessionCookie = cookiesOf(reply)['__Host-store_session'];
  if (reply.status !== 303 || sessionCookie === undefined) return { reply };
  const cookie = `__Host-store_session=${sessionCookie}`;
  // The home page: every signed-in admin may see it, settings access or not.
  const home = await sut.call('GET', `${origin}/admin`, { headers: { cookie } });
  return { reply, session: { cookie, csrf: csrfIn(home.text) } };
}
