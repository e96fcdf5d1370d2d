/**
 * What upstream's judge-reply reading does (vita/utils/utils.py `evaluator_extracter`: `json.loads(repair_json(content))`)
 * with json_repair 0.52.5 (mangiucugna/json_repair, the release of upstream's commit date): `json.loads` first; if the
 * text is not JSON, json_repair's parser (json_parser.py, parse_object/array/string/number/boolean_or_null/comment.py,
 * object_comparer.py) turns whatever it finds into a value, which `json.dumps` then `json.loads` hand back unchanged.
 * A reply in which the parser finds nothing gives "" — upstream's `json.loads("")` then raises.
 *
 * A port, re-implemented from reading the parser (not copied): the same scanning over code points (Python string
 * indices), the same context stack (including the entries the object parser leaves on it), Python's `str.isspace`,
 * `isalpha`, `isalnum`, `isdigit`, `rstrip`, `int()` and `float()` where the parser uses them. Pinned by
 * json-repair.test.ts against the real json_repair 0.52.5 on recorded and mutated judge replies.
 */
import { JsonSyntaxError } from "../../../lib/python/json";
import { PyDict, pyFromJsonText, type PyValue } from "../../../lib/python/values";

const DELIMITERS = ['"', "'", "“", "”"];
const NUMBER_CHARS = new Set("0123456789-.eE/,");

// Python's str predicates on one character (Unicode 14 as Python 3.11; newer code points may differ).
const SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const ALPHA = /^\p{L}$/u;
const ALNUM = /^[\p{L}\p{N}]$/u;
// isdigit: Numeric_Type Decimal (Nd) or Digit (superscripts, circled digits, … — not Nd).
const DIGIT =
  /^[\p{Nd}\u{b2}-\u{b3}\u{b9}\u{1369}-\u{1371}\u{19da}\u{2070}\u{2074}-\u{2079}\u{2080}-\u{2089}\u{2460}-\u{2468}\u{2474}-\u{247c}\u{2488}-\u{2490}\u{24ea}\u{24f5}-\u{24fd}\u{24ff}\u{2776}-\u{277e}\u{2780}-\u{2788}\u{278a}-\u{2792}\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]$/u;
const isSpace = (c: string) => SPACE.test(c);
const isAlpha = (c: string) => ALPHA.test(c);
const isAlnum = (c: string) => ALNUM.test(c);
const isDigit = (c: string) => DIGIT.test(c);

/** Python `s.rstrip()` over code points. */
function rstrip(chars: string[]): string[] {
  let end = chars.length;
  while (end > 0 && isSpace(chars[end - 1]!)) end--;
  return chars.slice(0, end);
}

const enum Ctx {
  ObjectKey,
  ObjectValue,
  Array,
}

/** json_context.JsonContext: a stack; `reset` pops, and only an emptied stack clears `current` and sets `empty`. */
class JsonContext {
  stack: Ctx[] = [];
  current: Ctx | null = null;
  empty = true;
  set(v: Ctx): void {
    this.stack.push(v);
    this.current = v;
    this.empty = false;
  }
  reset(): void {
    this.stack.pop();
    if (this.stack.length) this.current = this.stack[this.stack.length - 1]!;
    else {
      this.current = null;
      this.empty = true;
    }
  }
  has(v: Ctx): boolean {
    return this.stack.includes(v);
  }
}

type Char = string | false;
/** A parse result; "" also means "nothing here" as it does upstream. */
type Value = PyValue;

const kind = (v: Value): string =>
  v === null ? "none" : typeof v === "boolean" ? "bool" : typeof v === "bigint" ? "int" : typeof v === "number" ? "float" : typeof v === "string" ? "str" : Array.isArray(v) ? "list" : v instanceof PyDict ? "dict" : "other";

/** ObjectComparer.is_same_object: same types and the same structure (atoms of one type are the same). */
function isSameObject(a: Value, b: Value): boolean {
  if (kind(a) !== kind(b)) return false;
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.size !== b.size) return false;
    for (const k of a.keys()) {
      if (!b.has(k)) return false;
      if (!isSameObject(a.get(k)!, b.get(k)!)) return false;
    }
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => isSameObject(x, b[i]!));
  return true;
}

/** ObjectComparer.is_strictly_empty: an empty str, list or dict. */
const isStrictlyEmpty = (v: Value) => (typeof v === "string" && v === "") || (Array.isArray(v) && v.length === 0) || (v instanceof PyDict && v.size === 0);
const isEmptyString = (v: Value) => typeof v === "string" && v === "";

/** Python `int(s)` for the characters parse_number collects (ASCII digits and signs). */
function pyInt(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}
/** Python `float(s)` for the same characters. */
function pyFloat(s: string): number | undefined {
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : undefined;
}

class Parser {
  private s: string[];
  index = 0;
  readonly context = new JsonContext();

  constructor(text: string) {
    this.s = Array.from(text);
  }

  get length(): number {
    return this.s.length;
  }

  /** `self.json_str[self.index + count]` (Python indexing: a negative position counts from the end), or False. */
  charAt(count = 0): Char {
    let i = this.index + count;
    if (i < 0) i += this.s.length;
    return i >= 0 && i < this.s.length ? this.s[i]! : false;
  }

  skipWhitespacesAt(idx = 0, moveMainIndex = true): number {
    let ch = this.charAt(idx);
    if (ch === false) return idx;
    while (isSpace(ch as string)) {
      if (moveMainIndex) this.index++;
      else idx++;
      ch = this.charAt(idx);
      if (ch === false) return idx;
    }
    return idx;
  }

  /** The offset from index of the next unescaped target at or after index + idx (the distance to the end when none). */
  skipToCharacter(character: string | string[], idx = 0): number {
    const targets = new Set(Array.isArray(character) ? character : [character]);
    let i = this.index + idx;
    const n = this.s.length;
    let backslashes = 0;
    while (i < n) {
      const ch = this.s[i]!;
      if (ch === "\\") {
        backslashes++;
        i++;
        continue;
      }
      if (targets.has(ch) && backslashes % 2 === 0) return i - this.index;
      backslashes = 0;
      i++;
    }
    return n - this.index;
  }

  parse(): Value {
    let json: Value = this.parseJson();
    if (this.index < this.s.length) {
      const list: Value[] = [json];
      while (this.index < this.s.length) {
        this.context.reset();
        const j = this.parseJson();
        if (!isEmptyString(j)) {
          if (isSameObject(list[list.length - 1]!, j)) list.pop();
          list.push(j);
        } else this.index++;
      }
      json = list.length === 1 ? list[0]! : list;
    }
    return json;
  }

  parseJson(): Value {
    for (;;) {
      const ch = this.charAt();
      if (ch === false) return "";
      if (ch === "{") {
        this.index++;
        return this.parseObject();
      }
      if (ch === "[") {
        this.index++;
        return this.parseArray();
      }
      if (!this.context.empty && (DELIMITERS.includes(ch) || isAlpha(ch))) return this.parseString();
      if (!this.context.empty && (isDigit(ch) || ch === "-" || ch === ".")) return this.parseNumber();
      if (ch === "#" || ch === "/") return this.parseComment();
      this.index++;
    }
  }

  parseArray(): Value[] {
    const arr: Value[] = [];
    this.context.set(Ctx.Array);
    let ch = this.charAt();
    while (ch !== false && ch !== "]" && ch !== "}") {
      this.skipWhitespacesAt();
      let value: Value = "";
      if (DELIMITERS.includes(ch)) {
        // A string followed by ':' is an object whose '{' is missing.
        let i = this.skipToCharacter(ch, 1);
        i = this.skipWhitespacesAt(i + 1, false);
        value = this.charAt(i) === ":" ? this.parseObject() : this.parseString();
      } else value = this.parseJson();
      if (isStrictlyEmpty(value)) this.index++;
      else if (value === "..." && this.charAt(-1) === ".") {
        // a stray "..." is dropped
      } else arr.push(value);
      ch = this.charAt();
      while (ch !== false && ch !== "]" && (isSpace(ch) || ch === ",")) {
        this.index++;
        ch = this.charAt();
      }
    }
    this.index++;
    this.context.reset();
    return arr;
  }

  parseObject(): Value {
    const obj = new PyDict();
    const startIndex = this.index;
    while ((this.charAt() || "}") !== "}") {
      this.skipWhitespacesAt();
      if ((this.charAt() || "") === ":") this.index++;
      this.context.set(Ctx.ObjectKey);
      let rollbackIndex = this.index;
      let key = "";
      while (this.charAt()) {
        rollbackIndex = this.index;
        if (this.charAt() === "[" && key === "") {
          // An array right after an array value: parse it and merge it into the previous value.
          const keys = obj.keys();
          const prevKey = keys.length ? (keys[keys.length - 1] as string) : null;
          if (prevKey && Array.isArray(obj.get(prevKey))) {
            this.index++;
            const newArray = this.parseArray();
            const prev = obj.get(prevKey) as Value[];
            prev.push(...(newArray.length === 1 && Array.isArray(newArray[0]) ? (newArray[0] as Value[]) : newArray));
            this.skipWhitespacesAt();
            if (this.charAt() === ",") this.index++;
            this.skipWhitespacesAt();
            continue;
          }
        }
        key = pyStrOfKey(this.parseString());
        if (key === "") this.skipWhitespacesAt();
        const c = this.charAt();
        if (key !== "" || c === ":" || c === "}") break;
      }
      if (this.context.has(Ctx.Array) && obj.has(key)) {
        // A repeated key inside an array: this object ends here and the next one starts at the key.
        this.index = rollbackIndex - 1;
        this.s.splice(this.index + 1, 0, "{");
        break;
      }
      this.skipWhitespacesAt();
      if ((this.charAt() || "}") === "}") continue;
      this.skipWhitespacesAt();
      this.index++;
      this.context.reset();
      this.context.set(Ctx.ObjectValue);
      this.skipWhitespacesAt();
      let value: Value = "";
      const c = this.charAt() || "";
      if (c !== "," && c !== "}") value = this.parseJson();
      this.context.reset();
      obj.set(key, value);
      const after = this.charAt() || "";
      if (after === "," || after === "'" || after === '"') this.index++;
      this.skipWhitespacesAt();
    }
    this.index++;
    if (obj.size === 0 && this.index - startIndex > 2) {
      this.index = startIndex;
      return this.parseArray();
    }
    if (!this.context.empty) return obj;
    this.skipWhitespacesAt();
    if ((this.charAt() || "") !== ",") return obj;
    this.index++;
    this.skipWhitespacesAt();
    if (!DELIMITERS.includes(this.charAt() || "")) return obj;
    // '{"a": 1}, "b": 2}': the members after the closing brace belong to the object.
    const additional = this.parseObject();
    if (additional instanceof PyDict) for (const [k, v] of additional.entries()) obj.set(k, v);
    return obj;
  }

  parseBooleanOrNull(): Value {
    const start = this.index;
    let ch = (this.charAt() || "").toLowerCase();
    const value: [string, boolean | null] | null = ch === "t" ? ["true", true] : ch === "f" ? ["false", false] : ch === "n" ? ["null", null] : null;
    if (value) {
      let i = 0;
      while (ch && i < value[0].length && ch === value[0][i]) {
        i++;
        this.index++;
        ch = (this.charAt() || "").toLowerCase();
      }
      if (i === value[0].length) return value[1];
    }
    this.index = start;
    return "";
  }

  parseNumber(): Value {
    let num = "";
    let ch = this.charAt();
    const inArray = this.context.current === Ctx.Array;
    while (ch !== false && NUMBER_CHARS.has(ch) && (!inArray || ch !== ",")) {
      num += ch;
      this.index++;
      ch = this.charAt();
    }
    if (num && "-eE/,".includes(num[num.length - 1]!)) {
      num = num.slice(0, -1);
      this.index--;
    } else if (isAlpha(this.charAt() || "")) {
      // A word starting with digits: a string after all.
      this.index -= num.length;
      return this.parseString();
    }
    if (num.includes(",")) return num;
    if (num.includes(".") || num.includes("e") || num.includes("E")) return pyFloat(num) ?? num;
    return pyInt(num) ?? num;
  }

  parseComment(): Value {
    let ch = this.charAt();
    const stops = ["\n", "\r"];
    if (this.context.has(Ctx.Array)) stops.push("]");
    if (this.context.has(Ctx.ObjectValue)) stops.push("}");
    if (this.context.has(Ctx.ObjectKey)) stops.push(":");
    if (ch === "#") {
      while (ch !== false && !stops.includes(ch)) {
        this.index++;
        ch = this.charAt();
      }
    } else if (ch === "/") {
      const next = this.charAt(1);
      if (next === "/") {
        this.index += 2;
        ch = this.charAt();
        while (ch !== false && !stops.includes(ch)) {
          this.index++;
          ch = this.charAt();
        }
      } else if (next === "*") {
        let comment = "/*";
        this.index += 2;
        for (;;) {
          const c = this.charAt();
          if (c === false) break;
          comment += c;
          this.index++;
          if (comment.endsWith("*/")) break;
        }
      } else this.index++;
    }
    return this.context.empty ? this.parseJson() : "";
  }

  parseString(): Value {
    let missingQuotes = false;
    let doubledQuotes = false;
    let lDelim = '"';
    let rDelim = '"';
    let ch = this.charAt();
    if (ch === "#" || ch === "/") return this.parseComment();
    while (ch !== false && !DELIMITERS.includes(ch) && !isAlnum(ch)) {
      this.index++;
      ch = this.charAt();
    }
    if (ch === false) return "";
    if (ch === "'") lDelim = rDelim = "'";
    else if (ch === "“") {
      lDelim = "“";
      rDelim = "”";
    } else if (isAlnum(ch)) {
      if (["t", "f", "n"].includes(ch.toLowerCase()) && this.context.current !== Ctx.ObjectKey) {
        const v = this.parseBooleanOrNull();
        if (!isEmptyString(v)) return v;
      }
      missingQuotes = true;
    }
    if (!missingQuotes) this.index++;

    const cur = () => this.context.current;
    // Doubled quotes: ""value"" or an empty string.
    const first = this.charAt();
    if (first !== false && DELIMITERS.includes(first) && first === lDelim) {
      const c1 = this.charAt(1);
      if ((cur() === Ctx.ObjectKey && c1 === ":") || (cur() === Ctx.ObjectValue && (c1 === "," || c1 === "}"))) {
        this.index++;
        return "";
      }
      if (c1 === lDelim) return "";
      let i = this.skipToCharacter(rDelim, 1);
      let next = this.charAt(i);
      if (next !== false && (this.charAt(i + 1) || "") === rDelim) {
        doubledQuotes = true;
        this.index++;
      } else {
        i = this.skipWhitespacesAt(1, false);
        next = this.charAt(i);
        if (next !== false && [...DELIMITERS, "{", "["].includes(next)) {
          this.index++;
          return "";
        }
        if (next === false || ![",", "]", "}"].includes(next)) this.index++;
      }
    }

    let acc: string[] = [];
    const last = () => (acc.length ? acc[acc.length - 1]! : undefined);
    ch = this.charAt();
    let unmatchedDelimiter = false;
    while (ch !== false && ch !== rDelim) {
      if (missingQuotes) {
        if (cur() === Ctx.ObjectKey && (ch === ":" || isSpace(ch))) break;
        if (cur() === Ctx.Array && (ch === "]" || ch === ",")) break;
      }
      if (cur() === Ctx.ObjectValue && (ch === "," || ch === "}") && (acc.length === 0 || last() !== rDelim)) {
        let rDelimMissing = true;
        this.skipWhitespacesAt();
        if (this.charAt(1) === "\\") rDelimMissing = false;
        let i = this.skipToCharacter(rDelim, 1);
        let next = this.charAt(i);
        if (next !== false) {
          i++;
          i = this.skipWhitespacesAt(i, false);
          next = this.charAt(i);
          if (next === false || next === "," || next === "}") rDelimMissing = false;
          else {
            i = this.skipToCharacter(lDelim, i);
            next = this.charAt(i);
            if (next === false) rDelimMissing = false;
            else {
              i = this.skipWhitespacesAt(i + 1, false);
              next = this.charAt(i);
              if (next !== false && next !== ":") rDelimMissing = false;
            }
          }
        } else {
          i = this.skipToCharacter(":", 1);
          next = this.charAt(i);
          if (next !== false) break;
          i = this.skipWhitespacesAt(1, false);
          const j = this.skipToCharacter("}", i);
          if (j - i > 1) rDelimMissing = false;
          else if (this.charAt(j) !== false) {
            for (let k = acc.length - 1; k >= 0; k--) {
              if (acc[k] === "{") {
                rDelimMissing = false;
                break;
              }
            }
          }
        }
        if (rDelimMissing) break;
      }
      if (ch === "]" && this.context.has(Ctx.Array) && (acc.length === 0 || last() !== rDelim)) {
        const i = this.skipToCharacter(rDelim);
        if (this.charAt(i) === false) break;
      }
      if (cur() === Ctx.ObjectValue && ch === "}") {
        // The object may really end here (possibly before code fences).
        const i = this.skipWhitespacesAt(1, false);
        let next = this.charAt(i);
        if (next === "`") {
          next = this.charAt(i + 1);
          if (next === "`") {
            next = this.charAt(i + 2);
            if (next === "`") break;
          }
        }
        if (next === false) break;
      }
      acc.push(ch);
      this.index++;
      ch = this.charAt();
      if (ch !== false && acc.length && last() === "\\") {
        // A stray escape in the text.
        if ([rDelim, "t", "n", "r", "b", "\\"].includes(ch)) {
          acc.pop();
          const seq: Record<string, string> = { t: "\t", n: "\n", r: "\r", b: "\b" };
          acc.push(seq[ch] ?? ch);
          this.index++;
          ch = this.charAt();
          while (ch !== false && acc.length && last() === "\\" && (ch === rDelim || ch === "\\")) {
            acc[acc.length - 1] = ch;
            this.index++;
            ch = this.charAt();
          }
          continue;
        }
        if (ch === "u" || ch === "x") {
          const n = ch === "u" ? 4 : 2;
          const nextChars = this.s.slice(this.index + 1, this.index + 1 + n).join("");
          if (Array.from(nextChars).length === n && /^[0-9a-fA-F]+$/.test(nextChars)) {
            acc[acc.length - 1] = String.fromCodePoint(parseInt(nextChars, 16));
            this.index += 1 + n;
            ch = this.charAt();
            continue;
          }
        } else if (DELIMITERS.includes(ch) && ch !== rDelim) {
          acc[acc.length - 1] = ch;
          this.index++;
          ch = this.charAt();
          continue;
        }
      }
      if (ch === ":" && !missingQuotes && cur() === Ctx.ObjectKey) {
        // A key whose closing quote is missing, when a quoted value follows.
        let i = this.skipToCharacter(lDelim, 1);
        let next = this.charAt(i);
        if (next !== false) {
          i++;
          i = this.skipToCharacter(rDelim, i);
          next = this.charAt(i);
          if (next !== false) {
            i++;
            i = this.skipWhitespacesAt(i, false);
            next = this.charAt(i);
            if (next === "," || next === "}") break;
          }
        } else break;
      }
      if (ch === rDelim && acc.length && last() !== "\\") {
        if (doubledQuotes && this.charAt(1) === rDelim) {
          this.index++;
        } else if (missingQuotes && cur() === Ctx.ObjectValue) {
          let i = 1;
          let next = this.charAt(i);
          while (next !== false && next !== rDelim && next !== lDelim) {
            i++;
            next = this.charAt(i);
          }
          if (next !== false) {
            i++;
            i = this.skipWhitespacesAt(i, false);
            next = this.charAt(i);
            if (next === ":") {
              this.index--;
              ch = this.charAt();
              break;
            }
          }
        } else if (unmatchedDelimiter) {
          unmatchedDelimiter = false;
          acc.push(ch);
          this.index++;
          ch = this.charAt();
        } else {
          // Is there a closing delimiter further on? Otherwise this quote closes the string.
          let i = 1;
          let next = this.charAt(i);
          let checkCommaInObjectValue = true;
          while (next !== false && next !== rDelim && next !== lDelim) {
            if (checkCommaInObjectValue && isAlpha(next)) checkCommaInObjectValue = false;
            if (
              (this.context.has(Ctx.ObjectKey) && (next === ":" || next === "}")) ||
              (this.context.has(Ctx.ObjectValue) && next === "}") ||
              (this.context.has(Ctx.Array) && (next === "]" || next === ",")) ||
              (checkCommaInObjectValue && cur() === Ctx.ObjectValue && next === ",")
            ) {
              break;
            }
            i++;
            next = this.charAt(i);
          }
          if (next === "," && cur() === Ctx.ObjectValue) {
            i++;
            i = this.skipToCharacter(rDelim, i);
            next = this.charAt(i);
            i++;
            i = this.skipWhitespacesAt(i, false);
            next = this.charAt(i);
            if (next === "}" || next === ",") {
              acc.push(ch);
              this.index++;
              ch = this.charAt();
              continue;
            }
          } else if (next === rDelim && this.charAt(i - 1) !== "\\") {
            let onlySpaces = true;
            for (let j = 1; j < i; j++) {
              const cj = this.charAt(j);
              if (cj !== false && !isSpace(cj)) onlySpaces = false;
            }
            if (onlySpaces) break;
            if (cur() === Ctx.ObjectValue) {
              i = this.skipWhitespacesAt(i + 1, false);
              if (this.charAt(i) === ",") {
                // '"va"lue",': a quote inside the value when another key follows.
                i = this.skipToCharacter(lDelim, i + 1);
                i++;
                i = this.skipToCharacter(rDelim, i + 1);
                i++;
                i = this.skipWhitespacesAt(i, false);
                next = this.charAt(i);
                if (next === ":") {
                  acc.push(ch);
                  this.index++;
                  ch = this.charAt();
                  continue;
                }
              }
              i = this.skipToCharacter(rDelim, i + 1);
              i++;
              next = this.charAt(i);
              while (next !== false && next !== ":") {
                if (next === "," || next === "]" || next === "}" || (next === rDelim && this.charAt(i - 1) !== "\\")) break;
                i++;
                next = this.charAt(i);
              }
              if (next !== ":") {
                unmatchedDelimiter = !unmatchedDelimiter;
                acc.push(ch);
                this.index++;
                ch = this.charAt();
              }
            } else if (cur() === Ctx.Array) {
              // ["bla "puppy" bla"]: an even number of delimiters further on means these quotes are text.
              let evenDelimiters = next === rDelim;
              while (next === rDelim) {
                i = this.skipToCharacter([rDelim, "]"], i + 1);
                next = this.charAt(i);
                if (next !== rDelim) {
                  evenDelimiters = false;
                  break;
                }
                i = this.skipToCharacter([rDelim, "]"], i + 1);
                next = this.charAt(i);
              }
              if (evenDelimiters) {
                unmatchedDelimiter = !unmatchedDelimiter;
                acc.push(ch);
                this.index++;
                ch = this.charAt();
              } else break;
            } else if (cur() === Ctx.ObjectKey) {
              acc.push(ch);
              this.index++;
              ch = this.charAt();
            }
          }
        }
      }
    }
    if (ch !== false && missingQuotes && cur() === Ctx.ObjectKey && isSpace(ch)) {
      // A word followed by text instead of a key: no string.
      this.skipWhitespacesAt();
      const c = this.charAt();
      if (c !== ":" && c !== ",") return "";
    }
    if (ch !== rDelim) acc = rstrip(acc);
    else this.index++;
    if (missingQuotes || (acc.length && last() === "\n")) acc = rstrip(acc);
    return acc.join("");
  }
}

/** `str(key)` of what parse_string returns in key context (always a string there; a literal is printed as Python does). */
function pyStrOfKey(v: Value): string {
  if (typeof v === "string") return v;
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  return String(v);
}

/** json_repair's parser alone (`repair_json(..., skip_json_loads=True, return_objects=True)`). */
export function repairParse(text: string): Value {
  return new Parser(text).parse();
}

export type JudgeReplyRead = { ok: true; value: PyValue } | { ok: false; why: string };

/**
 * `evaluator_extracter(content)`: the reply as JSON, else as json_repair repairs it. `ok: false` where upstream's
 * `json.loads("")` raises: the parser found nothing in the reply.
 */
export function readJudgeReply(content: string): JudgeReplyRead {
  try {
    return { ok: true, value: pyFromJsonText(content) };
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
  }
  const value = repairParse(content);
  if (isEmptyString(value)) return { ok: false, why: "json_repair finds no JSON in the reply" };
  return { ok: true, value };
}
