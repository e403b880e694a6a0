// A subscription belongs to the app that made it: its deliveries are signed with that app's secrets, so only that
// app reads its signing secret, points it elsewhere or removes it (admins do so in the console).
import type { Principal } from '../auth/principal.ts';
import type { Row } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';

export function madeBy(principal: Principal | undefined, subscription: Row): boolean {
  return principal?.kind === 'token' && principal.appId === subscription.app_client_id;
}

/** A 403 naming the owner, for any caller but the app that made the subscription. */
export function refuseUnlessMadeBy(principal: Principal | undefined, subscription: Row, action: string): void {
  if (madeBy(principal, subscription)) return;
  throw new ApiError(
    403,
    `webhook ${String(subscription.id)}: only the app that made it (App ID ${String(subscription.app_client_id)}) ${action}; admins do so in the console`,
  );
}
