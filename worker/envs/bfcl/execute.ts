/**
 * Port of upstream `execute_multi_turn_func_call`: instances of the involved classes (created once,
 * persisting across calls), call strings rewritten to `<instance>.<method>(…)` with upstream's regex,
 * evaluated without `eval`, and results turned into the exact text upstream returns: str as is, dict
 * via `json.dumps` (falling back to `str()`), everything else via `str()`, and Python exceptions
 * raised while evaluating as `Error during execution: <message>`.
 */
import { pyGetItem } from "../../../lib/python/builtins";
import { pyAdd, pyFloorDiv, pyInvert, pyMod, pyMul, pyNeg, pyPos, pyPow, pySub, pyTrueDiv } from "../../../lib/python/numbers";
import { parseExpression, UnsupportedSyntax, type Expr } from "../../../lib/python/syntax";
import {
  attributeError,
  nameError,
  PyDict,
  pyDeepCopy,
  PyException,
  pyJsonDumpsValue,
  PyObject,
  PySet,
  pyStr,
  PyTuple,
  pyTypeName,
  typeError,
  type PyValue,
} from "../../../lib/python/values";
import { createBackend, STATELESS_CLASSES } from "./backends";
import type { Backend } from "./backends/base";
import { BfclDataError, type BfclClassName } from "./data";
import type { ModuleScope } from "./scope";

/** Functions upstream refuses to evaluate (checked on the rewritten call string). */
const BLOCKED_FUNCTIONS = ["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"];

/** What an instance set needs to know about its task. */
export interface InstanceSetSpec {
  id: string;
  involvedClasses: readonly BfclClassName[];
  initialConfig: PyDict;
  longContext: boolean;
}

/** Upstream's instance variable name: `{model}_{test id}_{class}_instance` with `-./:` replaced by `_`. */
export function instanceName(modelName: string, testEntryId: string, className: string): string {
  return `${modelName}_${testEntryId}_${className}_instance`.replace(/[-./:]/g, "_");
}

/**
 * What a call string can reach: a back-end instance with public methods (the eight classes' `Backend`, or
 * another class adapted to it, e.g. the memory back ends, which upstream's executor runs the same way).
 */
export interface CallTarget {
  readonly className: string;
  hasMethod(name: string): boolean;
  methodNames(): string[];
  /** Public attributes (reachable as `instance.attr`). */
  publicState(): [string, PyValue][];
  /** Calls a public method; Python exceptions are thrown as `PyException`. */
  call(name: string, args: PyValue[], kwargs: [string, PyValue][]): PyValue;
}

/** A back-end instance reached by its instance name (what `eval` sees). */
class InstanceRef extends PyObject {
  constructor(readonly backend: CallTarget) {
    super();
  }
  get pyType(): string {
    return this.backend.className;
  }
  repr(): string {
    return `<${this.backend.className} object>`;
  }
}

/** A bound method value (`instance.method`). */
class BoundMethod extends PyObject {
  readonly pyType = "method";
  constructor(
    readonly backend: CallTarget,
    readonly name: string,
  ) {
    super();
  }
  repr(): string {
    return `<bound method ${this.backend.className}.${this.name} of <${this.backend.className} object>>`;
  }
}

// Python's \w and \s for str patterns (Unicode).
const WORD = /[\p{L}\p{N}_]/u;
const SPACE = /[\s\x1c-\x1f\x85]/u;
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);
const isSpace = (c: string) => c !== "\ufeff" && SPACE.test(c);

/**
 * Upstream's `_process_method_calls`: every `name(` (regex `\b([a-zA-Z_]\w*)\s*(?=\()`, applied to
 * the whole string, string literals included) becomes `instance.name(` when `name` is a method of an
 * involved class, else `name(`; the whitespace before `(` is dropped either way.
 */
export function processMethodCalls(call: string, methodOwner: ReadonlyMap<string, string>): string {
  const cps = Array.from(call);
  let out = "";
  let i = 0;
  while (i < cps.length) {
    const c = cps[i];
    const boundary = !isWord(cps[i - 1]);
    if (boundary && /[a-zA-Z_]/.test(c)) {
      let j = i + 1;
      while (j < cps.length && isWord(cps[j])) j++;
      let k = j;
      while (k < cps.length && isSpace(cps[k])) k++;
      const name = cps.slice(i, j).join("");
      if (cps[k] === "(") {
        const owner = methodOwner.get(name);
        out += owner === undefined ? name : `${owner}.${name}`;
        i = k;
        continue;
      }
      out += name;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The blocked-function check upstream runs before `eval`; returns the name when blocked. */
export function blockedFunction(processed: string): string | undefined {
  let head = processed;
  if (head.includes("(")) head = head.split("(")[0];
  if (head.includes(".")) head = head.split(".")[1];
  return BLOCKED_FUNCTIONS.includes(head) ? head : undefined;
}

/** Upstream's conversion of a call's return value to the text the model sees. */
export function resultText(result: PyValue): string {
  if (typeof result === "string") return result;
  if (result instanceof PyDict) {
    try {
      return pyJsonDumpsValue(result);
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      return pyStr(result);
    }
  }
  return pyStr(result);
}

export const errorText = (message: string) => `Error during execution: ${message}`;

/** The instances of one task for one side (model / ground truth / inference), persisting across turns. */
export class BfclInstanceSet {
  readonly instances = new Map<BfclClassName, Backend>();
  private readonly byName = new Map<string, InstanceRef>();
  private readonly methodOwner = new Map<string, string>();

  /** `extra`: further instances besides the involved classes' (named and reached like them). */
  constructor(
    readonly spec: InstanceSetSpec,
    readonly modelName: string,
    readonly scope: ModuleScope,
    extra: readonly CallTarget[] = [],
  ) {
    // Long-context tasks need long_context.py: fail here, before any call, when it is missing.
    if (spec.longContext) scope.longContext();
    for (const className of spec.involvedClasses) {
      const backend = createBackend(className, scope);
      if (!STATELESS_CLASSES.has(className)) {
        const config = spec.initialConfig.get(className) ?? new PyDict();
        if (!(config instanceof PyDict)) throw new BfclDataError(`task ${spec.id}: initial_config.${className} must be an object`);
        try {
          backend.loadScenario(pyDeepCopy(config), spec.longContext);
        } catch (err) {
          if (err instanceof PyException) throw new BfclDataError(`task ${spec.id}: cannot load the ${className} scenario: ${err.pyType}: ${err.pyMessage}`);
          throw err;
        }
      }
      const name = instanceName(modelName, spec.id, className);
      this.instances.set(className, backend);
      this.byName.set(name, new InstanceRef(backend));
      for (const method of backend.methodNames()) this.methodOwner.set(method, name);
    }
    for (const target of extra) {
      const name = instanceName(modelName, spec.id, target.className);
      this.byName.set(name, new InstanceRef(target));
      for (const method of target.methodNames()) this.methodOwner.set(method, name);
    }
  }

  /** Names the model may call (public methods of the involved classes). */
  callableNames(): string[] {
    return [...this.methodOwner.keys()];
  }

  /** Run call strings in order, each giving upstream's exact result text. */
  execute(calls: readonly string[]): string[] {
    return calls.map((call) => this.executeOne(call));
  }

  executeOne(call: string): string {
    const processed = processMethodCalls(call, this.methodOwner);
    try {
      const blocked = blockedFunction(processed);
      if (blocked !== undefined) throw new PyException("Exception", `Function call ${blocked} is not allowed.`);
      const value = this.evaluate(parseExpression(processed));
      if (value instanceof BoundMethod || value instanceof InstanceRef) return value.repr();
      return resultText(value);
    } catch (err) {
      if (err instanceof PyException) return errorText(err.pyMessage);
      if (err instanceof UnsupportedSyntax) return errorText(`unsupported Python syntax in a function call: ${err.message}`);
      throw err;
    }
  }

  private evaluate(e: Expr): PyValue {
    switch (e.kind) {
      case "const":
        return e.value;
      case "name": {
        const ref = this.byName.get(e.id);
        if (ref) return ref;
        throw nameError(e.id);
      }
      case "attr": {
        const target = this.evaluate(e.object);
        if (target instanceof InstanceRef) {
          if (target.backend.hasMethod(e.name)) return new BoundMethod(target.backend, e.name);
          const attribute = target.backend.publicState().find(([name]) => name === e.name);
          if (attribute) return attribute[1];
        }
        throw attributeError(`'${pyTypeName(target)}' object has no attribute '${e.name}'`);
      }
      case "call": {
        const func = this.evaluate(e.func);
        const args = e.args.map((a) => this.evaluate(a));
        const kwargs = e.keywords.map((k) => [k.name, this.evaluate(k.value)] as [string, PyValue]);
        if (!(func instanceof BoundMethod)) throw typeError(`'${pyTypeName(func)}' object is not callable`);
        return func.backend.call(func.name, args, kwargs);
      }
      case "subscript":
        return pyGetItem(this.evaluate(e.object), this.evaluate(e.index));
      case "list":
        return e.items.map((x) => this.evaluate(x));
      case "tuple":
        return new PyTuple(e.items.map((x) => this.evaluate(x)));
      case "set":
        return PySet.of(e.items.map((x) => this.evaluate(x)));
      case "dict": {
        const d = new PyDict();
        for (const [k, v] of e.entries) d.set(this.evaluate(k), this.evaluate(v));
        return d;
      }
      case "unary": {
        const v = this.evaluate(e.operand);
        return e.op === "-" ? pyNeg(v) : e.op === "+" ? pyPos(v) : pyInvert(v);
      }
      case "binary": {
        const a = this.evaluate(e.left);
        const b = this.evaluate(e.right);
        switch (e.op) {
          case "+":
            return pyAdd(a, b);
          case "-":
            return pySub(a, b);
          case "*":
            return pyMul(a, b);
          case "/":
            return pyTrueDiv(a, b);
          case "//":
            return pyFloorDiv(a, b);
          case "%":
            if (typeof a === "string") throw new UnsupportedSyntax("printf-style string formatting");
            return pyMod(a, b);
          case "**":
            return pyPow(a, b);
        }
      }
    }
  }

  /** Public attributes per class (what the state checker compares). */
  state(): Map<BfclClassName, [string, PyValue][]> {
    return new Map([...this.instances].map(([name, backend]) => [name, backend.publicState()]));
  }
}
