import { describe, expect, it } from "vitest";
import { RetailEnv, TOOLS } from "./env";
import { hashRetailDb, parseRetailDb } from "./model";
import { round2 } from "../../../../../lib/python/json";
import { retailTestData } from "../../../../../test/fixtures/tau2-retail";

const { db } = retailTestData();
const fresh = () => new RetailEnv(db);
const ok = (env: RetailEnv, name: string, args: unknown) => {
  const r = env.call(name, args);
  expect(r.error, r.content).toBe(false);
  return r.content;
};
const json = (text: string) => JSON.parse(text);

describe("read tools reproduce the original text", () => {
  it("get_user_details keeps model field order and map insertion order", () => {
    expect(ok(fresh(), "get_user_details", { user_id: "yusuf_rossi_9620" })).toMatch(
      /^\{"user_id": "yusuf_rossi_9620", "name": \{"first_name": "Yusuf", "last_name": "Rossi"\}, "address": \{"address1": "763 Broadway", "address2": "Suite 135", "city": "Philadelphia", "country": "USA", "state": "PA", "zip": "19122"\}, "email": "yusuf.rossi7301@example.com", "payment_methods": \{"credit_card_9513926": \{"source": "credit_card", "id": "credit_card_9513926", "brand": "mastercard", "last_four": "2478"\}\}, "orders": \["#W6247578", /,
    );
  });
  it("list_all_product_types is sorted JSON text, not quoted twice", () => {
    expect(ok(fresh(), "list_all_product_types", {})).toMatch(/^\{"Action Camera": "3377618313", "Air Purifier": "3821016478", "Backpack": "2524789262", /);
  });
  it("product variants keep db.json order even for integer-like ids", () => {
    const text = ok(fresh(), "get_product_details", { product_id: "1656367028" });
    expect(text.indexOf('"9690244451"')).toBeLessThan(text.indexOf('"7706410293"'));
    expect(text).toContain('"price": 269.16');
  });
  it("user lookups: names ignore case, zip and email are exact apart from email case", () => {
    expect(ok(fresh(), "find_user_id_by_name_zip", { first_name: "YUSUF", last_name: "rossi", zip: "19122" })).toBe("yusuf_rossi_9620");
    expect(fresh().call("find_user_id_by_name_zip", { first_name: "Yusuf", last_name: "Rossi", zip: " 19122" })).toEqual({ content: "Error: User not found", error: true });
    expect(ok(fresh(), "find_user_id_by_email", { email: "Yusuf.Rossi7301@example.com" })).toBe("yusuf_rossi_9620");
    expect(fresh().call("find_user_id_by_email", { email: " yusuf.rossi7301@example.com" }).error).toBe(true);
  });
});

describe("dispatch errors", () => {
  it("unknown tools, missing and unexpected arguments, non-object arguments", () => {
    const env = fresh();
    expect(env.call("delete_everything", {})).toEqual({ content: "Error: Tool 'delete_everything' not found.", error: true });
    expect(env.call("get_user_details", {})).toEqual({ content: "Error: RetailTools.get_user_details() missing 1 required positional argument: 'user_id'", error: true });
    expect(env.call("get_user_details", { user: "x" })).toEqual({ content: "Error: RetailTools.get_user_details() got an unexpected keyword argument 'user'", error: true });
    expect(env.call("cancel_pending_order", {}).content).toBe("Error: RetailTools.cancel_pending_order() missing 2 required positional arguments: 'order_id' and 'reason'");
    expect(env.call("find_user_id_by_name_zip", {}).content).toBe("Error: RetailTools.find_user_id_by_name_zip() missing 3 required positional arguments: 'first_name', 'last_name', and 'zip'");
    expect(env.call("get_order_details", ["#W2378156"]).error).toBe(true);
    expect(env.call("__proto__", {}).content).toBe("Error: Tool '__proto__' not found.");
  });
  it("wrong types fail the lookup or give Python's type error, with the error flag", () => {
    const env = fresh();
    expect(env.call("get_order_details", { order_id: 2378156 })).toEqual({ content: "Error: Order not found", error: true });
    expect(env.call("get_user_details", { user_id: ["yusuf_rossi_9620"] })).toEqual({ content: "Error: unhashable type: 'list'", error: true });
    expect(env.call("find_user_id_by_email", { email: 5 })).toEqual({ content: "Error: 'int' object has no attribute 'lower'", error: true });
    expect(env.call("calculate", { expression: 5 })).toEqual({ content: "Error: 'int' object is not iterable", error: true });
    expect(env.call("return_delivered_order_items", { order_id: "#W4250821", item_ids: 7, payment_method_id: "credit_card_8041020" }))
      .toEqual({ content: "Error: 'int' object is not iterable", error: true });
    expect(env.call("get_product_details", { product_id: "6086499569" })).toEqual({ content: "Error: Product not found", error: true });
    const addr = env.call("modify_user_address", { user_id: "yusuf_rossi_9620", address1: "1 A St", address2: "", city: "X", state: "PA", country: "USA", zip: 19122 });
    expect(addr.error).toBe(true);
    expect(addr.content).toMatch(/^Error: 1 validation error for UserAddress\nzip\n/);
    expect(env.hash()).toBe(hashRetailDb(db));
  });
  it("never throws, whatever the argument values", () => {
    const env = fresh();
    const odd: unknown[] = [null, 0, 1.5, true, [], {}, "", "x", ["x", 1], { a: 1 }, "#W2443586", ["9690244451"]];
    const valid: Record<string, unknown> = {
      order_id: "#W2443586", user_id: "aarav_nguyen_7344", product_id: "1656367028", item_ids: ["9690244451"],
      new_item_ids: ["7706410293"], payment_method_id: "paypal_7859314", reason: "no longer needed", expression: "1+1",
      email: "x@example.com", first_name: "a", last_name: "b", zip: "1", summary: "s", address1: "a", address2: "",
      city: "c", state: "s", country: "US",
    };
    let calls = 0;
    for (const [name, tool] of Object.entries(TOOLS)) {
      for (const param of tool.params) {
        for (const value of odd) {
          const args = Object.fromEntries(tool.params.map((p) => [p, p === param ? value : valid[p]]));
          const r = new RetailEnv(db).call(name, args);
          expect(typeof r.content).toBe("string");
          expect(typeof r.error).toBe("boolean");
          if (r.error) expect(r.content.startsWith("Error: ")).toBe(true);
          calls++;
        }
      }
    }
    expect(calls).toBeGreaterThan(400);
    expect(env.hash()).toBe(hashRetailDb(db));
  });
});

describe("write tools", () => {
  it("modify_pending_order_items reproduces the last-variant bug and locks the order", () => {
    const env = fresh();
    const before = json(ok(env, "get_order_details", { order_id: "#W2443586" }));
    const [first, second] = before.items;
    const secondProduct = json(ok(env, "get_product_details", { product_id: second.product_id }));
    const replacement = Object.values(secondProduct.variants as Record<string, { item_id: string; available: boolean; price: number; options: object }>)
      .find((v) => v.available && v.item_id !== second.item_id)!;
    const args = { order_id: "#W2443586", item_ids: [first.item_id, second.item_id], new_item_ids: ["7706410293", replacement.item_id] };

    expect(env.call("modify_pending_order_items", { ...args, new_item_ids: [first.item_id, replacement.item_id], payment_method_id: "paypal_7859314" }).content)
      .toBe("Error: The new item id should be different from the old item id");
    expect(env.call("modify_pending_order_items", { ...args, new_item_ids: ["7706410293"], payment_method_id: "paypal_7859314" }).content)
      .toBe("Error: The number of items to be exchanged should match");
    expect(env.call("modify_pending_order_items", { ...args, item_ids: ["1111111111"], new_item_ids: ["7706410293"], payment_method_id: "paypal_7859314" }).content)
      .toBe("Error: 1111111111 not found");
    expect(env.call("modify_pending_order_items", { ...args, new_item_ids: ["9025753381", replacement.item_id], payment_method_id: "paypal_7859314" }).content)
      .toBe("Error: New item 9025753381 not found or available");
    expect(env.call("modify_pending_order_items", { ...args, new_item_ids: [replacement.item_id, "7706410293"], payment_method_id: "paypal_7859314" }).content)
      .toBe("Error: Variant not found");

    const after = json(ok(env, "modify_pending_order_items", { ...args, payment_method_id: "paypal_7859314" }));
    const diff = 0 + (269.16 - first.price) + (replacement.price - second.price);
    expect(after.status).toBe("pending (item modified)");
    expect(after.payment_history.at(-1)).toEqual({ transaction_type: diff > 0 ? "payment" : "refund", amount: Math.abs(diff), payment_method_id: "paypal_7859314" });
    expect(after.items[0]).toMatchObject({ item_id: "7706410293", product_id: first.product_id, price: replacement.price, options: replacement.options });
    expect(after.items[1]).toMatchObject({ item_id: replacement.item_id, price: replacement.price, options: replacement.options });

    expect(env.call("cancel_pending_order", { order_id: "#W2443586", reason: "no longer needed" }).content).toBe("Error: Non-pending order cannot be cancelled");
    expect(env.call("modify_pending_order_payment", { order_id: "#W2443586", payment_method_id: "gift_card_2742113" }).content)
      .toBe("Error: There should be exactly one payment for a pending order");
    ok(env, "modify_pending_order_address", { order_id: "#W2443586", address1: "1 Main", address2: "", city: "Austin", state: "TX", country: "USA", zip: "78701" });
    // other episodes still see the pristine order
    expect(json(ok(fresh(), "get_order_details", { order_id: "#W2443586" }))).toEqual(before);
  });

  it("gift card balances move with cancellations and payment changes, rounded to cents", () => {
    const env = fresh();
    const balance = () => json(ok(env, "get_user_details", { user_id: "ethan_lopez_6291" })).payment_methods.gift_card_7219486.balance as number;
    const start = balance();
    const changed = json(ok(env, "modify_pending_order_payment", { order_id: "#W6779827", payment_method_id: "credit_card_9789590" }));
    expect(changed.payment_history.slice(1)).toEqual([
      { transaction_type: "payment", amount: 4079.45, payment_method_id: "credit_card_9789590" },
      { transaction_type: "refund", amount: 4079.45, payment_method_id: "gift_card_7219486" },
    ]);
    expect(balance()).toBe(round2(start + 4079.45));
    expect(env.call("cancel_pending_order", { order_id: "#W6779827", reason: "changed my mind" }).content).toBe("Error: Invalid reason");

    const env2 = fresh();
    const cancelled = json(ok(env2, "cancel_pending_order", { order_id: "#W6779827", reason: "ordered by mistake" }));
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.cancel_reason).toBe("ordered by mistake");
    expect(json(ok(env2, "get_user_details", { user_id: "ethan_lopez_6291" })).payment_methods.gift_card_7219486.balance).toBe(round2(start + 4079.45));
  });

  it("exchange and return: exact messages, sorted lists, any gift card for returns", () => {
    const env = fresh();
    const base = { order_id: "#W4250821", payment_method_id: "credit_card_8041020" };
    expect(env.call("exchange_delivered_order_items", { ...base, item_ids: ["5222576926", "5222576926"], new_item_ids: ["1", "2"] }).content)
      .toBe("Error: Number of 5222576926 not found.");
    expect(env.call("exchange_delivered_order_items", { ...base, item_ids: ["5222576926"], new_item_ids: [] }).content)
      .toBe("Error: The number of items to be exchanged should match.");
    expect(env.call("return_delivered_order_items", { ...base, item_ids: ["5222576926"], payment_method_id: "paypal_7425862" }).content)
      .toBe("Error: Payment method should be the original payment method");
    const returned = json(ok(env, "return_delivered_order_items", { ...base, item_ids: ["9970989750", "5222576926"], payment_method_id: "gift_card_6052478" }));
    expect(returned).toMatchObject({ status: "return requested", return_items: ["5222576926", "9970989750"], return_payment_method_id: "gift_card_6052478" });
    expect(env.call("exchange_delivered_order_items", { ...base, item_ids: [], new_item_ids: [] }).content).toBe("Error: Non-delivered order cannot be exchanged");
  });

  it("an exchange of two empty lists stores the int 0, and a dump reloads with the same hash", () => {
    const env = fresh();
    const text = ok(env, "exchange_delivered_order_items", { order_id: "#W4250821", item_ids: [], new_item_ids: [], payment_method_id: "paypal_7425862" });
    expect(text).toContain('"exchange_items": [], "exchange_new_items": [], "exchange_payment_method_id": "paypal_7425862", "exchange_price_difference": 0, ');
    ok(env, "modify_user_address", { user_id: "yusuf_rossi_9620", address1: "Ünïcode 😀 \"q\"", address2: "", city: "X", state: "PA", country: "USA", zip: "19122" });
    const reloaded = parseRetailDb(env.dump());
    expect(hashRetailDb(reloaded)).toBe(env.hash());
    expect(env.hash()).not.toBe(hashRetailDb(db));
    expect(new RetailEnv(reloaded).call("get_order_details", { order_id: "#W4250821" }).content).toBe(ok(env, "get_order_details", { order_id: "#W4250821" }));
  });
});
