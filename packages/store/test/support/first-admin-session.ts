// The console session of the admin a store's first start made, signed in over HTTP as a browser does:
// the setup of every test that reads or submits the admin console's pages.
import { signInOverHttp, type ConsoleSession } from '../auth/support/console-session.ts';
import type { StoreUnderTest } from './store-under-test.ts';

export async function firstAdminSession(sut: StoreUnderTest): Promise<ConsoleSession> {
  const admin = sut.store.firstStart;
  if (admin === undefined) throw new Error('the store under test made no first admin (its database already held a store)');
  const signed = await signInOverHttp(sut, admin.email, admin.password);
  if (signed.session === undefined) throw new Error(`the first admin could not sign in: HTTP ${signed.reply.status}`);
  return signed.session;
}
