// The platform's webhook event types (its docs/webhooks.md): which expect a reply, and what each means.

export interface EventType {
  /** Sent while a request waits, with a 3-second limit, and its reply is used. */
  readonly replies: boolean;
  readonly description: string;
}

export const eventTypes = {
  AuthorizingPayment: { replies: true, description: 'a payment is being authorized' },
  CapturingPayment: { replies: true, description: 'a payment is being captured' },
  CustomerCreated: { replies: false, description: 'a customer was created' },
  CustomerEmailUpdated: { replies: false, description: "a customer's email address changed" },
  CustomerUpdated: { replies: false, description: "a customer's data changed" },
  CustomerRegistered: { replies: false, description: 'a customer registered an account' },
  GetDiscount: { replies: true, description: 'discounts of a cart are calculated' },
  GetPrice: { replies: true, description: 'prices of products are calculated' },
  GetProductStatus: { replies: true, description: 'the status of a product is checked for display' },
  GetTax: { replies: true, description: 'tax of a cart is calculated' },
  NewOrder: { replies: false, description: 'an order of any status was created' },
  NewQuote: { replies: false, description: 'a quote was created' },
  NewValidOrder: { replies: false, description: 'an order was created with a status neither cancelled nor declined' },
  OrderApproved: { replies: false, description: "an order's payment was approved" },
  OrderCanceled: { replies: false, description: 'an order was given a cancelled status' },
  OrderDeclined: { replies: false, description: 'an order was given a declined status' },
  OrderPlaced: { replies: false, description: 'a new order was placed' },
  OrderShipped: { replies: false, description: 'an order was given a shipped status' },
  OrderStatusChanged: { replies: false, description: "an order's status changed" },
  OrderUpdated: { replies: false, description: "an order's data changed" },
  PaymentProcessed: { replies: false, description: 'a payment finished processing' },
  ProductCreated: { replies: false, description: 'a product was created' },
  ProductStatusChanged: { replies: false, description: "a product's status changed" },
  ProductUpdated: { replies: false, description: "a product's data changed" },
  QuoteStatusChanged: { replies: false, description: "a quote's status changed" },
  QuoteUpdated: { replies: false, description: "a quote's data changed" },
  ValidateCart: { replies: true, description: 'a cart is checked for errors' },
  ValidateCheckout: { replies: true, description: 'a checkout is checked for errors' },
  ValidateCustomer: { replies: true, description: 'customer data is checked for errors before it is saved' },
  ValidateProduct: { replies: true, description: 'product data is checked for errors before it is saved' },
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
