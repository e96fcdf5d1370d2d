/** Port of upstream `math_api.py` (MathAPI, stateless; mpmath for logarithm, decimal for square_root). */
import { pyIn, pyIter, pyLen, pyMinMax, pySum } from "../../../../lib/python/builtins";
import { PyDecimal, validatePrecision } from "../../../../lib/python/decimal";
import { MpContext, mpDiv, mpLog } from "../../../../lib/python/mpmath";
import { pyAbs, pyAdd, pyMul, pyPow, pyRound, pySub, pyTrueDiv } from "../../../../lib/python/numbers";
import { isNumber, PyDict, pyCompare, pyEq, PyException, pyStr, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { Backend, dict, method, type MethodSpec } from "./base";

/** Run `body`; a Python exception of one of `types` becomes `handler(e)` (a `try/except` clause). */
export function pyTry(body: () => PyValue, types: string[] | "Exception", handler: (e: PyException) => PyValue): PyValue {
  try {
    return body();
  } catch (err) {
    if (err instanceof PyException && (types === "Exception" || types.includes(err.pyType))) return handler(err);
    throw err;
  }
}

const TO_METERS: [string, PyValue][] = [
  ["km", 1000n],
  ["m", 1n],
  ["cm", 0.01],
  ["mm", 0.001],
  ["um", 1e-6],
  ["nm", 1e-9],
];

const IMPERIAL: [string, number][] = [
  ["cm_to_in", 0.393701],
  ["in_to_cm", 2.54],
  ["m_to_ft", 3.28084],
  ["ft_to_m", 0.3048],
  ["m_to_yd", 1.09361],
  ["yd_to_m", 0.9144],
  ["km_to_miles", 0.621371],
  ["miles_to_km", 1.60934],
  ["kg_to_lb", 2.20462],
  ["lb_to_kg", 0.453592],
  ["celsius_to_fahrenheit", 1.8],
  ["fahrenheit_to_celsius", 5 / 9],
];

export class MathAPI extends Backend {
  readonly className = "MathAPI";
  /** mpmath's global context (upstream sets `mp.dps` before every logarithm). */
  private readonly mp = new MpContext();

  loadScenario(): void {
    // Stateless: upstream never calls _load_scenario for MathAPI.
  }

  publicState(): [string, PyValue][] {
    return [];
  }

  protected readonly methods: Record<string, MethodSpec> = {
    logarithm: method(["value", "base", "precision"], (value, base, precision) =>
      pyTry(
        () => {
          this.mp.setDps(precision);
          const result = mpDiv(mpLog(value, this.mp), mpLog(base, this.mp), this.mp);
          return dict({ result });
        },
        "Exception",
        (e) => dict({ error: e.pyMessage }),
      ),
    ),

    mean: method(["numbers"], (numbers) => {
      if (!pyTruthy(numbers)) return dict({ error: "Cannot calculate mean of an empty list" });
      return pyTry(
        () => dict({ result: pyTrueDiv(pySum(numbers), BigInt(pyLen(numbers))) }),
        ["TypeError"],
        () => dict({ error: "All elements in the list must be numbers" }),
      );
    }),

    standard_deviation: method(["numbers"], (numbers) => {
      if (!pyTruthy(numbers)) return dict({ error: "Cannot calculate standard deviation of an empty list" });
      return pyTry(
        () => {
          const n = () => BigInt(pyLen(numbers));
          const mean = pyTrueDiv(pySum(numbers), n());
          const squares = pyIter(numbers).map((x) => pyPow(pySub(x, mean), 2n));
          const variance = pyTrueDiv(pySum(squares), n());
          return dict({ result: Math.sqrt(variance as number) });
        },
        ["TypeError"],
        () => dict({ error: "All elements in the list must be numbers" }),
      );
    }),

    si_unit_conversion: method(["value", "unit_in", "unit_out"], (value, unitIn, unitOut) => {
      const toMeters = PyDict.of(TO_METERS);
      const fromMeters = PyDict.of(TO_METERS.map(([unit, factor]) => [unit, pyTrueDiv(1n, factor)] as [string, PyValue]));
      if (!isNumber(value)) return dict({ error: "Value must be a number" });
      if (!pyIn(unitIn, toMeters) || !pyIn(unitOut, fromMeters)) {
        return dict({ error: `Conversion from '${pyStr(unitIn)}' to '${pyStr(unitOut)}' is not supported` });
      }
      return pyTry(
        () => {
          const inMeters = pyMul(value, toMeters.item(unitIn));
          return dict({ result: pyMul(inMeters, fromMeters.item(unitOut)) });
        },
        ["OverflowError"],
        () => dict({ error: "Conversion resulted in a value too large to represent" }),
      );
    }),

    imperial_si_conversion: method(["value", "unit_in", "unit_out"], (value, unitIn, unitOut) => {
      const conversion = PyDict.of(IMPERIAL);
      if (!isNumber(value)) return dict({ error: "Value must be a number" });
      if (pyEq(unitIn, unitOut)) return dict({ result: value });
      const key = `${pyStr(unitIn)}_to_${pyStr(unitOut)}`;
      if (!conversion.has(key)) return dict({ error: `Conversion from '${pyStr(unitIn)}' to '${pyStr(unitOut)}' is not supported` });
      return pyTry(
        () => {
          const factor = conversion.item(key);
          let result: PyValue;
          if (pyEq(unitIn, "celsius") && pyEq(unitOut, "fahrenheit")) result = pyAdd(pyMul(value, factor), 32n);
          else if (pyEq(unitIn, "fahrenheit") && pyEq(unitOut, "celsius")) result = pyMul(pySub(value, 32n), factor);
          else result = pyMul(value, factor);
          return dict({ result });
        },
        ["OverflowError"],
        () => dict({ error: "Conversion resulted in a value too large to represent" }),
      );
    }),

    add: method(["a", "b"], (a, b) => pyTry(() => dict({ result: pyAdd(a, b) }), ["TypeError"], () => dict({ error: "Both inputs must be numbers" }))),

    subtract: method(["a", "b"], (a, b) => pyTry(() => dict({ result: pySub(a, b) }), ["TypeError"], () => dict({ error: "Both inputs must be numbers" }))),

    multiply: method(["a", "b"], (a, b) => {
      if (!isNumber(a) || !isNumber(b)) return dict({ error: "Both inputs must be numbers" });
      return pyTry(() => dict({ result: pyMul(a, b) }), ["TypeError"], () => dict({ error: "Both inputs must be numbers" }));
    }),

    divide: method(["a", "b"], (a, b) =>
      pyTry(
        () => {
          if (pyEq(b, 0n)) return dict({ error: "Cannot divide by zero" });
          return dict({ result: pyTrueDiv(a, b) });
        },
        ["TypeError"],
        () => dict({ error: "Both inputs must be numbers" }),
      ),
    ),

    power: method(["base", "exponent"], (base, exponent) =>
      pyTry(() => dict({ result: pyPow(base, exponent) }), ["TypeError"], () => dict({ error: "Both inputs must be numbers" })),
    ),

    square_root: method(["number", "precision"], (number, precision) =>
      pyTry(
        () => {
          if (pyCompare(number, "<", 0n)) return dict({ error: "Cannot calculate square root of a negative number" });
          const prec = validatePrecision(precision);
          return dict({ result: PyDecimal.from(number).sqrt(prec) });
        },
        ["TypeError", "InvalidOperation"],
        () => dict({ error: "Input must be a number or computation resulted in an invalid operation" }),
      ),
    ),

    absolute_value: method(["number"], (number) => pyTry(() => dict({ result: pyAbs(number) }), ["TypeError"], () => dict({ error: "Input must be a number" }))),

    round_number: method(["number", ["decimal_places", 0n]], (number, places) =>
      pyTry(
        () => dict({ result: pyRound(number, places) }),
        ["TypeError"],
        () => dict({ error: "First input must be a number, second input must be an integer" }),
      ),
    ),

    percentage: method(["part", "whole"], (part, whole) =>
      pyTry(
        () => {
          if (pyEq(whole, 0n)) return dict({ error: "Whole value cannot be zero" });
          return dict({ result: pyMul(pyTrueDiv(part, whole), 100n) });
        },
        ["TypeError"],
        () => dict({ error: "Both inputs must be numbers" }),
      ),
    ),

    min_value: method(["numbers"], (numbers) => {
      if (!pyTruthy(numbers)) return dict({ error: "Cannot find minimum of an empty list" });
      return pyTry(() => dict({ result: pyMinMax(numbers, "min") }), ["TypeError"], () => dict({ error: "All elements in the list must be numbers" }));
    }),

    max_value: method(["numbers"], (numbers) => {
      if (!pyTruthy(numbers)) return dict({ error: "Cannot find maximum of an empty list" });
      return pyTry(() => dict({ result: pyMinMax(numbers, "max") }), ["TypeError"], () => dict({ error: "All elements in the list must be numbers" }));
    }),

    sum_values: method(["numbers"], (numbers) => {
      if (!pyTruthy(numbers)) return dict({ error: "Cannot calculate sum of an empty list" });
      return pyTry(() => dict({ result: pySum(numbers) }), ["TypeError"], () => dict({ error: "All elements in the list must be numbers" }));
    }),
  };
}
