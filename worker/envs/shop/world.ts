/**
 * The built-in "shop" world: a fixed catalogue small enough for a tiny model to memorise,
 * one cart and a list of orders. Tools answer with compact JSON or a nested JSON error.
 */
import type { ToolSchema } from "../../engine/io";
import type { EnvironmentFactory, ToolEnvironment } from "../../engine/types";

export interface CatalogueItem {
  item: string;
  price: number;
  stock: number;
}

/** The fixed catalogue (prices in whole dollars). */
export const CATALOGUE: readonly CatalogueItem[] = Object.freeze([
  { item: "tea", price: 4, stock: 9 },
  { item: "mug", price: 7, stock: 3 },
  { item: "pen", price: 2, stock: 20 },
  { item: "cap", price: 12, stock: 0 },
  { item: "bag", price: 25, stock: 2 },
  { item: "map", price: 5, stock: 6 },
  { item: "lamp", price: 30, stock: 1 },
]);

export const MAX_QTY = 9;

export const SHOP_TOOLS: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "get_item",
      description: "Price and stock of an item",
      parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    },
  },
  {
    type: "function",
    function: {
      name: "add_to_cart",
      description: "Add qty of an item to the cart",
      parameters: {
        type: "object",
        properties: { item: { type: "string" }, qty: { type: "integer" } },
        required: ["item", "qty"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "remove_from_cart",
      description: "Remove an item from the cart",
      parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    },
  },
  {
    type: "function",
    function: {
      name: "checkout",
      description: "Place an order for the cart",
      parameters: { type: "object", properties: {}, required: [] },
    },
  },
];

export interface ShopSnapshot {
  stock: Record<string, number>;
  cart: Record<string, number>;
  orders: { order: string; items: Record<string, number>; total: number }[];
}

function err(code: string, message: string): string {
  return JSON.stringify({ error_tool_call: { code, message } });
}

/** One episode's shop. `execute` never throws: bad input becomes a JSON error. */
export class ShopWorld implements ToolEnvironment {
  private stock = new Map(CATALOGUE.map((c) => [c.item, c.stock]));
  private cart = new Map<string, number>();
  private orders: ShopSnapshot["orders"] = [];

  private price(item: string): number {
    return CATALOGUE.find((c) => c.item === item)?.price ?? 0;
  }

  private cartView(): { cart: Record<string, number>; total: number } {
    let total = 0;
    const cart: Record<string, number> = {};
    for (const [item, qty] of this.cart) {
      cart[item] = qty;
      total += qty * this.price(item);
    }
    return { cart, total };
  }

  execute(name: string, argumentsJson: string): string {
    let args: unknown;
    try {
      args = JSON.parse(argumentsJson);
    } catch {
      return err("INVALID_PARAMETERS", "arguments are not JSON");
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return err("INVALID_PARAMETERS", "arguments must be an object");
    }
    const a = args as Record<string, unknown>;
    const needItem = (): string | { error: string } => {
      if (typeof a.item !== "string") return { error: err("INVALID_PARAMETERS", "item must be a string") };
      if (!this.stock.has(a.item)) return { error: err("NOT_FOUND", `no item ${a.item}`) };
      return a.item;
    };
    switch (name) {
      case "get_item": {
        const item = needItem();
        if (typeof item !== "string") return item.error;
        return JSON.stringify({ item, price: this.price(item), stock: this.stock.get(item) });
      }
      case "add_to_cart": {
        const item = needItem();
        if (typeof item !== "string") return item.error;
        const qty = a.qty;
        if (typeof qty !== "number" || !Number.isInteger(qty) || qty < 1 || qty > MAX_QTY) {
          return err("INVALID_PARAMETERS", `qty must be an integer from 1 to ${MAX_QTY}`);
        }
        const inCart = this.cart.get(item) ?? 0;
        if (inCart + qty > (this.stock.get(item) ?? 0)) return err("OUT_OF_STOCK", `only ${this.stock.get(item)} ${item} left`);
        this.cart.set(item, inCart + qty);
        return JSON.stringify(this.cartView());
      }
      case "remove_from_cart": {
        const item = needItem();
        if (typeof item !== "string") return item.error;
        if (!this.cart.has(item)) return err("NOT_IN_CART", `${item} is not in the cart`);
        this.cart.delete(item);
        return JSON.stringify(this.cartView());
      }
      case "checkout": {
        if (this.cart.size === 0) return err("EMPTY_CART", "the cart is empty");
        const { cart, total } = this.cartView();
        for (const [item, qty] of this.cart) this.stock.set(item, (this.stock.get(item) ?? 0) - qty);
        const order = `O${this.orders.length + 1}`;
        this.orders.push({ order, items: cart, total });
        this.cart.clear();
        return JSON.stringify({ order, total });
      }
      default:
        return err("TOOL_NOT_AVAILABLE", `no tool ${name}`);
    }
  }

  snapshot(): ShopSnapshot {
    return {
      stock: Object.fromEntries(this.stock),
      cart: this.cartView().cart,
      orders: this.orders.map((o) => ({ ...o, items: { ...o.items } })),
    };
  }
}

export const shopEnvironment: EnvironmentFactory = { create: () => new ShopWorld() };

export function catalogueItem(item: string): CatalogueItem {
  const c = CATALOGUE.find((x) => x.item === item);
  if (!c) throw new Error(`unknown catalogue item ${item}`);
  return c;
}
