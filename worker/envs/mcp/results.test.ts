/** MCP results → one tool message + the environment's error flag, without loss (results.ts). */
import { describe, expect, it } from "vitest";
import { compareResponses } from "../../engine/fidelity";
import { toolOutcomeOf } from "./results";
import { selectTools, toolSchemaOf } from "./tools";

const text = (t: string) => ({ type: "text" as const, text: t });

describe("toolOutcomeOf", () => {
  it("keeps a single text block as its text (JSON stays JSON for the fidelity score)", () => {
    expect(toolOutcomeOf({ content: [text("[FILE] a.txt\n[FILE] b.txt")] })).toEqual({ content: "[FILE] a.txt\n[FILE] b.txt", isError: false });
    expect(toolOutcomeOf({ content: [text('{"id": 7}')] })).toEqual({ content: '{"id": 7}', isError: false });
    expect(toolOutcomeOf({ content: [] })).toEqual({ content: "", isError: false });
  });

  it("writes structured content as Python json.dumps would, when the text only repeats it", () => {
    // server-memory: the text is the JSON of structuredContent's one member.
    const entities = [{ name: "Ada", entityType: "person", observations: ["likes tea"] }];
    expect(toolOutcomeOf({ content: [text(JSON.stringify(entities, null, 2))], structuredContent: { entities } })).toEqual({
      content: '{"entities": [{"name": "Ada", "entityType": "person", "observations": ["likes tea"]}]}',
      isError: false,
    });
    // server-filesystem: the text is the one member's string value.
    expect(toolOutcomeOf({ content: [text("héllo")], structuredContent: { content: "héllo" } }).content).toBe('{"content": "héllo"}');
    // The text is the structured content's own JSON.
    expect(toolOutcomeOf({ content: [text('{"total":7}')], structuredContent: { total: 7 } }).content).toBe('{"total": 7}');
  });

  it("keeps both when the text says more than the structured content", () => {
    expect(toolOutcomeOf({ content: [text("7 items, 2 out of stock")], structuredContent: { total: 7 } })).toEqual({
      content: '{"content": "7 items, 2 out of stock", "structuredContent": {"total": 7}}',
      isError: false,
    });
  });

  it("writes an isError result as an error object and flags it", () => {
    const out = toolOutcomeOf({ content: [text("Access denied - path outside allowed directories: /etc/passwd")], isError: true });
    expect(out).toEqual({ content: '{"error": "Access denied - path outside allowed directories: /etc/passwd"}', isError: true });
    expect(toolOutcomeOf({ content: [], isError: true }).content).toBe('{"error": "the tool reported an error without a message"}');
    // A rehearsed error in any convention agrees with it.
    expect(compareResponses('{"error_tool_call": {"code": "FORBIDDEN"}}', out.content, { realError: out.isError }).outcome).toBe("both_errors");
  });

  it("gives images, audio and resources a faithful text form (descriptors with size and digest, never the bytes)", () => {
    const out = toolOutcomeOf({
      content: [
        text("a chart and its data"),
        { type: "image", mimeType: "image/png", data: Buffer.from("PNG-bytes").toString("base64") },
        { type: "audio", mimeType: "audio/wav", data: Buffer.from("RIFF").toString("base64") },
        { type: "resource_link", uri: "file:///data/report.csv", name: "report.csv", mimeType: "text/csv" },
        { type: "resource", resource: { uri: "mem://notes/1", mimeType: "text/plain", text: "note one" } },
        { type: "resource", resource: { uri: "mem://blob/1", blob: Buffer.from("\u0000\u0001").toString("base64") } },
      ],
    });
    expect(JSON.parse(out.content)).toEqual([
      "a chart and its data",
      { type: "image", mimeType: "image/png", bytes: 9, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) },
      { type: "audio", mimeType: "audio/wav", bytes: 4, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) },
      { type: "resource_link", uri: "file:///data/report.csv", name: "report.csv", mimeType: "text/csv" },
      { type: "resource", uri: "mem://notes/1", mimeType: "text/plain", text: "note one" },
      { type: "resource", uri: "mem://blob/1", bytes: 2, sha256: expect.stringMatching(/^[0-9a-f]{16}$/) },
    ]);
    // Two different images never look the same.
    const png = (s: string) => toolOutcomeOf({ content: [{ type: "image", mimeType: "image/png", data: Buffer.from(s).toString("base64") }] }).content;
    expect(png("one")).not.toBe(png("two"));
  });

  it("scores a rehearsal of structured content against the real one by value", () => {
    const real = toolOutcomeOf({ content: [text('[{"name": "Ada"}, {"name": "Bob"}]')], structuredContent: { entities: [{ name: "Ada" }, { name: "Bob" }] } });
    expect(compareResponses('{"entities": [{"name": "Bob"}, {"name": "Ada"}]}', real.content, { realError: real.isError })).toMatchObject({ score: 1, exact: false });
  });
});

describe("MCP tools as the run's tool schemas", () => {
  const tools = [
    { name: "read_graph", description: "Read the entire knowledge graph", inputSchema: { type: "object" as const, properties: {}, $schema: "http://json-schema.org/draft-07/schema#" } },
    { name: "search_nodes", title: "Search", inputSchema: { type: "object" as const, properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false } },
  ];

  it("keeps the name, the description (else the title) and the input schema", () => {
    expect(toolSchemaOf(tools[0]!)).toEqual({ type: "function", function: { name: "read_graph", description: "Read the entire knowledge graph", parameters: { type: "object", properties: {} } } });
    expect(toolSchemaOf(tools[1]!)).toEqual({
      type: "function",
      function: { name: "search_nodes", description: "Search", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false } },
    });
  });

  it("offers the registered selection in the server's order, or names what the server lacks", () => {
    expect(selectTools(tools, [])).toEqual({ ok: true, tools });
    expect(selectTools(tools, ["search_nodes"])).toEqual({ ok: true, tools: [tools[1]] });
    expect(selectTools(tools, ["search_nodes", "delete_all"])).toEqual({ ok: false, missing: ["delete_all"] });
  });
});
