#!/usr/bin/env python3
"""
Expected values for lib/python/*.test.ts, computed by CPython itself (3.11, mpmath 1.3 pure-Python
backend), written to test/fixtures/python/semantics.json. The tests need no Python.

    python3 scripts/bfcl/make_python_semantics.py

Each section lists inputs as Python source text (parsed by lib/python/syntax.ts on the TypeScript side)
and the text CPython produces: repr/str/json.dumps of literals, SyntaxError messages of eval(), random
sequences, arithmetic and conversions (or the exception's type and message), Decimal.sqrt, mpmath logs
and datetime parsing/formatting.
"""
import datetime
import decimal
import json
import math
import os
import random
import sys
import time
from pathlib import Path

os.environ["TZ"] = "UTC"
time.tzset()

import mpmath  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "python" / "semantics.json"


def outcome(fn):
    try:
        return {"ok": fn()}
    except Exception as e:  # noqa: BLE001 - we record any exception as text
        return {"error": f"{type(e).__name__}: {e}"}


LITERALS = [
    "None", "True", "[1, -2, 3.0, 1e-07, 1e16, 1.5e300, -0.0, 10**20]", "'plain'", "\"it's\"", "'both \\' and \"'", "'tab\\tnl\\ncr\\r\\x00\\x7f'",
    "'\u00e9\u00e8 \u65e5\u672c \\u2028 \\U0001F600 \\xa0 \\u200b'", "{'a': 1, 'b': [1, 2], 'c': {'d': None}}", "{1: 'x', 2.5: True, None: [], False: 0}",
    "(1,)", "()", "(1, 'a', [2])", "{1, 2, 3}", "{'set': {1}}", "[[], {}, (), '']", "{(1, 2): 'tuple key'}", "0.1 + 0.2", "1/3", "2**0.5",
    "[1.0, 100.0, 123456789.0, 1e22, 0.000123]", "'\\\\'", "...", "[...]", "{'k': ...}",
]

SYNTAX = [
    "", "f(", "f(x='a'", "f(x='a", "f(x='a'))", "f(x='a']", "f(a b)", "f(a=1, a=2)", "f(a=1, 2)", "f() x", "f(x=)", "f(x=[1,2)", "f(x='''abc)",
    " f(1)", "f(1)\n", "f(x=1,)", "f(x=0777)", "f(x=1_000)", "f(x=1__0)", "f(x=0x1F)", "f(x=.5)", "f(x=1.)", "f(x='a' 'b')", "f(x=$)", "f(x=\u20ac)",
    "f(1=2)", "f(x=1 y=2)", "f(x='a' b)", "f(x 'a')", "f(x=[1,\n2)", "f(x=1,\ny=2 3)", "f(x='\\x4')", "f(x='\\u12')", "f)", "f(x={'a':})",
    "f(x={1:2, 3})", "f(x=1)\ng()", "f(x=0b102)", "f(x=0o8)", "f(x=0x)", "f(x=1e)", "a.(1)", "f(x=-)", "f(x=[1][0])", "f(x={1,2})",
    "\\", "a \\ b", "(a=1)", "[a=1]", "f(x, (a=1))", "{a=1}", "f(a=(b=1))", "f(x) {y", "a b(c", "a, b(c", "f(x=1 # c", "# c", "\n\n# c", "   ",
    "f(*)", "f(*x=1)", "f(x 'a' b)", "touch(file_n'ame='f')x')", "startEngine(ignitionM=ode=\\'START')", "f(x=1,, g(", "f(,x(", "1 + (",
    "cd+(folder='x')", "ls,(a=True)", "gt_sto{ck_info(sybol='GOOG')", "f(x=b'\u00e9')", "f(x=[1, *'ab'])",
]

RANDOM = [
    {"seed": 0, "ops": [["randint", 10000, 99999], ["random"], ["uniform", -10.0, 40.0], ["getrandbits", 70], ["choice", ["a", "b", "c"]]]},
    {"seed": 141053, "ops": [["randint", 100000, 999999], ["randint", 100000000000, 999999999999], ["randint", 1, 1], ["uniform", 0.0, 120.0]]},
    {"seed": 2**80 + 3, "ops": [["randint", 0, 2**70], ["random"], ["shuffle", [1, 2, 3, 4, 5, 6]]]},
    {"seed": -7, "ops": [["randint", 1, 6], ["randint", 1, 6], ["randint", 1, 6]]},
]

NUMBERS = [
    ["round", "2.675", "2"], ["round", "2.5", None], ["round", "3.5", None], ["round", "-0.5", None], ["round", "0.125", "2"], ["round", "1e300", "-301"],
    ["round", "15", "-1"], ["round", "25", "-1"], ["round", "1234.5678", "-2"], ["round", "2.5", "1.5"], ["round", "'a'", None], ["round", "True", "1"],
    ["round", "5e-324", "400"], ["round", "123.456", "-3"], ["round", "0.5", "0"],
    ["float", "'  1_0.5 '"], ["float", "'abc'"], ["float", "'-inf'"], ["float", "None"], ["float", "10**400"], ["float", "'1e500'"],
    ["int", "'  12_3 '"], ["int", "'5.5'"], ["int", "2.9e20"], ["int", "-2.7"], ["int", "None"],
    ["format2", "5"], ["format2", "2.675"], ["format2", "0.125"], ["format2", "-0.0"], ["format2", "1e22"], ["format2", "'a'"], ["format2", "None"],
    ["format2", "10**25"], ["format2", "0.005"], ["format2", "1.005"],
    ["add", "1", "'a'"], ["add", "'a'", "1"], ["add", "[1]", "'a'"], ["add", "10**20", "0.5"], ["add", "(1,)", "(2,)"], ["sub", "'a'", "'b'"],
    ["mul", "'ab'", "3"], ["mul", "'a'", "2.0"], ["mul", "[1]", "-1"], ["mul", "2**70", "3"], ["truediv", "1", "0"], ["truediv", "1.0", "0"],
    ["truediv", "10**30", "7"], ["truediv", "2**80", "3**50"], ["truediv", "10**400", "3"], ["truediv", "-7", "2"], ["floordiv", "-7", "2"],
    ["floordiv", "7", "2.0"], ["floordiv", "1", "0"], ["floordiv", "1.0", "0"], ["mod", "-7", "3"], ["mod", "7.5", "-2"], ["mod", "1", "0"],
    ["mod", "1.0", "0"], ["pow", "2", "-1"], ["pow", "0", "-1"], ["pow", "10.0", "400"], ["pow", "10", "-400"], ["pow", "2.5", "3.3"],
    ["pow", "27", "1/3"], ["pow", "1.0000001", "10000000.5"], ["pow", "0.5", "-1074"], ["pow", "3", "40"], ["pow", "-2.0", "3"], ["pow", "1.1", "-3"],
    ["abs", "'a'"], ["abs", "-2.5"], ["neg", "'a'"], ["min", "[]"], ["min", "[3, 1.5, 2]"], ["max", "['b', 'a']"], ["min", "5"], ["max", "[1, 'a']"],
    ["sum", "['a']"], ["sum", "[0.1, 0.2, 0.3]"], ["sum", "[10**20, 1, -10**20, 0.5]"],
    ["lt", "'a'", "1"], ["lt", "[1]", "['a']"], ["eq", "1", "1.0"], ["eq", "True", "1"], ["eq", "[1, 2]", "(1, 2)"], ["eq", "{'a': 1}", "{'a': 1.0}"],
    ["eq", "2**53 + 1", "float(2**53)"], ["in", "5", "5"], ["in", "5", "'abc'"], ["in", "[1]", "{}"], ["len", "5"], ["len", "'\U0001F600a'"],
]

DECIMAL = [["2", 10], ["16", 3], ["16.0", 3], ["2.25", 5], ["0.01", 4], ["1e-10", 5], ["1e10", 3], ["123456789", 4], ["0", 5], ["-0.0", 3],
           ["100", 1], ["99.9999", 3], ["1e-07", 3], ["5e-07", 2], ["1e22", 5], ["4", 30], ["0.04", 10], ["'2'", 5], ["'abc'", 5], ["2", "0"],
           ["2", "2.5"], ["-1", 5], ["3", 60], ["0.1", 40]]

MPLOG = [[2, "20", "10"], [4, "3287.0", "6.0"], [4, "36.0", "6.0"], [5, "630.0", "10"], [10, "980.0", "20"], [15, "2", "10"], [50, "7", "3"],
         [1, "5", "2"], [0, "5", "2"], [3, "1", "10"], [3, "10", "1"], [3, "0", "10"], [3, "-5", "10"], [3, "8", "2"], [3, "1e-300", "10"],
         [30, "2", "2"], [6, "5", "-3"], [6, "-5", "-3"], [8, "'100'", "'10'"], [2.7, "100", "3"], [100, "2", "3"], [20, "0.1", "0.2"], [3, "'x'", "2"]]

STRPTIME = [["2024-09-01", "%Y-%m-%d"], ["2024-9-1", "%Y-%m-%d"], ["2024/09/01", "%Y-%m-%d"], ["2024-02-30", "%Y-%m-%d"], ["2024-02-29", "%Y-%m-%d"],
            ["2023-02-29", "%Y-%m-%d"], ["2024-09-01 10:30:05", "%Y-%m-%d %H:%M:%S"], ["2024-09-01 10:30:05x", "%Y-%m-%d %H:%M:%S"],
            ["2024-09-01   10:30:05", "%Y-%m-%d %H:%M:%S"], ["2024-09-01", "%Y-%m-%d %H:%M:%S"], ["2024-13-01", "%Y-%m-%d"], ["24-09-01", "%Y-%m-%d"],
            ["2024-09-01 25:00:00", "%Y-%m-%d %H:%M:%S"], ["10:30 PM", "%I:%M %p"], ["2024-09-01 10:30:60", "%Y-%m-%d %H:%M:%S"]]

STRFTIME = [[[2024, 9, 1, 10, 30, 0], "%Y-%m-%d %H:%M:%S"], [[2024, 9, 1, 10, 30, 0], "%I:%M %p"], [[2024, 9, 1, 0, 5, 0], "%I:%M %p"],
            [[2024, 9, 1, 12, 5, 0], "%I:%M %p %% %j %a %b"], [[5, 1, 2, 3, 4, 5], "%Y-%m-%d"]]

TIMESTAMPS = [1725186600, 1725273000, 0, 951782400, 4102444799]


def main():
    fixture = {"python": sys.version.split()[0], "mpmath": mpmath.__version__}
    fixture["literals"] = []
    for src in LITERALS:
        v = eval(src)
        entry = {"src": src, "repr": repr(v), "str": str(v)}
        try:
            entry["json"] = json.dumps(v)
        except Exception as e:  # noqa: BLE001
            entry["json_error"] = f"{type(e).__name__}: {e}"
        fixture["literals"].append(entry)

    fixture["syntax"] = []
    for src in SYNTAX:
        try:
            eval(src, {"__builtins__": {}}, {})
            result = "OK"
        except SyntaxError as e:
            result = f"SyntaxError: {e}"
        except Exception:  # NameError etc.: the syntax was fine
            result = "OK"
        fixture["syntax"].append({"src": src, "result": result})

    fixture["random"] = []
    for spec in RANDOM:
        r = random.Random(spec["seed"])
        out = []
        for op in spec["ops"]:
            if op[0] == "randint":
                out.append(repr(r.randint(op[1], op[2])))
            elif op[0] == "random":
                out.append(repr(r.random()))
            elif op[0] == "uniform":
                out.append(repr(r.uniform(op[1], op[2])))
            elif op[0] == "getrandbits":
                out.append(repr(r.getrandbits(op[1])))
            elif op[0] == "choice":
                out.append(repr(r.choice(op[1])))
            elif op[0] == "shuffle":
                items = list(op[1])
                r.shuffle(items)
                out.append(repr(items))
        fixture["random"].append({"seed": str(spec["seed"]), "ops": spec["ops"], "out": out})

    fns = {
        "round": lambda a, b=None: round(a) if b is None else round(a, b), "float": float, "int": int, "format2": lambda a: format(a, ".2f"),
        "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "truediv": lambda a, b: a / b,
        "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b, "abs": abs, "neg": lambda a: -a,
        "min": min, "max": max, "sum": sum, "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "in": lambda a, b: a in b, "len": len,
    }
    fixture["numbers"] = []
    for op in NUMBERS:
        args = [eval(a) for a in op[1:] if a is not None]
        fixture["numbers"].append({"fn": op[0], "args": [a for a in op[1:] if a is not None], **outcome(lambda: repr(fns[op[0]](*args)))})

    fixture["decimal_sqrt"] = []
    for value, prec in DECIMAL:
        def run():
            v = eval(value)
            if v < 0:
                return "negative"
            ctx = decimal.Context()
            ctx.prec = eval(prec) if isinstance(prec, str) else prec
            return repr(decimal.Decimal(v).sqrt(ctx))
        fixture["decimal_sqrt"].append({"value": value, "prec": str(prec), **outcome(run)})

    fixture["mplog"] = []
    for dps, value, base in MPLOG:
        def run():
            mpmath.mp.dps = dps
            return repr(mpmath.log(eval(value)) / mpmath.log(eval(base)))
        fixture["mplog"].append({"dps": repr(dps), "value": value, "base": base, **outcome(run)})

    fixture["strptime"] = [{"text": t, "format": f, **outcome(lambda: str(datetime.datetime.strptime(t, f)))} for t, f in STRPTIME]
    fixture["strftime"] = [{"fields": d, "format": f, "ok": datetime.datetime(*d).strftime(f)} for d, f in STRFTIME]
    fixture["fromtimestamp"] = [{"ts": ts, "ok": datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")} for ts in TIMESTAMPS]
    fixture["strings"] = [
        {"fn": fn, "src": src, "ok": repr(getattr(eval(src), fn)())}
        for fn, src in [("splitlines", "'a\\nb\\r\\nc\\rd\\x0be\\x0cf\\x1cg\\x85h\\u2028i\\n'"), ("splitlines", "''"), ("splitlines", "'\\n\\n'"),
                        ("split", "'  a\\tb \\u3000 c\\x1f d  '"), ("lower", "'\u0130 ABC \u03a3\u03a3'"), ("strip", "' \\t x \\x85'")]
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
