import { describe, expect, it } from "vitest";
import { actErrorMessage } from "./messages";
import { parseActOutput, parseRehearseOutput } from "./parsers";
import { parseSimulatorResponse } from "./prompts";

/**
 * Golden strings for the reference's serialisation (Within-yao/EnvACE: tool_parser.py, envs.py,
 * tool_simulator_agent.py, simulate_core/_error.py, mcp_tool.py). Each expected string was printed by
 * CPython 3 running the reference's own calls on the same input — json.loads, then json.dumps with its
 * default separators and the ensure_ascii the reference passes at that site; the script that prints
 * them is test/fixtures/golden/serialisation.py. They are pasted as JSON string literals, so a `\u00fc`
 * below is the character itself and a `\\u00fc` is the six-character escape.
 */
const block = (body: string) => `<think>plan</think>\n<tool_call>\n${body}\n</tool_call>`;
const wrap = (body: string) => `<think>sim</think>\n<execution_result>\n${body}\n</execution_result>`;

describe("reference serialisation (golden strings)", () => {
  it("tool-call arguments: json.dumps(arguments, ensure_ascii=False) — non-ASCII, nesting, 7.0, 1e-7, ints, big ints, key order", () => {
    const body =
      '{"name": "book", "arguments": {"city": "Zürich", "nested": {"b": [1, 2.50, {"z": null}], "a": true}, "qty": 7.0, "eps": 1e-7, "n": 7, "big": 123456789012345678901, "2": "two", "1": "one", "emoji": "😀", "q": "say \\"hi\\"\\n"}}';
    const r = parseActOutput(block(body));
    if (r.kind !== "tool_calls") throw new Error(`expected calls, got ${r.kind}`);
    expect(r.calls[0].argumentsJson).toBe(ARGS);
    // The plain view for environments still reads the values.
    expect(r.calls[0].arguments).toMatchObject({ city: "Zürich", qty: 7, n: 7 });
  });

  it("rehearsed result: json.dumps(execution_result, ensure_ascii=False)", () => {
    const r = parseRehearseOutput(wrap('[{"price": 12.0, "name": "Café crème", "tags": ["été", "ß"], "stock": 3, "ratio": 1E-7}, {"10": 1, "9": 2}]'));
    expect(r.ok && r.content).toBe(REH);
  });

  it("act parse error message: json.dumps(payload, ensure_ascii=True)", () => {
    const r = parseActOutput(block('{"name": "prix", "arguments": {"montant": 7.0, "devise": "€"}'));
    if (r.kind !== "error") throw new Error("expected an error");
    expect(r.code).toBe("JSON_DECODE_ERROR");
    expect(actErrorMessage(r.payload).content).toBe(ACTERR);
  });

  it("INVALID_TOOL_NAME carries Python str() of the name and of the arguments", () => {
    const r = parseActOutput(block('{"name": null, "arguments": {"café": 7.0, "n": [1, null, true], "s": "it\'s"}}'));
    if (r.kind !== "error") throw new Error("expected an error");
    expect(actErrorMessage(r.payload).content).toBe(BADNAME);
  });

  it("rehearse error: format_tool_error (ensure_ascii=True) with text[:200] counted in code points", () => {
    const r = parseRehearseOutput("Résultat: 😀".repeat(30));
    expect(r.ok).toBe(false);
    expect(r.content).toBe(REHERR);
  });

  it("rehearse type errors name Python types", () => {
    const got = (body: string) => {
      const r = parseRehearseOutput(wrap(body));
      return r.ok ? "ok" : (r.payload.error_tool_call.details?.got_type as string);
    };
    expect(["\"text\"", "7", "7.0", "true", "null"].map(got)).toEqual(["str", "int", "float", "bool", "NoneType"]);
  });

  it("external simulator: json.dumps(execution_result, ensure_ascii=True)", () => {
    const r = parseSimulatorResponse('{"analysis": "ok", "execution_result": {"temp_c": 21.0, "city": "Zürich", "hours": [1, 2]}}');
    expect(r).toEqual({ ok: true, content: SIM });
  });
});

// CPython output, one per case above.
const ARGS = "{\"city\": \"Z\u00fcrich\", \"nested\": {\"b\": [1, 2.5, {\"z\": null}], \"a\": true}, \"qty\": 7.0, \"eps\": 1e-07, \"n\": 7, \"big\": 123456789012345678901, \"2\": \"two\", \"1\": \"one\", \"emoji\": \"\ud83d\ude00\", \"q\": \"say \\\"hi\\\"\\n\"}";
const REH = "[{\"price\": 12.0, \"name\": \"Caf\u00e9 cr\u00e8me\", \"tags\": [\"\u00e9t\u00e9\", \"\u00df\"], \"stock\": 3, \"ratio\": 1e-07}, {\"10\": 1, \"9\": 2}]";
const ACTERR = "{\"error_tool_call\": \"A tool call block is not valid JSON: {\\\"name\\\": \\\"prix\\\", \\\"arguments\\\": {\\\"montant\\\": 7.0, \\\"devise\\\": \\\"\\u20ac\\\"}\"}";
const BADNAME = "{\"error_tool_call\": \"INVALID_TOOL_NAME: a tool call has a missing or empty name\", \"raw_name\": \"None\", \"arguments\": \"{'caf\\u00e9': 7.0, 'n': [1, None, True], 's': \\\"it's\\\"}\"}";
const REHERR = "{\"error_tool_call\": {\"code\": \"NO_EXECUTION_RESULT_TAG_FOUND\", \"message\": \"The output has no '<execution_result>' tag\", \"details\": {\"expected_format\": \"\\\\n<execution_result>\\\\n<non-empty JSON object or array>\\\\n</execution_result>\", \"raw_preview\": \"R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9sultat: \\ud83d\\ude00R\\u00e9\"}}}";
const SIM = "{\"temp_c\": 21.0, \"city\": \"Z\\u00fcrich\", \"hours\": [1, 2]}";
