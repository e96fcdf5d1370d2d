/**
 * The airline data model (tau2-bench v0.2.0 `domains/airline/data_model.py`) as pydantic validates it,
 * the loader of `db.json` (or a dump of it), the DB hash and the dump.
 *
 * A loaded DB is deeply frozen and shared by every episode: an episode's `AirlineState` copies the three
 * top-level maps and a record (flight, user, reservation) the first time a tool writes to it, so a fresh
 * environment costs three map copies, and the hash re-serialises only the records an episode changed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { compareCodePoints, JsonSyntaxError, parseOrderedJson, pyJsonString, type OrderedJson } from "../../../../../lib/python/json";
import { PyInt } from "../../../../../lib/python/json";
import { dumps, isModel, type TModel, type TValue } from "../../harness/py";
import { t, Tau2DataError, validateFile, type ModelSpec } from "../../harness/pydantic";

export const CABINS = ["business", "economy", "basic_economy"] as const;
const cabin = t.literal(...CABINS);

export const AirportCode: ModelSpec = { name: "AirportCode", fields: [{ name: "iata", type: t.str }, { name: "city", type: t.str }] };
const Name: ModelSpec = { name: "Name", fields: [{ name: "first_name", type: t.str }, { name: "last_name", type: t.str }] };
const Address: ModelSpec = {
  name: "Address",
  fields: [
    { name: "address1", type: t.str },
    { name: "address2", type: t.optional(t.str), default: () => null },
    { name: "city", type: t.str },
    { name: "country", type: t.str },
    { name: "state", type: t.str },
    { name: "zip", type: t.str },
  ],
};
export const Payment: ModelSpec = { name: "Payment", fields: [{ name: "payment_id", type: t.str }, { name: "amount", type: t.int }] };
const CreditCard: ModelSpec = {
  name: "CreditCard",
  fields: [
    { name: "source", type: t.literal("credit_card") },
    { name: "id", type: t.str },
    { name: "brand", type: t.str },
    { name: "last_four", type: t.str },
  ],
};
const GiftCard: ModelSpec = {
  name: "GiftCard",
  fields: [
    { name: "source", type: t.literal("gift_card") },
    { name: "id", type: t.str },
    { name: "amount", type: t.float },
  ],
};
export const Certificate: ModelSpec = {
  name: "Certificate",
  fields: [
    { name: "source", type: t.literal("certificate") },
    { name: "id", type: t.str },
    { name: "amount", type: t.float },
  ],
};
export const Passenger: ModelSpec = { name: "Passenger", fields: [{ name: "first_name", type: t.str }, { name: "last_name", type: t.str }, { name: "dob", type: t.str }] };

const seats = t.dict(t.int, cabin);
const Available: ModelSpec = {
  name: "FlightDateStatusAvailable",
  fields: [
    { name: "status", type: t.literal("available") },
    { name: "available_seats", type: seats },
    { name: "prices", type: seats },
  ],
};
const timed = (name: string, status: string, a: string, b: string): ModelSpec => ({
  name,
  fields: [
    { name: "status", type: t.literal(status) },
    { name: a, type: t.str },
    { name: b, type: t.str },
  ],
});
const Landed = timed("FlightDateStatusLanded", "landed", "actual_departure_time_est", "actual_arrival_time_est");
const Cancelled: ModelSpec = { name: "FlightDateStatusCancelled", fields: [{ name: "status", type: t.literal("cancelled") }] };
const Delayed = timed("FlightDateStatusDelayed", "delayed", "estimated_departure_time_est", "estimated_arrival_time_est");
const Flying = timed("FlightDataStatusFlying", "flying", "actual_departure_time_est", "estimated_arrival_time_est");
const OnTime = timed("FlightDataStatusOnTime", "on time", "estimated_departure_time_est", "estimated_arrival_time_est");

const Flight: ModelSpec = {
  name: "Flight",
  fields: [
    { name: "flight_number", type: t.str },
    { name: "origin", type: t.str },
    { name: "destination", type: t.str },
    { name: "scheduled_departure_time_est", type: t.str },
    { name: "scheduled_arrival_time_est", type: t.str },
    { name: "dates", type: t.dict(t.union(t.model(Available), t.model(Landed), t.model(Cancelled), t.model(Delayed), t.model(Flying), t.model(OnTime))) },
  ],
};
export const DirectFlight: ModelSpec = {
  name: "DirectFlight",
  fields: [
    { name: "flight_number", type: t.str },
    { name: "origin", type: t.str },
    { name: "destination", type: t.str },
    { name: "status", type: t.literal("available") },
    { name: "scheduled_departure_time_est", type: t.str },
    { name: "scheduled_arrival_time_est", type: t.str },
    { name: "date", type: t.optional(t.str), default: () => null },
    { name: "available_seats", type: seats },
    { name: "prices", type: seats },
  ],
};
export const ReservationFlight: ModelSpec = {
  name: "ReservationFlight",
  fields: [
    { name: "flight_number", type: t.str },
    { name: "origin", type: t.str },
    { name: "destination", type: t.str },
    { name: "date", type: t.str },
    { name: "price", type: t.int },
  ],
};
export const FlightInfo: ModelSpec = { name: "FlightInfo", fields: [{ name: "flight_number", type: t.str }, { name: "date", type: t.str }] };
const User: ModelSpec = {
  name: "User",
  fields: [
    { name: "user_id", type: t.str },
    { name: "name", type: t.model(Name) },
    { name: "address", type: t.model(Address) },
    { name: "email", type: t.str },
    { name: "dob", type: t.str },
    { name: "payment_methods", type: t.dict(t.union(t.model(CreditCard), t.model(GiftCard), t.model(Certificate))) },
    { name: "saved_passengers", type: t.list(t.model(Passenger)) },
    { name: "membership", type: t.literal("gold", "silver", "regular") },
    { name: "reservations", type: t.list(t.str) },
  ],
};
export const Reservation: ModelSpec = {
  name: "Reservation",
  fields: [
    { name: "reservation_id", type: t.str },
    { name: "user_id", type: t.str },
    { name: "origin", type: t.str },
    { name: "destination", type: t.str },
    { name: "flight_type", type: t.literal("round_trip", "one_way") },
    { name: "cabin", type: cabin },
    { name: "flights", type: t.list(t.model(ReservationFlight)) },
    { name: "passengers", type: t.list(t.model(Passenger)) },
    { name: "payment_history", type: t.list(t.model(Payment)) },
    { name: "created_at", type: t.str },
    { name: "total_baggages", type: t.int },
    { name: "nonfree_baggages", type: t.int },
    { name: "insurance", type: t.literal("yes", "no") },
    { name: "status", type: t.optional(t.literal("cancelled")), default: () => null },
  ],
};
export const FlightDB: ModelSpec = {
  name: "FlightDB",
  forbidExtra: true,
  fields: [
    { name: "flights", type: t.dict(t.model(Flight)) },
    { name: "users", type: t.dict(t.model(User)) },
    { name: "reservations", type: t.dict(t.model(Reservation)) },
  ],
};

export interface AirlineDb {
  flights: Map<string, TModel>;
  users: Map<string, TModel>;
  reservations: Map<string, TModel>;
}

/** Parsed JSON as domain values: ints as bigint, objects as Maps (order kept). */
export function fromJson(v: OrderedJson): TValue {
  if (v instanceof PyInt) return BigInt(v.digits ?? String(v.value));
  if (Array.isArray(v)) return v.map(fromJson);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, fromJson(x)]));
  return v;
}

function deepFreeze(v: TValue): void {
  if (v === null || typeof v !== "object" || Object.isFrozen(v)) return;
  if (v instanceof Map) {
    for (const x of v.values()) deepFreeze(x);
    return;
  }
  if (Array.isArray(v) || isModel(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x as TValue);
  }
}

/** The DB from parsed data (db.json or a dump), validated as FlightDB; frozen for sharing. */
export function airlineDbFrom(data: TValue, source: string): AirlineDb {
  const db = validateFile(FlightDB, data, source) as unknown as AirlineDb;
  for (const map of [db.flights, db.users, db.reservations]) for (const rec of map.values()) deepFreeze(rec);
  return db;
}

export function parseAirlineDb(text: string, source = "db.json"): AirlineDb {
  let tree: OrderedJson;
  try {
    tree = parseOrderedJson(text);
  } catch (e) {
    throw new Tau2DataError(`${source} is not valid JSON: ${e instanceof JsonSyntaxError ? e.message : String(e)}`);
  }
  return airlineDbFrom(fromJson(tree), source);
}

export function loadAirlineDb(path: string): AirlineDb {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Tau2DataError(`cannot read the airline DB at ${path}: ${(e as Error).message}`);
  }
  return parseAirlineDb(text, path);
}

const sortedCache = new WeakMap<object, string>();

/** A record's sorted-key text, memoised for the shared (frozen) records every episode starts from. */
function sortedText(rec: TModel): string {
  const frozen = Object.isFrozen(rec);
  if (frozen) {
    const hit = sortedCache.get(rec);
    if (hit !== undefined) return hit;
  }
  const text = dumps(rec, { sortKeys: true });
  if (frozen) sortedCache.set(rec, text);
  return text;
}

function sortedMapText(map: Map<string, TModel>): string {
  const keys = [...map.keys()].sort(compareCodePoints);
  return "{" + keys.map((k) => `${pyJsonString(k)}: ${sortedText(map.get(k)!)}`).join(", ") + "}";
}

/** sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`. */
export function hashAirlineDb(db: AirlineDb): string {
  const text = `{"flights": ${sortedMapText(db.flights)}, "reservations": ${sortedMapText(db.reservations)}, "users": ${sortedMapText(db.users)}}`;
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The DB as `model_dump(mode="json")` in db.json's layout (indent 4); it loads again with the same hash. */
export function dumpAirlineDb(db: AirlineDb): string {
  return dumps(new Map<string, TValue>([["flights", db.flights], ["users", db.users], ["reservations", db.reservations]]), { indent: 4, dates: "iso" });
}
