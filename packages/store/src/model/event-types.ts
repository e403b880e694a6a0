// The platform's webhook event types (its docs/webhooks.md): which expect a reply, what each means, and what a
// subscriber must be allowed to do to subscribe.
import type { ScopeGroup } from './declaration.ts';

export interface EventType {
  /** Sent while a request waits, with a 3-second limit, and its reply is used. */
  readonly replies: boolean;
  readonly description: string;
  /**
   * The scope a subscribing token needs besides `webhooks`: the read scope of the records an event carries, and the
   * write scope of the area a reply decides (prices: catalog; discounts: marketing; tax: settings, where tax rates
   * are) or whose writes it can refuse (ValidateProduct: catalog; ValidateCustomer: people; carts, checkout and
   * payments: orders). Without it, the `webhooks` scope alone would read customers or reprice every cart.
   */
  readonly needs: { readonly group: ScopeGroup; readonly write: boolean };
}

const reads = (group: ScopeGroup) => ({ group, write: false });
const decides = (group: ScopeGroup) => ({ group, write: true });

export const eventTypes = {
  AuthorizingPayment: { replies: true, description: 'a payment is being authorized', needs: decides('orders') },
  CapturingPayment: { replies: true, description: 'a payment is being captured', needs: decides('orders') },
  CustomerCreated: { replies: false, description: 'a customer was created', needs: reads('people') },
  CustomerEmailUpdated: { replies: false, description: "a customer's email address changed", needs: reads('people') },
  CustomerUpdated: { replies: false, description: "a customer's data changed", needs: reads('people') },
  CustomerRegistered: { replies: false, description: 'a customer registered an account', needs: reads('people') },
  GetDiscount: { replies: true, description: 'discounts of a cart are calculated', needs: decides('marketing') },
  GetPrice: { replies: true, description: 'prices of products are calculated', needs: decides('catalog') },
  GetProductStatus: { replies: true, description: 'the status of a product is checked for display', needs: reads('catalog') },
  GetTax: { replies: true, description: 'tax of a cart is calculated', needs: decides('settings') },
  NewOrder: { replies: false, description: 'an order of any status was created', needs: reads('orders') },
  NewQuote: { replies: false, description: 'a quote was created', needs: reads('orders') },
  NewValidOrder: {
    replies: false,
    description: 'an order was created with a status neither cancelled nor declined',
    needs: reads('orders'),
  },
  OrderApproved: { replies: false, description: "an order's payment was approved", needs: reads('orders') },
  OrderCanceled: { replies: false, description: 'an order was given a cancelled status', needs: reads('orders') },
  OrderDeclined: { replies: false, description: 'an order was given a declined status', needs: reads('orders') },
  OrderPlaced: { replies: false, description: 'a new order was placed', needs: reads('orders') },
  OrderShipped: { replies: false, description: 'an order was given a shipped status', needs: reads('orders') },
  OrderStatusChanged: { replies: false, description: "an order's status changed", needs: reads('orders') },
  OrderUpdated: { replies: false, description: "an order's data changed", needs: reads('orders') },
  PaymentProcessed: { replies: false, description: 'a payment finished processing', needs: reads('orders') },
  ProductCreated: { replies: false, description: 'a product was created', needs: reads('catalog') },
  ProductStatusChanged: { replies: false, description: "a product's status changed", needs: reads('catalog') },
  ProductUpdated: { replies: false, description: "a product's data changed", needs: reads('catalog') },
  QuoteStatusChanged: { replies: false, description: "a quote's status changed", needs: reads('orders') },
  QuoteUpdated: { replies: false, description: "a quote's data changed", needs: reads('orders') },
  ValidateCart: { replies: true, description: 'a cart is checked for errors', needs: decides('orders') },
  ValidateCheckout: { replies: true, description: 'a checkout is checked for errors', needs: decides('orders') },
  ValidateCustomer: { replies: true, description: 'customer data is checked for errors before it is saved', needs: decides('people') },
  ValidateProduct: { replies: true, description: 'product data is checked for errors before it is saved', needs: decides('catalog') },
} as const satisfies Record<string, EventType>;

export type EventName = keyof typeof eventTypes;

export const eventNames = Object.keys(eventTypes) as EventName[];

export function isEventName(text: string): text is EventName {
  return Object.hasOwn(eventTypes, text);
}

export const failureTypes = ['Ignore', 'Error', 'Fallback'] as const;
export type FailureType = (typeof failureTypes)[number];

/** How long a reply is reused: the platform's Short (5 min), Long (30 min) and NoCache. */
export const cacheLengths = { Short: 5 * 60_000, Long: 30 * 60_000, NoCache: 0 } as const;
export type CacheLength = keyof typeof cacheLengths;

/** How many events one page of `GET /events` (the event log) lists: by default, and at most. */
export const EVENT_LOG_COUNT = { default: 50, max: 500 } as const;
