import { describe, expect, it } from "vitest";
import type { SingleTurnEntry } from "./data";
import { promptFunctions } from "./prompt";

const entry = (language: SingleTurnEntry["language"], properties: Record<string, object>): SingleTurnEntry => ({
  id: `x_${language}`,
  category: language === "java" ? "simple_java" : language === "javascript" ? "simple_javascript" : "simple_python",
  language,
  question: [[{ role: "user", content: "?" }]],
  functions: [{ name: "f", description: "Does f.", parameters: { type: "dict", properties: properties as never, required: [] } }],
});

describe("function documents shown to the model", () => {
  it("appends the language note and leaves Python parameters as they are", () => {
    const [f] = promptFunctions(entry("python", { n: { type: "integer", description: "N." } }));
    expect(f.description).toBe("Does f. Note that the provided function is in Python 3 syntax.");
    expect(f.parameters.properties.n).toEqual({ type: "integer", description: "N." });
  });

  it("turns Java parameters into strings that name their Java type", () => {
    const e = entry("java", { a: { type: "any", description: "A." }, l: { type: "ArrayList", items: { type: "long" }, description: "L." }, n: { type: "long", description: "N." } });
    const [f] = promptFunctions(e);
    expect(f.parameters.properties).toEqual({
      a: { type: "string", description: "A. This parameter can be of any type of Java object in string representation." },
      l: { type: "string", description: "L. This is Java ArrayList type parameter in string representation. The list elements are of type long; they are not in string representation." },
      n: { type: "string", description: "N. This is Java long type parameter in string representation." },
    });
    expect(e.functions[0].parameters.properties.l.type).toBe("ArrayList");
  });

  it("moves a JavaScript dict schema into the description as json.dumps writes it", () => {
    const [f] = promptFunctions(entry("javascript", { d: { type: "dict", description: "D.", properties: { k: { type: "String", description: "é" } } } }));
    expect(f.parameters.properties.d).toEqual({
      type: "string",
      description: 'D. This is JavaScript dict type parameter in string representation. The dictionary entries have the following schema; they are not in string representation. {"k": {"type": "String", "description": "\\u00e9"}}',
    });
  });
});
