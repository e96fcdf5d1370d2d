/**
 * Python's naive `datetime.datetime` for ports that format and parse dates, with the local time zone
 * taken to be UTC (the product runs with TZ=UTC): `strftime`, `strptime` (CPython's `_strptime`
 * regexes and error texts), `timestamp()`, `fromtimestamp()`, comparison, `min`/`max`.
 */
import { daysInMonth as daysIn, fromOrdinal, toOrdinal } from "./calendar";
import { PyObject, pyStrRepr, pyTypeName, typeError, valueError, type PyValue } from "./values";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

const EPOCH_ORDINAL = toOrdinal(1970, 1, 1);
const pad = (n: number, width: number) => String(n).padStart(width, "0");

export class PyDateTime extends PyObject {
  readonly pyType = "datetime";

  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    readonly hour = 0,
    readonly minute = 0,
    readonly second = 0,
    readonly microsecond = 0,
  ) {
    super();
    if (year < 1 || year > 9999) throw valueError(`year ${year} is out of range`);
    if (month < 1 || month > 12) throw valueError("month must be in 1..12");
    if (day < 1 || day > daysIn(year, month)) throw valueError("day is out of range for month");
    if (hour < 0 || hour > 23) throw valueError("hour must be in 0..23");
    if (minute < 0 || minute > 59) throw valueError("minute must be in 0..59");
    if (second < 0 || second > 59) throw valueError("second must be in 0..59");
    if (microsecond < 0 || microsecond > 999999) throw valueError("microsecond must be in 0..999999");
  }

  static readonly min = new PyDateTime(1, 1, 1);
  static readonly max = new PyDateTime(9999, 12, 31, 23, 59, 59, 999999);

  /** `datetime.fromtimestamp(ts)` in UTC. */
  static fromTimestamp(ts: number): PyDateTime {
    const totalSeconds = Math.floor(ts);
    const micro = Math.round((ts - totalSeconds) * 1e6);
    const days = Math.floor(totalSeconds / 86400);
    const secs = totalSeconds - days * 86400;
    const [y, m, d] = fromOrdinal(EPOCH_ORDINAL + days);
    return new PyDateTime(y, m, d, Math.floor(secs / 3600), Math.floor((secs % 3600) / 60), secs % 60, micro);
  }

  /** `datetime.today()` / `now()` in UTC, from a clock in epoch milliseconds. */
  static now(clockMs: number = Date.now()): PyDateTime {
    const whole = Math.floor(clockMs / 1000);
    const dt = PyDateTime.fromTimestamp(whole);
    return new PyDateTime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, Math.round((clockMs - whole * 1000) * 1000));
  }

  ordinal(): number {
    return toOrdinal(this.year, this.month, this.day);
  }

  /** `timestamp()` of a naive datetime in UTC. */
  timestamp(): number {
    return (this.ordinal() - EPOCH_ORDINAL) * 86400 + this.hour * 3600 + this.minute * 60 + this.second + this.microsecond / 1e6;
  }

  /** `self + timedelta(days=…, seconds=…)`. */
  plus(days: number, seconds = 0): PyDateTime {
    const total = (this.ordinal() - EPOCH_ORDINAL + days) * 86400 + this.hour * 3600 + this.minute * 60 + this.second + seconds;
    const dt = PyDateTime.fromTimestamp(total);
    return new PyDateTime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, this.microsecond);
  }

  weekday(): number {
    return (this.ordinal() + 6) % 7;
  }

  strftime(format: string): string {
    return format.replace(/%(.)/gs, (_m, code: string) => {
      switch (code) {
        case "Y":
          return String(this.year);
        case "y":
          return pad(this.year % 100, 2);
        case "m":
          return pad(this.month, 2);
        case "d":
          return pad(this.day, 2);
        case "H":
          return pad(this.hour, 2);
        case "I":
          return pad(this.hour % 12 === 0 ? 12 : this.hour % 12, 2);
        case "M":
          return pad(this.minute, 2);
        case "S":
          return pad(this.second, 2);
        case "f":
          return pad(this.microsecond, 6);
        case "p":
          return this.hour < 12 ? "AM" : "PM";
        case "b":
          return MONTHS[this.month - 1].slice(0, 3);
        case "B":
          return MONTHS[this.month - 1];
        case "a":
          return WEEKDAYS[this.weekday()].slice(0, 3);
        case "A":
          return WEEKDAYS[this.weekday()];
        case "j":
          return pad(this.ordinal() - toOrdinal(this.year, 1, 1) + 1, 3);
        case "%":
          return "%";
        default:
          return "%" + code;
      }
    });
  }

  repr(): string {
    const parts = [this.year, this.month, this.day, this.hour, this.minute];
    if (this.second || this.microsecond) parts.push(this.second);
    if (this.microsecond) parts.push(this.microsecond);
    return `datetime.datetime(${parts.join(", ")})`;
  }

  str(): string {
    const base = `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)} ${pad(this.hour, 2)}:${pad(this.minute, 2)}:${pad(this.second, 2)}`;
    return this.microsecond ? `${base}.${pad(this.microsecond, 6)}` : base;
  }

  private key(): number[] {
    return [this.year, this.month, this.day, this.hour, this.minute, this.second, this.microsecond];
  }

  compare(other: PyValue): number | undefined {
    if (!(other instanceof PyDateTime)) return undefined;
    const a = this.key();
    const b = other.key();
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  }

  eq(other: PyValue): boolean | undefined {
    if (!(other instanceof PyDateTime)) return undefined;
    return this.compare(other) === 0;
  }

  hashKey(): string {
    return "datetime:" + this.key().join(",");
  }
}

// CPython's _strptime regexes for the directives (C locale).
const DIRECTIVES: Record<string, string> = {
  d: "(?<d>3[0-1]|[1-2]\\d|0[1-9]|[1-9]| [1-9])",
  f: "(?<f>[0-9]{1,6})",
  H: "(?<H>2[0-3]|[0-1]\\d|\\d)",
  I: "(?<I>1[0-2]|0[1-9]|[1-9])",
  j: "(?<j>36[0-6]|3[0-5]\\d|[1-2]\\d\\d|0[1-9]\\d|00[1-9]|[1-9]\\d|0[1-9]|[1-9])",
  m: "(?<m>1[0-2]|0[1-9]|[1-9])",
  M: "(?<M>[0-5]\\d|\\d)",
  S: "(?<S>6[0-1]|[0-5]\\d|\\d)",
  y: "(?<y>\\d\\d)",
  Y: "(?<Y>\\d\\d\\d\\d)",
  p: "(?<p>am|pm)",
  b: `(?<b>${MONTHS.map((m) => m.slice(0, 3).toLowerCase()).join("|")})`,
  B: `(?<B>${MONTHS.map((m) => m.toLowerCase()).join("|")})`,
  a: `(?<a>${WEEKDAYS.map((d) => d.slice(0, 3).toLowerCase()).join("|")})`,
  A: `(?<A>${WEEKDAYS.map((d) => d.toLowerCase()).join("|")})`,
  "%": "%",
};

const formatCache = new Map<string, RegExp>();

function strptimeRegex(format: string): RegExp {
  const cached = formatCache.get(format);
  if (cached) return cached;
  let pattern = "";
  const used = new Set<string>();
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c === "%") {
      const code = format[i + 1];
      if (code === undefined) throw valueError("stray % in format '" + format + "'");
      const directive = DIRECTIVES[code];
      if (directive === undefined) throw valueError(`'${code}' is a bad directive in format '${format}'`);
      if (code !== "%" && used.has(code)) throw new Error(`strptime: repeated directive %${code} is not supported`);
      used.add(code);
      pattern += directive;
      i++;
    } else if (/\s/.test(c)) {
      while (i + 1 < format.length && /\s/.test(format[i + 1])) i++;
      pattern += "\\s+";
    } else pattern += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  const re = new RegExp("^(?:" + pattern + ")", "i");
  formatCache.set(format, re);
  return re;
}

/** `datetime.strptime(text, format)` with CPython's regexes and error texts. */
export function strptime(text: PyValue, format: PyValue): PyDateTime {
  if (typeof text !== "string") throw typeError(`strptime() argument 1 must be str, not ${pyTypeName(text)}`);
  if (typeof format !== "string") throw typeError(`strptime() argument 2 must be str, not ${pyTypeName(format)}`);
  const match = strptimeRegex(format).exec(text);
  if (!match) throw valueError(`time data ${pyStrRepr(text)} does not match format ${pyStrRepr(format)}`);
  if (match[0].length !== text.length) throw valueError(`unconverted data remains: ${text.slice(match[0].length)}`);
  const g = match.groups ?? {};
  let year = 1900;
  let month = 1;
  let day = 1;
  let hour = 0;
  if (g.Y !== undefined) year = Number(g.Y);
  else if (g.y !== undefined) {
    const y = Number(g.y);
    year = y <= 68 ? 2000 + y : 1900 + y;
  }
  if (g.m !== undefined) month = Number(g.m);
  else if (g.B !== undefined) month = MONTHS.findIndex((m) => m.toLowerCase() === g.B.toLowerCase()) + 1;
  else if (g.b !== undefined) month = MONTHS.findIndex((m) => m.slice(0, 3).toLowerCase() === g.b.toLowerCase()) + 1;
  if (g.d !== undefined) day = Number(g.d.trim());
  if (g.H !== undefined) hour = Number(g.H);
  else if (g.I !== undefined) {
    const h = Number(g.I);
    const pm = (g.p ?? "").toLowerCase() === "pm";
    hour = pm ? (h === 12 ? 12 : h + 12) : h === 12 ? 0 : h;
  }
  const minute = g.M !== undefined ? Number(g.M) : 0;
  const second = g.S !== undefined ? Number(g.S) : 0;
  const micro = g.f !== undefined ? Number(g.f.padEnd(6, "0")) : 0;
  if (g.j !== undefined && g.m === undefined && g.d === undefined) {
    const [y, m, d] = fromOrdinal(toOrdinal(year, 1, 1) + Number(g.j) - 1);
    return new PyDateTime(y, m, d, hour, minute, second, micro);
  }
  return new PyDateTime(year, month, day, hour, minute, second, micro);
}
