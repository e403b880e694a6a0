// Field groups several resources carry, declared once. A group is spread where its fields stand in each
// resource: field order is the order of every answer's keys and of the OpenAPI document, so a resource whose
// fields stand in another order (a microstore's country before its postal code) keeps its own list.
import type { FieldDeclaration } from '../declaration.ts';

type Field = string | FieldDeclaration;

/** A postal address, as addresses, order addresses, credit cards and stores write it. */
export const postalAddress = {
  address_line_1: 'string',
  address_line_2: 'string',
  city: 'string',
  state: 'string',
  postal_code: 'string',
  country: 'string',
} as const;

/** An order's money, in an order and in a quote. */
export const orderTotals = {
  subtotal: 'number',
  tax_total: 'number',
  shipping_total: 'number',
  discount_total: 'number',
  grand_total: 'number',
  cost_total: 'number',
} as const;

/** Who ordered, where from, and its totals: the head of an order and of a quote. */
export const orderHead = {
  customer_id: 'integer -> customers',
  customer_type_id: 'integer',
  adcode: 'string',
  ordered_at: 'datetime',
  order_status_id: 'integer -> order_statuses',
  special_instructions: 'string',
  ...orderTotals,
  selected_shipping_method: 'string',
  ip_address: 'string',
} as const;

/** The order's addresses: references on an order, plain ids on a quote (the platform ties none). */
export const orderAddressIds = (references: boolean) =>
  references
    ? ({ order_shipping_address_id: 'integer -> order_addresses', order_billing_address_id: 'integer -> order_addresses' } as const)
    : ({ order_shipping_address_id: 'integer', order_billing_address_id: 'integer' } as const);

/** From the admin's comments to the adcode id, in an order and in a quote. */
export const orderHandling = {
  admin_comments: 'string',
  source: 'string',
  search_phrase: 'string',
  is_ppc: 'boolean',
  ppc_keyword: 'string',
  store_id: 'integer -> stores',
  session_id: 'integer',
  handling_total: 'number',
  is_payment_order_only: 'boolean',
  selected_shipping_provider_service: 'string',
  additional_fees: 'number',
  adcode_id: 'integer',
} as const;

/** From the gift flag to the reward points, in an order and in a quote. */
export const orderLife = {
  is_gift: 'boolean',
  gift_message: 'string',
  public_comments: 'string',
  instructions: 'string',
  source_group: 'string',
  from_subscription_id: 'integer',
  previous_order_status_id: 'integer',
  order_status_last_changed_at: 'datetime',
  discounted_shipping_total: 'number',
  order_number: 'string',
  coupon_code: 'string',
  order_type: 'string',
  expires_at: 'datetime',
  expires: 'boolean',
  from_quote_id: 'integer',
  campaign_code: 'string',
  reward_points_credited: 'boolean',
} as const;

/** The channel and the manufacturer's invoice, in an order and in a quote. */
export const orderInvoice = {
  channel: 'string',
  device: 'string',
  manufacturer_invoice_number: 'string',
  manufacturer_invoice_amount: 'number',
  manufacturer_invoice_paid: 'boolean',
} as const;

/** The tail every order and quote ends on (before their own last fields). */
export const orderDue = {
  due_date: 'datetime',
  delivery_tax: 'number',
  location_id: 'integer',
} as const;

/**
 * A cart's fields, which a wishlist (a saved cart) carries too. `money` declares the figures: a cart's are computed
 * by the carting routes, a wishlist's are plain numbers; `associatedOrder` the id of the order a cart became.
 */
export function cartFields(money: Field, associatedOrder: Field) {
  return {
    name: 'string',
    cart_type: 'string',
    customer_id: 'integer -> customers',
    is_public: 'boolean',
    store_id: 'integer -> stores',
    session_id: 'integer',
    discount_total: money,
    subtotal: money,
    shipping_total: money,
    handling_total: money,
    tax_total: money,
    grand_total: money,
    tax_rate: money,
    additional_fees: money,
    discounted_shipping_total: money,
    region_markup_amount: money,
    non_shipping_discount: money,
    gift_certificate_discount: money,
    coupon_code: 'string',
    associated_order_id: associatedOrder,
    shipping_estimate_city: 'string',
    shipping_estimate_state_code: 'string',
    shipping_estimate_postal_code: 'string',
    shipping_estimate_country_code: 'string',
    is_shipping_billed_to_account: 'boolean',
    customer_payment_method_id: 'integer',
    payment_method_id: 'integer',
    is_payment_cart_only: 'boolean',
    lookup_key: 'string',
  };
}

/** One choice of a variant group, as a product's `variants` show it and as `product_variants` stores it. */
export const variantChoice = {
  variant_group_id: 'integer -> variant_groups',
  description: 'string',
  price_adjustment: 'number',
  price_adjustment_type: 'string',
  sort_order: 'integer',
  item_number_extension: 'string',
  item_number_sort_order: 'integer',
  is_hidden: 'boolean',
  weight: 'number',
  weight_type: 'string',
  is_default_selection: 'boolean',
  swatch_file: 'string',
  swatch_thumbnail: 'string',
  swatch_thumbnail_color: 'string',
} as const;
