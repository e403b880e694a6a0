// Our extension (not the platform's): a subscription's Standard Webhooks signing secret, read and rotated by the app
// that made it. `GET /webhooks/{id}/signing_secret` answers the secret that signs now; `POST
// /webhooks/{id}/signing_secret/rotate` makes a new one, the old one signing beside it for `overlap_seconds` (default
// a day, at most 7 days), so receivers can switch without missing a delivery.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Row, StoreDatabase } from '../db/schema.ts';
import { ApiError } from '../model/api-error.ts';
import { parseRecordId } from '../http/record-id.ts';
import type { ResourceRouteConfig } from '../model/route-config.ts';
import { refuseUnlessMadeBy } from './subscription-owner.ts';
import { DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS, newSigningNonce, secretText, type SigningKeys } from './standard-signature.ts';

export interface SigningSecretAnswer {
  webhook_id: number;
  /** `whsec_<base64>`, for a Standard Webhooks library. */
  secret: string;
  /** Until when the previous secret signs too (null when none does). */
  previous_secret_expires_at: string | null;
}

export function signingAnswer(keys: SigningKeys, subscription: Row, nowMs = Date.now()): SigningSecretAnswer {
  const until = subscription.previous_signing_until;
  return {
    webhook_id: Number(subscription.id),
    secret: secretText(keys.current(subscription)),
    previous_secret_expires_at: typeof until === 'string' && Date.parse(until) > nowMs ? until : null,
  };
}

/** Rotates a subscription's secret; the previous one keeps signing for `overlapSeconds`. */
export async function rotateSigningSecret(
  database: StoreDatabase,
  subscription: Row,
  overlapSeconds: number,
  nowMs = Date.now(),
): Promise<Row> {
  const values = {
    signing_nonce: newSigningNonce(),
    previous_signing_nonce: subscription.signing_nonce ?? null,
    previous_signing_until: overlapSeconds > 0 ? new Date(nowMs + overlapSeconds * 1000).toISOString() : null,
  };
  // Only from the state read: of two rotations at once, one wins and the other is told to try again.
  const previous = subscription.signing_nonce ?? null;
  const updated = await database.db
    .updateTable('webhooks')
    .set(values)
    .where('id', '=', Number(subscription.id))
    .where((eb) => (previous === null ? eb('signing_nonce', 'is', null) : eb('signing_nonce', '=', previous as string)))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1)
    throw new ApiError(409, `webhook ${String(subscription.id)}: its secret was rotated meanwhile; read it again`);
  return { ...subscription, ...values };
}

const rotateBody = {
  type: ['object', 'null'],
  properties: { overlap_seconds: { type: 'integer', minimum: 0, maximum: MAX_OVERLAP_SECONDS } },
  additionalProperties: false,
};

export function signingRoutes(app: FastifyInstance, options: { database: StoreDatabase; keys: SigningKeys }): Promise<void> {
  const { database, keys } = options;
  // Reading a secret is as strong as writing subscriptions; never cached.
  const config: ResourceRouteConfig = { resource: 'webhooks', scope: 'webhooks', access: 'write', alwaysFresh: true };

  /** The subscription, when the caller is the app that made it (a secret is its app's alone). */
  async function ownSubscription(request: FastifyRequest): Promise<Row> {
    const text = (request.params as { id: string }).id;
    const id = parseRecordId(text);
    const row = id === undefined ? undefined : await database.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw new ApiError(404, `There is no webhook with id ${text}`);
    refuseUnlessMadeBy(request.principal, row, 'reads or rotates its signing secret');
    return row;
  }

  app.get('/webhooks/:id/signing_secret', { config }, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    return signingAnswer(keys, await ownSubscription(request));
  });

  app.post('/webhooks/:id/signing_secret/rotate', { config, schema: { body: rotateBody } }, async (request, reply) => {
    const overlap = (request.body as { overlap_seconds?: number } | null)?.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS;
    void reply.header('cache-control', 'no-store');
    return signingAnswer(keys, await rotateSigningSecret(database, await ownSubscription(request), overlap));
  });
  return Promise.resolve();
}
