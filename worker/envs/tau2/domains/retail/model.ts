/**
 * The retail data model (spec §2), its loader (zod-validated, order-preserving), the db.json-layout
 * dump, and the DB hash (spec §3).
 *
 * Maps keyed by ids or option names are JS `Map`s so they keep db.json insertion order (a plain object
 * would move integer-like keys such as many product and item ids to the front). Fixed-field records are
 * plain objects whose keys are created in model field order, which is the tool-output order.
 *
 * A loaded DB is deeply frozen (records and arrays) and shared by every episode; an episode copies a
 * record before its first write (see env.ts), so loading happens once and a reset costs almost nothing.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { compareCodePoints, parseOrderedJson, PyInt, pyJsonDumps, pyJsonString } from "../../../../../lib/python/json";

export interface Address {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export interface Variant {
  item_id: string;
  options: Map<string, string>;
  available: boolean;
  price: number;
}

export interface Product {
  name: string;
  product_id: string;
  variants: Map<string, Variant>;
}

export type PaymentMethod =
  | { source: "credit_card"; id: string; brand: string; last_four: string }
  | { source: "gift_card"; id: string; balance: number }
  | { source: "paypal"; id: string };

export interface User {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: Address;
  email: string;
  payment_methods: Map<string, PaymentMethod>;
  orders: string[];
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Map<string, string>;
}

export const orderStatuses = [
  "processed",
  "pending",
  "pending (item modified)",
  "delivered",
  "cancelled",
  "exchange requested",
  "return requested",
] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export interface PaymentRecord {
  transaction_type: "payment" | "refund";
  amount: number;
  payment_method_id: string;
}

export interface Order {
  order_id: string;
  user_id: string;
  address: Address;
  items: OrderItem[];
  status: OrderStatus;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: PaymentRecord[];
  cancel_reason: "no longer needed" | "ordered by mistake" | null;
  exchange_items: string[] | null;
  exchange_new_items: string[] | null;
  exchange_payment_method_id: string | null;
  /** A float, or the Python int 0 left by an exchange of two empty lists (spec §6.3). */
  exchange_price_difference: number | PyInt | null;
  return_items: string[] | null;
  return_payment_method_id: string | null;
}

export interface RetailDb {
  products: Map<string, Product>;
  users: Map<string, User>;
  orders: Map<string, Order>;
}

// ---- zod schemas over the order-preserving parse tree (objects arrive as Map) ----

/** A fixed-field record: unknown keys are dropped, output keys follow the shape (model field order). */
const record = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess((v) => (v instanceof Map ? Object.fromEntries(v) : v), z.object(shape));
/** Python float field: accepts int literals (pydantic lax mode) and stores a double. */
const float = z.preprocess((v) => (v instanceof PyInt ? v.value : v), z.number());
const optionsMap = z.map(z.string(), z.string());
const nullable = <T extends z.ZodTypeAny>(t: T) => t.nullable().optional().transform((v) => v ?? null);

const addressSchema = record({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});

const variantSchema = record({ item_id: z.string(), options: optionsMap, available: z.boolean(), price: float });
const productSchema = record({ name: z.string(), product_id: z.string(), variants: z.map(z.string(), variantSchema) });

const paymentMethodSchema = z.preprocess(
  (v) => (v instanceof Map ? Object.fromEntries(v) : v),
  z.discriminatedUnion("source", [
    z.object({ source: z.literal("credit_card"), id: z.string(), brand: z.string(), last_four: z.string() }),
    z.object({ source: z.literal("gift_card"), id: z.string(), balance: float }),
    z.object({ source: z.literal("paypal"), id: z.string() }),
  ]),
);

const userSchema = record({
  user_id: z.string(),
  name: record({ first_name: z.string(), last_name: z.string() }),
  address: addressSchema,
  email: z.string(),
  payment_methods: z.map(z.string(), paymentMethodSchema),
  orders: z.array(z.string()),
});

const orderItemSchema = record({
  name: z.string(),
  product_id: z.string(),
  item_id: z.string(),
  price: float,
  options: optionsMap,
});

const orderSchema = record({
  order_id: z.string(),
  user_id: z.string(),
  address: addressSchema,
  items: z.array(orderItemSchema),
  status: z.enum(orderStatuses),
  fulfillments: z.array(record({ tracking_id: z.array(z.string()), item_ids: z.array(z.string()) })),
  payment_history: z.array(
    record({ transaction_type: z.enum(["payment", "refund"]), amount: float, payment_method_id: z.string() }),
  ),
  cancel_reason: nullable(z.enum(["no longer needed", "ordered by mistake"])),
  exchange_items: nullable(z.array(z.string())),
  exchange_new_items: nullable(z.array(z.string())),
  exchange_payment_method_id: nullable(z.string()),
  // Keep an int as an int so a dumped DB reloads with the same hash.
  exchange_price_difference: nullable(z.union([z.number(), z.instanceof(PyInt)])),
  return_items: nullable(z.array(z.string())),
  return_payment_method_id: nullable(z.string()),
});

const dbSchema = z.preprocess(
  (v) => (v instanceof Map ? Object.fromEntries(v) : v),
  z
    .object({
      products: z.map(z.string(), productSchema),
      users: z.map(z.string(), userSchema),
      orders: z.map(z.string(), orderSchema),
    })
    .strict(),
);

export class RetailDbError extends Error {}

/** Parse db.json text into a frozen RetailDb; throws RetailDbError naming the bad path. */
export function parseRetailDb(text: string, source = "db.json"): RetailDb {
  let tree;
  try {
    tree = parseOrderedJson(text);
  } catch (err) {
    throw new RetailDbError(`${source}: ${(err as Error).message}`);
  }
  const result = dbSchema.safeParse(tree);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
    throw new RetailDbError(`${source} is not a retail DB: ${issues}`);
  }
  const db = result.data as unknown as RetailDb;
  for (const [kind, map] of [["products", db.products], ["users", db.users], ["orders", db.orders]] as const) {
    for (const [key, rec] of map as unknown as Map<string, Record<string, unknown>>) {
      const id = kind === "products" ? rec.product_id : kind === "users" ? rec.user_id : rec.order_id;
      if (id !== key) throw new RetailDbError(`${source}: ${kind} key ${JSON.stringify(key)} differs from the record id ${JSON.stringify(id)}`);
    }
  }
  deepFreeze(db.products);
  for (const u of db.users.values()) deepFreeze(u);
  for (const o of db.orders.values()) deepFreeze(o);
  pristineProducts.add(db.products);
  return db;
}

export function loadRetailDb(path: string): RetailDb {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new RetailDbError(`cannot read the retail DB at ${path}: ${(err as Error).message}`);
  }
  return parseRetailDb(text, path);
}

/** Freeze records and arrays (Maps stay technically mutable; episodes never write to shared ones). */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || value instanceof PyInt) return;
  if (value instanceof Map) {
    for (const v of value.values()) deepFreeze(v);
    return;
  }
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

export function isShared(rec: object): boolean {
  return Object.isFrozen(rec);
}

// ---- copies for copy-on-write ----

export function cloneAddress(a: Address): Address {
  return { address1: a.address1, address2: a.address2, city: a.city, country: a.country, state: a.state, zip: a.zip };
}

export function cloneUser(u: User): User {
  return {
    user_id: u.user_id,
    name: { first_name: u.name.first_name, last_name: u.name.last_name },
    address: cloneAddress(u.address),
    email: u.email,
    payment_methods: new Map([...u.payment_methods].map(([k, pm]) => [k, { ...pm }])),
    orders: [...u.orders],
  };
}

export function cloneOrder(o: Order): Order {
  return {
    order_id: o.order_id,
    user_id: o.user_id,
    address: cloneAddress(o.address),
    items: o.items.map((it) => ({ ...it, options: new Map(it.options) })),
    status: o.status,
    fulfillments: o.fulfillments.map((f) => ({ tracking_id: [...f.tracking_id], item_ids: [...f.item_ids] })),
    payment_history: o.payment_history.map((p) => ({ ...p })),
    cancel_reason: o.cancel_reason,
    exchange_items: o.exchange_items ? [...o.exchange_items] : null,
    exchange_new_items: o.exchange_new_items ? [...o.exchange_new_items] : null,
    exchange_payment_method_id: o.exchange_payment_method_id,
    exchange_price_difference: o.exchange_price_difference,
    return_items: o.return_items ? [...o.return_items] : null,
    return_payment_method_id: o.return_payment_method_id,
  };
}

// ---- serialisation ----

/** Tool-output text of a record: model field order, maps in insertion order (spec §4.2). */
export function recordText(rec: Order | User | Product): string {
  return pyJsonDumps(rec);
}

/** The whole DB in db.json layout (indent 4, every model field present); reloads with the same hash. */
export function dumpRetailDb(db: RetailDb): string {
  return pyJsonDumps({ products: db.products, users: db.users, orders: db.orders }, { indent: 4 });
}

const pristineProducts = new WeakSet<object>();
const sortedTextCache = new WeakMap<object, string>();

/** Sorted-key canonical text of one value, memoised for shared (frozen) records. */
function sortedText(value: object): string {
  const shared = isShared(value) || pristineProducts.has(value);
  if (shared) {
    const cached = sortedTextCache.get(value);
    if (cached !== undefined) return cached;
  }
  const text = pyJsonDumps(value, { sortKeys: true });
  if (shared) sortedTextCache.set(value, text);
  return text;
}

function sortedMapText(map: Map<string, object>): string {
  const keys = [...map.keys()].sort(compareCodePoints);
  return "{" + keys.map((k) => `${pyJsonString(k)}: ${sortedText(map.get(k)!)}`).join(", ") + "}";
}

/** The canonical text hashed by spec §3.1 (keys sorted at every depth). */
export function canonicalDbText(db: RetailDb): string {
  return `{"orders": ${sortedMapText(db.orders)}, "products": ${sortedText(db.products)}, "users": ${sortedMapText(db.users)}}`;
}

/** SHA-256 (hex) of the canonical DB text: the v0.2.0 DB hash. */
export function hashRetailDb(db: RetailDb): string {
  return createHash("sha256").update(canonicalDbText(db), "utf8").digest("hex");
}
