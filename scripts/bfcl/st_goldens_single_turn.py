"""Golden verdicts of BFCL's single-turn AST checker, for worker/envs/bfcl/single-turn/ast-checker.test.ts.

Runs upstream's own ``ast_checker`` (../shared/data/bfcl/reference, BFCL v4 at 6ea5797) on every entry of
the ten AST categories with

  (a) the possible answer itself, as a model would emit it (``gt``): for each call of the ground truth and each
      parameter, the first acceptable value other than "" (the optional marker); a parameter whose only
      acceptable value is "" is left out; dict answers (and lists of dict answers) are resolved the same way
      key by key. Java and JavaScript values are written as source text (``new int[]{1, 2}``, ``5L``, ``"s"``)
      the way their type converters read them back;
  (b) systematic mutations of it: other acceptable values, optional parameters left out, a required parameter
      missing, an unexpected parameter, wrong types (str/int/float/bool/list/tuple/dict swaps, int for float,
      float for int), wrong values, string case and punctuation variants, nested element and dict key/value
      changes, a wrong function name (also the "_" for "." spelling, checked with underscore_to_dot on and
      off), parallel calls reversed / dropped / duplicated, extra or missing calls, and Java/JavaScript
      source-text variants (missing L/f/n suffixes, quoted/unquoted strings, other collection syntax).

Each case is one JSON line in test/fixtures/bfcl/single-turn/ast-goldens.jsonl.gz (gzip, mtime 0):

  {"id", "case", "ops": [...], "oai": true?, "valid", "type": error_type, "error": <digest of the error texts>}
  or {..., "crash": "<Python exception type>"}

``ops`` are symbolic (see "Mutations" below): they name a parameter, an acceptable-value index or a mutation
kind, never a value from the data, and are applied to the ground-truth output that the test rebuilds from
the data with the same rules. Error texts are compared through a digest (``error_digest``).

Usage: python3 scripts/bfcl/st_goldens_single_turn.py   (ENVACE_DATA_DIR as for the product)
"""

import gzip
import hashlib
import io
import json
from decimal import Decimal
from pathlib import Path

from st_reference import REPO_ROOT, prepare

DATA = prepare()

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402

CATEGORIES = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
]
OUT = REPO_ROOT / "test" / "fixtures" / "bfcl" / "single-turn" / "ast-goldens.jsonl.gz"


def language_of(category):
    if "javascript" in category:
        return Language.JAVASCRIPT
    if "java" in category:
        return Language.JAVA
    return Language.PYTHON


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------------------------------------------
# The ground-truth output


def first_choice(values):
    """The first acceptable value other than "" (the optional marker); (False, None) when there is none."""
    for v in values:
        if v != "":
            return True, v
    return False, None


def wanted(values, required):
    """Whether the ground-truth output gives a parameter (or dict key): always when it is required, else only
    when it may not be left out (no "" among its acceptable values)."""
    return required or "" not in values


def resolve(value, param_doc):
    """A chosen answer as a model would give it: dict answers map keys to acceptable lists."""
    t = param_doc.get("type")
    if t in ("dict", "HashMap") and isinstance(value, dict):
        return resolve_dict(value)
    if t in ("array", "ArrayList", "Array") and isinstance(value, list):
        item_type = param_doc.get("items", {}).get("type")
        if item_type == "dict" and all(isinstance(x, dict) for x in value):
            return [resolve_dict(x) for x in value]
    return value


def resolve_dict(answer):
    out = {}
    for key, values in answer.items():
        if isinstance(values, list):
            ok, v = first_choice(values)
            if ok and wanted(values, False):
                out[key] = v
        else:
            out[key] = values
    return out


def doc_of(entry, name):
    for f in entry["function"]:
        if f["name"] == name:
            return f
    return None


def gt_output(entry, answer):
    calls = []
    for call in answer["ground_truth"]:
        (name, params), = call.items()
        doc = doc_of(entry, name)
        props = doc["parameters"]["properties"] if doc else {}
        required = doc["parameters"].get("required", []) if doc else []
        args = {}
        for p, values in params.items():
            ok, v = first_choice(values)
            if ok and wanted(values, p in required):
                args[p] = resolve(v, props.get(p, {}))
        calls.append({name: args})
    return calls


# ---------------------------------------------------------------------------------------------------------------
# Java / JavaScript source text


def plain_float(x):
    text = repr(x)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
        if "." not in text:
            text += ".0"
    return text


def java_scalar(v, t):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return f"{v}L" if t == "long" else str(v)
    if isinstance(v, float):
        if t == "float":
            return repr(v) + "f"
        return repr(v)
    return str(v)


def java_value_literal(v):
    """A literal ``parse_java_value`` reads back as v (HashMap values)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


def java_text(v, doc):
    t = doc.get("type")
    item = doc.get("items", {}).get("type")
    if isinstance(v, str):
        return v
    if t == "Array" and isinstance(v, list):
        return "new " + {"integer": "int", "long": "long", "String": "String"}.get(item, "Object") + "[]{" + ", ".join(java_scalar(x, item) for x in v) + "}"
    if t == "ArrayList" and isinstance(v, list):
        parts = []
        for x in v:
            parts.append('"' + x + '"' if item in ("String", "char") else java_scalar(x, item))
        return "new ArrayList<>(Arrays.asList(" + ", ".join(parts) + "))"
    if t == "HashMap" and isinstance(v, dict):
        puts = " ".join(f'put("{k}", {java_value_literal(x)});' for k, x in v.items())
        return "new HashMap<String, Object>() {{ " + puts + " }}"
    return java_scalar(v, t)


def js_scalar(v, t):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"' if t == "String" else v
    if isinstance(v, int):
        return f"{v}n" if t == "Bigint" else str(v)
    if isinstance(v, float):
        return plain_float(v)
    return str(v)


def js_literal(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v + "'"
    if isinstance(v, float):
        return plain_float(v)
    if isinstance(v, list):
        return "[" + ", ".join(js_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {js_literal(x)}" for k, x in v.items()) + "}"
    return str(v)


def js_text(v, doc):
    t = doc.get("type")
    item = doc.get("items", {}).get("type")
    if t == "String":
        return '"' + v + '"' if isinstance(v, str) else js_scalar(v, t)
    if isinstance(v, str):
        return v
    if t == "array" and isinstance(v, list):
        return "[" + ", ".join(js_scalar(x, item) for x in v) + "]"
    if t == "dict" and isinstance(v, dict):
        return js_literal(v)
    return js_scalar(v, t)


def render(output, entry, language):
    if language == Language.PYTHON:
        return output
    to_text = java_text if language == Language.JAVA else js_text
    rendered = []
    for call in output:
        (name, args), = call.items()
        doc = doc_of(entry, name)
        props = doc["parameters"]["properties"] if doc else {}
        rendered.append({name: {p: to_text(v, props.get(p, {})) for p, v in args.items()}})
    return rendered


# ---------------------------------------------------------------------------------------------------------------
# Mutations
#
# A case is a list of symbolic ops applied to the ground-truth output (for Java/JavaScript, to its source
# text), so the fixture holds no values from the data; worker/envs/bfcl/single-turn/ast-checker.golden.test.ts
# applies the same ops:
#   ["alt", call, param, j]      the param's j-th acceptable value other than "" (resolved like the ground truth)
#   ["opt", call]                every left-out param that has an acceptable value gets the first one
#   ["mut", call, param, kind]   MUTATIONS[kind] applied to the param's value
#   ["text", call, param, kind]  TEXT_VARIANTS[kind] applied to the param's source text (Java/JavaScript)
#   ["set", call, param, 1 | "x"], ["del", call, param], ["rename", call, "suffix" | "underscore"],
#   ["order", [call indices]]


def other_type_value(v):
    if isinstance(v, bool):
        return "true"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return 12345
    if isinstance(v, list):
        return ",".join(map(str, v))
    if isinstance(v, dict):
        return json.dumps(v)
    return "None"


def wrong_value(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, float):
        return v + 0.5
    if isinstance(v, str):
        return v + " zz"
    if isinstance(v, list):
        return v + v[:1] if v else ["zz"]
    if isinstance(v, dict):
        return {}
    return v


def first_key(d):
    return next(iter(d))


MUTATIONS = {
    "wrong_type": other_type_value,
    "wrong_value": wrong_value,
    "int_for_float": lambda v: int(v),
    "float_for_int": lambda v: float(v),
    "bool_for_int": lambda v: True,
    "tuple_for_list": lambda v: tuple(v),
    "nested_type": lambda v: [("x" if not isinstance(v[0], str) else 1)] + v[1:],
    "list_case": lambda v: [v[0].upper() + " "] + v[1:],
    "list_dict_value": lambda v: [{**v[0], first_key(v[0]): "zz"}] + v[1:],
    "list_dict_count": lambda v: v + v[:1],
    "case": lambda v: " " + v.upper().replace(" ", "-") + ".",
    "punct": lambda v: "_*^/" + v.replace("'", '"') + ", ",
    "dict_drop": lambda v: {k: v[k] for k in list(v)[1:]},
    "dict_value": lambda v: {**v, first_key(v): wrong_value(v[first_key(v)])},
    "dict_extra": lambda v: {**v, "zz_key": "zz"},
}


def java_add_syntax(text):
    inner = text[text.index("Arrays.asList(") + len("Arrays.asList(") : -2]
    return "new ArrayList<>() {{ " + " ".join(f"add({x.strip()});" for x in inner.split(",")) + " }}"


TEXT_VARIANTS = {
    "drop_last": lambda t: t[:-1],
    "add_L": lambda t: t + "L",
    "add_dot0": lambda t: t + ".0",
    "add_f": lambda t: t + "f",
    "add_n": lambda t: t + "n",
    "add_e0": lambda t: t + "e0",
    "capitalize": lambda t: t.capitalize(),
    "double_quote": lambda t: '"' + t + '"',
    "unquote": lambda t: t[1:-1],
    "single_quote_inner": lambda t: "'" + t[1:-1] + "'",
    "array_spaces": lambda t: t.replace("{", " { ").replace("}", " } "),
    "array_as_call": lambda t: t.replace("[]{", "(").replace("}", ")"),
    "add_syntax": java_add_syntax,
    "empty_list": lambda t: "new ArrayList<>()",
    "empty_map": lambda t: "new HashMap<>()",
    "map_one_brace": lambda t: t.replace("{{", "{").replace("}}", "}"),
    "new_array": lambda t: "new Array(" + t[1:-1] + ")",
    "nest_array": lambda t: "[" + t + "]",
    "empty_array": lambda t: "[]",
    "empty_dict": lambda t: "{}",
    "quote_first_key": lambda t: t.replace("{", '{"', 1).replace(": ", '": ', 1),
    "append_zz": lambda t: t + " zz",
    "number": lambda t: 42,
}


def resolved_choices(values, pdoc):
    return [resolve(v, pdoc) for v in values if v != ""]


def apply_ops(output, ops, entry, answer):
    calls = [{k: dict(v) for k, v in c.items()} for c in output]
    for op in ops:
        kind = op[0]
        if kind in ("alt", "opt", "mut", "text", "set", "del"):
            i = op[1]
            ((name, args),) = calls[i].items()
            gt_name, gt_params = next(iter(answer["ground_truth"][i].items()))
            doc = doc_of(entry, gt_name)
            props = doc["parameters"]["properties"] if doc else {}
        if kind == "alt":
            _, i, p, j = op
            args[p] = resolved_choices(gt_params[p], props.get(p, {}))[j]
        elif kind == "opt":
            for p, values in gt_params.items():
                ok, v = first_choice(values)
                if p not in args and ok:
                    args[p] = resolve(v, props.get(p, {}))
        elif kind == "mut":
            _, i, p, m = op
            args[p] = MUTATIONS[m](args[p])
        elif kind == "text":
            _, i, p, m = op
            args[p] = TEXT_VARIANTS[m](args[p])
        elif kind == "set":
            _, i, p, v = op
            args[p] = v
        elif kind == "del":
            _, i, p = op
            del args[p]
        elif kind == "rename":
            _, i, how = op
            ((name, args),) = calls[i].items()
            calls[i] = {(name + "_zz") if how == "suffix" else name.replace(".", "_"): args}
        elif kind == "order":
            calls = [calls[j] for j in op[1]]
    return calls


def python_cases(entry, answer, base):
    cases = [("gt", [], False)]
    for i, call in enumerate(answer["ground_truth"]):
        (name, params), = call.items()
        doc = doc_of(entry, name)
        props = doc["parameters"]["properties"] if doc else {}
        required = doc["parameters"].get("required", []) if doc else []
        args = base[i][name]
        alt_done = 0
        for p, values in params.items():
            choices = [v for v in values if v != ""]
            if len(choices) > 1 and alt_done < 3:
                alt_done += 1
                cases.append((f"alt:{i}:{p}", [["alt", i, p, len(choices) - 1]], False))
            if p not in args:
                continue
            v = args[p]
            t = props.get(p, {}).get("type")
            mut = lambda kind: (f"{kind}:{i}:{p}", [["mut", i, p, kind]], False)  # noqa: E731
            if i < 2:
                cases += [mut("wrong_type"), mut("wrong_value")]
            if t == "float" and isinstance(v, float) and v.is_integer():
                cases.append(mut("int_for_float"))
            if t == "integer" and isinstance(v, int) and not isinstance(v, bool):
                cases += [mut("float_for_int"), mut("bool_for_int")]
            if isinstance(v, list) and i < 2:
                cases.append(mut("tuple_for_list"))
                if v:
                    cases.append(mut("nested_type"))
                    if isinstance(v[0], str):
                        cases.append(mut("list_case"))
                    if isinstance(v[0], dict) and v[0]:
                        cases += [mut("list_dict_value"), mut("list_dict_count")]
            if isinstance(v, str) and v:
                cases += [mut("case"), mut("punct")]
            if isinstance(v, dict):
                if v:
                    cases += [mut("dict_drop"), mut("dict_value")]
                cases.append(mut("dict_extra"))
        if any(p not in args and first_choice(values)[0] for p, values in params.items()):
            cases.append((f"with_optional:{i}", [["opt", i]], False))
        present_required = [p for p in required if p in args]
        if present_required:
            cases.append((f"missing_required:{i}", [["del", i, present_required[0]]], False))
        if i < 2:
            cases.append((f"extra_param:{i}", [["set", i, "zz_unexpected", 1]], False))
            unanswered = [p for p in props if p not in params]
            if unanswered:
                cases.append((f"doc_param_not_in_answer:{i}", [["set", i, unanswered[0], "x"]], False))
            cases.append((f"rename:{i}", [["rename", i, "suffix"]], False))
            if "." in name:
                cases.append((f"underscore_name:{i}", [["rename", i, "underscore"]], False))
                cases.append((f"underscore_name_oai:{i}", [["rename", i, "underscore"]], True))
                cases.append((f"dotted_name_oai:{i}", [], True))
    n = len(base)
    if n > 1:
        cases.append(("reversed", [["order", list(reversed(range(n)))]], False))
        cases.append(("drop_last", [["order", list(range(n - 1))]], False))
        cases.append(("rotate", [["order", list(range(1, n)) + [0]]], False))
    cases.append(("duplicate_first", [["order", [0] + list(range(n))]], False))
    cases.append(("empty", [["order", []]], False))
    return cases


def text_variant_kinds(text, doc, language):
    """Source-text variants that upstream's converters read differently (kinds of TEXT_VARIANTS)."""
    t = doc.get("type")
    out = []
    if language == Language.JAVA:
        if t == "long" and text.endswith("L"):
            out.append("drop_last")
        if t == "float" and text.endswith("f"):
            out.append("drop_last")
        if t in ("integer", "short", "byte") and text.lstrip("-").isdigit():
            out += ["add_L", "add_dot0"]
        if t == "double":
            out.append("add_f")
        if t == "boolean":
            out.append("capitalize")
        if t == "String":
            out.append("double_quote")
        if t == "Array" and text.startswith("new "):
            out += ["array_spaces", "array_as_call"]
        if t == "ArrayList" and "Arrays.asList(" in text:
            out += ["add_syntax", "empty_list"]
        if t == "HashMap" and text.startswith("new HashMap"):
            out += ["empty_map", "map_one_brace"]
    else:
        if t == "String" and text.startswith('"'):
            out += ["unquote", "single_quote_inner"]
        if t == "Bigint":
            out.append("drop_last" if text.endswith("n") else "add_n")
        if t == "integer":
            out += ["add_n", "add_dot0"]
        if t == "float":
            out.append("add_e0")
        if t == "Boolean":
            out.append("capitalize")
        if t == "array" and text.startswith("["):
            out += ["new_array", "nest_array", "empty_array"]
        if t == "dict" and text.startswith("{"):
            out += ["empty_dict", "quote_first_key"]
    return out + ["number", "append_zz"]


def typed_cases(entry, answer, base_text, language):
    cases = [("gt", [])]
    for i, call in enumerate(base_text):
        (name, args), = call.items()
        doc = doc_of(entry, name)
        props = doc["parameters"]["properties"] if doc else {}
        for p, text in args.items():
            if isinstance(text, str):
                for kind in text_variant_kinds(text, props.get(p, {}), language):
                    cases.append((f"{kind}:{i}:{p}", [["text", i, p, kind]]))
        for p in [p for p in props if p not in args][:1]:
            cases.append((f"doc_param_not_in_answer:{i}:{p}", [["set", i, p, "x"]]))
        for p in [p for p in doc["parameters"].get("required", []) if p in args][:1] if doc else []:
            cases.append((f"missing_required:{i}:{p}", [["del", i, p]]))
        cases.append((f"rename:{i}", [["rename", i, "suffix"]]))
    return cases


# ---------------------------------------------------------------------------------------------------------------
# Encoding and verdicts


def error_digest(errors):
    """sha1 (first 16 hex digits) of the error texts: strings as they are; a parallel-checker item as
    "<model result index>\x1f<sub_error_type>\x1f<sub_error texts joined by \x1e>"; items joined by "\n"."""
    parts = []
    for e in errors:
        if isinstance(e, str):
            parts.append(e)
        else:
            ((key, detail),) = e.items()
            index = key.rsplit(" ", 1)[1]
            parts.append(f"{index}\x1f{detail['sub_error_type']}\x1f" + "\x1e".join(detail["sub_error"]))
    return hashlib.sha1("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def verdict(functions, output, answer, language, category, model):
    try:
        r = ast_checker(functions, output, answer, language, category, model)
    except Exception as e:  # upstream would abort the whole evaluation
        return {"crash": type(e).__name__}
    out = {"valid": r["valid"]}
    if not r["valid"]:
        out["type"] = r.get("error_type")
        out["error"] = error_digest(r["error"])
    return out


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    counts = {}
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=9) as gz, io.TextIOWrapper(gz, encoding="utf-8") as f:
        for category in CATEGORIES:
            language = language_of(category)
            entries = load_jsonl(DATA / "data" / f"BFCL_v4_{category}.json")
            answers = load_jsonl(DATA / "data" / "possible_answer" / f"BFCL_v4_{category}.json")
            assert [e["id"] for e in entries] == [a["id"] for a in answers], category
            n = 0
            for entry, answer in zip(entries, answers):
                base = gt_output(entry, answer)
                gt = answer["ground_truth"]
                if language == Language.PYTHON:
                    cases = [(label, ops, oai) for label, ops, oai in python_cases(entry, answer, base)]
                else:
                    base = render(base, entry, language)
                    cases = [(label, ops, False) for label, ops in typed_cases(entry, answer, base, language)]
                for label, ops, oai in cases:
                    output = apply_ops(base, ops, entry, answer)
                    v = verdict(entry["function"], output, gt, language, category, "oai" if oai else "plain")
                    line = {"id": entry["id"], "case": label, "ops": ops}
                    if oai:
                        line["oai"] = True
                    f.write(json.dumps({**line, **v}, ensure_ascii=False) + "\n")
                    n += 1
            counts[category] = n
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
