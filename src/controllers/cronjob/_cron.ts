/**
 * Standard cron schedules as CronJobs use them (robfig/cron v3 `ParseStandard`): five fields (minute, hour,
 * day of month, month, day of week) with `*`, `?`, ranges, steps, lists and JAN-DEC/SUN-SAT names; the
 * descriptors @yearly/@annually, @monthly, @weekly, @daily/@midnight, @hourly and `@every <duration>`. Day of
 * month and day of week are ORed when both are restricted. Times are evaluated in UTC or an IANA zone.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const months: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const dows: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const doms: Bounds = { min: 1, max: 31 };

interface Field {
  values: Set<number>;
  /** The field was `*` or `?` (robfig's starBit): it does not restrict the day. */
  star: boolean;
}

export interface Schedule {
  /** The first activation strictly after `t` (ms), or undefined if none within five years. */
  next(t: number): number | undefined;
}

export class CronParseError extends Error {}

function parseInt10(s: string, b: Bounds): number {
  const named = b.names?.[s.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(s)) throw new CronParseError(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

function parseField(expr: string, b: Bounds): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of expr.split(',')) {
    const [range = '', stepStr] = part.split('/');
    const lowHigh = range.split('-');
    let start: number;
    let end: number;
    let extraStar = false;
    if (lowHigh[0] === '*' || lowHigh[0] === '?') {
      start = b.min;
      end = b.max;
      extraStar = true;
    } else {
      start = parseInt10(lowHigh[0] ?? '', b);
      end = lowHigh.length === 2 ? parseInt10(lowHigh[1] ?? '', b) : start;
      if (lowHigh.length > 2) throw new CronParseError(`too many hyphens: ${part}`);
    }
    let step = 1;
    if (stepStr !== undefined) {
      step = parseInt10(stepStr, { min: 0, max: 0 });
      if (lowHigh.length === 1 && !extraStar) end = b.max;
      if (step > 1) extraStar = false;
    }
    if (part.split('/').length > 2) throw new CronParseError(`too many slashes: ${part}`);
    if (start < b.min) throw new CronParseError(`beginning of range (${start}) below minimum (${b.min}): ${part}`);
    if (end > b.max) throw new CronParseError(`end of range (${end}) above maximum (${b.max}): ${part}`);
    if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
    if (step === 0) throw new CronParseError(`step of range should be a positive number: ${part}`);
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= extraStar;
  }
  return { values, star };
}

const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Go `time.ParseDuration` for the units cron uses. */
function parseDuration(s: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    const n = Number(m[1]);
    const unit = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ns'] ?? 0;
    total += n * unit;
    consumed += m[0].length;
  }
  if (consumed !== s.length || s.length === 0) throw new CronParseError(`failed to parse duration ${s}: time: invalid duration "${s}"`);
  return total;
}

/** Local wall-clock fields of an instant in `tz` (UTC when undefined). */
function fields(t: number, tz: string | undefined): { y: number; mo: number; d: number; h: number; mi: number; dow: number } {
  if (tz === undefined || tz === 'UTC' || tz === 'Etc/UTC') {
    const d = new Date(t);
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), dow: d.getUTCDay() };
  }
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', weekday: 'short' }).formatToParts(new Date(t));
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '0';
  const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { y: Number(get('year')), mo: Number(get('month')), d: Number(get('day')), h: Number(get('hour')) % 24, mi: Number(get('minute')), dow: wd };
}

/** Whether `tz` names a zone this runtime knows. */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Parses a CronJob schedule; `tz` is `spec.timeZone`. Throws CronParseError. */
export function parseSchedule(spec: string, tz?: string): Schedule {
  const s = spec.trim();
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) throw new CronParseError('CRON_TZ or TZ used in schedule is not supported, please use the spec.timeZone field instead');
  if (s.startsWith('@every ')) {
    const every = parseDuration(s.slice(7).trim());
    const step = Math.max(1000, Math.floor(every / 1000) * 1000);
    return { next: (t) => Math.floor(t / 1000) * 1000 + step };
  }
  const expanded = descriptors[s.toLowerCase()] ?? s;
  if (expanded.startsWith('@')) throw new CronParseError(`unrecognized descriptor: ${s}`);
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${parts.length}: ${s}`);
  const [mi, h, dom, mo, dow] = [parseField(parts[0] ?? '', minutes), parseField(parts[1] ?? '', hours), parseField(parts[2] ?? '', doms), parseField(parts[3] ?? '', months), parseField(parts[4] ?? '', dows)];
  const dayMatches = (f: ReturnType<typeof fields>): boolean => {
    const a = dom.values.has(f.d);
    const b = dow.values.has(f.dow);
    return dom.star || dow.star ? a && b : a || b;
  };
  return {
    next(t: number): number | undefined {
      // Walk forward minute by minute with coarse skips (hour, day) in UTC steps; local fields decide matches.
      let cur = Math.floor(t / 60_000) * 60_000 + 60_000;
      const limit = t + 5 * 366 * 24 * 3_600_000;
      while (cur <= limit) {
        const f = fields(cur, tz);
        if (!mo.values.has(f.mo) || !dayMatches(f)) {
          cur += (60 - f.mi) * 60_000 + (23 - f.h) * 3_600_000;
          continue;
        }
        if (!h.values.has(f.h)) {
          cur += (60 - f.mi) * 60_000;
          continue;
        }
        if (!mi.values.has(f.mi)) {
          cur += 60_000;
          continue;
        }
        return cur;
      }
      return undefined;
    },
  };
}
