/**
 * A parser for the subset of Python expressions that function-call strings use (BFCL's
 * `cd(folder='document')`, `lockDoors(unlock=False, door=['driver'])`, module-level literal
 * assignments such as BFCL's `long_context.py`), without `eval`.
 *
 * Supported: names, attribute access, calls with positional and keyword arguments, subscripts, str
 * literals (all prefixes except bytes/f-strings, every escape except `\N{…}`, implicit concatenation,
 * triple quotes), int and float literals (hex/octal/binary, underscores), True/False/None, lists,
 * tuples, dicts, sets, `...`, unary `+ - ~` and the arithmetic operators `+ - * / // % **`.
 *
 * Malformed input raises `PyException("SyntaxError", …)` with CPython 3.11's message for the common
 * cases (unterminated strings, unbalanced or mismatched brackets, bad number literals, missing commas,
 * positional-after-keyword, repeated keywords), otherwise "invalid syntax". Valid Python that lies
 * outside the subset (lambdas, comparisons, comprehensions, f-strings, …) raises
 * `UnsupportedSyntax`, so callers can say so instead of pretending it is a syntax error.
 */
import { PyEllipsis, PyException, PyTuple, PyDict, PySet, type PyValue } from "./values";

export type Expr =
  | { kind: "const"; value: PyValue; line: number }
  | { kind: "name"; id: string; line: number }
  | { kind: "attr"; object: Expr; name: string; line: number }
  | { kind: "call"; func: Expr; args: Expr[]; keywords: { name: string; value: Expr }[]; line: number }
  | { kind: "subscript"; object: Expr; index: Expr; line: number }
  | { kind: "list" | "tuple" | "set"; items: Expr[]; line: number }
  | { kind: "dict"; entries: [Expr, Expr][]; line: number }
  | { kind: "unary"; op: "-" | "+" | "~"; operand: Expr; line: number }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr; line: number };

export type BinaryOp = "+" | "-" | "*" | "/" | "//" | "%" | "**";

/** Valid Python that this parser does not evaluate. */
export class UnsupportedSyntax extends Error {}

const syntaxError = (message: string, line: number) => new PyException("SyntaxError", `${message} (<string>, line ${line})`);

// -----------------------------------------------------------------------------------------------------------------
// Tokenizer

type TokenType = "name" | "number" | "string" | "op" | "newline" | "end" | "error";
interface Token {
  type: TokenType;
  text: string;
  line: number;
  /** Bracket depth before this token (for the "forgot a comma" hint). */
  level: number;
  value?: PyValue;
  /** Set on a string/number token whose literal kind is outside the subset (f-string, bytes, complex). */
  unsupported?: string;
}

const KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
  "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
  "pass", "raise", "return", "try", "while", "with", "yield",
]);
const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}]/u;
const OPERATORS = [
  "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=",
  "%=", "&=", "|=", "^=", "@=", "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "=", "+", "-", "*", "/", "%", "&",
  "|", "^", "~", "<", ">",
];
const CLOSER: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * Tokenize Python source. `mode: "eval"` strips leading spaces/tabs like `eval()` does; tokenizer
 * errors are raised as CPython raises them (they take precedence over parser errors).
 */
function tokenize(source: string, mode: "eval" | "module"): Token[] {
  const src = mode === "eval" ? source.replace(/^[ \t]+/, "") : source;
  const tokens: Token[] = [];
  const brackets: { ch: string; line: number }[] = [];
  let pos = 0;
  let line = 1;
  let atLineStart = true;
  const push = (type: TokenType, text: string, extra: Partial<Token> = {}) =>
    tokens.push({ type, text, line, level: brackets.length, ...extra });

  while (pos < src.length) {
    const ch = src[pos];
    if (ch === "\n" || ch === "\r") {
      const len = ch === "\r" && src[pos + 1] === "\n" ? 2 : 1;
      if (brackets.length === 0 && !atLineStart) push("newline", "\n");
      pos += len;
      line++;
      atLineStart = brackets.length === 0;
      continue;
    }
    if (ch === " " || ch === "\t" || ch === "\f") {
      if (atLineStart && mode === "eval" && brackets.length === 0) {
        // Indentation on a continuation line outside brackets.
        let j = pos;
        while (src[j] === " " || src[j] === "\t" || src[j] === "\f") j++;
        if (j < src.length && src[j] !== "\n" && src[j] !== "\r" && src[j] !== "#") throw syntaxError("unexpected indent", line);
      }
      pos++;
      continue;
    }
    if (ch === "#") {
      while (pos < src.length && src[pos] !== "\n" && src[pos] !== "\r") pos++;
      continue;
    }
    if (ch === "\\") {
      if (src[pos + 1] !== "\n" && src[pos + 1] !== "\r") {
        // CPython reports this only when the parser reaches it (the tokenizer sets no exception itself).
        push("error", "unexpected character after line continuation character");
        break;
      }
      pos += src[pos + 1] === "\r" && src[pos + 2] === "\n" ? 3 : 2;
      line++;
      if (pos >= src.length) throw syntaxError("unexpected EOF while parsing", line - 1);
      continue;
    }
    atLineStart = false;

    // Strings (with optional prefix) and names.
    const prefix = /^([rRuUbBfF]{1,2})?(['"])/.exec(src.slice(pos, pos + 3));
    if (prefix && isStringPrefix(prefix[1] ?? "")) {
      const result = readString(src, pos, line, (prefix[1] ?? "").toLowerCase());
      const startLine = line;
      line = result.endLine;
      tokens.push({ type: "string", text: src.slice(pos, result.end), line: startLine, level: brackets.length, value: result.value, unsupported: result.unsupported });
      pos = result.end;
      continue;
    }
    const cp = src.codePointAt(pos)!;
    const cpText = String.fromCodePoint(cp);
    if (ID_START.test(cpText)) {
      let end = pos + cpText.length;
      while (end < src.length) {
        const c = String.fromCodePoint(src.codePointAt(end)!);
        if (!ID_CONTINUE.test(c)) break;
        end += c.length;
      }
      push("name", src.slice(pos, end));
      pos = end;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(src[pos + 1] ?? ""))) {
      const { end, value, unsupported } = readNumber(src, pos, line);
      push("number", src.slice(pos, end), { value, unsupported });
      pos = end;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, pos));
    if (op) {
      if (op === "(" || op === "[" || op === "{") {
        push("op", op);
        brackets.push({ ch: op, line });
      } else if (op === ")" || op === "]" || op === "}") {
        const open = brackets.pop();
        if (!open) throw syntaxError(`unmatched '${op}'`, line);
        if (open.ch !== CLOSER[op]) {
          const where = open.line !== line ? ` on line ${open.line}` : "";
          throw syntaxError(`closing parenthesis '${op}' does not match opening parenthesis '${open.ch}'${where}`, line);
        }
        push("op", op);
      } else push("op", op);
      pos += op.length;
      continue;
    }
    if (cp > 0x7f) {
      throw syntaxError(`invalid character '${cpText}' (U+${cp.toString(16).toUpperCase().padStart(4, "0")})`, line);
    }
    // `$`, `?`, `!`, backtick: CPython reports a plain syntax error.
    push("op", ch);
    pos++;
  }
  if (brackets.length === 0 && tokens.length > 0 && tokens[tokens.length - 1].type !== "newline") push("newline", "\n");
  tokens.push({ type: "end", text: "", line, level: brackets.length });
  (tokens as Token[] & { unclosed?: { ch: string; line: number } }).unclosed = brackets[brackets.length - 1];
  return tokens;
}

function isStringPrefix(p: string): boolean {
  const l = p.toLowerCase();
  return ["", "r", "u", "b", "f", "br", "rb", "fr", "rf"].includes(l);
}

function readString(src: string, start: number, line: number, prefix: string): { end: number; endLine: number; value: PyValue; unsupported?: string } {
  let pos = start + prefix.length;
  const quote = src[pos];
  const triple = src.startsWith(quote.repeat(3), pos);
  const delim = triple ? quote.repeat(3) : quote;
  pos += delim.length;
  const bodyStart = pos;
  const startLine = line;
  let curLine = line;
  for (;;) {
    if (pos >= src.length) {
      if (triple) throw syntaxError(`unterminated triple-quoted string literal (detected at line ${curLine})`, startLine);
      throw syntaxError(`unterminated string literal (detected at line ${curLine})`, startLine);
    }
    const c = src[pos];
    if (c === "\\") {
      if (src[pos + 1] === "\n") curLine++;
      pos += 2;
      continue;
    }
    if (c === "\n" || c === "\r") {
      if (!triple) throw syntaxError(`unterminated string literal (detected at line ${curLine})`, startLine);
      curLine++;
      pos += c === "\r" && src[pos + 1] === "\n" ? 2 : 1;
      continue;
    }
    if (src.startsWith(delim, pos)) break;
    pos++;
  }
  const body = src.slice(bodyStart, pos);
  const end = pos + delim.length;
  if (prefix.includes("b")) {
    if (/[^\x00-\x7f]/.test(body)) throw syntaxError("bytes can only contain ASCII literal characters", startLine);
    return { end, endLine: curLine, value: null, unsupported: "bytes literals" };
  }
  if (prefix.includes("f")) return { end, endLine: curLine, value: null, unsupported: "f-strings" };
  const value = prefix.includes("r") ? body.replace(/\r\n?/g, "\n") : decodeEscapes(body, startLine);
  return { end, endLine: curLine, value };
}

function decodeEscapes(body: string, line: number): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\r") {
      out += "\n";
      if (body[i + 1] === "\n") i++;
      continue;
    }
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[i + 1];
    const at = utf8Length(body.slice(0, i));
    const fail = (len: number, what: string): never => {
      throw syntaxError(`(unicode error) 'unicodeescape' codec can't decode bytes in position ${at}-${at + len - 1}: ${what}`, line);
    };
    switch (e) {
      case "\n":
        i++;
        continue;
      case "\r":
        i += body[i + 2] === "\n" ? 2 : 1;
        continue;
      case "\\": case "'": case '"':
        out += e; i++; continue;
      case "a": out += "\x07"; i++; continue;
      case "b": out += "\b"; i++; continue;
      case "f": out += "\f"; i++; continue;
      case "n": out += "\n"; i++; continue;
      case "r": out += "\r"; i++; continue;
      case "t": out += "\t"; i++; continue;
      case "v": out += "\v"; i++; continue;
      case "x": case "u": case "U": {
        const len = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = body.slice(i + 2, i + 2 + len);
        const valid = /^[0-9a-fA-F]*$/.exec(hex)?.[0].length === len;
        if (!valid) {
          let n = 0;
          while (n < hex.length && /[0-9a-fA-F]/.test(hex[n])) n++;
          fail(2 + n, `truncated \\${e === "x" ? "xXX" : e === "u" ? "uXXXX" : "UXXXXXXXX"} escape`);
        }
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) fail(2 + len, "illegal Unicode character");
        out += String.fromCodePoint(code);
        i += 1 + len;
        continue;
      }
      case "N":
        throw new UnsupportedSyntax("\\N{…} escapes");
      default:
        if (e !== undefined && /[0-7]/.test(e)) {
          let j = i + 1;
          let digits = "";
          while (j < body.length && digits.length < 3 && /[0-7]/.test(body[j])) digits += body[j++];
          out += String.fromCodePoint(parseInt(digits, 8));
          i = j - 1;
          continue;
        }
        // Unknown escape: Python keeps the backslash.
        out += "\\";
        continue;
    }
  }
  return out;
}

function readNumber(src: string, start: number, line: number): { end: number; value: PyValue; unsupported?: string } {
  const rest = src.slice(start);
  const identAfter = (end: number) => end < src.length && ID_CONTINUE.test(String.fromCodePoint(src.codePointAt(end)!));
  const radix = /^0([xXoObB])/.exec(rest);
  if (radix) {
    const kind = radix[1].toLowerCase();
    const name = kind === "x" ? "hexadecimal" : kind === "o" ? "octal" : "binary";
    const digit = kind === "x" ? "[0-9a-fA-F]" : kind === "o" ? "[0-7]" : "[01]";
    const m = new RegExp(`^0[${radix[1]}](?:_?${digit})+`).exec(rest);
    if (!m) {
      const bad = rest[2];
      if (bad !== undefined && /[0-9]/.test(bad) && kind !== "x") throw syntaxError(`invalid digit '${bad}' in ${name} literal`, line);
      throw syntaxError(`invalid ${name} literal`, line);
    }
    const end = start + m[0].length;
    if (end < src.length && /[0-9]/.test(src[end]) && kind !== "x") throw syntaxError(`invalid digit '${src[end]}' in ${name} literal`, line);
    if (identAfter(end) || src[end] === "_") throw syntaxError(`invalid ${name} literal`, line);
    return { end, value: BigInt(m[0].replace(/_/g, "")) };
  }
  const m = /^(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?/.exec(rest);
  if (!m) throw syntaxError("invalid decimal literal", line);
  let end = start + m[0].length;
  const text = m[0];
  let unsupported: string | undefined;
  if (src[end] === "j" || src[end] === "J") {
    end++;
    unsupported = "complex literals";
  }
  if (identAfter(end) || src[end] === "_") {
    // `1if x else y` is accepted by 3.11 with a warning; treat keywords after numbers as separate tokens.
    const word = /^[A-Za-z_]\w*/.exec(src.slice(end))?.[0] ?? "";
    if (!KEYWORDS.has(word) || src[end] === "_") throw syntaxError("invalid decimal literal", line);
  }
  const isFloat = /[.eE]/.test(text);
  const clean = text.replace(/_/g, "");
  if (!isFloat && clean.length > 1 && clean[0] === "0" && /[1-9]/.test(clean)) {
    throw syntaxError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", line);
  }
  return { end, value: isFloat ? Number(clean) : BigInt(clean), unsupported };
}

// -----------------------------------------------------------------------------------------------------------------
// Parser

const EXPRESSION_STARTERS = new Set(["(", "[", "{", "-", "+", "~", "..."]);
const SOFT_KEYWORDS = new Set(["match", "case", "_"]);

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  /**
   * The current token. Reaching the end of input inside brackets is CPython's tokenizer error ("'(' was
   * never closed"), which wins over any parser error, so looking at it raises.
   */
  get peek(): Token {
    const t = this.tokens[this.i];
    if (t.type === "error") throw syntaxError(t.text, t.line);
    if (t.type === "end") {
      const unclosed = (this.tokens as Token[] & { unclosed?: { ch: string; line: number } }).unclosed;
      if (unclosed) throw syntaxError(`'${unclosed.ch}' was never closed`, unclosed.line);
    }
    return t;
  }
  /** The current token's type (a method, so TypeScript does not narrow it across calls). */
  at(): TokenType {
    return this.peek.type;
  }
  next(): Token {
    return this.tokens[this.i++];
  }
  isOp(text: string, t = this.peek): boolean {
    return t.type === "op" && t.text === text;
  }
  expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail();
    return this.next();
  }
  /** Generic parser error at the current token; an unclosed bracket at the end of input wins. */
  fail(at: Token = this.peek): never {
    // CPython's error pass tries to read an expression from here; running into the end of input
    // inside brackets then reports the unclosed bracket.
    if (this.startsExpression(at)) {
      const save = this.i;
      this.i = this.tokens.indexOf(at);
      try {
        this.parseExpression();
      } catch (err) {
        if (err instanceof PyException && err.pyMessage.includes("was never closed")) throw err;
      } finally {
        this.i = save;
      }
    }
    this.rejectUnsupported(at);
    throw syntaxError("invalid syntax", at.line);
  }

  /** Whether a `:` appears at this bracket level before the subscript's closing `]`. */
  isSliceAhead(): boolean {
    const level = this.tokens[this.i].level;
    for (let j = this.i; j < this.tokens.length; j++) {
      const t = this.tokens[j];
      if (t.type === "end") return false;
      if (t.level === level && t.type === "op" && t.text === ":") return true;
      if (t.level === level - 1 && t.type === "op" && t.text === "]") return false;
    }
    return false;
  }

  /** `[*xs]`, `(*xs,)`, `{*xs}`: valid Python, not evaluated here. */
  rejectStarred(): void {
    if (!this.isOp("*")) return;
    this.next();
    if (!this.startsExpression(this.peek)) this.fail();
    this.parseExpression();
    throw new UnsupportedSyntax("starred expressions");
  }

  /** `(a=1)`, `[a=1]`, `{a=1}`: CPython's invalid_named_expression message. */
  rejectNamedAssignment(): void {
    const t = this.tokens[this.i];
    const next = this.tokens[this.i + 1];
    if (t.type === "name" && !KEYWORDS.has(t.text) && next?.type === "op" && next.text === "=") {
      throw syntaxError("invalid syntax. Maybe you meant '==' or ':=' instead of '='?", t.line);
    }
  }
  private rejectUnsupported(at: Token): void {
    const prev = this.tokens[this.tokens.indexOf(at) - 1];
    const afterOperand =
      prev !== undefined &&
      (prev.type === "number" || prev.type === "string" || (prev.type === "name" && (!KEYWORDS.has(prev.text) || ["True", "False", "None"].includes(prev.text))) || (prev.type === "op" && [")", "]", "}"].includes(prev.text)));
    if (!afterOperand && !(at.type === "name" && ["not", "lambda", "await", "yield"].includes(at.text))) return;
    if (at.type === "name" && ["if", "for", "and", "or", "in", "is", "not", "lambda", "await", "yield"].includes(at.text)) {
      throw new UnsupportedSyntax(`'${at.text}' expressions`);
    }
    if (at.type === "op" && ["<", ">", "<=", ">=", "==", "!=", "@", "&", "|", "^", "<<", ">>", ":="].includes(at.text)) {
      throw new UnsupportedSyntax(`the '${at.text}' operator`);
    }
  }

  startsExpression(t: Token): boolean {
    if (t.type === "number" || t.type === "string") return true;
    if (t.type === "name") return !KEYWORDS.has(t.text) || ["True", "False", "None", "not", "lambda", "await"].includes(t.text);
    return t.type === "op" && EXPRESSION_STARTERS.has(t.text);
  }

  /**
   * After an element inside brackets, another expression means a missing comma (CPython's
   * `invalid_expression` rule). CPython parses that next expression first, so reaching the end of
   * input there reports the unclosed bracket instead.
   */
  checkMissingComma(element: Expr, elementStart: number): void {
    const t = this.peek;
    if (t.level === 0 || !this.startsExpression(t)) return;
    const first = this.tokens[elementStart];
    if (first.type === "name" && SOFT_KEYWORDS.has(first.text)) return;
    if (first.type === "name" && this.tokens[elementStart + 1]?.type === "string" && element.kind === "name") {
      // `x 'a' …`: not a missing comma at `x`, but CPython tries again from the string.
      const save = this.i;
      try {
        const str = this.parseExpression();
        this.checkMissingComma(str, save);
      } catch (err) {
        if (err instanceof PyException) throw err;
      } finally {
        this.i = save;
      }
      return;
    }
    const save = this.i;
    let after: Token;
    try {
      this.parseExpression();
      after = this.peek;
    } catch (err) {
      if (err instanceof PyException && err.pyMessage.includes("was never closed")) throw err;
      this.i = save;
      return;
    }
    this.i = save;
    if (after.type === "end") this.fail(after);
    throw syntaxError("invalid syntax. Perhaps you forgot a comma?", element.line);
  }

  parseExpression(): Expr {
    return this.parseArith();
  }

  private parseArith(): Expr {
    let left = this.parseTerm();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.next().text as BinaryOp;
      const right = this.parseTerm();
      left = { kind: "binary", op, left, right, line: left.line };
    }
    return left;
  }

  private parseTerm(): Expr {
    let left = this.parseFactor();
    while (this.isOp("*") || this.isOp("/") || this.isOp("//") || this.isOp("%")) {
      const op = this.next().text as BinaryOp;
      const right = this.parseFactor();
      left = { kind: "binary", op, left, right, line: left.line };
    }
    return left;
  }

  private parseFactor(): Expr {
    if (this.isOp("-") || this.isOp("+") || this.isOp("~")) {
      const t = this.next();
      const operand = this.parseFactor();
      return { kind: "unary", op: t.text as "-" | "+" | "~", operand, line: t.line };
    }
    const base = this.parsePrimary();
    if (this.isOp("**")) {
      this.next();
      const exponent = this.parseFactor();
      return { kind: "binary", op: "**", left: base, right: exponent, line: base.line };
    }
    return base;
  }

  private parsePrimary(): Expr {
    let e = this.parseAtom();
    for (;;) {
      if (this.isOp("(")) e = this.parseCall(e);
      else if (this.isOp("[")) {
        this.next();
        if (this.isOp("]")) this.fail();
        if (this.isOp(":") || this.isSliceAhead()) throw new UnsupportedSyntax("slices");
        const index = this.parseTupleOrExpression("]");
        this.expectOp("]");
        e = { kind: "subscript", object: e, index, line: e.line };
      } else if (this.isOp(".")) {
        this.next();
        const name = this.peek;
        if (name.type !== "name" || KEYWORDS.has(name.text)) this.fail();
        this.next();
        e = { kind: "attr", object: e, name: name.text, line: name.line };
      } else return e;
    }
  }

  private parseCall(func: Expr): Expr {
    this.expectOp("(");
    const args: Expr[] = [];
    const keywords: { name: string; value: Expr }[] = [];
    const seen = new Set<string>();
    let repeated: { name: string; line: number } | undefined;
    while (!this.isOp(")")) {
      if (this.isOp("*") || this.isOp("**")) {
        this.next();
        if (!this.startsExpression(this.peek)) this.fail();
        this.parseExpression();
        if (this.isOp("=")) this.fail();
        throw new UnsupportedSyntax("argument unpacking");
      }
      const start = this.peek;
      if (start.type === "name" && this.isOp("=", this.tokens[this.i + 1]) && !KEYWORDS.has(start.text)) {
        this.next();
        this.next();
        if (this.isOp(")") || this.isOp(",")) this.fail();
        const valueStart = this.i;
        const value = this.parseExpression();
        this.checkMissingComma(value, valueStart);
        if (seen.has(start.text) && !repeated) repeated = { name: start.text, line: start.line };
        seen.add(start.text);
        keywords.push({ name: start.text, value });
      } else {
        if (!this.startsExpression(start)) this.fail();
        const startIndex = this.i;
        const value = this.parseExpression();
        if (this.isOp("=")) throw syntaxError('expression cannot contain assignment, perhaps you meant "=="?', start.line);
        this.checkMissingComma(value, startIndex);
        if (keywords.length > 0) throw syntaxError("positional argument follows keyword argument", value.line);
        args.push(value);
      }
      if (this.isOp(",")) this.next();
      else if (!this.isOp(")")) this.fail();
    }
    this.next();
    if (repeated) throw syntaxError(`keyword argument repeated: ${repeated.name}`, repeated.line);
    return { kind: "call", func, args, keywords, line: func.line };
  }

  /** Comma-separated expressions up to `close`; a single one without a comma is returned as is. */
  private parseTupleOrExpression(close: string): Expr {
    const first = this.peek;
    const items: Expr[] = [];
    let trailingComma = false;
    for (;;) {
      this.rejectStarred();
      if (!this.startsExpression(this.peek)) this.fail();
      this.rejectNamedAssignment();
      const start = this.i;
      const e = this.parseExpression();
      this.checkMissingComma(e, start);
      items.push(e);
      if (this.isOp(",")) {
        this.next();
        trailingComma = true;
        if (this.isOp(close)) break;
        trailingComma = false;
        continue;
      }
      if (!this.isOp(close)) this.fail();
      break;
    }
    if (items.length === 1 && !trailingComma) return items[0];
    return { kind: "tuple", items, line: first.line };
  }

  private parseAtom(): Expr {
    const t = this.peek;
    if (t.type === "number") {
      this.next();
      if (t.unsupported) throw new UnsupportedSyntax(t.unsupported);
      return { kind: "const", value: t.value!, line: t.line };
    }
    if (t.type === "string") {
      let value = "";
      let unsupported: string | undefined;
      while (this.peek.type === "string") {
        const s = this.next();
        unsupported ??= s.unsupported;
        value += s.value as string;
      }
      if (unsupported) throw new UnsupportedSyntax(unsupported);
      return { kind: "const", value, line: t.line };
    }
    if (t.type === "name") {
      if (t.text === "True" || t.text === "False" || t.text === "None") {
        this.next();
        return { kind: "const", value: t.text === "None" ? null : t.text === "True", line: t.line };
      }
      if (KEYWORDS.has(t.text)) this.fail();
      this.next();
      return { kind: "name", id: t.text, line: t.line };
    }
    if (this.isOp("(")) {
      this.next();
      if (this.isOp(")")) {
        this.next();
        return { kind: "tuple", items: [], line: t.line };
      }
      const inner = this.parseTupleOrExpression(")");
      this.expectOp(")");
      return inner;
    }
    if (this.isOp("[")) {
      this.next();
      const items: Expr[] = [];
      while (!this.isOp("]")) {
        this.rejectStarred();
        if (!this.startsExpression(this.peek)) this.fail();
        this.rejectNamedAssignment();
        const start = this.i;
        const e = this.parseExpression();
        this.checkMissingComma(e, start);
        items.push(e);
        if (this.isOp(",")) this.next();
        else if (!this.isOp("]")) this.fail();
      }
      this.next();
      return { kind: "list", items, line: t.line };
    }
    if (this.isOp("{")) return this.parseBrace();
    if (this.isOp("...")) {
      this.next();
      return { kind: "const", value: PyEllipsis, line: t.line };
    }
    return this.fail();
  }

  private parseBrace(): Expr {
    const open = this.next();
    if (this.isOp("}")) {
      this.next();
      return { kind: "dict", entries: [], line: open.line };
    }
    if (this.isOp("**")) throw new UnsupportedSyntax("dict unpacking");
    this.rejectStarred();
    if (!this.startsExpression(this.peek)) this.fail();
    this.rejectNamedAssignment();
    const firstStart = this.i;
    const first = this.parseExpression();
    if (this.isOp(":")) {
      const entries: [Expr, Expr][] = [];
      let key = first;
      for (;;) {
        this.expectOp(":");
        if (this.isOp("}") || this.isOp(",")) throw syntaxError("expression expected after dictionary key and ':'", key.line);
        if (!this.startsExpression(this.peek)) this.fail();
        const valueStart = this.i;
        const value = this.parseExpression();
        this.checkMissingComma(value, valueStart);
        entries.push([key, value]);
        if (this.isOp(",")) this.next();
        else if (!this.isOp("}")) this.fail();
        if (this.isOp("}")) break;
        if (!this.startsExpression(this.peek)) this.fail();
        key = this.parseExpression();
        if (this.isOp(",") || this.isOp("}")) throw syntaxError("':' expected after dictionary key", key.line);
      }
      this.next();
      return { kind: "dict", entries, line: open.line };
    }
    this.checkMissingComma(first, firstStart);
    const items = [first];
    while (this.isOp(",")) {
      this.next();
      if (this.isOp("}")) break;
      if (!this.startsExpression(this.peek)) this.fail();
      const start = this.i;
      const e = this.parseExpression();
      this.checkMissingComma(e, start);
      items.push(e);
    }
    if (!this.isOp("}")) this.fail();
    this.next();
    return { kind: "set", items, line: open.line };
  }
}

/** Parse one expression the way `eval(source)` would (leading spaces stripped, trailing newlines allowed). */
export function parseExpression(source: string): Expr {
  const tokens = tokenize(source, "eval");
  const p = new Parser(tokens);
  if (p.at() === "end" || p.at() === "newline") {
    // eval("") reports line 0; input with only blank lines or comments reports its last line.
    const text = source.replace(/^[ \t]+/, "");
    throw syntaxError("invalid syntax", text === "" ? 0 : Math.max(1, text.replace(/[\r\n]+$/, "").split(/\r\n|\r|\n/).length));
  }
  const start = p.peek;
  if (!p.startsExpression(start)) p.fail();
  const e = parseTopLevel(p);
  while (p.at() === "newline") p.next();
  if (p.at() !== "end") p.fail();
  return e;
}

function parseTopLevel(p: Parser): Expr {
  const first = p.parseExpression();
  if (!p.isOp(",")) return first;
  const items = [first];
  while (p.isOp(",")) {
    p.next();
    if (!p.startsExpression(p.peek)) break;
    items.push(p.parseExpression());
  }
  return { kind: "tuple", items, line: first.line };
}

/**
 * The value of an expression made only of literals (what `ast.literal_eval` accepts, plus unary minus
 * on numbers). Throws `UnsupportedSyntax` for anything else.
 */
export function literalValue(e: Expr): PyValue {
  switch (e.kind) {
    case "const":
      return e.value;
    case "list":
      return e.items.map(literalValue);
    case "tuple":
      return new PyTuple(e.items.map(literalValue));
    case "set":
      return PySet.of(e.items.map(literalValue));
    case "dict":
      return PyDict.of(e.entries.map(([k, v]) => [literalValue(k), literalValue(v)] as const));
    case "unary": {
      const v = literalValue(e.operand);
      if (e.op === "-" && typeof v === "bigint") return -v;
      if (e.op === "-" && typeof v === "number") return -v;
      if (e.op === "+" && (typeof v === "bigint" || typeof v === "number")) return v;
      throw new UnsupportedSyntax(`unary '${e.op}' on a non-number`);
    }
    default:
      throw new UnsupportedSyntax(`${e.kind} expressions in a literal`);
  }
}

/**
 * Top-level `NAME = <literal>` assignments of a Python module (comments, blank lines and docstrings
 * allowed), in order. Used to read data modules such as BFCL's `long_context.py` at run time.
 */
export function parseModuleAssignments(source: string): Map<string, PyValue> {
  const tokens = tokenize(source, "module");
  const p = new Parser(tokens);
  const out = new Map<string, PyValue>();
  while (p.at() !== "end") {
    if (p.at() === "newline") {
      p.next();
      continue;
    }
    const target = p.peek;
    if (target.type === "string") {
      p.parseExpression(); // a docstring
    } else {
      if (target.type !== "name" || KEYWORDS.has(target.text)) p.fail();
      p.next();
      p.expectOp("=");
      out.set(target.text, literalValue(parseTopLevel(p)));
    }
    if (p.at() !== "newline" && p.at() !== "end") p.fail();
  }
  return out;
}
