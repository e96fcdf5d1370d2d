/** Sessions: created by create_session, kept alive by heartbeats; one that heartbeated once and then stopped loses its models (as on SkyRL). */
import { unloadModelNow } from "./ordering";
import { type NodeState, newId, session } from "./state";

export function createSession(st: NodeState, tags: string[]): { session_id: string } {
  const id = newId("session");
  st.sessions.set(id, { id, tags, lastSeen: Date.now(), heartbeated: false, modelSeq: 0, samplingSeq: 0 });
  return { session_id: id };
}

export function heartbeat(st: NodeState, sessionId: string): void {
  const s = session(st, sessionId);
  s.lastSeen = Date.now();
  s.heartbeated = true;
}

/** Sessions that heartbeated once and then stopped lose their models (as on SkyRL). */
export function reapSessions(st: NodeState, now = Date.now()): string[] {
  const reaped: string[] = [];
  for (const s of st.sessions.values()) {
    if (s.heartbeated && now - s.lastSeen > st.opts.sessionTimeoutMs) {
      for (const m of [...st.models.values()]) if (m.sessionId === s.id) unloadModelNow(st, m);
      st.sessions.delete(s.id);
      reaped.push(s.id);
    }
  }
  return reaped;
}
