/**
 * One chat call under a time limit. Clients that own their timeouts (the OpenAI client: its clock starts
 * when the request is sent, after any wait for a slot under the node's concurrency cap, and stretches to
 * fit the token budget on slow nodes) get the limit with the request; for any other client the limit is
 * enforced here by aborting its signal and racing a timer, so a client that ignores the signal cannot hang.
 */
import type { ChatClient, ChatReply, ChatRequest } from "./io";

export async function completeWithin(client: ChatClient, timeoutMs: number, req: Omit<ChatRequest, "timeoutMs">): Promise<ChatReply> {
  if (client.ownsTimeouts) return client.complete({ ...req, timeoutMs });
  const controller = new AbortController();
  const outer = req.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([client.complete({ ...req, signal: controller.signal }), timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}
