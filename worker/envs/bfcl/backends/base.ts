/**
 * What every ported BFCL back-end class shares: method signatures with Python's argument binding
 * (and CPython 3.11's TypeError texts), the public attributes the state checker compares, and the
 * per-task module scope.
 */
import { PyDict, typeError, type PyValue } from "@/lib/python/values";
import type { ModuleScope } from "../scope";

export interface ParamSpec {
  name: string;
  /** Default value; a function is called once per module scope (Python evaluates defaults once, at `def`). */
  default?: PyValue | ((scope: ModuleScope) => PyValue);
}

export interface MethodSpec {
  params: ParamSpec[];
  /** The method body; receives the bound arguments in parameter order. */
  run: (...args: PyValue[]) => PyValue;
}

const quoteList = (names: string[]): string => {
  const quoted = names.map((n) => `'${n}'`);
  if (quoted.length === 1) return quoted[0];
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
};

/** Base class of the ported back ends. */
export abstract class Backend {
  abstract readonly className: string;
  /** Public methods (what upstream maps call names to), in any order. */
  protected abstract readonly methods: Record<string, MethodSpec>;

  constructor(protected readonly scope: ModuleScope) {}

  /** `_load_scenario(copy.deepcopy(config), long_context)`; stateless classes ignore it. */
  abstract loadScenario(config: PyDict, longContext: boolean): void;

  /** Public attributes in `vars(instance)` order (what `_compare_instances` compares). */
  abstract publicState(): [string, PyValue][];

  methodNames(): string[] {
    return Object.keys(this.methods);
  }

  hasMethod(name: string): boolean {
    return Object.hasOwn(this.methods, name);
  }

  /** Call a public method with Python's binding rules. */
  call(name: string, args: PyValue[], kwargs: [string, PyValue][]): PyValue {
    const spec = this.methods[name];
    const qualname = `${this.className}.${name}()`;
    const values: (PyValue | undefined)[] = spec.params.map((_, i) => (i < args.length ? args[i] : undefined));
    const given = new Set(spec.params.slice(0, Math.min(args.length, spec.params.length)).map((p) => p.name));
    for (const [key, value] of kwargs) {
      const index = spec.params.findIndex((p) => p.name === key);
      if (index < 0) throw typeError(`${qualname} got an unexpected keyword argument '${key}'`);
      if (given.has(key)) throw typeError(`${qualname} got multiple values for argument '${key}'`);
      given.add(key);
      values[index] = value;
    }
    if (args.length > spec.params.length) {
      const max = spec.params.length + 1;
      const min = spec.params.filter((p) => !("default" in p)).length + 1;
      const takes = min === max ? `${max} positional argument${max === 1 ? "" : "s"}` : `from ${min} to ${max} positional arguments`;
      throw typeError(`${qualname} takes ${takes} but ${args.length + 1} were given`);
    }
    const missing = spec.params.filter((p, i) => values[i] === undefined && !("default" in p)).map((p) => p.name);
    if (missing.length > 0) {
      throw typeError(`${qualname} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${quoteList(missing)}`);
    }
    const bound = spec.params.map((p, i) => {
      if (values[i] !== undefined) return values[i] as PyValue;
      const d = p.default!;
      return typeof d === "function" ? this.scope.functionDefault(`${this.className}.${name}.${p.name}`, () => d(this.scope)) : d;
    });
    return spec.run(...bound);
  }
}

/** A method spec from a parameter list and a body. */
export function method(params: (string | [string, PyValue | ((scope: ModuleScope) => PyValue)])[], run: (...args: PyValue[]) => PyValue): MethodSpec {
  return {
    params: params.map((p) => (typeof p === "string" ? { name: p } : { name: p[0], default: p[1] })),
    run,
  };
}

/** A dict from `[key, value]` pairs with string keys (order kept). */
export const dict = (obj: Record<string, PyValue>): PyDict => PyDict.fromObject(obj);

/** `scenario.get(key, default)`. */
export function scenarioGet(scenario: PyDict, key: string, fallback: PyValue): PyValue {
  return scenario.has(key) ? scenario.get(key)! : fallback;
}
