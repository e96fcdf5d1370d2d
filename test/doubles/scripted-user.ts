/**
 * TEST DOUBLE — a scripted user simulator for tests and offline demos, NOT a model of real users.
 * It implements ChatClient and answers each request with the next scripted line (or with what a
 * function computes from the conversation it is shown), then `###STOP###` once the script runs out.
 *
 * Modes: "sequential" (default) walks one script across all requests; "per-conversation" picks the
 * line by how many messages the user already sent in the conversation it is shown (its own past
 * messages are the `assistant` messages of a user-simulator context), so one double can serve many
 * concurrent episodes.
 */
import type { ChatClient, ChatMessage } from "../../worker/engine/io";

export type ScriptLine = string | ((conversation: ChatMessage[]) => string);

export class ScriptedUser implements ChatClient {
  private position = 0;
  /** Every request this double received (the user-side context), for assertions. */
  readonly requests: ChatMessage[][] = [];

  constructor(
    private readonly script: ScriptLine[],
    private readonly whenDone = "###STOP###",
    private readonly mode: "sequential" | "per-conversation" = "sequential",
  ) {}

  async complete(req: { messages: ChatMessage[] }): Promise<{ text: string }> {
    this.requests.push(req.messages.map((m) => ({ ...m })));
    const index = this.mode === "per-conversation" ? req.messages.filter((m) => m.role === "assistant").length : this.position++;
    const line = this.script[index];
    if (line === undefined) return { text: this.whenDone };
    return { text: typeof line === "function" ? line(req.messages) : line };
  }
}
