import type { StoreDatabase } from '../db/schema.ts';

/** What the carting routes, and placing an order, are given. */
export interface CartRoutesOptions {
  database: StoreDatabase;
  /** Encrypts a field kept encrypted at rest (the cardholder's name of a payment). */
  encrypt: (plain: string) => string;
  now?: () => number;
}
