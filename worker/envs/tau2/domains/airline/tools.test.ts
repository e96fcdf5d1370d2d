/**
 * The airline tools on the small DB of tau2-bench v0.2.0's own tool tests
 * (test/fixtures/tau2-airline/upstream-test-db.json, from tests/test_domains/test_airline/test_tools_airline.py):
 * every upstream test's calls, asserting what upstream asserts, plus the exact tool texts. The same cases run
 * through `npm run tau2:calls` in cli/cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { AIRLINE_BOOKING as BOOKING, AIRLINE_UPSTREAM_TEST_DB as UPSTREAM_TEST_DB } from "../../../../../test/fixtures/tau2-domains";
import { pyFromJsonText } from "../../../../../lib/python/values";
import { Tau2Environment } from "../../harness/environment";
import { airlineDomainEnv } from "./domain";
import { dumpAirlineDb, hashAirlineDb, loadAirlineDb, parseAirlineDb } from "./model";
import type { TValue } from "../../harness/py";

const db = loadAirlineDb(UPSTREAM_TEST_DB);
const fresh = () => new Tau2Environment(airlineDomainEnv(db));
const call = (env: Tau2Environment, name: string, args: Record<string, unknown>) =>
  env.getResponse({ id: "0", name, requestor: "assistant", arguments: pyFromJsonText(JSON.stringify(args)) as TValue });
const ok = (env: Tau2Environment, name: string, args: Record<string, unknown>) => {
  const r = call(env, name, args);
  expect(r.error, r.content).toBe(false);
  return r.content;
};
const json = (text: string) => JSON.parse(text);

describe("upstream's airline tool tests", () => {
  it("book_reservation: booked, then refused when the payment does not add up", () => {
    const env = fresh();
    expect(ok(env, "book_reservation", BOOKING)).toBe(
      '{"reservation_id": "HATHAT", "user_id": "mia_li_3668", "origin": "PHL", "destination": "LGA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT001", "origin": "PHL", "destination": "LGA", "date": "2024-05-16", "price": 122}], "passengers": [{"first_name": "Noah", "last_name": "Brown", "dob": "1990-01-01"}], "payment_history": [{"payment_id": "credit_card_4421486", "amount": 122}], "created_at": "2024-05-15T15:00:00", "total_baggages": 2, "nonfree_baggages": 0, "insurance": "no", "status": null}',
    );
    const refused = call(env, "book_reservation", { ...BOOKING, payment_methods: [{ payment_id: "credit_card_4421486", amount: 121 }] });
    expect(refused).toMatchObject({ error: true, content: "Error: Payment amount does not add up, total price is 122, but paid 121" });
    // The seats of the booked flight went down by one passenger.
    expect(json(ok(env, "search_direct_flight", { origin: "PHL", destination: "LGA", date: "2024-05-16" }))[0].available_seats.economy).toBe(9);
  });

  it("cancel_reservation: status cancelled and the refunds appended", () => {
    const r = json(ok(fresh(), "cancel_reservation", { reservation_id: "4WQ150" }));
    expect(r.status).toBe("cancelled");
    expect(r.payment_history).toEqual([{ payment_id: "credit_card_4421486", amount: 500 }, { payment_id: "credit_card_4421486", amount: -500 }]);
  });

  it("get_reservation_details / get_user_details: an unknown id is an error", () => {
    const env = fresh();
    expect(json(ok(env, "get_reservation_details", { reservation_id: "4WQ150" })).reservation_id).toBe("4WQ150");
    expect(call(env, "get_reservation_details", { reservation_id: "NONEXISTENT" })).toMatchObject({ error: true, content: "Error: Reservation NONEXISTENT not found" });
    expect(call(env, "get_user_details", { user_id: "NONEXISTENT" })).toMatchObject({ error: true, content: "Error: User NONEXISTENT not found" });
  });

  it("list_all_airports", () => {
    const text = ok(fresh(), "list_all_airports", {});
    expect(text.startsWith('[{"iata": "SFO", "city": "San Francisco"}, {"iata": "JFK", "city": "New York"}, ')).toBe(true);
    expect(json(text)).toHaveLength(20);
  });

  it("search_direct_flight / search_onestop_flight: one result, none on a date without flights", () => {
    const env = fresh();
    expect(ok(env, "search_direct_flight", { origin: "PHL", destination: "LGA", date: "2024-05-16" })).toBe(
      '[{"flight_number": "HAT001", "origin": "PHL", "destination": "LGA", "status": "available", "scheduled_departure_time_est": "06:00:00", "scheduled_arrival_time_est": "07:00:00", "date": null, "available_seats": {"basic_economy": 16, "economy": 10, "business": 13}, "prices": {"basic_economy": 87, "economy": 122, "business": 471}}]',
    );
    expect(ok(env, "search_direct_flight", { origin: "PHL", destination: "LGA", date: "2024-05-17" })).toBe("[]");
    const pairs = json(ok(env, "search_onestop_flight", { origin: "PHL", destination: "LAX", date: "2024-05-16" }));
    expect(pairs).toHaveLength(1);
    expect(pairs[0].map((f: { flight_number: string; date: string }) => [f.flight_number, f.date])).toEqual([["HAT001", "2024-05-16"], ["HAT002", "2024-05-16"]]);
    expect(ok(env, "search_onestop_flight", { origin: "PHL", destination: "LAX", date: "2024-05-17" })).toBe("[]");
  });

  it("send_certificate: certificate_3221322 with the amount (a float in the DB)", () => {
    const env = fresh();
    expect(ok(env, "send_certificate", { user_id: "mia_li_3668", amount: 100 })).toBe("Certificate certificate_3221322 added to user mia_li_3668 with amount 100.");
    expect(ok(env, "get_user_details", { user_id: "mia_li_3668" })).toContain('"certificate_3221322": {"source": "certificate", "id": "certificate_3221322", "amount": 100.0}');
  });

  it("transfer_to_human_agents and calculate", () => {
    expect(ok(fresh(), "transfer_to_human_agents", { summary: "The user wants to cancel the reservation." })).toBe("Transfer successful");
    expect(ok(fresh(), "calculate", { expression: "1 + 1" })).toBe("2.0");
  });

  it("update_reservation_baggages: a payment of 100 for two paid bags; a certificate cannot pay", () => {
    const env = fresh();
    const r = json(ok(env, "update_reservation_baggages", { reservation_id: "4WQ150", total_baggages: 2, nonfree_baggages: 2, payment_id: "credit_card_4421486" }));
    expect([r.total_baggages, r.nonfree_baggages, r.payment_history.at(-1).amount]).toEqual([2, 2, 100]);
    expect(call(env, "update_reservation_baggages", { reservation_id: "4WQ150", total_baggages: 2, nonfree_baggages: 2, payment_id: "certificate_4856383" })).toMatchObject({
      error: true,
      content: "Error: Certificate cannot be used to update reservation",
    });
  });

  it("update_reservation_flights: basic economy refunds the difference (-70)", () => {
    const r = json(ok(fresh(), "update_reservation_flights", { reservation_id: "4WQ150", cabin: "basic_economy", flights: [{ flight_number: "HAT001", date: "2024-05-16" }], payment_id: "credit_card_4421486" }));
    expect(r.cabin).toBe("basic_economy");
    expect(r.payment_history.at(-1).amount).toBe(-70);
    expect(r.flights[0].price).toBe(87);
  });

  it("update_reservation_passengers: replaced; a different count is refused", () => {
    const env = fresh();
    const passengers = [
      { first_name: "John", last_name: "Doe", dob: "1956-07-07" },
      { first_name: "Jane", last_name: "Doe", dob: "1967-04-01" },
    ];
    expect(json(ok(env, "update_reservation_passengers", { reservation_id: "4WQ150", passengers })).passengers).toEqual(passengers);
    const more = [...passengers, { first_name: "Jim", last_name: "Beam", dob: "1978-05-03" }];
    expect(call(env, "update_reservation_passengers", { reservation_id: "4WQ150", passengers: more })).toMatchObject({ error: true, content: "Error: Number of passengers does not match" });
  });
});

describe("Python's semantics for what an agent may send", () => {
  it("binding, pydantic and lookup errors, in the original's words", () => {
    const env = fresh();
    expect(call(env, "nope", {}).content).toBe("Error: Tool 'nope' not found.");
    expect(call(env, "get_user_details", {}).content).toBe("Error: AirlineTools.get_user_details() missing 1 required positional argument: 'user_id'");
    expect(call(env, "get_user_details", { user_id: "x", extra: 1 }).content).toBe("Error: AirlineTools.get_user_details() got an unexpected keyword argument 'extra'");
    expect(call(env, "get_user_details", { user_id: ["x"] }).content).toBe("Error: unhashable type: 'list'");
    expect(call(env, "get_flight_status", { flight_number: "HAT001", date: "2024-05-15" }).content).toBe("landed");
    expect(call(env, "get_flight_status", { flight_number: "HAT001", date: "2024-05-13" }).content).toBe("Error: Flight HAT001 not found on date 2024-05-13");
    expect(call(env, "book_reservation", { ...BOOKING, passengers: [{ first_name: "Noah", last_name: "Brown", dobb: 5 }] }).content).toBe(
      "Error: 1 validation error for Passenger\ndob\n  Field required [type=missing, input_value={'first_name': 'Noah', 'l...me': 'Brown', 'dobb': 5}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.10/v/missing",
    );
    expect(call(env, "book_reservation", { ...BOOKING, cabin: "first" }).content).toBe(
      "Error: 1 validation error for Reservation\ncabin\n  Input should be 'business', 'economy' or 'basic_economy' [type=literal_error, input_value='first', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.10/v/literal_error",
    );
    // A new flight in an unknown cabin: the seat lookup's KeyError.
    expect(call(env, "update_reservation_flights", { reservation_id: "4WQ150", cabin: "first", flights: [{ flight_number: "HAT002", date: "2024-05-16" }], payment_id: "credit_card_4421486" }).content).toBe("Error: 'first'");
    // Ints stay ints and floats floats: a float amount is printed as Python prints it.
    expect(call(env, "send_certificate", { user_id: "mia_li_3668", amount: 100.5 }).content).toBe("Certificate certificate_3221322 added to user mia_li_3668 with amount 100.5.");
  });
});

describe("the DB", () => {
  it("episodes never see each other's writes, and a dump reloads with the same hash", () => {
    const before = hashAirlineDb(db);
    const env = fresh();
    ok(env, "cancel_reservation", { reservation_id: "4WQ150" });
    ok(env, "send_certificate", { user_id: "mia_li_3668", amount: 50 });
    expect(env.dbHash()).not.toBe(before);
    expect(hashAirlineDb(db)).toBe(before);
    expect(fresh().dbHash()).toBe(before);
    const dumped = env.domain.dump("assistant")!;
    expect(hashAirlineDb(parseAirlineDb(dumped, "dump.json"))).toBe(env.dbHash());
    expect(dumpAirlineDb(db).startsWith('{\n    "flights": {\n        "HAT001": {')).toBe(true);
  });

  it("a malformed DB names the file and the path", () => {
    expect(() => parseAirlineDb('{"flights": {}, "users": {}, "reservations": {"R1": {"reservation_id": "R1"}}}', "bad.json")).toThrow(/^bad\.json is not a valid FlightDB: reservations\.R1\.user_id: Field required/);
    expect(() => parseAirlineDb('{"flights": {}, "users": {}, "reservations": {}, "extra": 1}', "bad.json")).toThrow(/extra: Extra inputs are not permitted/);
    expect(() => parseAirlineDb("{", "bad.json")).toThrow(/^bad\.json is not valid JSON/);
  });
});
