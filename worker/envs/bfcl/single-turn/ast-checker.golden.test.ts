/**
 * The TypeScript AST checker against upstream's verdicts: test/fixtures/bfcl/single-turn/ast-goldens.jsonl.gz
 * was produced by scripts/bfcl/st_goldens_single_turn.py, which runs BFCL's own Python `ast_checker` on the
 * ground-truth output of every AST entry and on systematic mutations of it (see that script). Each case here
 * rebuilds the same model output — the ground-truth policy's output (`oracle.ts`) with the case's symbolic
 * mutations — and must get the same verdict, error type and error texts (via their digest).
 * Needs the BFCL data (ENVACE_DATA_DIR); skipped with a message when it is absent.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { astChecker, CheckerCrash, type CheckError } from "./ast-checker";
import { AST_CATEGORIES, loadSingleTurnCategory, type AstCategory, type SingleTurnEntry } from "./data";
import { bfclDataDir } from "./files";
import { firstChoice, oracleOutput, resolveAnswer } from "./oracle";
import { codePoints, pySlice, pyStrip } from "./pystr";
import { PyDict, pyJsonDumps, pyJsonLoads, pyStr, PyTuple, type PyValue } from "./values";

const FIXTURE = path.resolve(__dirname, "../../../../test/fixtures/bfcl/single-turn/ast-goldens.jsonl.gz");
const hasData = existsSync(path.join(bfclDataDir(), "data", "BFCL_v4_simple_python.json"));
if (!hasData) console.warn(`BFCL data not found under ${bfclDataDir()}: skipping the AST golden tests (set ENVACE_DATA_DIR).`);

interface GoldenCase {
  id: string;
  case: string;
  ops: PyValue[][];
  oai: boolean;
  valid?: boolean;
  type?: string;
  error?: string;
  crash?: string;
}

function readGoldens(): GoldenCase[] {
  const text = gunzipSync(readFileSync(FIXTURE)).toString("utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line) => {
      const d = pyJsonLoads(line) as PyDict;
      const get = (k: string) => d.get(k);
      return {
        id: get("id") as string,
        case: get("case") as string,
        ops: get("ops") as PyValue[][],
        oai: get("oai") === true,
        valid: get("valid") as boolean | undefined,
        type: (get("type") ?? undefined) as string | undefined,
        error: get("error") as string | undefined,
        crash: get("crash") as string | undefined,
      };
    });
}

// The generator's mutations (scripts/bfcl/st_goldens_single_turn.py, MUTATIONS and TEXT_VARIANTS), applied to
// the ground-truth output so the fixture needs no values from the data.

function otherTypeValue(v: PyValue): PyValue {
  if (typeof v === "boolean") return "true";
  if (typeof v === "bigint" || typeof v === "number") return pyStr(v);
  if (typeof v === "string") return 12345n;
  if (Array.isArray(v)) return v.map(pyStr).join(",");
  if (v instanceof PyDict) return pyJsonDumps(v);
  return "None";
}

function wrongValue(v: PyValue): PyValue {
  if (typeof v === "boolean") return !v;
  if (typeof v === "bigint") return v + 1n;
  if (typeof v === "number") return v + 0.5;
  if (typeof v === "string") return v + " zz";
  if (Array.isArray(v)) return v.length ? [...v, v[0]] : ["zz"];
  if (v instanceof PyDict) return new PyDict();
  return v;
}

const withKey = (d: PyDict, k: PyValue, v: PyValue) => {
  const copy = PyDict.of(d.entries());
  copy.set(k, v);
  return copy;
};

const MUTATIONS: Record<string, (v: any) => PyValue> = {
  wrong_type: otherTypeValue,
  wrong_value: wrongValue,
  int_for_float: (v: number) => BigInt(v),
  float_for_int: (v: bigint) => Number(v),
  bool_for_int: () => true,
  tuple_for_list: (v: PyValue[]) => new PyTuple(v),
  nested_type: (v: PyValue[]) => [typeof v[0] !== "string" ? "x" : 1n, ...v.slice(1)],
  list_case: (v: string[]) => [v[0].toUpperCase() + " ", ...v.slice(1)],
  list_dict_value: (v: PyDict[]) => [withKey(v[0], v[0].keys()[0], "zz"), ...v.slice(1)],
  list_dict_count: (v: PyValue[]) => [...v, ...v.slice(0, 1)],
  case: (v: string) => " " + v.toUpperCase().replaceAll(" ", "-") + ".",
  punct: (v: string) => "_*^/" + v.replaceAll("'", '"') + ", ",
  dict_drop: (v: PyDict) => PyDict.of(v.entries().slice(1)),
  dict_value: (v: PyDict) => withKey(v, v.keys()[0], wrongValue(v.get(v.keys()[0])!)),
  dict_extra: (v: PyDict) => withKey(v, "zz_key", "zz"),
};

function javaAddSyntax(text: string): string {
  const marker = "Arrays.asList(";
  const start = codePoints(text.slice(0, text.indexOf(marker))).length + marker.length;
  const inner = pySlice(text, start, -2);
  return "new ArrayList<>() {{ " + inner.split(",").map((x) => `add(${pyStrip(x)});`).join(" ") + " }}";
}

const TEXT_VARIANTS: Record<string, (t: string) => PyValue> = {
  drop_last: (t) => pySlice(t, 0, -1),
  add_L: (t) => t + "L",
  add_dot0: (t) => t + ".0",
  add_f: (t) => t + "f",
  add_n: (t) => t + "n",
  add_e0: (t) => t + "e0",
  capitalize: (t) => pySlice(t, 0, 1).toUpperCase() + pySlice(t, 1).toLowerCase(),
  double_quote: (t) => `"${t}"`,
  unquote: (t) => pySlice(t, 1, -1),
  single_quote_inner: (t) => `'${pySlice(t, 1, -1)}'`,
  array_spaces: (t) => t.replaceAll("{", " { ").replaceAll("}", " } "),
  array_as_call: (t) => t.replaceAll("[]{", "(").replaceAll("}", ")"),
  add_syntax: javaAddSyntax,
  empty_list: () => "new ArrayList<>()",
  empty_map: () => "new HashMap<>()",
  map_one_brace: (t) => t.replaceAll("{{", "{").replaceAll("}}", "}"),
  new_array: (t) => `new Array(${pySlice(t, 1, -1)})`,
  nest_array: (t) => `[${t}]`,
  empty_array: () => "[]",
  empty_dict: () => "{}",
  quote_first_key: (t) => t.replace("{", '{"').replace(": ", '": '),
  append_zz: (t) => t + " zz",
  number: () => 42n,
};

function applyOps(entry: SingleTurnEntry, base: readonly PyDict[], ops: PyValue[][]): PyDict[] {
  let calls = base.map((c) => PyDict.of(c.entries().map(([name, args]) => [name, PyDict.of((args as PyDict).entries())])));
  for (const op of ops) {
    const kind = op[0] as string;
    if (kind === "order") {
      calls = (op[1] as PyValue[]).map((j) => calls[Number(j)]);
      continue;
    }
    const i = Number(op[1]);
    const [name, args] = calls[i].entries()[0] as [string, PyDict];
    const [gtName, gtParams] = (entry.possibleAnswer![i] as PyDict).entries()[0] as [string, PyDict];
    const props = entry.functions.find((f) => f.name === gtName)?.parameters.properties ?? {};
    const p = op[2] as string;
    if (kind === "alt") {
      const choices = (gtParams.get(p) as PyValue[]).filter((v) => v !== "");
      args.set(p, resolveAnswer(choices[Number(op[3])], props[p]));
    } else if (kind === "opt") {
      for (const [param, values] of gtParams.entries()) {
        const v = firstChoice(values as PyValue[]);
        if (!args.has(param) && v !== undefined) args.set(param, resolveAnswer(v, props[param as string]));
      }
    } else if (kind === "mut") {
      args.set(p, MUTATIONS[op[3] as string](args.get(p)!));
    } else if (kind === "text") {
      args.set(p, TEXT_VARIANTS[op[3] as string](args.get(p) as string));
    } else if (kind === "set") {
      args.set(p, op[3]);
    } else if (kind === "del") {
      args.delete(p);
    } else if (kind === "rename") {
      calls[i] = PyDict.of([[op[2] === "suffix" ? name + "_zz" : name.replaceAll(".", "_"), args]]);
    } else {
      throw new Error(`unknown op ${kind}`);
    }
  }
  return calls;
}

function errorDigest(errors: CheckError[]): string {
  const parts = errors.map((e) => (typeof e === "string" ? e : `${e.modelResultIndex}\x1f${e.subErrorType}\x1f${e.subError.join("\x1e")}`));
  return createHash("sha1").update(parts.join("\n"), "utf8").digest("hex").slice(0, 16);
}

const categoryOfId = (id: string) => id.slice(0, id.lastIndexOf("_"));

describe.skipIf(!hasData)("AST checker matches upstream's verdicts", () => {
  const goldens = hasData ? readGoldens() : [];
  const entries = new Map<string, SingleTurnEntry>();
  const byCategory = new Map<string, GoldenCase[]>();
  for (const g of goldens) {
    const c = categoryOfId(g.id);
    if (!byCategory.has(c)) byCategory.set(c, []);
    byCategory.get(c)!.push(g);
  }

  it("covers every AST category with ground-truth and mutated outputs", () => {
    expect([...byCategory.keys()].sort()).toEqual([...AST_CATEGORIES].sort());
    expect(goldens.length).toBeGreaterThan(40000);
  });

  for (const category of AST_CATEGORIES) {
    it(`${category}: same verdict, error type and error texts for every case`, () => {
      for (const e of loadSingleTurnCategory(category as AstCategory)) entries.set(e.id, e);
      const mismatches: string[] = [];
      for (const g of byCategory.get(category) ?? []) {
        const entry = entries.get(g.id);
        if (!entry) throw new Error(`golden case for unknown id ${g.id}`);
        const output = applyOps(entry, oracleOutput(entry.functions, entry.possibleAnswer!, entry.language), g.ops);
        let got: { valid?: boolean; type?: string; error?: string; crash?: string };
        try {
          const r = astChecker(entry.functions, output, entry.possibleAnswer!, entry.language, category, { underscoreToDot: g.oai });
          got = r.valid ? { valid: true } : { valid: false, type: r.errorType, error: errorDigest(r.error) };
        } catch (err) {
          if (!(err instanceof CheckerCrash)) throw err;
          got = { crash: err.pyType };
        }
        const want = g.crash !== undefined ? { crash: g.crash } : g.valid ? { valid: true } : { valid: false, type: g.type, error: g.error };
        if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${g.id} ${g.case}: got ${JSON.stringify(got)}, upstream ${JSON.stringify(want)}`);
      }
      expect(mismatches.slice(0, 20)).toEqual([]);
    });
  }
});
