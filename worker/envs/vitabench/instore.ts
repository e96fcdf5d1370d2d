/** The in-store tools (vita/domains/instore/tools.py InStoreTools @ 96f3b85): 16 tools, upstream's texts and state changes. */
import { pyJoin } from "../../../lib/python/builtins";
import { pyMul } from "../../../lib/python/numbers";
import { PyDict, pyCompare, pyEq, pyStr, pyTruthy, pyTypeName, typeError, valueError, type PyValue } from "../../../lib/python/values";
import { checkUser, inDict } from "./delivery";
import { BookInfo, isModel, make, Order, ReservationInfo, ShopProduct, type PyModel } from "./models";
import { rerank } from "./rerank";
import { check, checkTimeFormat, type ToolDef, type World } from "./world";

const Q = "InStoreTools";
const FMT_BOOK = "Table booking time format is incorrect, correct format is %Y-%m-%d %H:%M:%S";
const FMT_RESV = "Reservation time format is incorrect, correct format is %Y-%m-%d %H:%M:%S";

function getShop(w: World, shopId: PyValue): PyModel {
  const shops = w.dict("shops");
  if (!inDict(shops, shopId)) throw valueError(`Shop ${pyStr(shopId)} does not exist`);
  return shops.get(shopId) as PyModel;
}

function getShopProduct(w: World, productId: PyValue): PyModel {
  if (Array.isArray(productId) || productId instanceof PyDict) throw typeError(`unhashable type: '${pyTypeName(productId)}'`);
  const p = typeof productId === "string" ? w.reg.products.get(productId) : undefined;
  if (!p) throw valueError(`Product ${pyStr(productId)} does not exist`);
  if (!isModel(p, ShopProduct)) throw valueError(`Product ${pyStr(productId)} is not an instore scenario product`);
  return p;
}

function getInstoreOrder(w: World, orderId: PyValue): PyModel {
  const orders = w.dict("orders");
  if (!inDict(orders, orderId)) throw valueError(`Order ${pyStr(orderId)} not found`);
  const order = orders.get(orderId) as PyModel;
  if (order.get("order_type") !== "instore") throw valueError(`Order ${pyStr(orderId)} is not an instore order`);
  return order;
}

function getFrom(w: World, table: "books" | "reservations", id: PyValue): PyModel {
  const d = w.dict(table);
  if (!inDict(d, id)) throw valueError(`${table === "books" ? "BookInfo" : "ReservationInfo"} ${pyStr(id)} not found`);
  return d.get(id) as PyModel;
}

function searchIds(keywords: PyValue, docs: Map<string, string>): string[] {
  return rerank(pyJoin("", keywords), docs)
    .slice(0, 1000)
    .map((r) => r.key);
}

const userChecks = (w: World, userId: PyValue) => {
  check(pyTruthy(userId), "User ID cannot be empty");
  check(checkUser(w, userId), "User ID does not match");
};

const reprs = (items: PyModel[]) => items.map((x) => x.repr()).join("\n");

export const INSTORE_TOOLS: readonly ToolDef[] = [
  {
    name: "instore_shop_search_recommend",
    qualname: `${Q}.instore_shop_search_recommend`,
    params: [{ name: "keywords" }],
    run(w, a) {
      const docs = new Map<string, string>();
      for (const s of w.dict("shops").values() as PyModel[]) docs.set(s.s("shop_id"), s.s("shop_name") + "," + (s.get("tags") as string[]).join(","));
      return searchIds(a.keywords!, docs)
        .map((id) => getShop(w, id).str())
        .join("\n");
    },
  },
  {
    name: "instore_product_search_recommend",
    qualname: `${Q}.instore_product_search_recommend`,
    params: [{ name: "keywords" }],
    run(w, a) {
      const docs = new Map<string, string>();
      for (const [id, p] of w.reg.products) if (isModel(p, ShopProduct)) docs.set(id, p.s("name") + "," + (p.get("tags") as string[]).join(","));
      return searchIds(a.keywords!, docs)
        .map((id) => getShopProduct(w, id).repr())
        .join("\n");
    },
  },
  {
    name: "create_instore_product_order",
    qualname: `${Q}.create_instore_product_order`,
    params: [{ name: "user_id" }, { name: "shop_id" }, { name: "product_id" }, { name: "quantity", default: 1n }],
    run(w, a) {
      userChecks(w, a.user_id!);
      check(inDict(w.dict("shops"), a.shop_id!), "Shop does not exist");
      check(
        (getShop(w, a.shop_id!).get("products") as PyModel[]).some((p) => pyEq(p.get("product_id"), a.product_id!)),
        "Product does not exist",
      );
      check(pyCompare(a.quantity!, ">", 0n), "Quantity must be greater than 0");
      const product = getShopProduct(w, a.product_id!);
      product.set("quantity", a.quantity!);
      const order = make(
        Order,
        {
          order_id: w.assignOrderId("instore", a.user_id!),
          order_type: "instore",
          user_id: a.user_id!,
          store_id: a.shop_id!,
          total_price: pyMul(a.quantity!, product.get("price")),
          create_time: w.now(),
          update_time: w.now(),
          status: "unpaid",
          products: [product],
        },
        w.reg,
      );
      const orders = w.dict("orders");
      if (orders.has(order.get("order_id"))) return "Order already exists";
      orders.set(order.get("order_id"), order);
      return order.repr();
    },
  },
  {
    name: "pay_instore_order",
    qualname: `${Q}.pay_instore_order`,
    params: [{ name: "order_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      const order = getInstoreOrder(w, a.order_id!);
      if (order.get("status") !== "unpaid") return `Order ${pyStr(a.order_id!)} is not in \`unpaid\` status.`;
      order.set("status", "paid");
      order.set("update_time", w.now());
      return "Payment successful";
    },
  },
  {
    name: "instore_cancel_order",
    qualname: `${Q}.instore_cancel_order`,
    params: [{ name: "order_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      const order = getInstoreOrder(w, a.order_id!);
      if (order.get("status") === "cancelled") return `Order ${order.s("order_id")} is already cancelled.`;
      order.set("status", "cancelled");
      order.set("update_time", w.now());
      return `Order ${order.s("order_id")} is cancelled.`;
    },
  },
  {
    name: "instore_book",
    qualname: `${Q}.instore_book`,
    params: [{ name: "user_id" }, { name: "shop_id" }, { name: "time" }, { name: "customer_count", default: 1n }],
    run(w, a) {
      userChecks(w, a.user_id!);
      check(inDict(w.dict("shops"), a.shop_id!), "Shop does not exist");
      check(pyCompare(a.customer_count!, ">", 0n), "Number of customers for table booking must be greater than 0");
      check(pyTruthy(a.time!), "Table booking time cannot be empty");
      check(checkTimeFormat(a.time!, "%Y-%m-%d %H:%M:%S"), FMT_BOOK);
      const shop = w.dict("shops").get(a.shop_id!) as PyModel;
      check(pyTruthy(shop.get("enable_book")), "Shop does not support table booking");
      const price = shop.get("book_price");
      const book = make(
        BookInfo,
        {
          book_id: w.assignOrderId("instore_book", a.user_id!),
          shop_id: a.shop_id!,
          book_time: a.time!,
          customer_count: a.customer_count!,
          book_price: price,
          customer_id: a.user_id!,
          status: pyCompare(price, ">", 0n) ? "unpaid" : "paid",
          update_time: w.now(),
        },
        w.reg,
      );
      const books = w.dict("books");
      if (books.has(book.get("book_id"))) return "BookInfo already exists";
      books.set(book.get("book_id"), book);
      return book.repr();
    },
  },
  {
    name: "pay_instore_book",
    qualname: `${Q}.pay_instore_book`,
    params: [{ name: "book_id" }],
    run(w, a) {
      check(pyTruthy(a.book_id!), "Booking ID cannot be empty");
      const book = getFrom(w, "books", a.book_id!);
      if (book.get("status") !== "unpaid") return `BookInfo ${book.s("book_id")} is not in \`unpaid\` status.`;
      book.set("status", "paid");
      book.set("update_time", w.now());
      return "Payment successful";
    },
  },
  {
    name: "instore_cancel_book",
    qualname: `${Q}.instore_cancel_book`,
    params: [{ name: "book_id" }],
    run(w, a) {
      check(pyTruthy(a.book_id!), "Booking ID cannot be empty");
      const book = getFrom(w, "books", a.book_id!);
      if (book.get("status") === "cancelled") return `BookInfo ${book.s("book_id")} is already cancelled.`;
      book.set("status", "cancelled");
      book.set("update_time", w.now());
      return `BookInfo ${book.s("book_id")} is cancelled.`;
    },
  },
  {
    name: "instore_reservation",
    qualname: `${Q}.instore_reservation`,
    params: [{ name: "user_id" }, { name: "shop_id" }, { name: "time" }, { name: "customer_count", default: 1n }],
    run(w, a) {
      userChecks(w, a.user_id!);
      check(inDict(w.dict("shops"), a.shop_id!), "Shop does not exist");
      check(checkTimeFormat(a.time!, "%Y-%m-%d %H:%M:%S"), FMT_RESV);
      check(pyCompare(a.customer_count!, ">", 0n), "Number of customers for reservation must be greater than 0");
      const r = make(
        ReservationInfo,
        {
          reservation_id: w.assignOrderId("instore_reservation", a.user_id!),
          shop_id: a.shop_id!,
          reservation_time: a.time!,
          customer_id: a.user_id!,
          customer_count: a.customer_count!,
          status: "unconsumed",
          update_time: w.now(),
        },
        w.reg,
      );
      const rs = w.dict("reservations");
      if (rs.has(r.get("reservation_id"))) return "ReservationInfo already exists";
      rs.set(r.get("reservation_id"), r);
      return r.repr();
    },
  },
  {
    name: "instore_modify_reservation",
    qualname: `${Q}.instore_modify_reservation`,
    params: [{ name: "reservation_id" }, { name: "time" }, { name: "customer_count", default: 0n }],
    run(w, a) {
      check(pyTruthy(a.reservation_id!), "Reservation ID cannot be empty");
      const r = getFrom(w, "reservations", a.reservation_id!);
      const status = r.get("status");
      if (status === "consumed" || status === "cancelled") return `ReservationInfo ${r.s("reservation_id")} is already ${pyStr(status)}.`;
      check(pyCompare(a.customer_count!, ">=", 0n), "Number of customers for reservation must be greater than or equal to 0");
      check(pyTruthy(a.time!), "Reservation time cannot be empty");
      check(checkTimeFormat(a.time!, "%Y-%m-%d %H:%M:%S"), FMT_RESV);
      r.set("reservation_time", a.time!);
      r.set("customer_count", a.customer_count!);
      r.set("update_time", w.now());
      return r.repr();
    },
  },
  {
    name: "instore_cancel_reservation",
    qualname: `${Q}.instore_cancel_reservation`,
    params: [{ name: "reservation_id" }],
    run(w, a) {
      check(pyTruthy(a.reservation_id!), "Reservation ID cannot be empty");
      const r = getFrom(w, "reservations", a.reservation_id!);
      if (r.get("status") === "cancelled") return `ReservationInfo ${r.s("reservation_id")} is already cancelled.`;
      r.set("status", "cancelled");
      r.set("update_time", w.now());
      return `ReservationInfo ${r.s("reservation_id")} is cancelled.`;
    },
  },
  {
    name: "get_instore_orders",
    qualname: `${Q}.get_instore_orders`,
    params: [{ name: "user_id" }],
    run(w, a) {
      userChecks(w, a.user_id!);
      const mine = (w.dict("orders").values() as PyModel[]).filter((o) => o.get("order_type") === "instore" && pyEq(o.get("user_id"), a.user_id!));
      if (!mine.length) return `User ${pyStr(a.user_id!)} has no order information.`;
      return reprs(mine);
    },
  },
  {
    name: "get_instore_reservations",
    qualname: `${Q}.get_instore_reservations`,
    params: [{ name: "user_id" }],
    run(w, a) {
      userChecks(w, a.user_id!);
      const mine = (w.dict("reservations").values() as PyModel[]).filter((r) => pyEq(r.get("customer_id"), a.user_id!));
      if (!mine.length) return `User ${pyStr(a.user_id!)} has no reservation information.`;
      return reprs(mine);
    },
  },
  {
    name: "get_instore_books",
    qualname: `${Q}.get_instore_books`,
    params: [{ name: "user_id" }],
    run(w, a) {
      userChecks(w, a.user_id!);
      const mine = (w.dict("books").values() as PyModel[]).filter((b) => pyEq(b.get("customer_id"), a.user_id!));
      if (!mine.length) return `User ${pyStr(a.user_id!)} has no book information.`;
      return reprs(mine);
    },
  },
  {
    name: "search_instore_book",
    qualname: `${Q}.search_instore_book`,
    params: [{ name: "user_id" }, { name: "book_id", default: null }],
    run(w, a) {
      userChecks(w, a.user_id!);
      if (a.book_id === null) {
        const mine = (w.dict("books").values() as PyModel[]).filter((b) => pyEq(b.get("customer_id"), a.user_id!));
        if (!mine.length) return `User ${pyStr(a.user_id!)} has no book information.`;
        return reprs(mine);
      }
      const book = getFrom(w, "books", a.book_id!);
      if (!pyEq(book.get("customer_id"), a.user_id!)) return `BookInfo ${pyStr(a.book_id!)} is not belong to user ${pyStr(a.user_id!)}.`;
      return book.repr();
    },
  },
  {
    name: "search_instore_reservation",
    qualname: `${Q}.search_instore_reservation`,
    params: [{ name: "user_id" }, { name: "reservation_id", default: null }],
    run(w, a) {
      userChecks(w, a.user_id!);
      if (a.reservation_id === null) {
        const mine = (w.dict("reservations").values() as PyModel[]).filter((r) => pyEq(r.get("customer_id"), a.user_id!));
        if (!mine.length) return `User ${pyStr(a.user_id!)} has no reservation information.`;
        return reprs(mine);
      }
      const r = getFrom(w, "reservations", a.reservation_id!);
      if (!pyEq(r.get("customer_id"), a.user_id!)) return `ReservationInfo ${pyStr(a.reservation_id!)} is not belong to user ${pyStr(a.user_id!)}.`;
      return r.repr();
    },
  },
];
