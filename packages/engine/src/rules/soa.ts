// Rules on SOA values (Zone01–Zone06): serial order and the timers against the profile's thresholds
// (test_cases_vars: zone02 SOA_REFRESH_MINIMUM_VALUE, zone04 SOA_RETRY_MINIMUM_VALUE, zone05
// SOA_EXPIRE_MINIMUM_VALUE, zone06 SOA_DEFAULT_TTL_MAXIMUM_VALUE and _MINIMUM_VALUE).
import type { SoaData } from '@app/dns';
import type { Message } from '../finding.ts';
import type { Profile } from '../profile/profile.ts';

export type SoaTimers = Pick<SoaData, 'refresh' | 'retry' | 'expire' | 'minimum'>;

export interface TimerThresholds {
  refreshMinimum: number;
  retryMinimum: number;
  expireMinimum: number;
  ttlMaximum: number;
  ttlMinimum: number;
}

/** The thresholds a profile sets, the reference's defaults where it sets none. */
export function timerThresholds(profile: Profile): TimerThresholds {
  const vars = profile.test_cases_vars;
  return {
    refreshMinimum: vars.zone02?.SOA_REFRESH_MINIMUM_VALUE ?? 14400,
    retryMinimum: vars.zone04?.SOA_RETRY_MINIMUM_VALUE ?? 3600,
    expireMinimum: vars.zone05?.SOA_EXPIRE_MINIMUM_VALUE ?? 604800,
    ttlMaximum: vars.zone06?.SOA_DEFAULT_TTL_MAXIMUM_VALUE ?? 86400,
    ttlMinimum: vars.zone06?.SOA_DEFAULT_TTL_MINIMUM_VALUE ?? 300,
  };
}

/** RFC 1982 serial arithmetic: is serial a after serial b? (Half the space apart is neither.) */
export function serialGreater(a: number, b: number): boolean {
  const half = 2 ** 31;
  return (a < b && b - a > half) || (a > b && a - b < half);
}

/** Zone02: refresh at least the minimum. */
export function refreshMessages({ refresh }: SoaTimers, t: TimerThresholds): Message[] {
  const args = { refresh, required_refresh: t.refreshMinimum };
  return [{ tag: refresh < t.refreshMinimum ? 'REFRESH_MINIMUM_VALUE_LOWER' : 'REFRESH_MINIMUM_VALUE_OK', args }];
}

/** Zone03: refresh above retry (equal is too low). */
export function refreshRetryMessages({ refresh, retry }: SoaTimers): Message[] {
  return [{ tag: retry >= refresh ? 'REFRESH_LOWER_THAN_RETRY' : 'REFRESH_HIGHER_THAN_RETRY', args: { retry, refresh } }];
}

/** Zone04: retry at least the minimum. */
export function retryMessages({ retry }: SoaTimers, t: TimerThresholds): Message[] {
  return [
    {
      tag: retry < t.retryMinimum ? 'RETRY_MINIMUM_VALUE_LOWER' : 'RETRY_MINIMUM_VALUE_OK',
      args: { retry, required_retry: t.retryMinimum },
    },
  ];
}

/** Zone05: expire at least the minimum and not below refresh. */
export function expireMessages({ expire, refresh }: SoaTimers, t: TimerThresholds): Message[] {
  const messages: Message[] = [];
  if (expire < t.expireMinimum) messages.push({ tag: 'EXPIRE_MINIMUM_VALUE_LOWER', args: { expire, required_expire: t.expireMinimum } });
  if (expire < refresh) messages.push({ tag: 'EXPIRE_LOWER_THAN_REFRESH', args: { expire, refresh } });
  return messages.length > 0 ? messages : [{ tag: 'EXPIRE_MINIMUM_VALUE_OK', args: { expire, refresh, required_expire: t.expireMinimum } }];
}

/** Zone06: the SOA minimum (negative caching TTL) within the range, both ends included. */
export function minimumMessages({ minimum }: SoaTimers, t: TimerThresholds): Message[] {
  if (minimum > t.ttlMaximum) return [{ tag: 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_HIGHER', args: { minimum, highest_minimum: t.ttlMaximum } }];
  if (minimum < t.ttlMinimum) return [{ tag: 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_LOWER', args: { minimum, lowest_minimum: t.ttlMinimum } }];
  return [{ tag: 'SOA_DEFAULT_TTL_MAXIMUM_VALUE_OK', args: { minimum, highest_minimum: t.ttlMaximum, lowest_minimum: t.ttlMinimum } }];
}
