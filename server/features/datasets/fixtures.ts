/** Small CM2 rows for tests and the e2e check (shape: shared docs envace-method.md §6). */
const forecastTool = {
  type: "function",
  function: {
    name: "get_forecast",
    description: "Daily weather forecast for a city",
    parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
  },
};

const item = (id: string, question: string, weight: number, required = false) => ({
  id,
  focus_on: "assistant.tool_calls",
  question,
  pass_condition: "The assistant calls get_forecast for the city the user named.",
  failure_examples: ["calls get_forecast for another city"],
  evidence: [{ turn: 0, step: 0, from: "assistant.tool_calls", snippet: "get_forecast(city=Paris)" }],
  weight,
  required_for_next_turn: required,
});

/** One valid CM2 row (two user turns, one checklist). */
export function cm2Row(originalIndex: number, city = "Paris") {
  return {
    data_source: "nvidia_nemotron_checklist",
    messages: [
      { role: "system", content: "You are a travel assistant." },
      { role: "user", content: `Will it rain in ${city} tomorrow?` },
    ],
    extra_info: {
      index: originalIndex,
      original_index: originalIndex,
      tools: JSON.stringify([forecastTool]),
      messages: [
        { role: "system", content: "You are a travel assistant." },
        { role: "user", content: `Will it rain in ${city} tomorrow?` },
        { role: "assistant", content: "<think>need the forecast</think>", tool_calls: [{ id: "", type: "function", function: { name: "get_forecast", arguments: `{"city": "${city}", "days": 1}` } }] },
        { role: "observation", content: `{"city":"${city}","rain_prob":0.7}` },
        { role: "assistant", content: "<think>70%</think>Likely yes." },
        { role: "user", content: "And the day after?" },
        { role: "assistant", content: "Probably not." },
      ],
      interaction_kwargs: {
        checklist_list: [[[item("C0", "Did the assistant call get_forecast?", 0.5, true), item("C1", "Was the city right?", 0.5)], [item("C2", "Did it answer the follow-up?", 1)]]],
      },
    },
  };
}

/** JSONL text of `count` valid rows, original_index starting at `first`. */
export function cm2Jsonl(count: number, first = 1): string {
  return Array.from({ length: count }, (_, i) => JSON.stringify(cm2Row(first + i))).join("\n") + "\n";
}
