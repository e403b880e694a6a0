// A finding's date (RRSIG expiry, say) in the reader's language, as Intl.DateTimeFormat writes it with
// long month, numeric day and year, two-digit hour and minute, in UTC. Written from this table rather
// than by Intl: the first Intl object of a process starts ICU, some 10 ms of a 150 ms run, and dates
// are the only thing a run needs it for. test/utc-dates.test.ts holds the table to Intl's output, for
// every locale of the catalogue; a locale missing here is written by Intl.

interface DateStyle {
  /** January first. */
  months: readonly string[];
  /** 12-hour clock with AM/PM (English), else 24-hour. */
  twelveHour?: boolean;
  /** {day} {month} {year} {hour} {minute} {period}. */
  pattern: string;
}

const styles: Readonly<Record<string, DateStyle>> = {
  da: {
    months: ['januar', 'februar', 'marts', 'april', 'maj', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'december'],
    pattern: '{day}. {month} {year} kl. {hour}.{minute} UTC',
  },
  en: {
    months: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
    twelveHour: true,
    pattern: '{month} {day}, {year} at {hour}:{minute} {period} UTC',
  },
  es: {
    months: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
    pattern: '{day} de {month} de {year} a las {hour}:{minute} UTC',
  },
  fi: {
    months: [
      'tammikuuta',
      'helmikuuta',
      'maaliskuuta',
      'huhtikuuta',
      'toukokuuta',
      'kesäkuuta',
      'heinäkuuta',
      'elokuuta',
      'syyskuuta',
      'lokakuuta',
      'marraskuuta',
      'joulukuuta',
    ],
    pattern: '{day}. {month} {year} klo {hour}.{minute} UTC',
  },
  fr: {
    months: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
    pattern: '{day} {month} {year} à {hour}:{minute} UTC',
  },
  nb: {
    months: ['januar', 'februar', 'mars', 'april', 'mai', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'desember'],
    pattern: '{day}. {month} {year} kl. {hour}:{minute} UTC',
  },
  sl: {
    months: ['januar', 'februar', 'marec', 'april', 'maj', 'junij', 'julij', 'avgust', 'september', 'oktober', 'november', 'december'],
    pattern: '{day}. {month} {year} ob {hour}:{minute} UTC',
  },
  sv: {
    months: ['januari', 'februari', 'mars', 'april', 'maj', 'juni', 'juli', 'augusti', 'september', 'oktober', 'november', 'december'],
    pattern: '{day} {month} {year} kl. {hour}:{minute} UTC',
  },
};

export const intlOptions: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
};

// For a locale without a style: one formatter per locale, since making one costs a millisecond or more.
const intlFormats = new Map<string, Intl.DateTimeFormat>();

function intlDate(time: number, locale: string): string {
  let format = intlFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, intlOptions);
    intlFormats.set(locale, format);
  }
  return format.format(time);
}

const twoDigits = (n: number): string => String(n).padStart(2, '0');

/** `time` (ms since the epoch) as a date and time in UTC, in `locale` (a catalogue locale). */
export function utcDate(time: number, locale: string): string {
  const style = Object.hasOwn(styles, locale) ? styles[locale] : undefined;
  if (!style) return intlDate(time, locale);
  const date = new Date(time);
  const hours = date.getUTCHours();
  const parts: Record<string, string> = {
    day: String(date.getUTCDate()),
    month: style.months[date.getUTCMonth()],
    year: String(date.getUTCFullYear()),
    hour: twoDigits(style.twelveHour ? hours % 12 || 12 : hours),
    minute: twoDigits(date.getUTCMinutes()),
    period: hours < 12 ? 'AM' : 'PM',
  };
  return style.pattern.replace(/\{(\w+)\}/g, (_, name: string) => parts[name]);
}
