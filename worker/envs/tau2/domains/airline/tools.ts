/**
 * The 14 airline agent tools (tau2-bench v0.2.0 `domains/airline/tools.py`, `AirlineTools`), in class
 * order, with their Python semantics: arguments arrive untyped (no schema validation), models are built
 * with pydantic's validation where the original builds them (`FlightInfo(**flight)`, `Payment(…)`,
 * `Reservation(…)`), and assignments the original makes without validation keep the raw value.
 *
 * Copy-on-write: a record is copied into this episode's maps (`AirlineState.writable*`) before the
 * first write to it; reads go to the shared DB.
 */
import { PyDict, pyStr as pyValueStr, type PyValue } from "../../../../../lib/python/values";
import { pyCalculate } from "../../harness/calculate-tool";
import { construct, validateModel } from "../../harness/pydantic";
import { deepCopy, pyRepr, type TModel, type TValue } from "../../harness/py";
import {
  add,
  allDicts,
  attr,
  dictKey,
  eq,
  hasKey,
  intOfStr,
  iter,
  keyError,
  kwargsOfDict,
  len,
  lt,
  max2,
  mul,
  strIn,
  sub,
  tail,
  valueError,
} from "../../harness/pyops";
import type { ToolkitSpec } from "../../harness/toolkit";
import { AirportCode, Certificate, DirectFlight, FlightInfo, Passenger, Payment, Reservation, ReservationFlight, type AirlineDb } from "./model";

/** One episode's view of the DB: private top-level maps over the shared records, records copied on first write. */
export class AirlineState {
  readonly db: AirlineDb;
  constructor(pristine: AirlineDb) {
    this.db = { flights: new Map(pristine.flights), users: new Map(pristine.users), reservations: new Map(pristine.reservations) };
  }
  private writable(map: Map<string, TModel>, id: string): TModel {
    const rec = map.get(id)!;
    if (!Object.isFrozen(rec)) return rec;
    const copy = deepCopy(rec);
    map.set(id, copy);
    return copy;
  }
  writableUser = (id: string) => this.writable(this.db.users, id);
  writableReservation = (id: string) => this.writable(this.db.reservations, id);
  writableFlight = (id: string) => this.writable(this.db.flights, id);
}

const s = (v: TValue) => pyValueStr(v as PyValue);
const str = (m: TModel, f: string) => m[f] as string;

function getUser(st: AirlineState, userId: TValue): TModel {
  if (!hasKey(st.db.users, userId)) throw valueError(`User ${s(userId)} not found`);
  return st.db.users.get(userId as string)!;
}
function getReservation(st: AirlineState, id: TValue): TModel {
  if (!hasKey(st.db.reservations, id)) throw valueError(`Reservation ${s(id)} not found`);
  return st.db.reservations.get(id as string)!;
}
function getFlight(st: AirlineState, flightNumber: TValue): TModel {
  if (!hasKey(st.db.flights, flightNumber)) throw valueError(`Flight ${s(flightNumber)} not found`);
  return st.db.flights.get(flightNumber as string)!;
}
function getFlightInstance(st: AirlineState, flightNumber: TValue, date: TValue): TModel {
  const flight = getFlight(st, flightNumber);
  const dates = flight.dates as Map<string, TModel>;
  if (!hasKey(dates, date)) throw valueError(`Flight ${s(flightNumber)} not found on date ${s(date)}`);
  return dates.get(date as string)!;
}

const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"];
const NEW_PAYMENT_IDS = [3221322, 3221323, 3221324];
/** The airline's fixed clock (`_get_datetime`). */
export const AIRLINE_NOW = "2024-05-15T15:00:00";

function newReservationId(st: AirlineState): string {
  for (const id of NEW_RESERVATION_IDS) if (!st.db.reservations.has(id)) return id;
  throw valueError("Too many reservations");
}

function searchDirect(st: AirlineState, date: TValue, origin: TValue, destination: TValue, leaveAfter: string | null): TModel[] {
  const results: TModel[] = [];
  for (const flight of st.db.flights.values()) {
    // Python's `and` chain: each test runs only when the ones before it held.
    if (!(origin === null || eq(flight.origin!, origin))) continue;
    if (!(destination === null || eq(flight.destination!, destination))) continue;
    const dates = flight.dates as Map<string, TModel>;
    if (!hasKey(dates, date)) continue;
    const status = dates.get(date as string)!;
    if (status.status !== "available") continue;
    if (!(leaveAfter === null || str(flight, "scheduled_departure_time_est") >= leaveAfter)) continue;
    results.push(
      construct(DirectFlight, {
        flight_number: flight.flight_number!,
        origin: flight.origin!,
        destination: flight.destination!,
        status: "available",
        scheduled_departure_time_est: flight.scheduled_departure_time_est!,
        scheduled_arrival_time_est: flight.scheduled_arrival_time_est!,
        available_seats: status.available_seats!,
        prices: status.prices!,
      }),
    );
  }
  return results;
}

/** `_payment_for_update`: checks the method, deducts a gift card, and the Payment to record (None when the price is 0). */
function paymentForUpdate(st: AirlineState, user: TModel, paymentId: TValue, totalPrice: TValue): TModel | null {
  const methods = user.payment_methods as Map<string, TModel>;
  if (!hasKey(methods, paymentId)) throw valueError("Payment method not found");
  const method = methods.get(paymentId as string)!;
  if (method.source === "certificate") throw valueError("Certificate cannot be used to update reservation");
  else if (method.source === "gift_card" && lt(method.amount!, totalPrice)) throw valueError("Gift card balance is not enough");
  if (method.source === "gift_card") {
    const w = st.writableUser(str(user, "user_id"));
    const m = (w.payment_methods as Map<string, TModel>).get(paymentId as string)!;
    m.amount = sub(m.amount!, totalPrice);
  }
  return eq(totalPrice, 0n) ? null : construct(Payment, { payment_id: paymentId, amount: totalPrice });
}

/** `[Model(**x) for x in xs]` when every item is a dict, else the list as given. */
function modelsIfDicts(spec: typeof FlightInfo, v: TValue): TValue {
  if (!allDicts(v)) return v;
  return iter(v).map((x) => validateModel(spec, kwargsOfDict(x as PyDict)));
}

export const airlineTools: ToolkitSpec<AirlineState> = {
  className: "AirlineTools",
  tools: {
    book_reservation: {
      params: ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"].map((name) => ({ name })),
      run(st, a) {
        const flights = modelsIfDicts(FlightInfo, a.flights!);
        const passengers = modelsIfDicts(Passenger, a.passengers!);
        const paymentMethods = modelsIfDicts(Payment, a.payment_methods!);
        const user = getUser(st, a.user_id!);
        const reservationId = newReservationId(st);
        const reservation = construct(Reservation, {
          reservation_id: reservationId,
          user_id: a.user_id!,
          origin: a.origin!,
          destination: a.destination!,
          flight_type: a.flight_type!,
          cabin: a.cabin!,
          flights: [],
          passengers: deepCopy(passengers),
          payment_history: deepCopy(paymentMethods),
          created_at: AIRLINE_NOW,
          total_baggages: a.total_baggages!,
          nonfree_baggages: a.nonfree_baggages!,
          insurance: a.insurance!,
        });
        const cabin = a.cabin!;
        const passengerCount = len(passengers);
        let totalPrice: TValue = 0n;
        const booked: { flightNumber: string; date: string }[] = [];
        for (const info of iter(flights)) {
          const flightNumber = attr(info, "flight_number");
          const flight = getFlight(st, flightNumber);
          const date = attr(info, "date");
          const data = getFlightInstance(st, flightNumber, date);
          if (data.status !== "available") throw valueError(`Flight ${s(flightNumber)} not available on date ${s(date)}`);
          const seats = data.available_seats as Map<string, TValue>;
          const key = dictKey(cabin);
          if (key === undefined || !seats.has(key)) throw keyError(pyRepr(cabin));
          if (lt(seats.get(key)!, passengerCount)) throw valueError(`Not enough seats on flight ${s(flightNumber)}`);
          const price = (data.prices as Map<string, TValue>).get(key)!;
          (reservation.flights as TValue[]).push(construct(ReservationFlight, { origin: flight.origin!, destination: flight.destination!, flight_number: flightNumber, date, price }));
          booked.push({ flightNumber: flightNumber as string, date: date as string });
          totalPrice = add(totalPrice, mul(price, passengerCount));
        }
        if (eq(a.insurance!, "yes")) totalPrice = add(totalPrice, mul(30n, passengerCount));
        totalPrice = add(totalPrice, mul(50n, a.nonfree_baggages!));

        const methods = user.payment_methods as Map<string, TModel>;
        for (const pm of iter(paymentMethods)) {
          const paymentId = attr(pm, "payment_id");
          const amount = attr(pm, "amount");
          if (!hasKey(methods, paymentId)) throw valueError(`Payment method ${s(paymentId)} not found`);
          const method = methods.get(paymentId as string)!;
          if ((method.source === "gift_card" || method.source === "certificate") && lt(method.amount!, amount)) {
            throw valueError(`Not enough balance in payment method ${s(paymentId)}`);
          }
        }
        let totalPayment: TValue = 0n;
        for (const pm of iter(paymentMethods)) totalPayment = add(totalPayment, attr(pm, "amount"));
        if (!eq(totalPayment, totalPrice)) throw valueError(`Payment amount does not add up, total price is ${s(totalPrice)}, but paid ${s(totalPayment)}`);

        // The checks passed: deduct the payments.
        const userId = a.user_id as string;
        for (const pm of iter(paymentMethods)) {
          const paymentId = attr(pm, "payment_id") as string;
          const w = st.writableUser(userId).payment_methods as Map<string, TModel>;
          const method = w.get(paymentId);
          if (method === undefined) throw keyError(pyRepr(paymentId));
          if (method.source === "gift_card") method.amount = sub(method.amount!, attr(pm, "amount"));
          else if (method.source === "certificate") w.delete(paymentId);
        }
        for (const b of booked) {
          const data = (st.writableFlight(b.flightNumber).dates as Map<string, TModel>).get(b.date)!;
          const seats = data.available_seats as Map<string, TValue>;
          seats.set(cabin as string, sub(seats.get(cabin as string)!, passengerCount));
        }
        st.db.reservations.set(reservationId, reservation);
        (st.writableUser(userId).reservations as TValue[]).push(reservationId);
        return reservation;
      },
    },

    calculate: { params: [{ name: "expression" }], run: (_st, a) => pyCalculate(a.expression!) },

    cancel_reservation: {
      params: [{ name: "reservation_id" }],
      run(st, a) {
        getReservation(st, a.reservation_id!);
        const reservation = st.writableReservation(a.reservation_id as string);
        const history = reservation.payment_history as TModel[];
        const refunds = history.map((p) => construct(Payment, { payment_id: p.payment_id!, amount: sub(0n, p.amount!) }));
        history.push(...refunds);
        reservation.status = "cancelled";
        return reservation;
      },
    },

    get_reservation_details: { params: [{ name: "reservation_id" }], run: (st, a) => getReservation(st, a.reservation_id!) },

    get_user_details: { params: [{ name: "user_id" }], run: (st, a) => getUser(st, a.user_id!) },

    list_all_airports: {
      params: [],
      run: () =>
        [
          ["SFO", "San Francisco"], ["JFK", "New York"], ["LAX", "Los Angeles"], ["ORD", "Chicago"], ["DFW", "Dallas"],
          ["DEN", "Denver"], ["SEA", "Seattle"], ["ATL", "Atlanta"], ["MIA", "Miami"], ["BOS", "Boston"],
          ["PHX", "Phoenix"], ["IAH", "Houston"], ["LAS", "Las Vegas"], ["MCO", "Orlando"], ["EWR", "Newark"],
          ["CLT", "Charlotte"], ["MSP", "Minneapolis"], ["DTW", "Detroit"], ["PHL", "Philadelphia"], ["LGA", "LaGuardia"],
        ].map(([iata, city]) => construct(AirportCode, { iata: iata!, city: city! })),
    },

    search_direct_flight: {
      params: [{ name: "origin" }, { name: "destination" }, { name: "date" }],
      run: (st, a) => searchDirect(st, a.date!, a.origin!, a.destination!, null),
    },

    search_onestop_flight: {
      params: [{ name: "origin" }, { name: "destination" }, { name: "date" }],
      run(st, a) {
        const results: TValue[] = [];
        for (const first of searchDirect(st, a.date!, a.origin!, null, null)) {
          first.date = a.date!;
          const arrival = str(first, "scheduled_arrival_time_est");
          // Upstream builds the next day's key without zero padding ("2024-05-2"), which then matches no date.
          const date2: TValue = strIn("+1", arrival) ? `2024-05-${(intOfStr(tail(a.date!, 2)) + 1n).toString()}` : a.date!;
          for (const second of searchDirect(st, date2, first.destination!, a.destination!, arrival)) {
            second.date = date2;
            results.push([first, second]);
          }
        }
        return results;
      },
    },

    send_certificate: {
      params: [{ name: "user_id" }, { name: "amount" }],
      run(st, a) {
        const user = getUser(st, a.user_id!);
        for (const paymentId of NEW_PAYMENT_IDS.map((id) => `certificate_${id}`)) {
          if (!(user.payment_methods as Map<string, TModel>).has(paymentId)) {
            const certificate = construct(Certificate, { id: paymentId, amount: a.amount!, source: "certificate" });
            (st.writableUser(a.user_id as string).payment_methods as Map<string, TModel>).set(paymentId, certificate);
            return `Certificate ${paymentId} added to user ${s(a.user_id!)} with amount ${s(a.amount!)}.`;
          }
        }
        throw valueError("Too many certificates");
      },
    },

    transfer_to_human_agents: { params: [{ name: "summary" }], run: () => "Transfer successful" },

    update_reservation_baggages: {
      params: [{ name: "reservation_id" }, { name: "total_baggages" }, { name: "nonfree_baggages" }, { name: "payment_id" }],
      run(st, a) {
        const current = getReservation(st, a.reservation_id!);
        const user = getUser(st, current.user_id!);
        const totalPrice = mul(50n, max2(0n, sub(a.nonfree_baggages!, current.nonfree_baggages!)));
        const payment = paymentForUpdate(st, user, a.payment_id!, totalPrice);
        const reservation = st.writableReservation(a.reservation_id as string);
        if (payment !== null) (reservation.payment_history as TValue[]).push(payment);
        reservation.total_baggages = a.total_baggages!;
        reservation.nonfree_baggages = a.nonfree_baggages!;
        return reservation;
      },
    },

    update_reservation_flights: {
      params: [{ name: "reservation_id" }, { name: "cabin" }, { name: "flights" }, { name: "payment_id" }],
      run(st, a) {
        const flights = modelsIfDicts(FlightInfo, a.flights!);
        getReservation(st, a.reservation_id!);
        const reservation = st.writableReservation(a.reservation_id as string);
        const user = getUser(st, reservation.user_id!);
        const cabin = a.cabin!;
        const passengerCount = len(reservation.passengers!);
        let totalPrice: TValue = 0n;
        const kept: TValue[] = [];
        for (const info of iter(flights)) {
          const flightNumber = () => attr(info, "flight_number");
          const date = () => attr(info, "date");
          const match = (reservation.flights as TModel[]).find((rf) => eq(rf.flight_number!, flightNumber()) && eq(rf.date!, date()) && eq(cabin, reservation.cabin!));
          if (match) {
            totalPrice = add(totalPrice, mul(match.price!, passengerCount));
            kept.push(match);
            continue;
          }
          const flight = getFlight(st, flightNumber());
          const data = getFlightInstance(st, flightNumber(), date());
          if (data.status !== "available") throw valueError(`Flight ${s(flightNumber())} not available on date ${s(date())}`);
          const seats = data.available_seats as Map<string, TValue>;
          const key = dictKey(cabin);
          if (key === undefined || !seats.has(key)) throw keyError(pyRepr(cabin));
          if (lt(seats.get(key)!, passengerCount)) throw valueError(`Not enough seats on flight ${s(flightNumber())}`);
          const rf = construct(ReservationFlight, {
            flight_number: flightNumber(),
            date: date(),
            price: (data.prices as Map<string, TValue>).get(key)!,
            origin: flight.origin!,
            destination: flight.destination!,
          });
          totalPrice = add(totalPrice, mul(rf.price!, passengerCount));
          kept.push(rf);
        }
        let paid: TValue = 0n;
        for (const f of reservation.flights as TModel[]) paid = add(paid, f.price!);
        totalPrice = sub(totalPrice, mul(paid, passengerCount));
        const payment = paymentForUpdate(st, user, a.payment_id!, totalPrice);
        if (payment !== null) (reservation.payment_history as TValue[]).push(payment);
        reservation.flights = kept;
        reservation.cabin = cabin;
        return reservation;
      },
    },

    update_reservation_passengers: {
      params: [{ name: "reservation_id" }, { name: "passengers" }],
      run(st, a) {
        const passengers = modelsIfDicts(Passenger, a.passengers!);
        const current = getReservation(st, a.reservation_id!);
        if (!eq(len(passengers), len(current.passengers!))) throw valueError("Number of passengers does not match");
        const reservation = st.writableReservation(a.reservation_id as string);
        reservation.passengers = deepCopy(passengers);
        return reservation;
      },
    },

    get_flight_status: {
      params: [{ name: "flight_number" }, { name: "date" }],
      run: (st, a) => getFlightInstance(st, a.flight_number!, a.date!).status!,
    },
  },
};

