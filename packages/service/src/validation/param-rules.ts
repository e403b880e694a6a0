// Parameter checking with the spec's own coercion rules. Ajv's coercion differs from the spec
// (any value is a boolean here, fractions round, numbers may come as strings), so the rules are ours.
import type { MessageId } from './messages.ts';

export interface Issue {
  /** JSON Pointer into `params`. */
  path: string;
  id: MessageId;
  args?: Record<string, string | number>;
}

/** Checks one value and returns its normalised form, or `invalid` after recording issues. */
export type Rule<T> = (value: unknown, path: string, issues: Issue[]) => T | typeof invalid;

export const invalid: unique symbol = Symbol('invalid');

interface Field<T> {
  rule: Rule<T>;
  required: boolean;
}

export function required<T>(rule: Rule<T>): Field<T> {
  return { rule, required: true };
}

export function optional<T>(rule: Rule<T>): Field<T | undefined> {
  return { rule, required: false };
}

type Shape = Record<string, Field<unknown>>;
type Output<S extends Shape> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

export function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object with exactly these properties: extra ones are refused, as the spec requires for params. */
export function object<S extends Shape>(shape: S): Rule<Output<S>> {
  return (value, path, issues) => {
    if (!isPlainObject(value)) {
      issues.push({ path, id: 'not_object' });
      return invalid;
    }
    const before = issues.length;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(shape, key)) issues.push({ path: pointer(path, key), id: 'unknown_property' });
    }
    for (const [key, field] of Object.entries(shape)) {
      const given = Object.hasOwn(value, key) ? value[key] : undefined;
      if (given === undefined) {
        if (field.required) issues.push({ path: pointer(path, key), id: 'missing' });
        continue;
      }
      const checked = field.rule(given, pointer(path, key), issues);
      if (checked !== invalid && checked !== undefined) out[key] = checked;
    }
    return issues.length > before ? invalid : (out as Output<S>);
  };
}

/** A list of items; `max` is checked before any item, so an oversized list costs no per-item work. */
export function arrayOf<T>(item: Rule<T>, options: { min?: number; max?: number } = {}): Rule<T[]> {
  return (value, path, issues) => {
    if (!Array.isArray(value)) {
      issues.push({ path, id: 'not_array' });
      return invalid;
    }
    if (options.max !== undefined && value.length > options.max) {
      issues.push({ path, id: 'too_many', args: { max: options.max } });
      return invalid;
    }
    const before = issues.length;
    if (options.min !== undefined && value.length < options.min) issues.push({ path, id: 'too_few', args: { min: options.min } });
    const out = value.map((element, index) => item(element, pointer(path, index), issues));
    return issues.length > before ? invalid : (out as T[]);
  };
}

/** Spec coercion for strings: numbers and booleans become their text; arrays, objects and null are refused. */
export function text(value: unknown, path: string, issues: Issue[]): string | typeof invalid {
  let result: string;
  if (typeof value === 'string') result = value;
  else if (typeof value === 'number' && Number.isFinite(value)) result = String(value);
  else if (typeof value === 'boolean') result = value ? '1' : '0';
  else {
    issues.push({ path, id: 'not_string' });
    return invalid;
  }
  if (result.includes('\0')) {
    issues.push({ path, id: 'nul' });
    return invalid;
  }
  return result;
}

/** A string that must match a pattern; `id` names the data type in the message. */
export function matching(pattern: RegExp, id: MessageId): Rule<string> {
  return (value, path, issues) => {
    const result = text(value, path, issues);
    if (result === invalid) return invalid;
    if (!pattern.test(result)) {
      issues.push({ path, id });
      return invalid;
    }
    return result;
  };
}

/** Spec coercion for booleans: false, null, "", "0" and any number equal to zero are false; all else is true. */
export const boolean: Rule<boolean> = (value) =>
  !(value === false || value === null || value === '' || value === '0' || (typeof value === 'number' && value === 0));

const numeric = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Spec coercion for integers: numeric strings are accepted and fractions round to the nearest integer. */
export function integer(options: { min?: number; id?: MessageId } = {}): Rule<number> {
  return (value, path, issues) => {
    let number: number;
    if (typeof value === 'number') number = value;
    else if (typeof value === 'string' && numeric.test(value)) number = Number(value);
    else number = Number.NaN;
    if (!Number.isFinite(number)) {
      issues.push({ path, id: 'not_integer' });
      return invalid;
    }
    // Half away from zero, so -2.5 and 2.5 round alike.
    const rounded = Math.sign(number) * Math.round(Math.abs(number));
    if (!Number.isSafeInteger(rounded)) {
      issues.push({ path, id: 'not_integer' });
      return invalid;
    }
    if (options.min !== undefined && rounded < options.min) {
      issues.push({ path, id: options.id ?? 'min_zero' });
      return invalid;
    }
    return rounded === 0 ? 0 : rounded;
  };
}

export function oneOf<T extends string>(values: readonly T[], id: MessageId): Rule<T> {
  return (value, path, issues) => {
    const result = text(value, path, issues);
    if (result === invalid) return invalid;
    if (!(values as readonly string[]).includes(result)) {
      issues.push({ path, id });
      return invalid;
    }
    return result as T;
  };
}

/** Runs a rule after another one succeeded, to refine its value. */
export function refine<A, B>(first: Rule<A>, then: (value: A, path: string, issues: Issue[]) => B | typeof invalid): Rule<B> {
  return (value, path, issues) => {
    const checked = first(value, path, issues);
    return checked === invalid ? invalid : then(checked, path, issues);
  };
}

/**
 * Params where one property goes by two names (the reference's and our earlier one): either may be
 * given, not both; with `required`, one of them must be. Checked beside the object's own rule, so a
 * call learns of every fault at once.
 */
export function eitherName<T>(rule: Rule<T>, names: { reference: string; ours: string }, options: { required: boolean }): Rule<T> {
  return (value, path, issues) => {
    const before = issues.length;
    if (isPlainObject(value)) {
      const given = (key: string) => Object.hasOwn(value, key) && value[key] !== undefined;
      if (given(names.reference) && given(names.ours))
        issues.push({ path: pointer(path, names.ours), id: 'not_with', args: { other: names.reference } });
      else if (options.required && !given(names.reference) && !given(names.ours))
        issues.push({ path: pointer(path, names.reference), id: 'missing' });
    }
    const checked = rule(value, path, issues);
    return issues.length > before ? invalid : checked;
  };
}
