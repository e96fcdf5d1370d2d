/**
 * A TOML reader for the data files tau2 ships as TOML (telecom's db.toml and user_db.toml), as the Python
 * `toml` package loads them: tables and arrays of tables (dotted headers nest into the latest element),
 * bare / quoted / dotted keys, basic and literal strings (single- and multi-line), integers (kept as ints),
 * floats (kept as floats), booleans, arrays and inline tables; comments. Tables become Maps in file order.
 * TOML dates and times are rejected (the shipped files write dates as strings). Errors name the file and line.
 */
import type { TValue } from "./py";
import { Tau2DataError } from "./pydantic";

type Table = Map<string, TValue>;

export function parseToml(text: string, source = "file.toml"): Table {
  const root: Table = new Map();
  /** Tables defined by a header (so a second `[x]` is an error) and arrays made by `[[x]]`. */
  const defined = new Set<Table>();
  const arraysOfTables = new Set<TValue[]>();
  let current = root;
  let pos = 0;
  let line = 1;

  const fail = (message: string): never => {
    throw new Tau2DataError(`${source}:${line}: ${message}`);
  };
  const peek = () => text[pos];
  const skipSpaces = () => {
    while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  };
  const skipComment = () => {
    if (text[pos] === "#") while (pos < text.length && text[pos] !== "\n") pos++;
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (pos < text.length) {
      if (text[pos] === "\r" && text[pos + 1] === "\n") pos++;
      if (text[pos] !== "\n") fail(`unexpected ${JSON.stringify(text[pos])} after a value`);
      pos++;
      line++;
    }
  };
  /** Whitespace, newlines and comments inside arrays. */
  const skipBlank = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (text[pos] === "\n" || text[pos] === "\r") {
        if (text[pos] === "\n") line++;
        pos++;
        continue;
      }
      return;
    }
  };

  function key(): string[] {
    const parts: string[] = [];
    for (;;) {
      skipSpaces();
      const c = peek();
      if (c === '"' || c === "'") parts.push(stringValue());
      else {
        const m = /^[A-Za-z0-9_-]+/.exec(text.slice(pos, pos + 256));
        if (!m) fail("expected a key");
        parts.push(m![0]);
        pos += m![0].length;
      }
      skipSpaces();
      if (peek() !== ".") return parts;
      pos++;
    }
  }

  function stringValue(): string {
    const q = peek();
    const triple = text.startsWith(q!.repeat(3), pos);
    if (triple) {
      pos += 3;
      if (text[pos] === "\n") {
        pos++;
        line++;
      } else if (text[pos] === "\r" && text[pos + 1] === "\n") {
        pos += 2;
        line++;
      }
    } else pos++;
    let out = "";
    for (;;) {
      if (pos >= text.length) fail("unterminated string");
      const c = text[pos]!;
      if (triple ? text.startsWith(q!.repeat(3), pos) : c === q) {
        pos += triple ? 3 : 1;
        // A multi-line string may end with up to two extra quotes.
        while (triple && text[pos] === q && out.length < Infinity && text.startsWith(q!, pos) && !text.startsWith(q!.repeat(3), pos)) {
          out += q;
          pos++;
        }
        return out;
      }
      if (c === "\n") {
        if (!triple) fail("newline in a single-line string");
        line++;
      }
      if (c === "\\" && q === '"') {
        const e = text[pos + 1];
        pos += 2;
        const simple: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };
        if (e !== undefined && simple[e] !== undefined) out += simple[e];
        else if (e === "u" || e === "U") {
          const n = e === "u" ? 4 : 8;
          const hex = text.slice(pos, pos + n);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) fail("bad unicode escape");
          out += String.fromCodePoint(parseInt(hex, 16));
          pos += n;
        } else if (triple && (e === "\n" || e === " " || e === "\t" || e === "\r")) {
          // Line-ending backslash: trim the newline and the whitespace after it.
          pos--;
          while (pos < text.length && /[ \t\r\n]/.test(text[pos]!)) {
            if (text[pos] === "\n") line++;
            pos++;
          }
        } else fail(`bad escape \\${e}`);
        continue;
      }
      out += c;
      pos++;
    }
  }

  function value(): TValue {
    skipSpaces();
    const c = peek();
    if (c === '"' || c === "'") return stringValue();
    if (c === "[") {
      pos++;
      const items: TValue[] = [];
      for (;;) {
        skipBlank();
        if (peek() === "]") {
          pos++;
          return items;
        }
        items.push(value());
        skipBlank();
        if (peek() === ",") {
          pos++;
          continue;
        }
        skipBlank();
        if (peek() !== "]") fail("expected , or ] in an array");
      }
    }
    if (c === "{") {
      pos++;
      const table: Table = new Map();
      skipSpaces();
      if (peek() === "}") {
        pos++;
        return table;
      }
      for (;;) {
        const k = key();
        skipSpaces();
        if (peek() !== "=") fail("expected = in an inline table");
        pos++;
        assign(table, k, value());
        skipSpaces();
        if (peek() === "}") {
          pos++;
          return table;
        }
        if (peek() !== ",") fail("expected , or } in an inline table");
        pos++;
      }
    }
    const m = /^[^\s,\]}#]+/.exec(text.slice(pos, pos + 128));
    if (!m) fail("expected a value");
    const word = m![0];
    pos += word.length;
    if (word === "true") return true;
    if (word === "false") return false;
    if (/^[+-]?(0|[1-9](_?\d)*)$/.test(word)) return BigInt(word.replace(/_/g, ""));
    if (/^0x[0-9A-Fa-f](_?[0-9A-Fa-f])*$/.test(word)) return BigInt(word.replace(/_/g, ""));
    if (/^0o[0-7](_?[0-7])*$/.test(word)) return BigInt(word.replace(/_/g, ""));
    if (/^0b[01](_?[01])*$/.test(word)) return BigInt(word.replace(/_/g, ""));
    if (/^[+-]?(0|[1-9](_?\d)*)(\.\d(_?\d)*)?([eE][+-]?\d(_?\d)*)?$/.test(word)) return Number(word.replace(/_/g, ""));
    if (/^[+-]?inf$/.test(word)) return word.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(word)) return NaN;
    if (/^\d{4}-\d{2}-\d{2}/.test(word) || /^\d{2}:\d{2}/.test(word)) fail(`TOML dates and times are not supported here (${word}): write the date as a string`);
    return fail(`not a TOML value: ${word}`);
  }

  function assign(table: Table, path: string[], v: TValue): void {
    let t = table;
    for (const part of path.slice(0, -1)) {
      const next = t.get(part);
      if (next === undefined) {
        const made: Table = new Map();
        t.set(part, made);
        t = made;
      } else if (next instanceof Map) t = next as Table;
      else fail(`key ${path.join(".")} redefines a value`);
    }
    const last = path[path.length - 1]!;
    if (t.has(last)) fail(`duplicate key ${path.join(".")}`);
    t.set(last, v);
  }

  /** The table a header names, descending through arrays of tables into their last element. */
  function tableAt(path: string[], forArray: boolean): Table | TValue[] {
    let t = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      let next = t.get(part);
      if (last && forArray) {
        if (next === undefined) {
          next = [];
          arraysOfTables.add(next as TValue[]);
          t.set(part, next);
        }
        if (!Array.isArray(next) || !arraysOfTables.has(next)) fail(`[[${path.join(".")}]] is not an array of tables`);
        return;
      }
      if (next === undefined) {
        next = new Map();
        t.set(part, next);
      }
      if (Array.isArray(next)) {
        if (!arraysOfTables.has(next) || next.length === 0) fail(`${path.join(".")} is not a table`);
        next = next[next.length - 1]!;
      }
      if (!(next instanceof Map)) fail(`${path.join(".")} is not a table`);
      t = next as Table;
    });
    if (forArray) return t.get(path[path.length - 1]!) as TValue[];
    return t;
  }

  while (pos < text.length) {
    skipBlank();
    if (pos >= text.length) break;
    if (peek() === "[") {
      const isArray = text[pos + 1] === "[";
      pos += isArray ? 2 : 1;
      const path = key();
      skipSpaces();
      if (!text.startsWith(isArray ? "]]" : "]", pos)) fail("unterminated table header");
      pos += isArray ? 2 : 1;
      if (isArray) {
        const arr = tableAt(path, true) as TValue[];
        const fresh: Table = new Map();
        arr.push(fresh);
        current = fresh;
      } else {
        const table = tableAt(path, false) as Table;
        if (defined.has(table)) fail(`table [${path.join(".")}] defined twice`);
        defined.add(table);
        current = table;
      }
      endOfLine();
      continue;
    }
    const k = key();
    skipSpaces();
    if (peek() !== "=") fail("expected = after a key");
    pos++;
    assign(current, k, value());
    endOfLine();
  }
  return root;
}
