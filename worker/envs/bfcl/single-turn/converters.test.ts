/**
 * The Java and JavaScript type converters against upstream's on tricky source texts
 * (test/fixtures/bfcl/single-turn/converter-goldens.json, from scripts/bfcl/st_goldens_converters.py):
 * the Python `repr` of every result, or the exception upstream raises.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConverterError, javaTypeConverter } from "./java-types";
import { jsTypeConverter } from "./js-types";
import { pyRepr } from "./values";

interface Case {
  lang: "java" | "javascript";
  value: string;
  type: string;
  nested: string | null;
  out?: string;
  raise?: string;
}
const cases: Case[] = JSON.parse(readFileSync(path.resolve(__dirname, "../../../../test/fixtures/bfcl/single-turn/converter-goldens.json"), "utf8"));

describe("type converters match upstream's", () => {
  it("on every recorded source text", () => {
    expect(cases.length).toBeGreaterThan(800);
    const wrong: string[] = [];
    for (const c of cases) {
      const convert = c.lang === "java" ? javaTypeConverter : jsTypeConverter;
      let got: string;
      try {
        got = "out:" + pyRepr(convert(c.value, c.type, c.nested ?? undefined));
      } catch (err) {
        if (!(err instanceof ConverterError)) throw err;
        got = "raise:" + err.pyType;
      }
      const want = c.raise !== undefined ? "raise:" + c.raise : "out:" + c.out;
      if (got !== want) wrong.push(`${c.lang} ${c.type}/${c.nested} ${JSON.stringify(c.value)}: got ${got}, upstream ${want}`);
    }
    expect(wrong).toEqual([]);
  });
});
