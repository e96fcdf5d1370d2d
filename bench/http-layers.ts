/**
 * The product's chat path layer by layer (`npx tsx bench/http-layers.ts`), against bench:rollout's
 * vLLM-shaped responder in a child process with no latency, 256 calls in flight, 5,120 calls per layer:
 * `pool` = one HttpPool.post (lib/clients/http-post.ts) of a ready JSON body; `chat` = OpenAIChatClient.complete
 * (body building, slots, timer, reply check); `policy` = chatPolicy.generate (tool-call ids, act text).
 * Prints worker CPU µs per call (and the kernel's part) for three rounds; the first round includes JIT and
 * connecting. Replies arrive back to back here, so per-wakeup costs are shared; bench:rollout's 1 s
 * latency spreads them out.
 */
import { HttpPool } from "../lib/clients/http-post";
import { createOpenAIChatClient } from "../lib/clients/openai-chat";
import type { ChatMessage, ToolSchema } from "../contracts/chat";
import { chatPolicy } from "../worker/clients/chat-policy";
import { startResponder } from "./rollout";

const messages: ChatMessage[] = [
  { role: "system", content: "You are a shop assistant. Use the tools." },
  { role: "user", content: "How much is the tea? I would like to know before I buy it." },
  { role: "assistant", content: "<think>check the price</think>", tool_calls: [{ id: "c1", type: "function", function: { name: "get_item", arguments: '{"item":"tea"}' } }] },
  { role: "tool", name: "get_item", content: '{"item":"tea","price":4,"stock":9}' },
];
const tools: ToolSchema[] = [
  { type: "function", function: { name: "get_item", description: "Look up an item", parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] } } },
];

async function main(): Promise<void> {
  const { port, child } = await startResponder(0, 3);
  try {
    const base = `http://127.0.0.1:${port}/v1`;
    const pool = new HttpPool(new URL(base), 256);
    const chat = createOpenAIChatClient({ baseUrl: base, model: "bench", nodeName: "layers", settings: { maxConcurrency: 256 } });
    const policy = chatPolicy(chat);
    const body = JSON.stringify({ model: "bench", messages, tools, temperature: 1, top_p: 1, max_tokens: 8000 });
    const sampling = { temperature: 1, topP: 1, maxTokens: 8000 };
    const layers: [string, () => Promise<unknown>][] = [
      ["pool", () => pool.post("chat/completions", body, {}).reply],
      ["chat", () => chat.complete({ messages, tools, ...sampling })],
      ["policy", () => policy.generate({ role: "act", messages, tools, sampling })],
    ];
    const calls = 256 * 20;
    for (let round = 0; round < 3; round++) {
      for (const [name, call] of layers) {
        const cpu0 = process.cpuUsage();
        await new Promise<void>((resolve, reject) => {
          let started = 0;
          let done = 0;
          const next = (): void => {
            if (started >= calls) return;
            started++;
            call().then(() => (++done === calls ? resolve() : next()), reject);
          };
          for (let i = 0; i < 256; i++) next();
        });
        const cpu = process.cpuUsage(cpu0);
        console.log(`round ${round} ${name}: ${((cpu.user + cpu.system) / calls).toFixed(1)} µs CPU/call (kernel ${(cpu.system / calls).toFixed(1)})`);
      }
    }
    pool.close();
  } finally {
    child.kill();
  }
  process.exit(0);
}

void main();
