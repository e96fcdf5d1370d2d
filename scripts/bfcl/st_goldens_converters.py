"""Golden outputs of upstream's Java and JavaScript type converters on tricky source texts, for
worker/envs/bfcl/single-turn/converters.test.ts: Python regex corners (`$` before a final newline, Unicode
digits, `.` and newlines, lazy groups), int()/float() parsing (signs, underscores, spaces, exponents,
inf/nan), collections in every syntax the converters read, and the fallbacks to the text itself.

Output: test/fixtures/bfcl/single-turn/converter-goldens.json: [{"lang", "value", "type", "nested",
"out": repr(result)} or {..., "raise": exception type}].

Usage: python3 scripts/bfcl/st_goldens_converters.py
"""

import json

from st_reference import REPO_ROOT, prepare

prepare()

from bfcl_eval.eval_checker.ast_eval.type_convertor.java_type_converter import java_type_converter  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.type_convertor.js_type_converter import js_type_converter  # noqa: E402

OUT = REPO_ROOT / "test" / "fixtures" / "bfcl" / "single-turn" / "converter-goldens.json"

NUMBERS = ["5", "-5", "+5", "5\n", "5 ", " 5", "٣", "5_000", "05", "5.0", "5.", ".5", "-0.5", "5e3", "5E-3", "1.5e+2", "5f", "5.5F", "5.5f\n", "5L", "5l", "-7L\n", "5n", "-5n", "5n\n",
           "inf", "nan", "1e400", "", "abc", "5x", "5\n\n", "١٢٣", "5.5e3f"]
JAVA_TYPES = ["integer", "byte", "short", "long", "float", "double", "boolean", "char", "String", "any"]
JS_TYPES = ["integer", "float", "Bigint", "Boolean", "String", "any"]
BOOLS = ["true", "false", "True", "TRUE", "true\n", "1"]
STRINGS = ['"abc"', "'abc'", '"a', "'", '"', "abc", "'a\"", '"a b"\n']

JAVA_COLLECTIONS = [
    ("Array", "integer", ["new int[]{1, 2, 3}", "new int[] { 1 , 2 }", "new int[]{}", "new int[]{1,,2}", "new long[]{1L, 2}", "int[]{1}", "new int[]{1,\n2}", "x new Foo[]{a, b} y", "new int[]{٣}"]),
    ("Array", "String", ['new String[]{"a", "b"}', "new String[]{a, b}"]),
    ("Array", "long", ["new long[]{1L, 2L}", "new long[]{1L, 2.0}"]),
    ("Array", "any", ["new Object[]{1, \"x\", true}"]),
    ("ArrayList", "integer", ["new ArrayList<>(Arrays.asList(1, 2))", "new ArrayList<Integer>(Arrays.asList(1,2))", "new ArrayList<>()", "new ArrayList<>() {{ add(1); add(2); }}", "new ArrayList<>() {{\n add(1);\n add(2);\n}}", "new  ArrayList<>(Arrays.asList(1))", "ArrayList(1)", "new ArrayList<>(Arrays.asList(1, x))"]),
    ("ArrayList", "String", ['new ArrayList<>(Arrays.asList("a", "b"))', 'new ArrayList<String>() {{ add("a"); add("b, c"); }}', "new ArrayList<>(Arrays.asList(a, b))"]),
    ("ArrayList", "char", ["new ArrayList<Character>(Arrays.asList('a', 'b'))"]),
    ("ArrayList", "long", ["new ArrayList<>(Arrays.asList(1L, 2L, 3))"]),
    ("HashMap", None, ['new HashMap<String, Object>() {{ put("a", 1); put("b", "x"); put("c", true); put("d", 1.5); put("e", 2L); put("f", 1.5f); }}', "new HashMap<>()", "new HashMap<>() {}",
                       "new HashMap<>() {{ }}", 'new HashMap<String, String>() {{\n put("k", "v");\n}}', 'new HashMap<String, String>() { put("k", "v"); }', "HashMap()", 'new HashMap<String, Integer>() {{ put("k", -3); put("j", 1_0); }}']),
    ("Set", None, ["new HashSet<>()"]),
    ("Queue", None, ["x"]),
]
JS_COLLECTIONS = [
    ("array", None, ["[1, 2, 3]", "[1, 'a', \"b\", true, 1.5]", "[]", "[ ]", "new Array(1, 2)", "new Array()", "[[1, 2], [3, 4]]", " [ [1], [2 ,3] ] ", "new Array([1, 2], [3])", "[1, [2, 3]]", "[a, b]", "abc", "[1,\n2]", "{1}"]),
    ("array", "String", ["['a', 'b']", '["a", b]', "[a, b]", "['a, b', 'c']"]),
    ("array", "integer", ["[1, 2]", "[1, '2']", "[1, x]", "[1.5]"]),
    ("array", "float", ["[1.5, 2]", "[1e3]"]),
    ("array", "Bigint", ["[1n, 2n]"]),
    ("array", "dict", ["[{a: 1}, {b: 2}]"]),
    ("array", "array", ["[[1, 2], [3]]"]),
    ("array", "Whatever", ["[1, 2]"]),
    ("dict", None, ["{}", "{a: 1}", "{'a': 'x', \"b\": 2.5, c: true}", "{a: [1, 2], b: {c: 1}}", "{a: 1, b: x}", "{a: 'x, y', b: 2}", "{ a : 1 }", "{a: {b: 1}, c: 2}", "a: 1", "{a}", "{a: 1}\n", "{a: 'it''s'}", "{key: value, other: [x, 'y']}"]),
]


def record(lang, fn, value, t, nested):
    line = {"lang": lang, "value": value, "type": t, "nested": nested}
    try:
        line["out"] = repr(fn(value, t, nested) if nested is not None else fn(value, t))
    except Exception as e:  # noqa: BLE001
        line["raise"] = type(e).__name__
    return line


def main():
    out = []
    for t in JAVA_TYPES:
        for v in NUMBERS + BOOLS + STRINGS:
            out.append(record("java", java_type_converter, v, t, None))
    for t in JS_TYPES:
        for v in NUMBERS + BOOLS + STRINGS:
            out.append(record("javascript", js_type_converter, v, t, None))
    for t, nested, values in JAVA_COLLECTIONS:
        for v in values:
            out.append(record("java", java_type_converter, v, t, nested))
    for t, nested, values in JS_COLLECTIONS:
        for v in values:
            out.append(record("javascript", js_type_converter, v, t, nested))
    OUT.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n")
    print(json.dumps({"cases": len(out)}))


if __name__ == "__main__":
    main()
