// A webhook subscription is a declared resource like any other (the platform's /api/v1/webhooks
// "works exactly the same as any other API endpoint"), under its own scope pair.
import { defineResource } from '../declaration.ts';
import { cacheLengths, eventNames, failureTypes } from '../event-types.ts';

export const webhooks = defineResource({
  name: 'webhooks',
  singular: 'webhook',
  scope: 'webhooks',
  // Short: the console changes subscriptions without going through the API's cache.
  maxAgeSeconds: 5,
  fields: {
    event_type: { type: 'string', required: true, enum: eventNames },
    url: { type: 'string', required: true, maxLength: 2000, description: 'https URL that receives the event (http only on loopback)' },
    failure_type: { type: 'string', enum: failureTypes, description: 'Ignore (default), Error or Fallback' },
    fallback_url: { type: 'string', maxLength: 2000, description: 'Called when the url fails and failure_type is Fallback' },
    store_id: { type: 'integer', description: "The store whose events are sent; the caller's store" },
    cache_length: {
      type: 'string',
      enum: Object.keys(cacheLengths),
      description: 'How long a reply is reused: Short (5 min), Long (30 min) or NoCache (default)',
    },
    app_client_id: {
      type: 'string',
      readOnly: true,
      description: 'App ID of the app that made the subscription; its App Secret signs every delivery',
    },
  },
});
