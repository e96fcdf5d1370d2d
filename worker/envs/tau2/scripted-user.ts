/**
 * TEST DOUBLE — a scripted user simulator for tests and offline demos, NOT a model of real users.
 * It implements ChatClient and answers each request with the next scripted line (or with what a
 * function computes from the conversation it is shown), then `###STOP###` once the script runs out.
 */
import type { ChatClient, ChatMessage } from "../../engine/io";

export type ScriptLine = string | ((conversation: ChatMessage[]) => string);

export class ScriptedUser implements ChatClient {
  private position = 0;
  /** Every request this double received (the user-side context), for assertions. */
  readonly requests: ChatMessage[][] = [];

  constructor(
    private readonly script: ScriptLine[],
    private readonly whenDone = "###STOP###",
  ) {}

  async complete(req: { messages: ChatMessage[] }): Promise<{ text: string }> {
    this.requests.push(req.messages.map((m) => ({ ...m })));
    const line = this.script[this.position++];
    if (line === undefined) return { text: this.whenDone };
    return { text: typeof line === "function" ? line(req.messages) : line };
  }
}
