/**
 * Port of upstream's `ast_checker.py` (BFCL v4, commit 6ea5797): the single-turn checker for the Python,
 * Java and JavaScript categories. Given the function documents, the model's decoded calls
 * (`[{name: {param: value}}]`) and the possible answers (`[{name: {param: [acceptable values]}}]`, where
 * `""` marks an optional parameter), it returns upstream's verdict, error texts and error type.
 *
 * Every rule is upstream's, including its quirks (kept on purpose, because scores must match):
 * - Python: `int` is accepted for `float`; a tuple counts as a list when the type is `tuple`; a value whose
 *   type is that of the possible answers rather than the declared type is a "variable" and is compared
 *   as is; strings (also inside lists and dicts) are compared after `standardize_string`.
 * - Java/JavaScript: every value must be a string (source text) and is converted by the type converters.
 * - Parallel categories match calls order-insensitively, greedily, answer by answer.
 * Python exceptions upstream would raise on malformed input are thrown as `CheckerCrash`.
 */
import { javaTypeConverter, JAVA_TYPE_CONVERSION, isJavaType } from "./java-types";
import { jsTypeConverter, JS_TYPE_CONVERSION, isJsType } from "./js-types";
import { codePoints } from "./pystr";
import { PyDict, pyEq, pyRepr, pyStr, PyTuple, pyTypeName, type PyValue } from "./values";

export type Language = "python" | "java" | "javascript";

/** The parts of a function document the checker reads. */
export interface FunctionDoc {
  name: string;
  parameters: {
    properties: Record<string, { type: string; items?: { type: string } }>;
    required: string[];
  };
}

export interface ParallelMatchError {
  modelResultIndex: number;
  subError: CheckError[];
  subErrorType: string | undefined;
  modelOutputItem: PyValue;
  possibleAnswerItem: PyValue;
}
export type CheckError = string | ParallelMatchError;

export interface CheckResult {
  valid: boolean;
  error: CheckError[];
  /** Upstream's `error_type` (absent on some valid results, as upstream). */
  errorType?: string;
}

export interface CheckerOptions {
  /**
   * Upstream's per-model `underscore_to_dot` flag: the model was shown function names with "." replaced
   * by "_" (OpenAI-style tool names), so expected names are compared in that form.
   */
  underscoreToDot?: boolean;
}

/** A Python exception upstream's checker would raise (it aborts upstream's whole evaluation run). */
export class CheckerCrash extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(`${pyType}: ${message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Python operations on loosely typed data (what upstream's code does when the data has another shape)

/** Items of a Python sequence/iterable (`for x in v`): list/tuple items, str characters, dict keys. */
function pyIter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (typeof v === "string") return codePoints(v);
  if (v instanceof PyDict) return v.keys();
  throw new CheckerCrash("TypeError", `'${pyTypeName(v)}' object is not iterable`);
}

/** `v[i]` for an integer index on a sequence (`range(len(v))` loops). */
function pySeq(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (typeof v === "string") return codePoints(v);
  if (v instanceof PyDict) throw new CheckerCrash("KeyError", "0");
  throw new CheckerCrash("TypeError", `object of type '${pyTypeName(v)}' has no len()`);
}

/** `x in container`. */
function pyContains(container: PyValue, x: PyValue): boolean {
  if (Array.isArray(container)) return container.some((item) => pyEq(item, x));
  if (container instanceof PyTuple) return container.items.some((item) => pyEq(item, x));
  if (container instanceof PyDict) {
    if (Array.isArray(x) || x instanceof PyDict) throw new CheckerCrash("TypeError", `unhashable type: '${pyTypeName(x)}'`);
    return container.has(x);
  }
  if (typeof container === "string") {
    if (typeof x !== "string") throw new CheckerCrash("TypeError", `'in <string>' requires string as left operand, not ${pyTypeName(x)}`);
    return container.includes(x);
  }
  throw new CheckerCrash("TypeError", `argument of type '${pyTypeName(container)}' is not iterable`);
}

/** `d[key]` on a dict. */
function pyGet(d: PyValue, key: PyValue): PyValue {
  if (!(d instanceof PyDict)) throw new CheckerCrash("TypeError", `'${pyTypeName(d)}' object is not subscriptable by ${pyTypeName(key)}`);
  if (!d.has(key)) throw new CheckerCrash("KeyError", pyRepr(key));
  return d.get(key)!;
}

function asDict(v: PyValue, what: string): PyDict {
  if (!(v instanceof PyDict)) throw new CheckerCrash("AttributeError", `'${pyTypeName(v)}' object has no attribute '${what}'`);
  return v;
}

/** `list(d.values())[0]` / `list(d.keys())[0]`. */
function firstValue(d: PyValue): PyValue {
  const values = asDict(d, "values").values();
  if (values.length === 0) throw new CheckerCrash("IndexError", "list index out of range");
  return values[0];
}
function firstKey(d: PyValue): PyValue {
  const keys = asDict(d, "keys").keys();
  if (keys.length === 0) throw new CheckerCrash("IndexError", "list index out of range");
  return keys[0];
}

/** `str(python_type)`. */
const classText = (typeName: string) => `<class '${typeName}'>`;

// ---------------------------------------------------------------------------------------------------------------
// Main entry

const PYTHON_TYPE_MAPPING: Record<string, string> = {
  string: "str",
  integer: "int",
  float: "float",
  boolean: "bool",
  array: "list",
  tuple: "list",
  dict: "dict",
  any: "str",
};
const PYTHON_NESTED_TYPE_CHECK_LIST = ["array", "tuple"];
const NESTED_CONVERSION_TYPE_LIST = ["Array", "ArrayList", "array"];

/**
 * `ast_checker(func_description, model_output, possible_answer, language, test_category, model_name)`.
 * `modelOutput` must already be in function-calling format (see `isFunctionCallingFormat`).
 */
export function astChecker(
  functions: readonly FunctionDoc[],
  modelOutput: readonly PyValue[],
  possibleAnswer: readonly PyValue[],
  language: Language,
  testCategory: string,
  options: CheckerOptions = {},
): CheckResult {
  if (testCategory.includes("parallel")) return parallelFunctionCheckerNoOrder(functions, modelOutput, possibleAnswer, language, options);
  if (testCategory.includes("multiple")) return multipleFunctionChecker(functions, modelOutput, possibleAnswer, language, options);
  if (modelOutput.length !== 1) {
    return { valid: false, error: ["Wrong number of functions."], errorType: "simple_function_checker:wrong_count" };
  }
  if (functions.length === 0 || possibleAnswer.length === 0) throw new CheckerCrash("IndexError", "list index out of range");
  return simpleFunctionChecker(functions[0], modelOutput[0], possibleAnswer[0], language, options);
}

/** `find_description`: the document with that name (upstream returns None when absent). */
function findDescription(functions: readonly FunctionDoc[], name: PyValue): FunctionDoc | undefined {
  return functions.find((f) => f.name === name);
}

function getPossibleAnswerType(possibleAnswer: PyValue): string | undefined {
  for (const answer of pyIter(possibleAnswer)) {
    if (answer !== "") return pyTypeName(answer);
  }
  return undefined;
}

function convertFuncName(name: string, options: CheckerOptions): string {
  return name.includes(".") && options.underscoreToDot ? name.replace(/\./g, "_") : name;
}

interface TypeCheckResult extends CheckResult {
  isVariable: boolean;
}

function typeChecker(
  param: string,
  value: PyValue,
  possibleAnswer: PyValue,
  expectedTypeDescription: string,
  expectedTypeConverted: string,
  nestedTypeConverted: string | undefined,
): TypeCheckResult {
  const result: TypeCheckResult = { valid: true, error: [], isVariable: false, errorType: "type_error:simple" };

  let isVariable = false;
  const possibleAnswerType = getPossibleAnswerType(possibleAnswer);
  if (possibleAnswerType !== undefined && possibleAnswerType !== expectedTypeConverted) isVariable = true;

  if (pyTypeName(value) === expectedTypeConverted) {
    if (nestedTypeConverted === undefined) {
      result.isVariable = isVariable;
      return result;
    }
    for (const possibleAnswerItem of pyIter(possibleAnswer)) {
      let flag = true;
      if (Array.isArray(possibleAnswerItem)) {
        for (const valueItem of pyIter(value)) {
          const inner = typeChecker(param, valueItem, possibleAnswerItem, classText(nestedTypeConverted), nestedTypeConverted, undefined);
          if (!inner.valid) {
            flag = false;
            break;
          }
        }
      }
      if (flag) return { valid: true, error: [], isVariable };
    }
    result.valid = false;
    result.error = [
      `Nested type checking failed for parameter ${pyRepr(param)}. Expected outer type ${expectedTypeDescription} with inner type ${classText(nestedTypeConverted)}. Parameter value: ${pyRepr(value)}.`,
    ];
    result.errorType = "type_error:nested";
  }

  if (possibleAnswerType !== undefined && pyTypeName(value) === possibleAnswerType) {
    result.isVariable = true;
    return result;
  }

  result.valid = false;
  result.error.push(
    `Incorrect type for parameter ${pyRepr(param)}. Expected type ${expectedTypeDescription}, got ${pyTypeName(value)}. Parameter value: ${pyRepr(value)}.`,
  );
  result.errorType = "type_error:simple";
  return result;
}

/** Upstream's `standardize_string`: drop spaces and `,./-_*^`, lower-case, single → double quotes. */
export function standardizeString(input: string): string {
  return input.replace(/[ ,./\-_*^]/g, "").toLowerCase().replace(/'/g, '"');
}

const standardizeIfString = (v: PyValue): PyValue => (typeof v === "string" ? standardizeString(v) : v);

function stringChecker(param: string, modelOutput: string, possibleAnswer: PyValue): CheckResult {
  const standardized: PyValue[] = [];
  for (const item of pySeq(possibleAnswer)) if (typeof item === "string") standardized.push(standardizeString(item));
  if (!pyContains(standardized, standardizeString(modelOutput))) {
    return {
      valid: false,
      error: [`Invalid value for parameter ${pyRepr(param)}: ${pyRepr(modelOutput)}. Expected one of ${pyStr(possibleAnswer)}. Case insensitive.`],
      errorType: "value_error:string",
    };
  }
  return { valid: true, error: [] };
}

function listChecker(param: string, modelOutput: PyValue, possibleAnswer: PyValue): CheckResult {
  const standardizedOutput = pyIter(modelOutput).map(standardizeIfString);
  const standardizedAnswers: PyValue[] = pySeq(possibleAnswer).map((answer) => pySeq(answer).map(standardizeIfString));
  if (!pyContains(standardizedAnswers, standardizedOutput)) {
    return {
      valid: false,
      error: [`Invalid value for parameter ${pyRepr(param)}: ${pyRepr(modelOutput)}. Expected one of ${pyStr(possibleAnswer)}.`],
      errorType: "value_error:list/tuple",
    };
  }
  return { valid: true, error: [] };
}

function dictChecker(param: string, modelOutput: PyValue, possibleAnswers: PyValue): CheckResult {
  let result: CheckResult = { valid: false, error: [], errorType: "dict_checker:unclear" };
  const output = asDict(modelOutput, "items");
  for (const possibleAnswer of pySeq(possibleAnswers)) {
    if (possibleAnswer === "") continue;
    result = { valid: false, error: [], errorType: "dict_checker:unclear" };
    let flag = true;

    for (const [key, value] of output.entries()) {
      if (!pyContains(possibleAnswer, key)) {
        result.valid = false;
        result.error.push(`Unexpected dict key parameter: '${pyStr(key)}'.`);
        result.errorType = "value_error:dict_key";
        flag = false;
        break;
      }
      const standardizedValue = standardizeIfString(value);
      const acceptable = pyGet(possibleAnswer, key);
      const standardizedAcceptable = pySeq(acceptable).map(standardizeIfString);
      if (!pyContains(standardizedAcceptable, standardizedValue)) {
        result.valid = false;
        result.error.push(`Invalid value for parameter ${pyRepr(key)}: ${pyRepr(value)}. Expected one of ${pyStr(standardizedAcceptable)}.`);
        result.errorType = "value_error:dict_value";
        flag = false;
        break;
      }
    }

    for (const [key, value] of asDict(possibleAnswer, "items").entries()) {
      if (!output.has(key) && !pyContains(value, "")) {
        result.valid = false;
        result.error.push(`Missing dict key parameter: '${pyStr(key)}'.`);
        result.errorType = "value_error:dict_key";
        flag = false;
        break;
      }
    }

    if (flag) return { valid: true, error: [] };
  }
  return result;
}

function listDictChecker(param: string, modelOutput: PyValue, possibleAnswers: PyValue): CheckResult {
  let result: CheckResult = { valid: false, error: [], errorType: "list_dict_checker:unclear" };
  const output = pySeq(modelOutput);
  for (const answer of pySeq(possibleAnswers)) {
    let flag = true;
    const answerItems = pySeq(answer);
    if (output.length !== answerItems.length) {
      result = { valid: false, error: ["Wrong number of dictionaries in the list."], errorType: "value_error:list_dict_count" };
      flag = false;
      continue;
    }
    for (let i = 0; i < output.length; i++) {
      result = dictChecker(param, output[i], [answerItems[i]]);
      if (!result.valid) {
        flag = false;
        break;
      }
    }
    if (flag) return { valid: true, error: [] };
  }
  return result;
}

function simpleFunctionChecker(
  funcDescription: FunctionDoc | undefined,
  modelOutput: PyValue,
  possibleAnswerEntry: PyValue,
  language: Language,
  options: CheckerOptions,
): CheckResult {
  const possibleAnswer = firstValue(possibleAnswerEntry);
  if (funcDescription === undefined) throw new CheckerCrash("TypeError", "'NoneType' object is not subscriptable");
  const paramDetails = funcDescription.parameters.properties;
  const requiredParams = funcDescription.parameters.required;

  let result: CheckResult = { valid: true, error: [], errorType: "simple_function_checker:unclear" };
  const funcName = convertFuncName(funcDescription.name, options);

  const output = asDict(modelOutput, "__contains__");
  if (!output.has(funcName)) {
    result.valid = false;
    result.error.push(`Function name ${pyRepr(funcName)} not found in model output.`);
    result.errorType = "simple_function_checker:wrong_func_name";
    return result;
  }
  const modelParams = output.get(funcName)!;

  for (const param of requiredParams) {
    if (!pyContains(modelParams, param)) {
      result.valid = false;
      result.error.push(`Missing required parameter: ${pyRepr(param)}.`);
      result.errorType = "simple_function_checker:missing_required";
      return result;
    }
  }

  for (const [paramKey, rawValue] of asDict(modelParams, "items").entries()) {
    if (typeof paramKey !== "string" || !Object.hasOwn(paramDetails, paramKey) || !pyContains(possibleAnswer, paramKey)) {
      result.valid = false;
      result.error.push(`Unexpected parameter: ${pyRepr(paramKey)}.`);
      result.errorType = "simple_function_checker:unexpected_param";
      return result;
    }
    const param = paramKey;
    let value = rawValue;
    const details = paramDetails[param];
    const expectedTypeDescription = details.type;
    let expectedTypeConverted: string;
    let nestedTypeConverted: string | undefined;
    const nestedTypeOf = (mapping: Record<string, string>): [string, string] => {
      const nestedType = details.items?.type;
      if (nestedType === undefined) throw new CheckerCrash("KeyError", "'items'");
      const converted = mapping[nestedType];
      if (converted === undefined) throw new CheckerCrash("KeyError", pyRepr(nestedType));
      return [nestedType, converted];
    };

    if (language === "java") {
      if (!isJavaType(expectedTypeDescription)) throw new CheckerCrash("KeyError", pyRepr(expectedTypeDescription));
      expectedTypeConverted = JAVA_TYPE_CONVERSION[expectedTypeDescription];
      if (typeof value !== "string") {
        result.valid = false;
        result.error.push(`Incorrect type for parameter ${pyRepr(param)}. Expected type String, got ${pyTypeName(value)}. Parameter value: ${pyRepr(value)}.`);
        result.errorType = "type_error:java";
        return result;
      }
      if (NESTED_CONVERSION_TYPE_LIST.includes(expectedTypeDescription)) {
        const [nestedType, converted] = nestedTypeOf(JAVA_TYPE_CONVERSION);
        nestedTypeConverted = converted;
        value = convert(() => javaTypeConverter(value as string, expectedTypeDescription, nestedType));
      } else {
        value = convert(() => javaTypeConverter(value as string, expectedTypeDescription));
      }
    } else if (language === "javascript") {
      if (!isJsType(expectedTypeDescription)) throw new CheckerCrash("KeyError", pyRepr(expectedTypeDescription));
      expectedTypeConverted = JS_TYPE_CONVERSION[expectedTypeDescription];
      if (typeof value !== "string") {
        result.valid = false;
        result.error.push(`Incorrect type for parameter ${pyRepr(param)}. Expected type String, got ${pyTypeName(value)}. Parameter value: ${pyRepr(value)}.`);
        result.errorType = "type_error:js";
        return result;
      }
      if (NESTED_CONVERSION_TYPE_LIST.includes(expectedTypeDescription)) {
        const [nestedType, converted] = nestedTypeOf(JS_TYPE_CONVERSION);
        nestedTypeConverted = converted;
        value = convert(() => jsTypeConverter(value as string, expectedTypeDescription, nestedType));
      } else {
        value = convert(() => jsTypeConverter(value as string, expectedTypeDescription));
      }
    } else {
      const mapped = PYTHON_TYPE_MAPPING[expectedTypeDescription];
      if (mapped === undefined) throw new CheckerCrash("KeyError", pyRepr(expectedTypeDescription));
      expectedTypeConverted = mapped;
      if (PYTHON_NESTED_TYPE_CHECK_LIST.includes(expectedTypeDescription)) nestedTypeConverted = nestedTypeOf(PYTHON_TYPE_MAPPING)[1];
    }

    // Upstream turns tuples into lists when the declared type is tuple (JSON has no tuples).
    if (expectedTypeDescription === "tuple" && value instanceof PyTuple) value = [...value.items];
    // Python's implicit int → float.
    if (language === "python" && expectedTypeDescription === "float" && typeof value === "bigint") value = Number(value);

    const acceptable = pyGet(possibleAnswer, param);
    const typeCheck = typeChecker(param, value, acceptable, expectedTypeDescription, expectedTypeConverted, nestedTypeConverted);
    if (!typeCheck.valid) return stripVariable(typeCheck);

    if (!typeCheck.isVariable) {
      if (expectedTypeConverted === "dict") {
        result = dictChecker(param, value, acceptable);
        if (!result.valid) return result;
        continue;
      } else if (expectedTypeConverted === "list" && nestedTypeConverted === "dict") {
        result = listDictChecker(param, value, acceptable);
        if (!result.valid) return result;
        continue;
      } else if (expectedTypeConverted === "str") {
        result = stringChecker(param, value as string, acceptable);
        if (!result.valid) return result;
        continue;
      } else if (expectedTypeConverted === "list") {
        result = listChecker(param, value, acceptable);
        if (!result.valid) return result;
        continue;
      }
    }

    if (!pyContains(acceptable, value)) {
      result.valid = false;
      result.error.push(`Invalid value for parameter ${pyRepr(param)}: ${pyRepr(value)}. Expected one of ${pyStr(acceptable)}.`);
      result.errorType = "value_error:others";
      return result;
    }
  }

  for (const param of pyIter(possibleAnswer)) {
    if (!pyContains(modelParams, param) && !pyContains(pyGet(possibleAnswer, param), "")) {
      result.valid = false;
      result.error.push(`Optional parameter ${pyRepr(param)} not provided and not marked as optional.`);
      result.errorType = "simple_function_checker:missing_optional";
      return result;
    }
  }
  return result;
}

/** Runs a type converter, turning its Python exceptions into crashes. */
function convert(run: () => PyValue): PyValue {
  try {
    return run();
  } catch (err) {
    if (err instanceof Error && "pyType" in err) throw new CheckerCrash(String((err as { pyType: string }).pyType), err.message);
    throw err;
  }
}

function stripVariable(r: TypeCheckResult): CheckResult {
  return { valid: r.valid, error: r.error, errorType: r.errorType };
}

function parallelFunctionCheckerNoOrder(
  functions: readonly FunctionDoc[],
  modelOutput: readonly PyValue[],
  possibleAnswers: readonly PyValue[],
  language: Language,
  options: CheckerOptions,
): CheckResult {
  if (modelOutput.length !== possibleAnswers.length) {
    return { valid: false, error: ["Wrong number of functions."], errorType: "parallel_function_checker_no_order:wrong_count" };
  }
  const matched: number[] = [];
  // `result` leaks out of the inner loop in upstream; with no candidate left it keeps its previous value.
  let result: CheckResult | undefined;
  for (let i = 0; i < possibleAnswers.length; i++) {
    const funcDescription = findDescription(functions, firstKey(possibleAnswers[i]));
    const allErrors: CheckError[] = [];
    for (let index = 0; index < modelOutput.length; index++) {
      if (matched.includes(index)) continue;
      result = simpleFunctionChecker(funcDescription, modelOutput[index], possibleAnswers[i], language, options);
      if (result.valid) {
        matched.push(index);
        break;
      }
      allErrors.push({
        modelResultIndex: index,
        subError: result.error,
        subErrorType: result.errorType,
        modelOutputItem: modelOutput[index],
        possibleAnswerItem: possibleAnswers[i],
      });
    }
    if (result === undefined) throw new CheckerCrash("UnboundLocalError", "cannot access local variable 'result' where it is not associated with a value");
    if (!result.valid) {
      const considered = modelOutput.map((_, k) => k).filter((k) => !matched.includes(k));
      allErrors.unshift(
        `Could not find a matching function among index [${considered.join(", ")}] of model output for index ${i} of possible answers.`,
      );
      return { valid: false, error: allErrors, errorType: "parallel_function_checker_no_order:cannot_find_match" };
    }
  }
  return { valid: true, error: [] };
}

function multipleFunctionChecker(
  functions: readonly FunctionDoc[],
  modelOutput: readonly PyValue[],
  possibleAnswers: readonly PyValue[],
  language: Language,
  options: CheckerOptions,
): CheckResult {
  if (modelOutput.length !== possibleAnswers.length) {
    return { valid: false, error: ["Wrong number of functions."], errorType: "multiple_function_checker:wrong_count" };
  }
  if (possibleAnswers.length === 0) throw new CheckerCrash("IndexError", "list index out of range");
  const funcDescription = findDescription(functions, firstKey(possibleAnswers[0]));
  return simpleFunctionChecker(funcDescription, modelOutput[0], possibleAnswers[0], language, options);
}

/**
 * Upstream's `is_function_calling_format_output`: a list of one-key dicts whose value is a dict
 * (`[]` counts as well-formed).
 */
export function isFunctionCallingFormat(decoded: PyValue): decoded is PyDict[] {
  if (!Array.isArray(decoded)) return false;
  return decoded.every((item) => item instanceof PyDict && item.size === 1 && item.values()[0] instanceof PyDict);
}

/** Upstream's `is_empty_output`: not well-formed, `[]`, or `[{}]` means "no function call". */
export function isEmptyOutput(decoded: PyValue): boolean {
  if (!isFunctionCallingFormat(decoded)) return true;
  if (decoded.length === 0) return true;
  return decoded.length === 1 && decoded[0].size === 0;
}
