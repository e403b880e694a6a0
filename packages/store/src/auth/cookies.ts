// The console's cookies. `__Host-` keeps them to this origin, over HTTPS, on every path.
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = '__Host-store_session';
/** Before sign-in: a random value the sign-in form's CSRF token is bound to. */
export const PRESESSION_COOKIE = '__Host-store_presession';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[name];
  return value === undefined || value === '' ? undefined : value;
}

export function setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  // Lax, not Strict: the OAuth grant page is reached by a redirect from the client app's site.
  void reply.setCookie(name, value, { path: '/', secure: true, httpOnly: true, sameSite: 'lax', maxAge: maxAgeSeconds });
}

export function clearCookie(reply: FastifyReply, name: string): void {
  void reply.clearCookie(name, { path: '/', secure: true, httpOnly: true, sameSite: 'lax' });
}
