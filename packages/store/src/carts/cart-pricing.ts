// A cart's figures: item subtotal, discounts, the chosen shipping rate, tax, and the total. Rates come from
// the store's enabled custom shipping methods (carrier services would need the carriers' own rating APIs,
// which the store does not call). Subscribers to GetPrice, GetDiscount and GetTax take part (cart-questions.ts);
// without a GetTax subscriber there is no tax. grand_total is subtotal - discount + discounted shipping + tax.
import type { Kysely } from 'kysely';
import { ApiError } from '../model/api-error.ts';
import { textOf, type Row, type StoreSchema } from '../db/schema.ts';
import type { ReplyAsker } from '../webhooks/reply-events.ts';
import { askDiscounts, askPrices, askTax, customerTypeOf } from './cart-questions.ts';

export interface ShippingRate {
  shipping_provider_service_id: number;
  custom_shipping_method_id: number | null;
  provider: string;
  name: string;
  description: string;
  identifier: string;
  total_charges: number;
  lead_time: null;
}

export interface CartFigures {
  subtotal: number;
  discount_total: number;
  shipping_total: number;
  /** shipping_total less a GetDiscount shipping discount. */
  discounted_shipping_total: number;
  tax_total: number;
  grand_total: number;
}

const cents = (value: number) => Math.round(value * 100) / 100;

/** A markup of "Percent" type is a share of the subtotal; anything else is an amount. */
function markup(type: unknown, amount: unknown, subtotal: number): number {
  const value = Number(amount);
  if (!Number.isFinite(value)) return 0;
  return cents(/percent|%/i.test(textOf(type)) ? (subtotal * value) / 100 : value);
}

export function subtotalOf(items: readonly Row[]): number {
  return cents(items.reduce((sum, item) => sum + Number(item.price ?? 0) * Number(item.quantity ?? 0), 0));
}

export async function shippingRates(db: Kysely<StoreSchema>, subtotal: number): Promise<ShippingRate[]> {
  const methods = await db
    .selectFrom('custom_shipping_methods')
    .selectAll()
    .where('is_enabled', '=', true)
    .where('admin_only', '=', false)
    .orderBy('id')
    .execute();
  return methods.map((method) => ({
    shipping_provider_service_id: 0,
    custom_shipping_method_id: Number(method.id),
    provider: 'Custom',
    name: String(method.id),
    description: String(method.name),
    identifier: `Custom;${String(method.id)};${String(method.name)}`,
    total_charges: markup(method.markup_type, method.markup_amount, subtotal),
    lead_time: null,
  }));
}

/**
 * The discount a coupon code gives: the code must exist, be active, unexpired and not used up. Its amount
 * comes from the discount methods whose rule of type "CouponCode" targets the code, through their active
 * actions ("Percent" of the subtotal, or an amount); a valid code without such a method gives 0.
 */
export async function couponDiscount(db: Kysely<StoreSchema>, code: string, subtotal: number, now: Date): Promise<number> {
  const coupon = await db.selectFrom('coupon_codes').selectAll().where('coupon_code', '=', code).executeTakeFirst();
  const expiresAt = coupon?.expires_at === null || coupon?.expires_at === undefined ? undefined : Date.parse(textOf(coupon.expires_at));
  const usable =
    coupon !== undefined &&
    Boolean(coupon.is_active) &&
    !coupon.is_expired &&
    (expiresAt === undefined || expiresAt > now.getTime()) &&
    (Number(coupon.max_uses ?? 0) === 0 || Number(coupon.usage_count ?? 0) < Number(coupon.max_uses));
  if (!usable) throw new ApiError(409, `coupon_code: "${code}" is not a valid coupon code`);
  const actions = await db
    .selectFrom('discount_rules')
    .innerJoin('discount_methods', 'discount_methods.id', 'discount_rules.discount_method_id')
    .innerJoin('discount_actions', 'discount_actions.discount_method_id', 'discount_methods.id')
    .select(['discount_actions.modifier_type as type', 'discount_actions.modifier_amount as amount'])
    .where('discount_rules.type', '=', 'CouponCode')
    .where('discount_rules.target', '=', code)
    .where('discount_methods.is_enabled', '=', true)
    .where('discount_actions.is_active', '=', true)
    .execute();
  const discount = actions.reduce((sum, action) => sum + markup(action.type, action.amount, subtotal), 0);
  return Math.min(subtotal, cents(discount));
}

/**
 * What keeps a usable coupon from giving a discount of its own: nothing when some enabled discount method
 * with a "CouponCode" rule targeting the code has an active action; otherwise the missing link, in words.
 */
export async function couponDiscountMissing(db: Kysely<StoreSchema>, code: string): Promise<string | undefined> {
  const rules = await db
    .selectFrom('discount_rules')
    .leftJoin('discount_methods', 'discount_methods.id', 'discount_rules.discount_method_id')
    .select(['discount_rules.id as rule', 'discount_methods.id as method', 'discount_methods.is_enabled as enabled'])
    .where('discount_rules.type', '=', 'CouponCode')
    .where('discount_rules.target', '=', code)
    .orderBy('discount_rules.id')
    .execute();
  if (rules.length === 0) return `no discount_rules row has type "CouponCode" and target "${code}"`;
  const methods = [...new Set(rules.flatMap((r) => (r.method === null ? [] : [Number(r.method)])))];
  if (methods.length === 0) return `discount rule ${rules.map((r) => String(r.rule)).join(', ')} names no existing discount method`;
  const enabled = [...new Set(rules.filter((r) => r.method !== null && Boolean(r.enabled)).map((r) => Number(r.method)))];
  if (enabled.length === 0) return `discount method ${methods.join(', ')} (its rule targets "${code}") is not enabled`;
  const action = await db
    .selectFrom('discount_actions')
    .select('id')
    .where('discount_method_id', 'in', enabled)
    .where('is_active', '=', true)
    .limit(1)
    .executeTakeFirst();
  return action === undefined ? `discount method ${enabled.join(', ')} has no active discount action` : undefined;
}

export interface PricedCart {
  figures: CartFigures;
  /** The cart's lines with the prices GetPrice gave them. */
  lines: Row[];
}

/** The cart's figures now; a reply webhook whose failure_type is Error fails this with 502. */
export async function cartFigures(
  db: Kysely<StoreSchema>,
  replies: ReplyAsker,
  cart: Row,
  items: readonly Row[],
  now: Date,
): Promise<PricedCart> {
  const customerTypeId = await customerTypeOf(db, cart.customer_id);
  const lines = await askPrices(replies, items, customerTypeId);
  const subtotal = subtotalOf(lines);
  const code = typeof cart.coupon_code === 'string' && cart.coupon_code !== '' ? cart.coupon_code : undefined;
  const coupon = code === undefined ? 0 : await couponDiscount(db, code, subtotal, now).catch(() => 0);
  const chosen = typeof cart.selected_shipping_method === 'string' ? cart.selected_shipping_method : undefined;
  const rate = chosen === undefined ? undefined : (await shippingRates(db, subtotal)).find((r) => r.identifier === chosen);
  const shipping_total = rate?.total_charges ?? 0;
  const asked = await askDiscounts(db, replies, { cart, lines, customerTypeId, shippingTotal: shipping_total });
  const discount_total = Math.min(subtotal, cents(coupon + asked.discount));
  const discounted_shipping_total = Math.max(0, cents(shipping_total - asked.shippingDiscount));
  const tax_total = await askTax(db, replies, {
    cart,
    lines,
    subtotal,
    discountTotal: discount_total,
    shippingTotal: discounted_shipping_total,
  });
  return {
    figures: {
      subtotal,
      discount_total,
      shipping_total,
      discounted_shipping_total,
      tax_total,
      grand_total: cents(subtotal - discount_total + discounted_shipping_total + tax_total),
    },
    lines,
  };
}
