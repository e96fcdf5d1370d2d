/**
 * `calculate(expression)` as the toolkits define it (GenericToolKit, retail's and airline's tools):
 * every character must be in the allowed alphabet, then Python's `eval` of the text, `round(…, 2)` as
 * `str`. A non-str argument fails as Python's `for char in expression` / `eval` do.
 */
import { pyIter } from "../../../../lib/python/builtins";
import { PyException, pyTypeName, type PyValue } from "../../../../lib/python/values";
import { calculateExpression, PyError as CalculateError } from "./calculate";
import type { TValue } from "./py";

const ALPHABET = "0123456789+-*/(). ";

export function pyCalculate(expression: TValue): string {
  if (typeof expression !== "string") {
    for (const ch of pyIter(expression as PyValue)) {
      if (typeof ch !== "string") throw new PyException("TypeError", `'in <string>' requires string as left operand, not ${pyTypeName(ch)}`);
      if (!ALPHABET.includes(ch)) throw new PyException("ValueError", "Invalid characters in expression");
    }
    throw new PyException("TypeError", "eval() arg 1 must be a string, bytes or code object");
  }
  try {
    return calculateExpression(expression);
  } catch (e) {
    if (e instanceof CalculateError) throw new PyException("Error", e.message);
    throw e;
  }
}
