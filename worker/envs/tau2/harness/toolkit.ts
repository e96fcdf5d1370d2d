/**
 * tau2's ToolKitBase, as the domains port it: named tools (the `@is_tool` methods, in class order) and the
 * other methods `getattr(toolkit, name)` reaches (initialisation and assertion functions), each called with
 * keyword arguments the way Python binds `method(**kwargs)` — with Python's TypeError texts for a missing
 * or unexpected argument — and failing with the exceptions the method raises.
 */
import { PyDict, PyException, pyTypeName, type PyValue } from "../../../../lib/python/values";
import type { TValue } from "./py";

export interface Param {
  name: string;
  /** Present: the parameter is optional with this default. */
  default?: TValue;
}

export interface MethodDef<S> {
  params: readonly Param[];
  run(self: S, args: Record<string, TValue>): TValue;
}

export interface ToolkitSpec<S> {
  /** The Python class name, as bound-method errors print it ("AirlineTools"). */
  className: string;
  /** `@is_tool` methods, in upstream's order (the order the agent sees them). */
  tools: Record<string, MethodDef<S>>;
  /** Other public methods that environment function calls may name (`set_user_info`, `assert_…`). */
  functions?: Record<string, MethodDef<S>>;
}

/** One side's tools over one environment's state. */
export interface Toolkit {
  readonly className: string;
  readonly toolNames: readonly string[];
  hasTool(name: string): boolean;
  /** `use_tool(name, **kwargs)`: the tool's Python return value; throws what the tool raises. */
  useTool(name: string, kwargs: PyDict): TValue;
  hasFunction(name: string): boolean;
  /** `getattr(self, name)(**kwargs)` for environment function calls. */
  callFunction(name: string, kwargs: PyDict): TValue;
  /** A toolkit that takes the call's arguments as they came (dict or not) answers non-dicts itself (retail). */
  useToolRaw?(name: string, args: TValue): TValue;
}

export const typeError = (message: string) => new PyException("TypeError", message);

/** Python's binding of `Class.method(**kwargs)`: the argument dict, or the TypeError CPython raises. */
export function bindKwargs(className: string, method: string, params: readonly Param[], kwargs: PyDict): Record<string, TValue> {
  const args: Record<string, TValue> = {};
  const names = new Set(params.map((p) => p.name));
  for (const [k, v] of kwargs.entries()) {
    if (typeof k !== "string") throw typeError("keywords must be strings");
    if (!names.has(k)) throw typeError(`${className}.${method}() got an unexpected keyword argument '${k}'`);
    Object.defineProperty(args, k, { value: v as TValue, enumerable: true, writable: true, configurable: true });
  }
  const missing = params.filter((p) => p.default === undefined && !Object.hasOwn(args, p.name)).map((p) => `'${p.name}'`);
  if (missing.length) {
    const list =
      missing.length === 1 ? missing[0]
      : missing.length === 2 ? `${missing[0]} and ${missing[1]}`
      : `${missing.slice(0, -1).join(", ")}, and ${missing[missing.length - 1]}`;
    throw typeError(`${className}.${method}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${list}`);
  }
  for (const p of params) if (!Object.hasOwn(args, p.name) && p.default !== undefined) args[p.name] = p.default;
  return args;
}

/** The kwargs of a call as a dict: a mapping, or the TypeError `f(**x)` raises for anything else. */
export function kwargsOf(where: string, value: unknown): PyDict {
  if (value instanceof PyDict) return value;
  throw typeError(`${where} argument after ** must be a mapping, not ${pyTypeName(value as PyValue)}`);
}

export class SpecToolkit<S> implements Toolkit {
  readonly className: string;
  readonly toolNames: readonly string[];

  constructor(
    private readonly spec: ToolkitSpec<S>,
    private readonly self: S,
  ) {
    this.className = spec.className;
    this.toolNames = Object.keys(spec.tools);
  }

  hasTool(name: string): boolean {
    return Object.hasOwn(this.spec.tools, name);
  }

  useTool(name: string, kwargs: PyDict): TValue {
    if (!this.hasTool(name)) throw new PyException("ValueError", `Tool '${name}' not found.`);
    const tool = this.spec.tools[name]!;
    return tool.run(this.self, bindKwargs(this.className, name, tool.params, kwargs));
  }

  hasFunction(name: string): boolean {
    return this.hasTool(name) || (this.spec.functions !== undefined && Object.hasOwn(this.spec.functions, name));
  }

  callFunction(name: string, kwargs: PyDict): TValue {
    const fn = this.hasTool(name) ? this.spec.tools[name] : this.spec.functions && Object.hasOwn(this.spec.functions, name) ? this.spec.functions[name] : undefined;
    if (!fn) throw new PyException("AttributeError", `'${this.className}' object has no attribute '${name}'`);
    return fn.run(this.self, bindKwargs(this.className, name, fn.params, kwargs));
  }
}
