/**
 * Upstream's ThreadSafeBase registries (vita/data_model/thread_safe_base.py): every Location and every product
 * registers itself when constructed, keyed by its address / product_id (a later instance replaces the value, the
 * key keeps its first position). Tools read them: `address_to_longitude_latitude` searches every Location, the
 * delivery and in-store searches every product. Upstream keeps them per thread and clears the product registry at
 * the start of each task, never the Location one; here both are per episode (what upstream gives the first task a
 * worker thread runs). The episode's clock (`datetime.now()` in order ids) lives here too.
 */
import type { ModelRegistry, PyModel } from "./models";

export interface Clock {
  /** `datetime.now()` as epoch seconds (a naive datetime whose `.timestamp()` is read in UTC). */
  now(): number;
}

export class Registries implements ModelRegistry {
  readonly locations = new Map<string, PyModel>();
  readonly products = new Map<string, PyModel>();
  constructor(readonly clock: Clock) {}
  registerLocation(m: PyModel): void {
    this.locations.set(m.s("address"), m);
  }
  registerProduct(m: PyModel): void {
    this.products.set(m.s("product_id"), m);
  }
}

/** A clock frozen at "YYYY-MM-DD HH:MM:SS" (read as UTC), movable by the caller. */
export class FixedClock implements Clock {
  private seconds: number;
  constructor(at: string) {
    this.seconds = parseClock(at);
  }
  set(at: string): void {
    this.seconds = parseClock(at);
  }
  now(): number {
    return this.seconds;
  }
}

export function parseClock(at: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(at);
  if (!m) throw new Error(`clock "${at}": expected YYYY-MM-DD HH:MM:SS`);
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000;
}
