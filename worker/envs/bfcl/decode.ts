/**
 * Model output → call strings, the way upstream's handlers decode for execution:
 * - function-calling models (`convert_to_function_call`): `name(k=repr(v),k2=repr(v2))` from each tool
 *   call's JSON arguments (int/float and key order as `json.loads` gives them);
 * - prompting models (`default_decode_execute_prompting`): the text `[f(a=1), g(b='x')]` parsed as Python,
 *   keyword arguments resolved as upstream's `resolve_ast_by_type` does (positional arguments are dropped
 *   upstream, and so here) and re-printed by `decoded_output_to_execution_list`.
 * A `BfclDecodeError` means upstream's decoder would raise, which ends the turn.
 */
import { pyNeg, pyAdd, pySub, pyMul, pyTrueDiv, pyFloorDiv, pyMod, pyPow } from "../../../lib/python/numbers";
import { parseExpression, type Expr } from "../../../lib/python/syntax";
import { PyDict, PyEllipsis, PyException, pyFromJsonText, pyRepr, pyStr, PyTuple, type PyValue } from "../../../lib/python/values";

export class BfclDecodeError extends Error {}

/** One function-calling tool call (OpenAI style) as upstream's execution string. */
export function callFromToolCall(name: string, args: string | PyDict): string {
  let parsed: PyValue;
  try {
    parsed = typeof args === "string" ? pyFromJsonText(args) : args;
  } catch (err) {
    throw new BfclDecodeError(`arguments of ${name} are not JSON: ${(err as Error).message}`);
  }
  if (!(parsed instanceof PyDict)) throw new BfclDecodeError(`arguments of ${name} must be a JSON object`);
  return `${name}(${parsed.entries().map(([k, v]) => `${pyStr(k)}=${pyRepr(v)}`).join(",")})`;
}

/** Upstream's `default_decode_execute_prompting` for Python-style output. */
export function decodePromptingCalls(text: string): string[] {
  let body = stripChars(text, "`\n ");
  if (!body.startsWith("[")) body = "[" + body;
  if (!body.endsWith("]")) body = body + "]";
  body = stripChars(stripChars(body, " \t\n\r\x0b\x0c"), "'");
  let tree: Expr;
  try {
    tree = parseExpression(body);
  } catch (err) {
    throw new BfclDecodeError(err instanceof PyException ? err.pyMessage : (err as Error).message);
  }
  const calls = tree.kind === "call" ? [tree] : tree.kind === "list" || tree.kind === "tuple" ? tree.items : null;
  if (!calls) throw new BfclDecodeError("the output is not a list of function calls");
  return calls.map((call) => {
    if (call.kind !== "call") throw new BfclDecodeError("every element must be a function call");
    const resolved = resolveCall(call);
    const [name] = resolved.keys() as string[];
    const args = resolved.get(name) as PyDict;
    return `${name}(${args.entries().map(([k, v]) => `${pyStr(k)}=${nestedValue(v)}`).join(", ")})`;
  });
}

/**
 * Upstream's `default_decode_ast_prompting` for Python: the reply stripped of backticks, newlines and spaces,
 * wrapped in brackets, parsed as Python and each call resolved to `{name: {keyword: value}}` (what the
 * single-turn AST checker reads). Throws `BfclDecodeError` where upstream's decoder would raise.
 */
export function decodePromptingAst(text: string): PyDict[] {
  let body = stripChars(text, "`\n ");
  if (!body.startsWith("[")) body = "[" + body;
  if (!body.endsWith("]")) body = body + "]";
  let tree: Expr;
  try {
    tree = parseExpression(body);
  } catch (err) {
    throw new BfclDecodeError(err instanceof PyException ? err.pyMessage : (err as Error).message);
  }
  const calls = tree.kind === "call" ? [tree] : tree.kind === "list" || tree.kind === "tuple" ? tree.items : null;
  if (!calls) throw new BfclDecodeError("the output is not a list of function calls");
  return calls.map((call) => {
    if (call.kind !== "call") throw new BfclDecodeError("every element must be a function call");
    return resolveCall(call);
  });
}

function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a])) a++;
  while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

function dottedName(e: Expr): string {
  if (e.kind === "name") return e.id;
  if (e.kind === "attr") return `${dottedName(e.object)}.${e.name}`;
  return "";
}

/** `resolve_ast_call`: `{name: {keyword: value}}` (positional arguments are not kept). */
function resolveCall(call: Extract<Expr, { kind: "call" }>): PyDict {
  const args = new PyDict();
  for (const k of call.keywords) args.set(k.name, resolveValue(k.value));
  return PyDict.of([[dottedName(call.func), args]]);
}

function resolveValue(e: Expr): PyValue {
  switch (e.kind) {
    case "const":
      return e.value === PyEllipsis ? "..." : e.value;
    case "unary":
      // upstream negates the operand's constant whatever the operator
      if (e.operand.kind !== "const") throw new BfclDecodeError("unary operator on a non-constant");
      return wrap(() => pyNeg(e.operand.kind === "const" ? e.operand.value : null));
    case "list":
      return e.items.map(resolveValue);
    case "dict":
      return PyDict.of(e.entries.map(([k, v]) => [resolveValue(k), resolveValue(v)] as [PyValue, PyValue]));
    case "tuple":
      return new PyTuple(e.items.map(resolveValue));
    case "binary":
      return wrap(() => arithmetic(e));
    case "name":
      return e.id;
    case "call":
      return e.keywords.length === 0 ? unparse(e) : resolveCall(e);
    case "subscript":
      return `${unparse(e.object)}[${unparse(e.index)}]`;
    default:
      throw new BfclDecodeError(`Unsupported AST type: ${e.kind}`);
  }
}

function wrap(fn: () => PyValue): PyValue {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PyException) throw new BfclDecodeError(`${err.pyType}: ${err.pyMessage}`);
    throw err;
  }
}

/** `eval(ast.unparse(binop))` for arithmetic on constants. */
function arithmetic(e: Expr): PyValue {
  if (e.kind === "const") return e.value;
  if (e.kind === "unary") return e.op === "-" ? pyNeg(arithmetic(e.operand)) : arithmetic(e.operand);
  if (e.kind !== "binary") throw new BfclDecodeError(`cannot evaluate ${e.kind} in arithmetic`);
  const ops = { "+": pyAdd, "-": pySub, "*": pyMul, "/": pyTrueDiv, "//": pyFloorDiv, "%": pyMod, "**": pyPow };
  return ops[e.op](arithmetic(e.left), arithmetic(e.right));
}

const PRECEDENCE: Record<string, number> = { "+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2, "**": 4 };

/** `ast.unparse` for the parsed subset. */
export function unparse(e: Expr, parent = 0): string {
  switch (e.kind) {
    case "const":
      return e.value === PyEllipsis ? "..." : pyRepr(e.value);
    case "name":
      return e.id;
    case "attr":
      return `${unparse(e.object, 5)}.${e.name}`;
    case "call":
      return `${unparse(e.func, 5)}(${[...e.args.map((a) => unparse(a)), ...e.keywords.map((k) => `${k.name}=${unparse(k.value)}`)].join(", ")})`;
    case "subscript":
      return `${unparse(e.object, 5)}[${unparse(e.index)}]`;
    case "list":
      return `[${e.items.map((x) => unparse(x)).join(", ")}]`;
    case "set":
      return `{${e.items.map((x) => unparse(x)).join(", ")}}`;
    case "tuple":
      return e.items.length === 1 ? `(${unparse(e.items[0])},)` : `(${e.items.map((x) => unparse(x)).join(", ")})`;
    case "dict":
      return `{${e.entries.map(([k, v]) => `${unparse(k)}: ${unparse(v)}`).join(", ")}}`;
    case "unary": {
      const text = `${e.op}${unparse(e.operand, 3)}`;
      return parent > 3 ? `(${text})` : text;
    }
    case "binary": {
      const p = PRECEDENCE[e.op];
      const text = e.op === "**" ? `${unparse(e.left, p + 1)} ** ${unparse(e.right, p)}` : `${unparse(e.left, p)} ${e.op} ${unparse(e.right, p + 1)}`;
      return parent > p ? `(${text})` : text;
    }
  }
}

/** `parse_nested_value`: nested calls and dicts printed as upstream does, anything else as repr. */
function nestedValue(v: PyValue): string {
  if (v instanceof PyDict) {
    if (v.values().every((x) => x instanceof PyDict)) {
      if (v.size === 0) throw new BfclDecodeError("IndexError: list index out of range");
      const [name] = v.keys();
      const args = v.get(name) as PyDict;
      return `${pyStr(name)}(${args.entries().map(([k, x]) => `${pyStr(k)}=${nestedValue(x)}`).join(", ")})`;
    }
    return "{" + v.entries().map(([k, x]) => `'${pyStr(k)}': ${nestedValue(x)}`).join(", ") + "}";
  }
  return pyRepr(v);
}
