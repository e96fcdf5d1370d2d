/** Port of upstream `travel_booking.py` (TravelAPI). */
import { dictView, isdigit, pyDelItem, pyGetItem, pyIn, pyIter, pySetItem, startswith } from "../../../../lib/python/builtins";
import { PyDateTime, strptime } from "../../../../lib/python/datetime";
import { pyAdd, pyFloat, pyInt, pyMod, pyMul, pyRound, pySub, pyTrueDiv } from "../../../../lib/python/numbers";
import { noAttribute, pyCompare, pyDeepCopy, PyDict, pyEq, PyException, pyRepr, PySet, pyStr, PyTuple, valueError, type PyValue } from "../../../../lib/python/values";
import { longContextValue } from "../scope";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";
import { randomFromSeed } from "./message-api";

/** Upstream's `base_costs` table, in its order (the long-context price list follows it). */
const BASE_COSTS: [string, string, bigint][] = (
  [
    ["SFO", "LAX", 200], ["SFO", "JFK", 500], ["SFO", "ORD", 400], ["SFO", "BOS", 450], ["SFO", "RMS", 300], ["SFO", "SBK", 350],
    ["SFO", "MPC", 370], ["SFO", "SVP", 320], ["SFO", "SHD", 330], ["SFO", "SSV", 340], ["SFO", "OKD", 360], ["SFO", "WLB", 310],
    ["SFO", "CRH", 380], ["SFO", "ATV", 390], ["SFO", "PHV", 420], ["SFO", "GFD", 430], ["SFO", "CIA", 700], ["LAX", "SFO", 100],
    ["LAX", "JFK", 600], ["LAX", "ORD", 500], ["LAX", "BOS", 550], ["LAX", "RMS", 310], ["LAX", "SBK", 320], ["LAX", "MPC", 330],
    ["LAX", "SVP", 340], ["LAX", "SHD", 350], ["LAX", "SSV", 360], ["LAX", "OKD", 370], ["LAX", "WLB", 380], ["LAX", "CRH", 390],
    ["LAX", "ATV", 400], ["LAX", "PHV", 410], ["LAX", "GFD", 420], ["LAX", "HND", 430], ["JFK", "ORD", 300], ["JFK", "BOS", 250],
    ["JFK", "RMS", 450], ["JFK", "SBK", 460], ["JFK", "MPC", 470], ["JFK", "SVP", 480], ["JFK", "SHD", 490], ["JFK", "SSV", 500],
    ["JFK", "OKD", 510], ["JFK", "WLB", 520], ["JFK", "CRH", 530], ["JFK", "ATV", 540], ["JFK", "PHV", 550], ["JFK", "GFD", 560],
    ["JFK", "LAX", 570], ["JFK", "HND", 800], ["JFK", "PVG", 950], ["JFK", "PEK", 1000], ["ORD", "LAX", 180], ["ORD", "BOS", 200],
    ["ORD", "RMS", 350], ["ORD", "SBK", 360], ["ORD", "MPC", 370], ["ORD", "SVP", 380], ["ORD", "SHD", 390], ["ORD", "SSV", 400],
    ["ORD", "OKD", 410], ["ORD", "WLB", 420], ["ORD", "CRH", 430], ["ORD", "ATV", 440], ["ORD", "PHV", 450], ["ORD", "GFD", 460],
    ["BOS", "RMS", 400], ["BOS", "SBK", 410], ["BOS", "MPC", 420], ["BOS", "SVP", 430], ["BOS", "SHD", 440], ["BOS", "SSV", 450],
    ["BOS", "OKD", 460], ["BOS", "WLB", 470], ["BOS", "CRH", 480], ["BOS", "ATV", 490], ["BOS", "PHV", 500], ["BOS", "GFD", 510],
    ["RMS", "BOS", 200], ["RMS", "JFK", 210], ["RMS", "SBK", 220], ["RMS", "MPC", 230], ["RMS", "SVP", 240], ["RMS", "SHD", 250],
    ["RMS", "SSV", 260], ["RMS", "OKD", 270], ["RMS", "WLB", 280], ["RMS", "CRH", 290], ["RMS", "ATV", 300], ["RMS", "PHV", 310],
    ["RMS", "GFD", 320], ["RMS", "LAX", 330], ["SBK", "MPC", 200], ["SBK", "SVP", 210], ["SBK", "SHD", 220], ["SBK", "SSV", 230],
    ["SBK", "OKD", 240], ["SBK", "WLB", 250], ["SBK", "CRH", 260], ["SBK", "ATV", 270], ["SBK", "PHV", 280], ["SBK", "GFD", 290],
    ["MPC", "SVP", 210], ["MPC", "SHD", 220], ["MPC", "SSV", 230], ["MPC", "OKD", 240], ["MPC", "WLB", 250], ["MPC", "CRH", 260],
    ["MPC", "ATV", 270], ["MPC", "PHV", 280], ["MPC", "GFD", 290], ["SVP", "SHD", 230], ["SVP", "SSV", 240], ["SVP", "OKD", 250],
    ["SVP", "WLB", 260], ["SVP", "CRH", 270], ["SVP", "ATV", 280], ["SVP", "PHV", 290], ["SVP", "GFD", 300], ["SHD", "SSV", 220],
    ["SHD", "OKD", 230], ["SHD", "WLB", 240], ["SHD", "CRH", 250], ["SHD", "ATV", 260], ["SHD", "PHV", 270], ["SHD", "GFD", 280],
    ["SSV", "OKD", 240], ["SSV", "WLB", 250], ["SSV", "CRH", 260], ["SSV", "ATV", 270], ["SSV", "PHV", 280], ["SSV", "GFD", 290],
    ["OKD", "WLB", 230], ["OKD", "CRH", 240], ["OKD", "ATV", 250], ["OKD", "PHV", 260], ["OKD", "GFD", 270], ["WLB", "CRH", 250],
    ["WLB", "ATV", 260], ["WLB", "PHV", 270], ["WLB", "GFD", 280], ["CRH", "ATV", 240], ["CRH", "PHV", 250], ["CRH", "GFD", 260],
    ["CRH", "SFO", 270], ["CRH", "RMS", 280], ["CRH", "HKG", 290], ["CRH", "JFK", 300], ["ATV", "PHV", 230], ["ATV", "GFD", 240],
    ["PHV", "GFD", 220], ["LHR", "CDG", 100], ["OKD", "LAX", 220],
  ] as [string, string, number][]
).map(([a, b, c]) => [a, b, BigInt(c)]);

const AIRPORTS = ["RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG", "CIA", "CRH", "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS"];

const EXCHANGE_RATES: [string, string, PyValue][] = [
  ["USD", "RMB", 7n],
  ["USD", "EUR", 0.8],
  ["USD", "JPY", 110n],
  ["USD", "GBP", 0.7],
  ["USD", "CAD", 1.3],
  ["USD", "AUD", 1.4],
  ["USD", "INR", 70n],
  ["USD", "RUB", 60n],
  ["USD", "BRL", 3.8],
  ["USD", "MXN", 20n],
];

const AIRPORT_BY_CITY: [string, string][] = [
  ["Rivermist", "RMS"], ["Stonebrook", "SBK"], ["Maplecrest", "MPC"], ["Silverpine", "SVP"], ["Shadowridge", "SHD"], ["London", "LHR"],
  ["Paris", "CDG"], ["Sunset Valley", "SSV"], ["Oakendale", "OKD"], ["Willowbend", "WLB"], ["Crescent Hollow", "CRH"],
  ["Autumnville", "ATV"], ["Pinehaven", "PHV"], ["Greenfield", "GFD"], ["San Francisco", "SFO"], ["Los Angeles", "LAX"],
  ["New York", "JFK"], ["Chicago", "ORD"], ["Boston", "BOS"], ["Beijing", "PEK"], ["Hong Kong", "HKG"], ["Rome", "CIA"], ["Tokyo", "HND"],
];

export class TravelAPI extends Backend {
  readonly className = "TravelAPI";
  creditCardList: PyValue = new PyDict();
  bookingRecord: PyValue = new PyDict();
  accessToken: PyValue = null;
  tokenType: PyValue = null;
  tokenExpiresIn: PyValue = null;
  tokenScope: PyValue = null;
  userFirstName: PyValue = null;
  userLastName: PyValue = null;
  budgetLimit: PyValue = null;
  longContext = false;
  private random = randomFromSeed(141053n, "TravelAPI");
  private flightCostLookup = new PyDict();

  loadScenario(scenario: PyDict, longContext: boolean): void {
    this.random = randomFromSeed(scenarioGet(scenario, "random_seed", 141053n), "TravelAPI");
    this.creditCardList = scenarioGet(scenario, "credit_card_list", new PyDict());
    this.bookingRecord = scenarioGet(scenario, "booking_record", new PyDict());
    this.accessToken = scenarioGet(scenario, "access_token", null);
    this.tokenType = scenarioGet(scenario, "token_type", null);
    this.tokenExpiresIn = scenarioGet(scenario, "token_expires_in", null);
    this.tokenScope = scenarioGet(scenario, "token_scope", null);
    this.userFirstName = scenarioGet(scenario, "user_first_name", null);
    this.userLastName = scenarioGet(scenario, "user_last_name", null);
    this.budgetLimit = scenarioGet(scenario, "budget_limit", null);
    this.longContext = longContext;
    if (longContext) {
      // Existing entries win; the extension objects themselves are shared (by reference) as upstream does.
      const data = this.scope.longContext();
      for (const [id, info] of longContextValue(data, "CREDIT_CARD_EXTENSION", "dict").entries()) {
        if (!pyIn(id, this.creditCardList)) pySetItem(this.creditCardList, id, info);
      }
      for (const [id, info] of longContextValue(data, "BOOKING_RECORD_EXTENSION", "dict").entries()) {
        if (!pyIn(id, this.bookingRecord)) pySetItem(this.bookingRecord, id, info);
      }
    }
  }

  publicState(): [string, PyValue][] {
    return [
      ["credit_card_list", this.creditCardList],
      ["booking_record", this.bookingRecord],
      ["access_token", this.accessToken],
      ["token_type", this.tokenType],
      ["token_expires_in", this.tokenExpiresIn],
      ["token_scope", this.tokenScope],
      ["user_first_name", this.userFirstName],
      ["user_last_name", this.userLastName],
      ["budget_limit", this.budgetLimit],
      ["long_context", this.longContext],
    ];
  }

  private tokenExpired(): boolean {
    return pyEq(this.tokenExpiresIn, 0n);
  }

  /** get_flight_cost, shared by book_flight (raises ValueError like upstream). */
  private flightCost(travelFrom: PyValue, travelTo: PyValue, travelDate: PyValue, travelClass: PyValue): PyDict {
    const pair = new PyTuple([travelFrom, travelTo]);
    const base = BASE_COSTS.find(([a, b]) => pyEq(pair, new PyTuple([a, b])));
    // `travel_pair in base_costs` hashes the pair first.
    pyIn(pair, new PyDict());
    if (!base) throw valueError("No available route for the given airports.");
    let factor: bigint;
    if (pyEq(travelClass, "economy")) factor = 1n;
    else if (pyEq(travelClass, "business")) factor = 2n;
    else if (pyEq(travelClass, "first")) factor = 5n;
    else throw valueError("Invalid travel class. Options are: economy, business, first.");
    let digitSum: PyValue = 0n;
    for (const ch of pyIter(travelDate)) if (isdigit(strChar(ch))) digitSum = pyAdd(digitSum, pyInt(ch));
    const multiplier = pyEq(pyMod(digitSum, 2n), 0n) ? 2n : 1n;
    const costList: PyValue[] = [];
    if (this.longContext) {
      this.flightCostLookup = new PyDict();
      for (const [a, b, c] of BASE_COSTS) {
        const cost = Number(c * factor * multiplier);
        this.flightCostLookup.set(`${a}|${b}|${pyStr(travelClass)}|${pyStr(travelDate)}`, dict({ cost }));
        costList.push(cost);
      }
    } else {
      const cost = Number(base[2] * factor * multiplier);
      costList.push(cost);
      this.flightCostLookup = PyDict.of([[`${pyStr(travelFrom)}|${pyStr(travelTo)}|${pyStr(travelClass)}|${pyStr(travelDate)}`, dict({ cost })]]);
    }
    return dict({ travel_cost_list: costList });
  }

  protected readonly methods: Record<string, MethodSpec> = {
    authenticate_travel: method(
      ["client_id", "client_secret", "refresh_token", "grant_type", "user_first_name", "user_last_name"],
      (_clientId, _secret, _refresh, grantType, firstName, lastName) => {
        this.tokenExpiresIn = 2n;
        this.accessToken = this.random.randint(100000n, 999999n).toString();
        this.tokenType = "Bearer";
        this.tokenScope = grantType;
        this.userFirstName = firstName;
        this.userLastName = lastName;
        return dict({ expires_in: 2n, access_token: this.accessToken, token_type: "Bearer", scope: grantType });
      },
    ),

    travel_get_login_status: method([], () => {
      const notLoggedIn = this.tokenExpiresIn === null || pyEq(this.tokenExpiresIn, 0n);
      return dict({ status: !notLoggedIn });
    }),

    get_budget_fiscal_year: method([["lastModifiedAfter", null], ["includeRemoved", null]], () => dict({ budget_fiscal_year: "2018" })),

    register_credit_card: method(
      ["access_token", "card_number", "expiration_date", "cardholder_name", "card_verification_number"],
      (accessToken, cardNumber, expirationDate, cardholderName, cvv) => {
        if (this.tokenExpiresIn === null) return dict({ error: "Token not initialized" });
        if (this.tokenExpired()) return dict({ error: "Token expired" });
        if (!pyEq(accessToken, this.accessToken)) return dict({ error: "Invalid access token" });
        if (pyIn(cardNumber, this.creditCardList)) return dict({ error: "Card already registered" });
        const cardId = this.random.randint(100000000000n, 999999999999n).toString();
        pySetItem(
          this.creditCardList,
          cardId,
          dict({
            card_number: cardNumber,
            expiration_date: expirationDate,
            cardholder_name: cardholderName,
            card_verification_number: cvv,
            balance: this.random.randint(10000n, 99999n),
          }),
        );
        return dict({ card_id: cardId });
      },
    ),

    get_flight_cost: method(["travel_from", "travel_to", "travel_date", "travel_class"], (from, to, date, travelClass) =>
      this.flightCost(from, to, date, travelClass),
    ),

    get_credit_card_balance: method(["access_token", "card_id"], (accessToken, cardId) => {
      if (this.tokenExpired()) return dict({ error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ error: "Invalid access token" });
      if (!pyIn(cardId, this.creditCardList)) {
        return dict({ error: "Card not registered. Here are a list of card_id's: " + pyReprList(dictView(this.creditCardList, "keys")) });
      }
      return dict({ card_balance: pyGetItem(pyGetItem(this.creditCardList, cardId), "balance") });
    }),

    book_flight: method(["access_token", "card_id", "travel_date", "travel_from", "travel_to", "travel_class"], (accessToken, cardId, travelDate, travelFrom, travelTo, travelClass) => {
      if (this.tokenExpired()) return dict({ booking_status: false, error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ booking_status: false, error: "Invalid access token" });
      if (!pyIn(cardId, this.creditCardList)) return dict({ booking_status: false, error: "Card not registered" });
      const card = pyGetItem(this.creditCardList, cardId);
      if (!pyIn("balance", card)) return dict({ booking_status: false, error: "Balance not found" });
      if (!pyIn(travelFrom, AIRPORTS)) return dict({ booking_status: false, error: `Invalid departure airport code: ${pyStr(travelFrom)}` });
      if (!pyIn(travelTo, AIRPORTS)) return dict({ booking_status: false, error: `Invalid destination airport code: ${pyStr(travelTo)}` });
      try {
        strptime(travelDate, "%Y-%m-%d");
      } catch (err) {
        if (err instanceof PyException && err.pyType === "ValueError") return dict({ booking_status: false, error: "Invalid date format. Use YYYY-MM-DD." });
        throw err;
      }
      if (!pyIn(travelClass, PySet.of(["economy", "business", "first"]))) {
        // Upstream prints a Python set, whose order depends on str hashing; this is its insertion order.
        return dict({ booking_status: false, error: "Invalid travel class. Must be one of {'economy', 'business', 'first'}" });
      }
      let travelCost: PyValue;
      try {
        this.flightCost(travelFrom, travelTo, travelDate, travelClass);
        const key = `${pyStr(travelFrom)}|${pyStr(travelTo)}|${pyStr(travelClass)}|${pyStr(travelDate)}`;
        const entry = this.flightCostLookup.get(key);
        if (entry === undefined) return dict({ booking_status: false, error: "No available route for the given parameters" });
        travelCost = pyGetItem(entry, "cost");
      } catch (err) {
        if (err instanceof PyException && err.pyType === "ValueError") return dict({ booking_status: false, error: err.pyMessage });
        throw err;
      }
      if (pyCompare(pyGetItem(card, "balance"), "<", travelCost)) return dict({ booking_status: false, error: "Insufficient funds" });
      if (this.budgetLimit !== null && pyCompare(pyGetItem(card, "balance"), "<", this.budgetLimit)) {
        return dict({ booking_status: false, error: "Balance is less than budget limit" });
      }
      pySetItem(card, "balance", pySub(pyGetItem(card, "balance"), travelCost));
      const bookingId = this.random.randint(1000000n, 9999999n).toString();
      const transactionId = this.random.randint(10000000n, 99999999n).toString();
      pySetItem(
        this.bookingRecord,
        bookingId,
        dict({
          card_id: cardId,
          travel_date: travelDate,
          travel_from: travelFrom,
          travel_to: travelTo,
          travel_class: travelClass,
          travel_cost: travelCost,
          transaction_id: transactionId,
        }),
      );
      return dict({
        booking_id: bookingId,
        transaction_id: transactionId,
        booking_status: true,
        booking_history: this.longContext ? this.bookingRecord : new PyDict(),
      });
    }),

    retrieve_invoice: method(["access_token", ["booking_id", null], ["insurance_id", null]], (accessToken, bookingId) => {
      if (this.tokenExpired()) return dict({ error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ error: "Invalid access token" });
      if (!pyIn(bookingId, this.bookingRecord)) return dict({ error: "Booking not found" });
      const booking = pyGetItem(this.bookingRecord, bookingId);
      const field = (name: string) => pyGetItem(booking, name);
      return dict({
        invoice: dict({
          booking_id: bookingId,
          travel_date: field("travel_date"),
          travel_from: field("travel_from"),
          travel_to: field("travel_to"),
          travel_class: field("travel_class"),
          travel_cost: field("travel_cost"),
          transaction_id: field("transaction_id"),
        }),
      });
    }),

    get_booking_history: method(["access_token"], (accessToken) => {
      if (this.tokenExpired()) return dict({ error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ error: "Invalid access token" });
      return dict({ booking_history: pyDeepCopy(this.bookingRecord) });
    }),

    list_all_airports: method([], () => [...AIRPORTS]),

    cancel_booking: method(["access_token", "booking_id"], (accessToken, bookingId) => {
      if (this.tokenExpired()) return dict({ cancel_status: false, error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ cancel_status: false, error: "Invalid access token" });
      if (!pyIn(bookingId, this.bookingRecord)) return dict({ cancel_status: false, error: "Booking not found" });
      const booking = pyGetItem(this.bookingRecord, bookingId);
      const cardId = pyGetItem(booking, "card_id");
      const cost = pyGetItem(booking, "travel_cost");
      const card = pyGetItem(this.creditCardList, cardId);
      pySetItem(card, "balance", pyAdd(pyGetItem(card, "balance"), cost));
      pyDelItem(this.bookingRecord, bookingId);
      return dict({ cancel_status: true });
    }),

    compute_exchange_rate: method(["base_currency", "target_currency", "value"], (base, target, value) => {
      for (const [from, to, rate] of EXCHANGE_RATES) {
        if (pyEq(base, from) && pyEq(target, to)) return dict({ exchanged_value: pyFloat(pyMul(value, rate)) });
        if (pyEq(base, to) && pyEq(target, from)) return dict({ exchanged_value: pyRound(pyTrueDiv(value, rate), 2n) });
      }
      throw valueError("No available exchange rate for the given currencies.");
    }),

    verify_traveler_information: method(["first_name", "last_name", "date_of_birth", "passport_number"], (firstName, lastName, dateOfBirth, passport) => {
      if (!pyEq(this.userFirstName, firstName) || !pyEq(this.userLastName, lastName)) {
        return dict({
          verification_status: false,
          verification_failure:
            "Cannot book flight information for another user." +
            `Expected ${pyStr(this.userFirstName)} ${pyStr(this.userLastName)}, got ${pyStr(firstName)} ${pyStr(lastName)}`,
        });
      }
      let age: number;
      try {
        const birth = strptime(dateOfBirth, "%Y-%m-%d");
        const today = PyDateTime.now(this.scope.now());
        const beforeBirthday = today.month < birth.month || (today.month === birth.month && today.day < birth.day);
        age = today.year - birth.year - (beforeBirthday ? 1 : 0);
      } catch (err) {
        if (err instanceof PyException && err.pyType === "ValueError") {
          return dict({ verification_status: false, verification_failure: "Invalid date of birth format. Please use YYYY-MM-DD." });
        }
        throw err;
      }
      if (age < 18) return dict({ verification_status: false, verification_failure: "Traveler must be at least 18 years old." });
      if (!startswith(strArg(passport, "startswith"), "US")) {
        return dict({ verification_status: false, verification_failure: "Passport must be issued by the United States." });
      }
      return dict({ verification_status: true });
    }),

    set_budget_limit: method(["access_token", "budget_limit"], (accessToken, budgetLimit) => {
      if (this.tokenExpired()) return dict({ error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ error: "Invalid access token" });
      const limit = pyFloat(budgetLimit);
      this.budgetLimit = limit;
      return dict({ budget_limit: limit });
    }),

    get_nearest_airport_by_city: method(["location"], (location) => {
      const map = PyDict.of(AIRPORT_BY_CITY);
      pyIn(location, map);
      return dict({ nearest_airport: map.get(location) ?? "Unknown" });
    }),

    purchase_insurance: method(["access_token", "insurance_type", "booking_id", "insurance_cost", "card_id"], (accessToken, _type, bookingId, insuranceCost, cardId) => {
      if (this.tokenExpired()) return dict({ insurance_status: false, error: "Token expired" });
      if (!pyEq(accessToken, this.accessToken)) return dict({ insurance_status: false, error: "Invalid access token" });
      if (this.budgetLimit !== null && pyCompare(this.budgetLimit, "<", insuranceCost)) return dict({ insurance_status: false, error: "Exceeded budget limit" });
      if (!pyIn(bookingId, this.bookingRecord)) return dict({ insurance_status: false, error: "Booking not found" });
      if (!pyIn(cardId, this.creditCardList)) return dict({ insurance_status: false, error: "Credit card not registered" });
      const card = pyGetItem(this.creditCardList, cardId);
      pySetItem(card, "balance", pySub(pyGetItem(card, "balance"), insuranceCost));
      return dict({ insurance_id: this.random.randint(100000000n, 999999999n).toString(), insurance_status: true });
    }),

    contact_customer_support: method(["booking_id", "message"], (bookingId) => {
      if (!pyIn(bookingId, this.bookingRecord)) return dict({ error: "Booking not found" });
      return dict({
        customer_support_message: "Thank you for contacting customer support. Your message has been received and we will get back to you shortly.",
      });
    }),

    get_all_credit_cards: method([], () => dict({ credit_card_list: this.creditCardList })),
  };
}

const pyReprList = (items: PyValue[]) => pyRepr(items);

/** A single character from iterating a str (other iterables give their items). */
function strChar(ch: PyValue): string {
  if (typeof ch !== "string") throw noAttribute(ch, "isdigit");
  return ch;
}

function strArg(v: PyValue, method: string): string {
  if (typeof v !== "string") throw noAttribute(v, method);
  return v;
}

