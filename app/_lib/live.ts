"use client";
import { useEffect } from "react";

export interface ChangeEvent {
  t: "run" | "log" | "node";
  id: string;
  status?: string;
}

type Listener = (e: ChangeEvent) => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;

function ensureSource() {
  if (source || typeof window === "undefined") return;
  source = new EventSource("/api/events");
  source.onmessage = (msg) => {
    try {
      const e = JSON.parse(msg.data) as ChangeEvent;
      listeners.forEach((l) => l(e));
    } catch {
      /* ignore */
    }
  };
}

/** Subscribe to server change signals (one shared EventSource per tab; it reconnects by itself). */
export function useChangeEvents(listener: Listener) {
  useEffect(() => {
    ensureSource();
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [listener]);
}
