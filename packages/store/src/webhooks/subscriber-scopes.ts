// A subscription holds only while its app does. Subscribing checked the token's scopes once (webhooks-plugin.ts);
// a grant revoked, narrowed by a refresh, or run out since would otherwise leave the subscription carrying customers
// or deciding prices for an app that may no longer read or set them. So before each use (a delivery, a reply asked)
// the event's needs are checked again against the scopes of the app's live grants, and a subscription that lost
// them is suspended, with the reason the console shows, until an admin resumes it.
import { allows, parseScopes, requiredScope, type Scope } from '../auth/scopes.ts';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { eventTypes, isEventName } from '../model/event-types.ts';

/** How long an app's scopes are reused: the check runs per delivery, a revocation is seen within this. */
const SCOPES_FRESH_MS = 1000;

export interface SubscriberCheck {
  /** Why the subscription may no longer be used, or undefined while its app holds what its event needs. */
  problem(subscription: Row): Promise<string | undefined>;
  /** Suspends it for that reason (once: a subscription already suspended keeps its first reason). */
  suspend(subscription: Row, reason: string): Promise<void>;
}

export function subscriberCheck(database: StoreDatabase, now: () => number = Date.now): SubscriberCheck {
  const { db } = database;
  const known = new Map<string, { at: number; scopes: Promise<Scope[]> }>();

  /** The scopes of the app's grants that still work: not revoked, and not expired (or still refreshable). */
  async function liveScopes(clientId: string): Promise<Scope[]> {
    const at = new Date(now()).toISOString();
    const rows = await db
      .selectFrom('api_tokens')
      .innerJoin('api_apps', 'api_apps.id', 'api_tokens.app_id')
      .select('api_tokens.scopes')
      .where('api_apps.client_id', '=', clientId)
      .where('api_tokens.revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('api_tokens.expires_at', 'is', null),
          eb('api_tokens.expires_at', '>', at),
          eb('api_tokens.refresh_expires_at', '>', at),
        ]),
      )
      .execute();
    return rows.flatMap((row) => {
      try {
        return parseScopes(String(row.scopes));
      } catch {
        return [];
      }
    });
  }

  function scopesOf(clientId: string): Promise<Scope[]> {
    const cached = known.get(clientId);
    if (cached !== undefined && now() - cached.at < SCOPES_FRESH_MS) return cached.scopes;
    const scopes = liveScopes(clientId);
    known.set(clientId, { at: now(), scopes });
    scopes.catch(() => known.delete(clientId));
    return scopes;
  }

  return {
    async problem(subscription) {
      const clientId = subscription.app_client_id;
      const event = subscription.event_type;
      // Made in the console by an admin, not by an app's token: no grant to lose.
      if (typeof clientId !== 'string' || typeof event !== 'string' || !isEventName(event)) return undefined;
      const { group, write } = eventTypes[event].needs;
      const scopes = await scopesOf(clientId);
      const missing = [
        ...(allows(scopes, 'webhooks', false) ? [] : [requiredScope('webhooks', false)]),
        ...(allows(scopes, group, write) ? [] : [requiredScope(group, write)]),
      ];
      if (missing.length === 0) return undefined;
      return `the app that made it (${clientId}) no longer holds the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''} ${event} needs: its grants were revoked, narrowed or ran out`;
    },
    async suspend(subscription, reason) {
      await db
        .updateTable('webhooks')
        .set({ suspended_at: new Date(now()).toISOString(), suspended_reason: reason.slice(0, 500) })
        .where('id', '=', Number(subscription.id))
        .where('suspended_at', 'is', null)
        .execute();
    },
  };
}
