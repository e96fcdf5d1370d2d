/**
 * The `calculate` tool's evaluator (spec §6.1): Python 3 expression semantics over the alphabet
 * `0123456789+-*\/(). `, without `eval`. Integers are exact (bigint), `/` is true division, `//` floors,
 * `**` is right-associative and binds tighter than a unary minus on its left. Errors carry the common
 * CPython messages.
 */
import { pyFloatRepr, round2 } from "../../../../lib/python/json";

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
  | { kind: "call"; callee: Node; args: Node[] }
  | { kind: "binary"; op: "+" | "-" | "*" | "/" | "//" | "**"; left: Node; right: Node };

type PyValue = bigint | number | "tuple";

/** Cap on exact-integer size: far beyond any double, stops `9**9**9` from hanging the worker. */
const MAX_INT_BITS = 100_000;

function syntaxError(message: string, line = 1): never {
  throw new PyError(`${message} (<string>, line ${line})`);
}

/**
 * CPython tokenises lazily: a tokenizer error (unmatched ')', a bad literal) surfaces only when the
 * parser reaches it. So tokenising stops at the first such error and the parser raises it at that point.
 */
function tokenize(src: string): { tokens: Token[]; tokenError?: string } {
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
          return { tokens, tokenError: "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers" };
        }
        tokens.push({ kind: "int", value: BigInt(intPart) });
      } else {
        tokens.push({ kind: "float", value: Number((intPart || "0") + (frac === "." ? "" : frac)) });
      }
      i += text.length;
      continue;
    }
    if (c === ".") return { tokens, tokenError: "invalid syntax" };
    if (c === "*" || c === "/") {
      const op = src[i + 1] === c ? ((c + c) as "**" | "//") : c;
      tokens.push({ kind: "op", value: op });
      i += op.length;
      continue;
    }
    if (c === "(") depth++;
    if (c === ")") {
      if (depth === 0) return { tokens, tokenError: "unmatched ')'" };
      depth--;
    }
    tokens.push({ kind: "op", value: c as "+" | "-" | "(" | ")" });
    i++;
  }
  return { tokens };
}

class ParseFail {
  constructor(readonly pos: number, readonly depth: number) {}
}

/** A recursive-descent parser over tokens[start…]; `maxPeek` records the furthest token looked at. */
function makeParser(tokens: Token[], start: number, startDepth: number) {
  const state = { pos: start, depth: startDepth, maxPeek: start };
  const peek = () => {
    state.maxPeek = Math.max(state.maxPeek, state.pos);
    return tokens[state.pos];
  };
  const peekOp = (...ops: string[]) => {
    const t = peek();
    return t && t.kind === "op" && ops.includes(t.value) ? t.value : undefined;
  };
  const fail = (): never => {
    throw new ParseFail(state.pos, state.depth);
  };
  const expr = (): Node => {
    let left = term();
    for (let op; (op = peekOp("+", "-")); ) {
      state.pos++;
      left = { kind: "binary", op: op as "+" | "-", left, right: term() };
    }
    return left;
  };
  const term = (): Node => {
    let left = factor();
    for (let op; (op = peekOp("*", "/", "//")); ) {
      state.pos++;
      left = { kind: "binary", op: op as "*" | "/" | "//", left, right: factor() };
    }
    return left;
  };
  const factor = (): Node => {
    const op = peekOp("+", "-");
    if (op) {
      state.pos++;
      return { kind: "unary", op: op as "+" | "-", operand: factor() };
    }
    return power();
  };
  const power = (): Node => {
    const base = primary();
    if (peekOp("**")) {
      state.pos++;
      return { kind: "binary", op: "**", left: base, right: factor() };
    }
    return base;
  };
  const primary = (): Node => {
    let node = atom();
    // `2 (3)` is a call in Python (it fails at run time: "'int' object is not callable").
    while (peekOp("(")) {
      state.pos++;
      state.depth++;
      const args = peekOp(")") ? [] : [expr()];
      closeParen();
      node = { kind: "call", callee: node, args };
    }
    return node;
  };
  const atom = (): Node => {
    const t = peek();
    if (!t) return fail();
    if (t.kind === "int" || t.kind === "float") {
      state.pos++;
      return { kind: "num", value: t.value };
    }
    if (t.value === "(") {
      state.pos++;
      state.depth++;
      if (peekOp(")")) {
        closeParen();
        return { kind: "tuple" };
      }
      const inner = expr();
      closeParen();
      return inner;
    }
    return fail();
  };
  const closeParen = () => {
    if (!peekOp(")")) fail();
    state.pos++;
    state.depth--;
  };
  const whole = (): Node => {
    const tree = expr();
    if (peek() !== undefined) fail();
    return tree;
  };
  return { state, expr, whole };
}

/**
 * Parse with CPython's error reporting: reaching the end of input inside brackets is "'(' was never
 * closed"; two expressions side by side inside brackets get the comma hint (whose second expression may
 * itself run into the end of input); and a tokenizer error anywhere after the failure point wins over the
 * parser's message.
 */
function parse({ tokens, tokenError }: { tokens: Token[]; tokenError?: string }): Node {
  let tree: Node;
  try {
    tree = makeParser(tokens, 0, 0).whole();
  } catch (err) {
    if (!(err instanceof ParseFail)) throw err;
    const atEnd = (i: number) => i >= tokens.length;
    if (atEnd(err.pos)) {
      if (tokenError) syntaxError(tokenError);
      if (err.depth > 0) syntaxError("'(' was never closed");
      syntaxError("invalid syntax");
    }
    let message = "invalid syntax";
    if (tokens[err.pos].kind !== "op") {
      // CPython's invalid_expression rule parses the second expression; if that reads to the end of
      // input inside brackets, the tokenizer's "never closed" error surfaces first.
      const second = makeParser(tokens, err.pos, err.depth);
      try {
        second.expr();
      } catch (inner) {
        if (!(inner instanceof ParseFail)) throw inner;
      }
      second.state.maxPeek = Math.max(second.state.maxPeek, second.state.pos);
      if (atEnd(second.state.maxPeek) && (tokenError || second.state.depth > 0)) syntaxError(tokenError ?? "'(' was never closed");
      if (err.depth > 0) message = "invalid syntax. Perhaps you forgot a comma?";
    }
    return syntaxError(tokenError ?? message);
  }
  // The input ended early because the tokenizer failed there: the parser reaches that error last.
  if (tokenError) syntaxError(tokenError);
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
function intTrueDivide(a: bigint, b: bigint, raiseOnOverflow = true): number {
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
    if (!Number.isFinite(q) && raiseOnOverflow) throw new PyError("integer division result too large for a float");
  }
  return negative ? -q : q;
}

/** |x| = mantissa × 2^exponent exactly, for a finite non-zero double. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/**
 * x ** y. V8's Math.pow is not correctly rounded (7 ** -2 gives 0.020408163265306124, C's pow gives
 * 0.02040816326530612), so integral exponents of moderate size are computed exactly and rounded once.
 */
function floatPow(x: number, y: number): number {
  if (!Number.isInteger(y) || x === 0 || !Number.isFinite(x) || Math.abs(y) > 4096) return x ** y;
  const { mantissa, exponent } = decompose(x);
  const k = Math.abs(y);
  if (mantissa.toString(2).length * k > 40_000) return x ** y;
  const power = mantissa ** BigInt(k);
  const shift = exponent * k; // |x|^k = power × 2^shift
  let magnitude: number;
  if (y >= 0) magnitude = shift >= 0 ? Number(power << BigInt(shift)) : intTrueDivide(power, 1n << BigInt(-shift), false);
  else magnitude = shift <= 0 ? intTrueDivide(1n << BigInt(-shift), power, false) : intTrueDivide(1n, power << BigInt(shift), false);
  return x < 0 && k % 2 === 1 ? -magnitude : magnitude;
}

/** CPython's float floor division (float_floor_div): fmod-based, so 7 // (1/49) is 343.0 as in Python. */
function floorDivFloat(vx: number, wx: number): number {
  if (wx === 0) throw new PyError("float floor division by zero");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1.0;
    }
  }
  if (div) {
    let floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return Math.sign(vx / wx) < 0 || Object.is(vx / wx, -0) ? -0 : 0;
}

function evaluate(node: Node): PyValue {
  switch (node.kind) {
    case "num":
      return node.value;
    case "tuple":
      return "tuple";
    case "call": {
      const callee = evaluate(node.callee);
      node.args.forEach(evaluate);
      throw new PyError(`'${typeName(callee)}' object is not callable`);
    }
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
              return floatPow(toFloat(a), toFloat(b));
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
          const r = floatPow(x, y);
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
