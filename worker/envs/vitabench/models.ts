/**
 * Upstream's pydantic models (vita/data_model/tasks.py, domains/<d>/data_model.py @ 96f3b85) as Python objects: each
 * keeps its fields as Python values (lib/python), validates its input the way pydantic's lax mode does (float fields
 * take ints and numeric strings, int fields take integral floats, unknown keys are dropped), writes upstream's own
 * `__repr__` / `__str__` texts, and dumps as `model_dump()` does (fields in declaration order, parent fields first).
 *
 * Attribute assignment after construction is not validated (pydantic's default), so a tool that stores an argument
 * keeps its Python type, as upstream does. Locations and products register themselves in the episode's registries
 * on construction (upstream's thread-local ThreadSafeBase registries), see registry.ts.
 */
import { PyDict, PyObject, PyTuple, pyRepr, pyStr, type PyValue } from "../../../lib/python/values";

/**
 * Where constructed models register themselves (upstream's ThreadSafeBase registries; `Registries` in
 * ./registry.ts is the one implementation). Declared here so the models need nothing of the registry.
 */
export interface ModelRegistry {
  registerLocation(m: PyModel): void;
  registerProduct(m: PyModel): void;
}

/** A data error: the JSON path inside the task file and what pydantic would refuse. */
export class ModelError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

type Kind =
  | "str"
  | "float"
  | "int"
  | "bool"
  | "any"
  | { optional: Kind }
  | { list: Kind }
  | { dict: Kind }
  | { floatPair: true }
  | { literal: readonly string[] }
  | { model: ModelClass }
  | { strOrList: true };

interface ModelClass {
  readonly pyName: string;
  readonly fields: readonly FieldSpec[];
  build(values: Map<string, PyValue>, reg: ModelRegistry): PyModel;
}

interface FieldSpec {
  name: string;
  kind: Kind;
  /** Absent: required. */
  default?: () => PyValue;
}

const isIntegral = (n: number) => Number.isFinite(n) && Math.floor(n) === n;

function numericString(s: string): number | undefined {
  const t = s.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) && !/^[+-]?(inf|infinity|nan)$/i.test(t)) return undefined;
  return Number(t.replace(/inf(inity)?/i, "Infinity"));
}

/** pydantic lax-mode validation of one value. */
function validate(v: PyValue, kind: Kind, path: string, reg: ModelRegistry): PyValue {
  if (typeof kind === "string") {
    switch (kind) {
      case "any":
        return v;
      case "str":
        if (typeof v !== "string") throw new ModelError(path, "Input should be a valid string");
        return v;
      case "float": {
        if (typeof v === "number") return v;
        if (typeof v === "bigint") return Number(v);
        if (typeof v === "boolean") return v ? 1 : 0;
        if (typeof v === "string") {
          const n = numericString(v);
          if (n !== undefined) return n;
        }
        throw new ModelError(path, "Input should be a valid number");
      }
      case "int": {
        if (typeof v === "bigint") return v;
        if (typeof v === "boolean") return v ? 1n : 0n;
        if (typeof v === "number" && isIntegral(v)) return BigInt(v);
        if (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v)) return BigInt(v.trim());
        throw new ModelError(path, "Input should be a valid integer");
      }
      case "bool": {
        if (typeof v === "boolean") return v;
        if (v === 0n || v === 1n) return v === 1n;
        if (typeof v === "string" && ["true", "false", "yes", "no", "on", "off", "1", "0", "t", "f", "y", "n"].includes(v.toLowerCase()))
          return ["true", "yes", "on", "1", "t", "y"].includes(v.toLowerCase());
        throw new ModelError(path, "Input should be a valid boolean");
      }
    }
  }
  if ("optional" in kind) return v === null ? null : validate(v, kind.optional, path, reg);
  if ("list" in kind) {
    const items = Array.isArray(v) ? v : v instanceof PyTuple ? [...v.items] : undefined;
    if (!items) throw new ModelError(path, "Input should be a valid list");
    return items.map((x, i) => validate(x, kind.list, `${path}[${i}]`, reg));
  }
  if ("dict" in kind) {
    if (!(v instanceof PyDict)) throw new ModelError(path, "Input should be a valid dictionary");
    const out = new PyDict();
    for (const [k, x] of v.entries()) {
      if (typeof k !== "string") throw new ModelError(path, "keys should be strings");
      out.set(k, validate(x, kind.dict, `${path}.${k}`, reg));
    }
    return out;
  }
  if ("floatPair" in kind) {
    const items = Array.isArray(v) ? v : v instanceof PyTuple ? [...v.items] : undefined;
    if (!items || items.length !== 2) throw new ModelError(path, "Input should be a valid tuple of 2 numbers");
    return new PyTuple(items.map((x, i) => validate(x, "float", `${path}[${i}]`, reg)));
  }
  if ("literal" in kind) {
    if (typeof v !== "string" || !kind.literal.includes(v)) throw new ModelError(path, `Input should be ${kind.literal.map((x) => `'${x}'`).join(", ")}`);
    return v;
  }
  if ("strOrList" in kind) {
    // StoreProduct.attributes: Union[str, List] with a validator joining a list by ", ".
    if (typeof v === "string") return v;
    if (Array.isArray(v)) {
      if (!v.every((x) => typeof x === "string")) throw new ModelError(path, "attributes: sequence item: expected str instance");
      return v.join(", ");
    }
    throw new ModelError(path, "Input should be a valid string or list");
  }
  if (v instanceof PyModel && v.cls === kind.model) return v; // revalidate_instances="never"
  return construct(kind.model, v, path, reg);
}

/** `Model.model_validate(data)` (or `Model(**data)`): fields in declaration order, extras ignored. */
export function construct(cls: ModelClass, data: PyValue, path: string, reg: ModelRegistry): PyModel {
  if (!(data instanceof PyDict)) throw new ModelError(path, `Input should be a valid dictionary or instance of ${cls.pyName}`);
  const values = new Map<string, PyValue>();
  for (const f of cls.fields) {
    const given = data.get(f.name);
    if (given === undefined) {
      if (!f.default) throw new ModelError(`${path}.${f.name}`, "Field required");
      values.set(f.name, f.default());
    } else values.set(f.name, validate(given, f.kind, `${path}.${f.name}`, reg));
  }
  return cls.build(values, reg);
}

/** Keyword construction from tool code: `Model(a=1, b=...)`. */
export function make(cls: ModelClass, fields: Record<string, PyValue>, reg: ModelRegistry): PyModel {
  return construct(cls, PyDict.fromObject(fields), cls.pyName, reg);
}

/** A pydantic model instance. */
export class PyModel extends PyObject {
  constructor(
    readonly cls: ModelClass,
    readonly f: Map<string, PyValue>,
    private readonly texts: { repr: (m: PyModel) => string; str?: (m: PyModel) => string },
  ) {
    super();
  }
  get pyType(): string {
    return this.cls.pyName;
  }
  get(name: string): PyValue {
    if (!this.f.has(name)) throw new Error(`${this.cls.pyName} has no field ${name}`);
    return this.f.get(name)!;
  }
  set(name: string, value: PyValue): void {
    this.f.set(name, value);
  }
  has(name: string): boolean {
    return this.f.has(name);
  }
  s(name: string): string {
    return this.get(name) as string;
  }
  repr(): string {
    return this.texts.repr(this);
  }
  /** BaseModel.__str__ (`a='x' b=1.0`) unless the model defines its own. */
  str(): string {
    return this.texts.str ? this.texts.str(this) : [...this.f].map(([k, v]) => `${k}=${pyRepr(v)}`).join(" ");
  }
  /** `model_dump()`: nested models as dicts, in field order. */
  dump(): PyDict {
    const out = new PyDict();
    for (const [k, v] of this.f) out.set(k, dumpValue(v));
    return out;
  }
}

export function dumpValue(v: PyValue): PyValue {
  if (v instanceof PyModel) return v.dump();
  if (Array.isArray(v)) return v.map(dumpValue);
  if (v instanceof PyTuple) return new PyTuple(v.items.map(dumpValue));
  if (v instanceof PyDict) return PyDict.of(v.entries().map(([k, x]) => [k, dumpValue(x)] as const));
  return v;
}

/** f-string `{value}` = format(value, "") = str(value). */
const fs = (m: PyModel, name: string) => pyStr(m.get(name));
const rp = (m: PyModel, name: string) => pyRepr(m.get(name));

function model(
  pyName: string,
  fields: FieldSpec[],
  texts: { repr: (m: PyModel) => string; str?: (m: PyModel) => string },
  after?: (m: PyModel, reg: ModelRegistry) => void,
): ModelClass {
  const cls: ModelClass = {
    pyName,
    fields,
    build(values, reg) {
      const m = new PyModel(cls, values, texts);
      after?.(m, reg);
      return m;
    },
  };
  return cls;
}

const req = (name: string, kind: Kind): FieldSpec => ({ name, kind });
const opt = (name: string, kind: Kind, value: PyValue | (() => PyValue)): FieldSpec => ({
  name,
  kind,
  default: typeof value === "function" ? value : () => value,
});

// ---------------------------------------------------------------------------------------------------------------
// vita/data_model/tasks.py

export const Location = model(
  "Location",
  [req("address", "str"), req("longitude", "float"), req("latitude", "float")],
  { repr: (m) => `${fs(m, "address")} longitude:${fs(m, "longitude")},latitude:${fs(m, "latitude")}` },
  (m, reg) => reg.registerLocation(m),
);

export const Weather = model(
  "Weather",
  [req("city", "str"), req("category", "str"), req("datetime", "str"), req("temperature", { floatPair: true }), req("humidity", "float")],
  {
    repr: (m) => {
      const t = (m.get("temperature") as PyTuple).items;
      return `city: ${fs(m, "city")}, weather: ${fs(m, "category")}, datetime: ${fs(m, "datetime")}, temperature: ${pyStr(t[0])}~${pyStr(t[1])}, humidity: ${fs(m, "humidity")}`;
    },
  },
);

export const ORDER_TYPES = ["delivery", "instore", "hotel", "attraction", "flight", "train"] as const;
const ORDER_STATUS = ["unpaid", "paid", "unconsumed", "consumed", "processed", "in-progress", "delivered", "cancelled"] as const;
const ID_STR: Record<string, string> = { delivery: "store_id", instore: "shop_id", hotel: "hotel_id", attraction: "attraction_id", flight: "flight_id", train: "train_id" };

function orderHead(m: PyModel): string {
  return `Order(order_id:${fs(m, "order_id")}, order_type:${fs(m, "order_type")}, user_id:${fs(m, "user_id")}, ${ID_STR[m.s("order_type")]}:${fs(m, "store_id")}, `;
}

export const Order = model(
  "Order",
  [
    req("order_id", "str"),
    req("order_type", { literal: ORDER_TYPES }),
    req("user_id", "str"),
    req("store_id", "str"),
    opt("note", { optional: "str" }, ""),
    opt("location", { optional: { model: Location } }, null),
    opt("dispatch_time", { optional: "str" }, ""),
    opt("shipping_time", { optional: "float" }, 0),
    opt("delivery_time", { optional: "str" }, ""),
    opt("total_price", "float", 0),
    opt("create_time", "str", ""),
    opt("update_time", "str", ""),
    opt("status", { literal: ORDER_STATUS }, "unpaid"),
    opt("products", { list: "any" }, () => []),
  ],
  {
    str: (m) =>
      orderHead(m) + `total_price:${fs(m, "total_price")}, create_time:${fs(m, "create_time")}, update_time:${fs(m, "update_time")}, status:${fs(m, "status")}, `,
    repr: (m) =>
      m.s("order_type") === "delivery"
        ? orderHead(m) +
          `dispatch_time:${fs(m, "dispatch_time")}, shipping_time:${fs(m, "shipping_time")}, delivery_time:${fs(m, "delivery_time")}, total_price:${fs(m, "total_price")}, create_time:${fs(m, "create_time")}, update_time:${fs(m, "update_time")}, note:${fs(m, "note")}, status:${fs(m, "status")}, products:${fs(m, "products")})`
        : orderHead(m) +
          `total_price:${fs(m, "total_price")}, create_time:${fs(m, "create_time")}, update_time:${fs(m, "update_time")}, status:${fs(m, "status")}, products:${fs(m, "products")})`,
  },
  (m) => {
    // Order.__init__: an order without update_time takes its create_time.
    if (!m.get("update_time") && m.get("create_time")) m.set("update_time", m.get("create_time"));
  },
);

const productBase = (): FieldSpec[] => [opt("product_id", "str", ""), opt("price", "float", 0), opt("quantity", { optional: "int" }, 0n)];
const registerProduct = (m: PyModel, reg: ModelRegistry) => reg.registerProduct(m);

// ---------------------------------------------------------------------------------------------------------------
// domains/delivery/data_model.py

export const StoreProduct = model(
  "StoreProduct",
  [...productBase(), req("name", "str"), req("store_id", "str"), req("store_name", "str"), req("attributes", { strOrList: true }), req("tags", { list: "str" })],
  {
    repr: (m) =>
      `StoreProduct(store_name=${fs(m, "store_name")}, store_id=${fs(m, "store_id")}, product_name=${fs(m, "name")}, product_id=${fs(m, "product_id")}, attributes=${fs(m, "attributes")}, quantity=${fs(m, "quantity")}, price=${fs(m, "price")}, tags=${fs(m, "tags")})`,
  },
  registerProduct,
);

const storeHead = (m: PyModel) =>
  `Store(name=${fs(m, "name")}, store_id=${fs(m, "store_id")}, score=${fs(m, "score")}, location=${rp(m, "location")}, tags=${fs(m, "tags")})`;
const lines = (items: PyValue) => (items as PyModel[]).map((p) => p.repr()).join("\n");

export const Store = model(
  "Store",
  [opt("store_id", { optional: "str" }, ""), req("name", "str"), req("score", "float"), req("location", { model: Location }), req("tags", { list: "str" }), req("products", { list: { model: StoreProduct } })],
  { repr: (m) => `${storeHead(m)}, products=${lines(m.get("products"))}`, str: storeHead },
);

// ---------------------------------------------------------------------------------------------------------------
// domains/instore/data_model.py

export const ShopProduct = model(
  "ShopProduct",
  [...productBase(), req("name", "str"), req("shop_id", "str"), req("tags", { list: "str" })],
  {
    repr: (m) =>
      `ShopProduct(shop_id=${fs(m, "shop_id")}, product_id=${fs(m, "product_id")}, name=${fs(m, "name")}, price=${fs(m, "price")}, quantity=${fs(m, "quantity")}, tags=${fs(m, "tags")})`,
  },
  registerProduct,
);

const shopHead = (m: PyModel) =>
  `Shop(shop_name=${fs(m, "shop_name")}, shop_id=${fs(m, "shop_id")}, score=${fs(m, "score")}, location=${rp(m, "location")}, tags=${fs(m, "tags")}, enable_book=${fs(m, "enable_book")}, book_price=${fs(m, "book_price")}, enable_reservation=${fs(m, "enable_reservation")}`;

export const Shop = model(
  "Shop",
  [
    opt("store_id", { optional: "str" }, ""),
    req("shop_id", "str"),
    req("shop_name", "str"),
    req("score", "float"),
    req("location", { model: Location }),
    req("tags", { list: "str" }),
    req("enable_book", "bool"),
    req("book_price", "float"),
    req("enable_reservation", "bool"),
    req("products", { list: { model: ShopProduct } }),
  ],
  { repr: (m) => `${shopHead(m)}, products=${lines(m.get("products"))})`, str: (m) => `${shopHead(m)})` },
  (m, reg) => {
    // model_post_init: store_id = shop_id, and every product (re-)registered.
    m.set("store_id", m.get("shop_id"));
    for (const p of m.get("products") as PyModel[]) reg.registerProduct(p);
  },
);

const INSTORE_STATUS = ["unpaid", "paid", "unconsumed", "consumed", "cancelled"] as const;

export const BookInfo = model(
  "BookInfo",
  [
    req("book_id", "str"),
    req("shop_id", "str"),
    req("book_time", "str"),
    req("update_time", "str"),
    req("customer_id", "str"),
    req("customer_count", "int"),
    req("book_price", "float"),
    req("status", { literal: INSTORE_STATUS }),
  ],
  {
    repr: (m) =>
      `BookInfo(book_id=${fs(m, "book_id")},shop_id=${fs(m, "shop_id")}, book_time=${fs(m, "book_time")}, customer_id=${fs(m, "customer_id")}, customer_count=${fs(m, "customer_count")}, book_price=${fs(m, "book_price")}, status=${fs(m, "status")}`,
  },
);

export const ReservationInfo = model(
  "ReservationInfo",
  [
    req("reservation_id", "str"),
    req("shop_id", "str"),
    req("reservation_time", "str"),
    req("update_time", "str"),
    req("customer_id", "str"),
    req("customer_count", "int"),
    req("status", { literal: INSTORE_STATUS }),
  ],
  {
    repr: (m) =>
      `ReservationInfo(reservation_id=${fs(m, "reservation_id")},shop_id=${fs(m, "shop_id")}, reservation_time=${fs(m, "reservation_time")}, customer_id=${fs(m, "customer_id")}, customer_count=${fs(m, "customer_count")}, status=${fs(m, "status")}`,
  },
);

// ---------------------------------------------------------------------------------------------------------------
// domains/ota/data_model.py

const otaProduct = (pyName: string, kindField: string, idLabel: string) =>
  model(
    pyName,
    [...productBase(), req("date", "str"), req(kindField, "str")],
    {
      repr: (m) =>
        `${pyName}(${kindField}=${fs(m, kindField)}, date=${fs(m, "date")}, price=${fs(m, "price")}, quantity=${fs(m, "quantity")}, ${idLabel}=${fs(m, "product_id")})`,
    },
    registerProduct,
  );

export const HotelProduct = otaProduct("HotelProduct", "room_type", "room_id");
export const AttractionProduct = otaProduct("AttractionProduct", "ticket_type", "attraction_id");
export const FlightProduct = otaProduct("FlightProduct", "seat_type", "seat_id");
export const TrainProduct = otaProduct("TrainProduct", "seat_type", "seat_id");

const setStoreId = (idField: string) => (m: PyModel) => m.set("store_id", m.get(idField));

const hotelHead = (m: PyModel) =>
  `Hotel(hotel_id=${fs(m, "hotel_id")}, hotel_name=${fs(m, "hotel_name")}, score=${fs(m, "score")}, star_rating=${fs(m, "star_rating")}, location=${fs(m, "location")}, tags=${fs(m, "tags")}`;
export const Hotel = model(
  "Hotel",
  [
    opt("store_id", { optional: "str" }, ""),
    req("hotel_id", "str"),
    req("hotel_name", "str"),
    req("score", "float"),
    req("star_rating", "int"),
    req("location", { model: Location }),
    req("tags", { list: "str" }),
    req("products", { list: { model: HotelProduct } }),
  ],
  { repr: (m) => `${hotelHead(m)}, products=${lines(m.get("products"))})`, str: (m) => `${hotelHead(m)})` },
  setStoreId("hotel_id"),
);

const attractionHead = (m: PyModel) =>
  `Attraction(attraction_id=${fs(m, "attraction_id")}, attraction_name=${fs(m, "attraction_name")}, location=${fs(m, "location")}, description=${fs(m, "description")}, score=${fs(m, "score")}, opening_hours=${fs(m, "opening_hours")}, `;
export const Attraction = model(
  "Attraction",
  [
    opt("store_id", { optional: "str" }, ""),
    req("attraction_id", "str"),
    req("attraction_name", "str"),
    req("location", { model: Location }),
    req("description", "str"),
    req("score", "float"),
    req("opening_hours", "str"),
    req("ticket_price", "float"),
    req("products", { list: { model: AttractionProduct } }),
  ],
  { repr: (m) => `${attractionHead(m)}ticket_price=${fs(m, "ticket_price")}, products=${lines(m.get("products"))})`, str: attractionHead },
  setStoreId("attraction_id"),
);

const transport = (pyName: "Flight" | "Train") => {
  const [id, number, dep, arr] =
    pyName === "Flight"
      ? ["flight_id", "flight_number", "departure_airport_location", "arrival_airport_location"]
      : ["train_id", "train_number", "departure_station_location", "arrival_station_location"];
  const head = (m: PyModel) =>
    `${pyName}(${id}=${fs(m, id)}, ${number}=${fs(m, number)}, departure_city=${fs(m, "departure_city")}, arrival_city=${fs(m, "arrival_city")}, ${dep}=${fs(m, dep)}, ${arr}=${fs(m, arr)}, departure_time=${fs(m, "departure_time")}, arrival_time=${fs(m, "arrival_time")}, tags=${fs(m, "tags")}`;
  return model(
    pyName,
    [
      opt("store_id", { optional: "str" }, ""),
      req(id, "str"),
      req(number, "str"),
      req("departure_city", "str"),
      req("arrival_city", "str"),
      req(dep, { model: Location }),
      req(arr, { model: Location }),
      req("departure_time", "str"),
      req("arrival_time", "str"),
      req("tags", { list: "str" }),
      req("products", { list: { model: pyName === "Flight" ? FlightProduct : TrainProduct } }),
    ],
    { repr: (m) => `${head(m)}, products=${lines(m.get("products"))})`, str: (m) => `${head(m)})` },
    setStoreId(id),
  );
};
export const Flight = transport("Flight");
export const Train = transport("Train");

// ---------------------------------------------------------------------------------------------------------------
// vita/environment/db.py and the domain DBs

const dbBase = (): FieldSpec[] => [
  opt("time", { optional: "str" }, null),
  opt("user_id", { optional: "str" }, null),
  opt("weather", { optional: { list: { model: Weather } } }, null),
  opt("location", { optional: { list: { model: Location } } }, null),
  opt("user_historical_behaviors", { optional: { dict: "any" } }, () => new PyDict()),
  opt("orders", { optional: { dict: { model: Order } } }, null),
];
const dbTexts = { repr: (m: PyModel) => `${m.cls.pyName}(...)` };

export const DeliveryDB = model("DeliveryDB", [...dbBase(), req("stores", { dict: { model: Store } })], dbTexts);
export const InStoreDB = model(
  "InStoreDB",
  [...dbBase(), req("shops", { dict: { model: Shop } }), opt("books", { dict: { model: BookInfo } }, () => new PyDict()), opt("reservations", { dict: { model: ReservationInfo } }, () => new PyDict())],
  dbTexts,
);
export const OTADB = model(
  "OTADB",
  [
    ...dbBase(),
    opt("hotels", { dict: { model: Hotel } }, () => new PyDict()),
    opt("attractions", { dict: { model: Attraction } }, () => new PyDict()),
    opt("flights", { dict: { model: Flight } }, () => new PyDict()),
    opt("trains", { dict: { model: Train } }, () => new PyDict()),
  ],
  dbTexts,
);

export const isModel = (v: PyValue, cls: ModelClass): v is PyModel => v instanceof PyModel && v.cls === cls;
export type { ModelClass };
