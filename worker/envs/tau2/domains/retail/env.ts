/**
 * The retail environment: the 15 tools of spec §6 behind the dispatch of spec §4, over a per-episode
 * copy-on-write view of a shared, frozen RetailDb. `call` never throws: every failure becomes
 * `{ content: "Error: …", error: true }` and, as in the original, earlier writes are not rolled back.
 */
import { calculateExpression } from "../../harness/calculate";
import {
  cloneOrder,
  cloneUser,
  dumpRetailDb,
  hashRetailDb,
  isShared,
  recordText,
  type Address,
  type Order,
  type PaymentMethod,
  type Product,
  type RetailDb,
  type User,
  type Variant,
} from "./model";
import { count, dictKey, iterate, len, lower, pyEquals, PyError, pyType, sortedStrings } from "./pyish";
import { PyInt, pyFloatRepr, pyJsonDumps, round2 } from "../../../../../lib/python/json";

export interface ToolResult {
  content: string;
  error: boolean;
}

type Args = Record<string, unknown>;

interface ToolDef {
  params: readonly string[];
  run: (env: RetailEnv, args: Args) => string;
}

const CALC_ALPHABET = "0123456789+-*/(). ";
const CANCEL_REASONS = ["no longer needed", "ordered by mistake"];
const ADDRESS_FIELDS = ["address1", "address2", "city", "state", "country", "zip"] as const;

/** Python `str(v)` as used in the tools' f-string error messages. */
function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  return pyRepr(v);
}

function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(v as Args).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
}

/** Python keyword binding errors for `RetailTools.<name>(**args)`. */
function bindError(name: string, params: readonly string[], args: Args): string | undefined {
  const unexpected = Object.keys(args).find((k) => !params.includes(k));
  if (unexpected !== undefined) return `RetailTools.${name}() got an unexpected keyword argument '${unexpected}'`;
  const missing = params.filter((p) => !(p in args)).map((p) => `'${p}'`);
  if (missing.length === 0) return undefined;
  const list =
    missing.length === 1 ? missing[0]
    : missing.length === 2 ? `${missing[0]} and ${missing[1]}`
    : `${missing.slice(0, -1).join(", ")}, and ${missing[missing.length - 1]}`;
  return `RetailTools.${name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${list}`;
}

/** Build an Address the way the pydantic model validates it (all six fields must be strings). */
function buildAddress(args: Args): Address {
  const bad = (["address1", "address2", "city", "country", "state", "zip"] as const).filter((f) => typeof args[f] !== "string");
  if (bad.length > 0) {
    const lines = bad.map(
      (f) => `${f}\n  Input should be a valid string [type=string_type, input_value=${pyRepr(args[f])}, input_type=${pyType(args[f])}]`,
    );
    throw new PyError(`${bad.length} validation error${bad.length > 1 ? "s" : ""} for UserAddress\n${lines.join("\n")}`);
  }
  return {
    address1: args.address1 as string,
    address2: args.address2 as string,
    city: args.city as string,
    country: args.country as string,
    state: args.state as string,
    zip: args.zip as string,
  };
}

const NO_ITEM = Symbol("none");

/** The multiplicity check (spec §6.0): the first requested id wanted more often than the order has it. */
function overRequested(order: Order, itemIds: unknown): unknown {
  const orderIds = order.items.map((it) => it.item_id);
  for (const id of iterate(itemIds)) if (count(itemIds, id) > count(orderIds, id)) return id;
  return NO_ITEM;
}

export const TOOLS: Record<string, ToolDef> = {
  calculate: {
    params: ["expression"],
    run: (_env, { expression }) => {
      if (typeof expression !== "string") {
        for (const ch of iterate(expression)) {
          if (typeof ch !== "string") throw new PyError(`'in <string>' requires string as left operand, not ${pyType(ch)}`);
          if (!CALC_ALPHABET.includes(ch)) throw new PyError("Invalid characters in expression");
        }
        throw new PyError("eval() arg 1 must be a string, bytes or code object");
      }
      return calculateExpression(expression);
    },
  },

  cancel_pending_order: {
    params: ["order_id", "reason"],
    run: (env, { order_id, reason }) => {
      const order = env.getOrder(order_id);
      if (order.status !== "pending") throw new PyError("Non-pending order cannot be cancelled");
      if (typeof reason !== "string" || !CANCEL_REASONS.includes(reason)) throw new PyError("Invalid reason");
      const refunds = [];
      for (const payment of order.payment_history) {
        refunds.push({ transaction_type: "refund" as const, amount: payment.amount, payment_method_id: payment.payment_method_id });
        const pm = env.getPaymentMethod(order.user_id, payment.payment_method_id);
        if (pm.source === "gift_card") env.writablePaymentMethod(order.user_id, pm.id, (g) => (g.balance = round2(g.balance + payment.amount)));
      }
      const w = env.writableOrder(order);
      w.status = "cancelled";
      w.cancel_reason = reason as Order["cancel_reason"];
      w.payment_history.push(...refunds);
      return recordText(w);
    },
  },

  exchange_delivered_order_items: {
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    run: (env, { order_id, item_ids, new_item_ids, payment_method_id }) => {
      const order = env.getOrder(order_id);
      if (order.status !== "delivered") throw new PyError("Non-delivered order cannot be exchanged");
      const missing = overRequested(order, item_ids);
      if (missing !== NO_ITEM) throw new PyError(`Number of ${pyStr(missing)} not found.`);
      if (len(item_ids) !== len(new_item_ids)) throw new PyError("The number of items to be exchanged should match.");
      let diff = 0;
      let diffIsInt = true; // Python starts from the int 0 and only becomes a float after an addition
      const olds = iterate(item_ids);
      const news = iterate(new_item_ids); // zip(item_ids, new_item_ids)
      for (let i = 0; i < olds.length; i++) {
        const newId = news[i];
        const oldItem = order.items.find((it) => pyEquals(it.item_id, olds[i]))!;
        const variant = env.getVariant(oldItem.product_id, newId);
        if (!variant.available) throw new PyError(`New item ${pyStr(newId)} not found or available`);
        diff = diff + (variant.price - oldItem.price);
        diffIsInt = false;
      }
      diff = round2(diff);
      const pm = env.getPaymentMethod(order.user_id, payment_method_id);
      if (pm.source === "gift_card" && pm.balance < diff) {
        throw new PyError("Insufficient gift card balance to pay for the price difference");
      }
      const w = env.writableOrder(order);
      w.status = "exchange requested";
      w.exchange_items = sortedStrings(item_ids);
      w.exchange_new_items = sortedStrings(new_item_ids);
      w.exchange_payment_method_id = pm.id;
      w.exchange_price_difference = diffIsInt ? new PyInt(0) : diff;
      return recordText(w);
    },
  },

  find_user_id_by_name_zip: {
    params: ["first_name", "last_name", "zip"],
    run: (env, { first_name, last_name, zip }) => {
      for (const [userId, user] of env.db.users) {
        if (
          user.name.first_name.toLowerCase() === lower(first_name) &&
          user.name.last_name.toLowerCase() === lower(last_name) &&
          user.address.zip === zip
        ) {
          return userId;
        }
      }
      throw new PyError("User not found");
    },
  },

  find_user_id_by_email: {
    params: ["email"],
    run: (env, { email }) => {
      for (const [userId, user] of env.db.users) if (user.email.toLowerCase() === lower(email)) return userId;
      throw new PyError("User not found");
    },
  },

  get_order_details: { params: ["order_id"], run: (env, { order_id }) => recordText(env.getOrder(order_id)) },
  get_product_details: { params: ["product_id"], run: (env, { product_id }) => recordText(env.getProduct(product_id)) },
  get_user_details: { params: ["user_id"], run: (env, { user_id }) => recordText(env.getUser(user_id)) },

  list_all_product_types: {
    params: [],
    run: (env) => {
      const byName = new Map<string, string>();
      for (const p of env.db.products.values()) byName.set(p.name, p.product_id);
      return pyJsonDumps(byName, { sortKeys: true });
    },
  },

  modify_pending_order_address: {
    params: ["order_id", ...ADDRESS_FIELDS],
    run: (env, args) => {
      const order = env.getOrder(args.order_id);
      if (!order.status.includes("pending")) throw new PyError("Non-pending order cannot be modified");
      const address = buildAddress(args);
      const w = env.writableOrder(order);
      w.address = address;
      return recordText(w);
    },
  },

  modify_pending_order_items: {
    params: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    run: (env, { order_id, item_ids, new_item_ids, payment_method_id }) => {
      const order = env.getOrder(order_id);
      if (order.status !== "pending") throw new PyError("Non-pending order cannot be modified");
      const missing = overRequested(order, item_ids);
      if (missing !== NO_ITEM) throw new PyError(`${pyStr(missing)} not found`);
      if (len(item_ids) !== len(new_item_ids)) throw new PyError("The number of items to be exchanged should match");
      let diff = 0;
      let lastVariant: Variant | undefined;
      const olds = iterate(item_ids);
      const news = iterate(new_item_ids); // zip(item_ids, new_item_ids)
      for (let i = 0; i < olds.length; i++) {
        if (pyEquals(olds[i], news[i])) throw new PyError("The new item id should be different from the old item id");
        const oldItem = order.items.find((it) => pyEquals(it.item_id, olds[i]))!;
        const variant = env.getVariant(oldItem.product_id, news[i]);
        if (!variant.available) throw new PyError(`New item ${pyStr(news[i])} not found or available`);
        diff = diff + (variant.price - oldItem.price); // deliberately not rounded (spec §6.11)
        lastVariant = variant;
      }
      const pm = env.getPaymentMethod(order.user_id, payment_method_id);
      if (pm.source === "gift_card" && pm.balance < diff) throw new PyError("Insufficient gift card balance to pay for the new item");
      const w = env.writableOrder(order);
      w.payment_history.push({ transaction_type: diff > 0 ? "payment" : "refund", amount: Math.abs(diff), payment_method_id: pm.id });
      if (pm.source === "gift_card") env.writablePaymentMethod(order.user_id, pm.id, (g) => (g.balance = round2(g.balance - diff)));
      for (let i = 0; i < olds.length; i++) {
        // Scans the current items (including lines rewritten above) and, like the original, gives every
        // modified line the price and options of the LAST new variant.
        const item = w.items.find((it) => pyEquals(it.item_id, olds[i]))!;
        item.item_id = news[i] as string;
        item.price = lastVariant!.price;
        item.options = lastVariant!.options;
      }
      w.status = "pending (item modified)";
      return recordText(w);
    },
  },

  modify_pending_order_payment: {
    params: ["order_id", "payment_method_id"],
    run: (env, { order_id, payment_method_id }) => {
      const order = env.getOrder(order_id);
      if (!order.status.includes("pending")) throw new PyError("Non-pending order cannot be modified");
      const pm = env.getPaymentMethod(order.user_id, payment_method_id);
      const history = order.payment_history;
      if (history.length !== 1 || history[0].transaction_type !== "payment") {
        throw new PyError("There should be exactly one payment for a pending order");
      }
      const oldId = history[0].payment_method_id;
      if (oldId === pm.id) throw new PyError("The new payment method should be different from the current one");
      const amount = history[0].amount;
      if (pm.source === "gift_card" && pm.balance < amount) throw new PyError("Insufficient gift card balance to pay for the order");
      const w = env.writableOrder(order);
      w.payment_history.push(
        { transaction_type: "payment", amount, payment_method_id: pm.id },
        { transaction_type: "refund", amount, payment_method_id: oldId },
      );
      if (pm.source === "gift_card") env.writablePaymentMethod(order.user_id, pm.id, (g) => (g.balance = round2(g.balance - amount)));
      const old = env.getPaymentMethod(order.user_id, oldId);
      if (old.source === "gift_card") env.writablePaymentMethod(order.user_id, oldId, (g) => (g.balance = round2(g.balance + amount)));
      return recordText(w);
    },
  },

  modify_user_address: {
    params: ["user_id", ...ADDRESS_FIELDS],
    run: (env, args) => {
      const user = env.getUser(args.user_id);
      const address = buildAddress(args);
      const w = env.writableUser(user);
      w.address = address;
      return recordText(w);
    },
  },

  return_delivered_order_items: {
    params: ["order_id", "item_ids", "payment_method_id"],
    run: (env, { order_id, item_ids, payment_method_id }) => {
      const order = env.getOrder(order_id);
      if (order.status !== "delivered") throw new PyError("Non-delivered order cannot be returned");
      const pm = env.getPaymentMethod(order.user_id, payment_method_id);
      if (pm.source !== "gift_card" && pm.id !== order.payment_history[0].payment_method_id) {
        throw new PyError("Payment method should be the original payment method");
      }
      if (overRequested(order, item_ids) !== NO_ITEM) throw new PyError("Some item not found");
      const w = env.writableOrder(order);
      w.status = "return requested";
      w.return_items = sortedStrings(item_ids);
      w.return_payment_method_id = pm.id;
      return recordText(w);
    },
  },

  transfer_to_human_agents: { params: ["summary"], run: () => "Transfer successful" },
};

/** One episode's environment. Create one per episode with `new RetailEnv(pristineDb)`: O(1) reset. */
export class RetailEnv {
  /** This episode's view: the top-level maps are private copies, records are copied on first write. */
  readonly db: RetailDb;

  constructor(pristine: RetailDb) {
    this.db = { products: pristine.products, users: new Map(pristine.users), orders: new Map(pristine.orders) };
  }

  /** Run one tool call. Never throws. */
  call(name: string, args: unknown): ToolResult {
    const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
    if (!tool) return { content: `Error: Tool '${name}' not found.`, error: true };
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return { content: `Error: RetailTools.${name}() argument after ** must be a mapping, not ${pyType(args)}`, error: true };
    }
    const bind = bindError(name, tool.params, args as Args);
    if (bind) return { content: `Error: ${bind}`, error: true };
    try {
      return { content: tool.run(this, args as Args), error: false };
    } catch (err) {
      return { content: `Error: ${err instanceof Error ? err.message : String(err)}`, error: true };
    }
  }

  hash(): string {
    return hashRetailDb(this.db);
  }

  /** The current DB in db.json layout. */
  dump(): string {
    return dumpRetailDb(this.db);
  }

  // ---- lookups (spec §6.0) ----

  getOrder(id: unknown): Order {
    const key = dictKey(id);
    const order = key === undefined ? undefined : this.db.orders.get(key);
    if (!order) throw new PyError("Order not found");
    return order;
  }

  getUser(id: unknown): User {
    const key = dictKey(id);
    const user = key === undefined ? undefined : this.db.users.get(key);
    if (!user) throw new PyError("User not found");
    return user;
  }

  getProduct(id: unknown): Product {
    const key = dictKey(id);
    const product = key === undefined ? undefined : this.db.products.get(key);
    if (!product) throw new PyError("Product not found");
    return product;
  }

  getVariant(productId: unknown, itemId: unknown): Variant {
    const product = this.getProduct(productId);
    const key = dictKey(itemId);
    const variant = key === undefined ? undefined : product.variants.get(key);
    if (!variant) throw new PyError("Variant not found");
    return variant;
  }

  getPaymentMethod(userId: unknown, paymentMethodId: unknown): PaymentMethod {
    const user = this.getUser(userId);
    const key = dictKey(paymentMethodId);
    const pm = key === undefined ? undefined : user.payment_methods.get(key);
    if (!pm) throw new PyError("Payment method not found");
    return pm;
  }

  // ---- copy-on-write ----

  writableOrder(order: Order): Order {
    if (!isShared(order)) return order;
    const copy = cloneOrder(order);
    this.db.orders.set(order.order_id, copy);
    return copy;
  }

  writableUser(user: User): User {
    if (!isShared(user)) return user;
    const copy = cloneUser(user);
    this.db.users.set(user.user_id, copy);
    return copy;
  }

  writablePaymentMethod(userId: string, paymentMethodId: string, update: (gift: Extract<PaymentMethod, { source: "gift_card" }>) => void): void {
    const user = this.writableUser(this.getUser(userId));
    const pm = user.payment_methods.get(paymentMethodId);
    if (pm?.source === "gift_card") update(pm);
  }
}
