// The card of a placed order: checked, and reduced to what may be kept. No gateway is called and the
// number and CVV are never stored; payment method 0 records the last four digits only.
import { ApiError } from '../model/api-error.ts';

export interface CardInput {
  number?: string | number;
  name?: string;
  expiration_month?: string | number;
  expiration_year?: string | number;
  cvv?: string | number;
}

export interface KeptCard {
  lastFour: string;
  cardType: string;
  name: string;
  month: number;
  year: number;
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

function cardType(digits: string): string {
  if (digits.startsWith('4')) return 'Visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'MasterCard';
  if (/^3[47]/.test(digits)) return 'American Express';
  if (/^6(011|5)/.test(digits)) return 'Discover';
  return 'Other';
}

/** Every problem of the card at once, or what the order keeps of it. */
export function checkCard(card: CardInput | undefined, now: Date): KeptCard {
  if (card === undefined) throw new ApiError(400, 'credit_card: is required for payment method 0');
  const problems: string[] = [];
  const digits = String(card.number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) problems.push('credit_card.number: is not a card number');
  const name = String(card.name ?? '').trim();
  if (name === '') problems.push('credit_card.name: is required');
  const month = Number(card.expiration_month);
  const year = Number(card.expiration_year);
  if (!Number.isInteger(month) || month < 1 || month > 12) problems.push('credit_card.expiration_month: must be 1 to 12');
  if (!Number.isInteger(year) || year < 2000 || year > 2200) problems.push('credit_card.expiration_year: must be a four-digit year');
  else if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) problems.push('credit_card: has expired');
  if (!/^\d{3,4}$/.test(String(card.cvv ?? ''))) problems.push('credit_card.cvv: must be 3 or 4 digits');
  if (problems.length > 0) throw new ApiError(400, problems.join('; '));
  return { lastFour: digits.slice(-4), cardType: cardType(digits), name, month, year };
}
