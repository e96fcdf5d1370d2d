/**
 * The `calculate` tool's evaluator (spec §6.1): Python 3 expression semantics over the alphabet
 * `0123456789+-*\/(). `, without `eval`. Integers are exact (bigint), `/` is true division, `//` floors,
 * `**` is right-associative and binds tighter than a unary minus on its left. Errors carry the common
 * CPython messages.
 */
import { pyFloatRepr, round2 } from "./pyjson";

export class PyError extends Error {}

const ALLOWED = new Set("0123456789+-*/(). ");

type Token =
  | { kind: "int"; value: bigint }
  | { kind: "float"; value: number }
  | { kind: "op"; value: "+" | "-" | "*" | "/" | "//" | "**" | "(" | ")" };

type Node =
  | { kind: "num"; value: PyValue }
  | { kind: "tuple" }
  | { kind: "unary"; op: "+" | "-"; operand: Node }
  | { kind: "binary"; op: "+" | "-" | "*" | "/" | "//" | "**"; left: Node; right: Node };

type PyValue = bigint | number | "tuple";

/** Cap on exact-integer size: far beyond any double, stops `9**9**9` from hanging the worker. */
const MAX_INT_BITS = 100_000;

function syntaxError(message: string, line = 1): never {
  throw new PyError(`${message} (<string>, line ${line})`);
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " ") {
      i++;
      continue;
    }
    if ((c >= "0" && c <= "9") || (c === "." && src[i + 1] >= "0" && src[i + 1] <= "9")) {
      const m = /^(\d*)(\.\d*)?/.exec(src.slice(i))!;
      const [text, intPart, frac] = m;
      if (frac === undefined) {
        if (intPart.length > 1 && intPart[0] === "0" && /[1-9]/.test(intPart)) {
          syntaxError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
        }
        tokens.push({ kind: "int", value: BigInt(intPart) });
      } else {
        tokens.push({ kind: "float", value: Number((intPart || "0") + (frac === "." ? "" : frac)) });
      }
      i += text.length;
      continue;
    }
    if (c === ".") syntaxError("invalid syntax");
    if (c === "*" || c === "/") {
      const op = src[i + 1] === c ? ((c + c) as "**" | "//") : c;
      tokens.push({ kind: "op", value: op });
      i += op.length;
      continue;
    }
    if (c === "(") depth++;
    if (c === ")") {
      if (depth === 0) syntaxError("unmatched ')'");
      depth--;
    }
    tokens.push({ kind: "op", value: c as "+" | "-" | "(" | ")" });
    i++;
  }
  if (depth > 0) syntaxError("'(' was never closed");
  return tokens;
}

function parse(tokens: Token[]): Node {
  let pos = 0;
  const peekOp = (...ops: string[]) => {
    const t = tokens[pos];
    return t && t.kind === "op" && ops.includes(t.value) ? t.value : undefined;
  };
  const expr = (): Node => {
    let left = term();
    for (let op; (op = peekOp("+", "-")); ) {
      pos++;
      left = { kind: "binary", op: op as "+" | "-", left, right: term() };
    }
    return left;
  };
  const term = (): Node => {
    let left = factor();
    for (let op; (op = peekOp("*", "/", "//")); ) {
      pos++;
      left = { kind: "binary", op: op as "*" | "/" | "//", left, right: factor() };
    }
    return left;
  };
  const factor = (): Node => {
    const op = peekOp("+", "-");
    if (op) {
      pos++;
      return { kind: "unary", op: op as "+" | "-", operand: factor() };
    }
    return power();
  };
  const power = (): Node => {
    const base = primary();
    if (peekOp("**")) {
      pos++;
      return { kind: "binary", op: "**", left: base, right: factor() };
    }
    return base;
  };
  const primary = (): Node => {
    const t = tokens[pos];
    if (!t) return syntaxError("invalid syntax");
    if (t.kind === "int" || t.kind === "float") {
      pos++;
      return { kind: "num", value: t.value };
    }
    if (t.value === "(") {
      pos++;
      if (peekOp(")")) {
        pos++;
        return { kind: "tuple" };
      }
      const inner = expr();
      if (!peekOp(")")) syntaxError("invalid syntax");
      pos++;
      return inner;
    }
    return syntaxError("invalid syntax");
  };
  const tree = expr();
  if (pos !== tokens.length) syntaxError("invalid syntax");
  return tree;
}

const typeName = (v: PyValue) => (v === "tuple" ? "tuple" : typeof v === "bigint" ? "int" : "float");

function toFloat(v: bigint | number): number {
  if (typeof v === "number") return v;
  const f = Number(v);
  if (!Number.isFinite(f)) throw new PyError("int too large to convert to float");
  return f;
}

function checkIntSize(v: bigint): bigint {
  if ((v < 0n ? -v : v).toString(16).length * 4 > MAX_INT_BITS) throw new PyError("int too large to convert to float");
  return v;
}

const bitLength = (v: bigint) => (v === 0n ? 0 : v.toString(2).length);

/** Python int / int: the correctly rounded quotient, even for integers beyond 2^53. */
function intTrueDivide(a: bigint, b: bigint): number {
  const negative = a < 0n !== b < 0n;
  const x = a < 0n ? -a : a;
  const y = b < 0n ? -b : b;
  const limit = 2n ** 53n;
  let q: number;
  if (x <= limit && y <= limit) q = Number(x) / Number(y);
  else {
    // Scale to a 64-bit-or-more quotient, fold the remainder into a sticky bit, let Number() round once.
    const shift = 64 - (bitLength(x) - bitLength(y));
    const num = shift > 0 ? x << BigInt(shift) : x;
    const den = shift < 0 ? y << BigInt(-shift) : y;
    let quotient = num / den;
    if (num % den !== 0n) quotient |= 1n;
    q = Number(quotient);
    for (let s = shift; s !== 0; ) {
      const step = Math.max(-1000, Math.min(1000, s));
      q *= 2 ** -step;
      s -= step;
    }
    if (!Number.isFinite(q)) throw new PyError("integer division result too large for a float");
  }
  return negative ? -q : q;
}

function floorDivFloat(a: number, b: number): number {
  if (b === 0) throw new PyError("float floor division by zero");
  return Math.floor(a / b);
}

function evaluate(node: Node): PyValue {
  switch (node.kind) {
    case "num":
      return node.value;
    case "tuple":
      return "tuple";
    case "unary": {
      const v = evaluate(node.operand);
      if (v === "tuple") throw new PyError(`bad operand type for unary ${node.op}: 'tuple'`);
      return node.op === "-" ? -v : v;
    }
    case "binary": {
      const a = evaluate(node.left);
      const b = evaluate(node.right);
      if (a === "tuple" || b === "tuple") {
        throw new PyError(`unsupported operand type(s) for ${node.op}: '${typeName(a)}' and '${typeName(b)}'`);
      }
      if (typeof a === "bigint" && typeof b === "bigint") {
        switch (node.op) {
          case "+": return checkIntSize(a + b);
          case "-": return checkIntSize(a - b);
          case "*": return checkIntSize(a * b);
          case "/":
            if (b === 0n) throw new PyError("division by zero");
            return intTrueDivide(a, b);
          case "//": {
            if (b === 0n) throw new PyError("integer division or modulo by zero");
            const q = a / b;
            return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
          }
          case "**":
            if (b < 0n) {
              if (a === 0n) throw new PyError("0.0 cannot be raised to a negative power");
              return toFloat(a) ** toFloat(b);
            }
            if (a === 0n || a === 1n || a === -1n) return a ** (b > 2n ? (b % 2n === 0n ? 2n : 1n) : b);
            if (b * BigInt((a < 0n ? -a : a).toString(2).length) > BigInt(MAX_INT_BITS)) {
              throw new PyError("int too large to convert to float");
            }
            return a ** b;
        }
      }
      const x = toFloat(a);
      const y = toFloat(b);
      switch (node.op) {
        case "+": return x + y;
        case "-": return x - y;
        case "*": return x * y;
        case "/":
          if (y === 0) throw new PyError("float division by zero");
          return x / y;
        case "//": return floorDivFloat(x, y);
        case "**": {
          if (x === 0 && y < 0) throw new PyError("0.0 cannot be raised to a negative power");
          if (x < 0 && !Number.isInteger(y)) {
            // Python returns a complex number here, which float() then rejects.
            throw new PyError("float() argument must be a string or a real number, not 'complex'");
          }
          const r = x ** y;
          if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) {
            throw new PyError("(34, 'Numerical result out of range')");
          }
          return r;
        }
      }
    }
  }
}

/**
 * Evaluate like `str(round(float(eval(expression)), 2))`; throws PyError with the Python message
 * (without the "Error: " prefix) on failure.
 */
export function calculateExpression(expression: string): string {
  for (const ch of expression) if (!ALLOWED.has(ch)) throw new PyError("Invalid characters in expression");
  const source = expression.replace(/^ +/, "");
  if (source.trim() === "") syntaxError("invalid syntax", 0);
  const value = evaluate(parse(tokenize(source)));
  if (value === "tuple") throw new PyError("float() argument must be a string or a real number, not 'tuple'");
  return pyFloatRepr(round2(toFloat(value)));
}
