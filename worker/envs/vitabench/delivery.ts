/** The delivery tools (vita/domains/delivery/tools.py DeliveryTools @ 96f3b85): 12 tools, upstream's texts and state changes. */
import { pyIter, pyJoin, pyLen } from "../../../lib/python/builtins";
import { pyAdd, pyMul } from "../../../lib/python/numbers";
import { isNumber, PyDict, pyCompare, pyEq, PyException, pyRepr, pyStr, pyTruthy, pyTypeName, typeError, valueError, type PyValue } from "../../../lib/python/values";
import { isModel, Location, make, Order, StoreProduct, type PyModel } from "./models";
import { rerank } from "./rerank";
import { addressToLngLat, distance } from "./toolkit";
import { check, checkTimeFormat, strToDatetime, type ToolDef, type World } from "./world";

const Q = "DeliveryTools";
const attributeError = (v: PyValue, name: string) => new PyException("AttributeError", `'${pyTypeName(v)}' object has no attribute '${name}'`);

export const checkUser = (w: World, userId: PyValue) => pyEq(userId, w.get("user_id"));

/** `key in d` (a list or dict key is unhashable: TypeError). */
export const inDict = (d: PyDict, key: PyValue) => d.has(key);

function getStore(w: World, storeId: PyValue): PyModel {
  const stores = w.dict("stores");
  if (!inDict(stores, storeId)) throw valueError(`Store ${pyStr(storeId)} not found`);
  return stores.get(storeId) as PyModel;
}

function getStoreProduct(w: World, productId: PyValue): PyModel {
  const reg = w.reg.products;
  if (typeof productId !== "string" || !reg.has(productId)) {
    if (Array.isArray(productId) || productId instanceof PyDict) throw typeError(`unhashable type: '${pyTypeName(productId)}'`);
    throw valueError(`${pyStr(productId)} not found`);
  }
  const p = reg.get(productId)!;
  if (!isModel(p, StoreProduct)) throw valueError(`${productId} is not a delivery product`);
  return p;
}

/** DeliveryTools._get_delivery_order(order_id): the order, checked to be a delivery order. */
function getDeliveryOrder(w: World, orderId: PyValue, attr: string): PyModel {
  const orders = w.dict("orders");
  if (orderId === null) throw attributeError([], attr); // upstream gets the list of all delivery orders, then `.attr` fails
  if (!inDict(orders, orderId)) throw valueError(`Order ${pyStr(orderId)} not found`);
  const order = orders.get(orderId) as PyModel;
  if (order.get("order_type") !== "delivery") throw valueError(`Order ${pyStr(orderId)} is not a delivery order`);
  return order;
}

/** delivery_distance_to_time: round(25 + int(distance) · 0.006510, 0). */
function distanceToTime(d: PyValue): number {
  check(isNumber(d), () => `distance value type should be float or int, but get <class '${pyTypeName(d)}'>`);
  const n = typeof d === "boolean" ? (d ? 1 : 0) : typeof d === "bigint" ? Number(d) : Math.trunc(d);
  const x = 25.0 + n * 0.00651;
  const f = Math.floor(x);
  return x - f > 0.5 ? f + 1 : x - f < 0.5 ? f : f % 2 === 0 ? f : f + 1;
}

function search(w: World, keywords: PyValue, docs: Map<string, string>): string[] {
  return rerank(pyJoin("", keywords), docs)
    .slice(0, 100)
    .map((r) => r.key);
}

/** `seq[:n]` for a list or a str (a str slices into characters). */
const slice = (v: PyValue, n: number): PyValue[] => (typeof v === "string" ? Array.from(v).slice(0, n) : pyIter(v).slice(0, n));

export const DELIVERY_TOOLS: readonly ToolDef[] = [
  {
    name: "delivery_distance_to_time",
    qualname: `${Q}.delivery_distance_to_time`,
    params: [{ name: "distance" }],
    run: (_w, a) => distanceToTime(a.distance!),
  },
  {
    name: "get_delivery_store_info",
    qualname: `${Q}.get_delivery_store_info`,
    params: [{ name: "store_id" }],
    run: (w, a) => getStore(w, a.store_id!).repr(),
  },
  {
    name: "get_delivery_product_info",
    qualname: `${Q}.get_delivery_product_info`,
    params: [{ name: "product_id" }],
    run: (w, a) => getStoreProduct(w, a.product_id!).repr(),
  },
  {
    name: "delivery_store_search_recommand",
    qualname: `${Q}.delivery_store_search_recommand`,
    params: [{ name: "keywords" }],
    run(w, a) {
      const docs = new Map<string, string>();
      for (const s of w.dict("stores").values() as PyModel[]) docs.set(s.s("store_id"), s.s("name") + (s.get("tags") as string[]).join(","));
      return search(w, a.keywords!, docs)
        .map((id) => getStore(w, id).str())
        .join("\n");
    },
  },
  {
    name: "delivery_product_search_recommand",
    qualname: `${Q}.delivery_product_search_recommand`,
    params: [{ name: "keywords" }],
    run(w, a) {
      const docs = new Map<string, string>();
      for (const p of w.reg.products.values()) if (isModel(p, StoreProduct)) docs.set(p.s("product_id"), `${p.s("store_name")} ${p.s("name")} ${pyStr(p.get("tags"))}`);
      return search(w, a.keywords!, docs)
        .map((id) => getStoreProduct(w, id).repr())
        .join("\n");
    },
  },
  {
    name: "create_delivery_order",
    qualname: `${Q}.create_delivery_order`,
    params: [{ name: "user_id" }, { name: "store_id" }, { name: "product_ids" }, { name: "product_cnts" }, { name: "address" }, { name: "dispatch_time" }, { name: "attributes", default: null }, { name: "note", default: "" }],
    run(w, a) {
      const { user_id, store_id, product_ids, product_cnts, address, dispatch_time } = a as Record<string, PyValue>;
      check(pyTruthy(user_id!), "User ID cannot be empty");
      check(checkUser(w, user_id!), "User ID does not match");
      check(inDict(w.dict("stores"), store_id!), () => `Store ${pyStr(store_id!)} not found`);
      for (const pid of pyIter(product_ids!)) getStoreProduct(w, pid);
      check(!pyEq(address!, ""), () => `Location ${pyStr(address!)} is empty`);
      const cntsOk = pyLen(product_ids!) === pyLen(product_cnts!) && pyIter(product_cnts!).every((c) => pyCompare(c, ">", 0n));
      check(cntsOk, () => `product_cnts ${pyStr(product_cnts!)} list is invalid`);
      check(pyTruthy(dispatch_time!) && checkTimeFormat(dispatch_time!), () => `dispatch_time ${pyStr(dispatch_time!)} time format is invalid, yyyy-mm-dd HH:MM:SS required`);
      check(strToDatetime(dispatch_time!).timestamp() >= strToDatetime(w.now()).timestamp(), () => `dispatch_time ${pyStr(dispatch_time!)} must be in the future`);
      const products = pyIter(product_ids!).map((pid) => getStoreProduct(w, pid));
      const store = getStore(w, store_id!);
      const [lng, lat] = addressToLngLat(w, address!);
      const storeLoc = store.get("location") as PyModel;
      const dist = distance(lng, lat, storeLoc.get("longitude"), storeLoc.get("latitude"));
      const shipping = distanceToTime(dist);
      const deliveryTime = strToDatetime(dispatch_time!).plus(0, shipping * 60).strftime("%Y-%m-%d %H:%M:%S");
      const cnts = pyIter(product_cnts!);
      let total: PyValue = 0n;
      products.forEach((p, i) => (total = pyAdd(total, pyMul(p.get("price"), cnts[i]!))));
      const attrs: PyValue[] = products.map(() => "");
      const given = a.attributes === null ? [] : a.attributes!;
      slice(given, products.length).forEach((attr, i) => {
        if (pyTruthy(attr)) attrs[i] = attr;
      });
      const ordered = products.map((p, i) =>
        make(
          StoreProduct,
          { product_id: p.get("product_id"), name: p.get("name"), store_id: p.get("store_id"), store_name: p.get("store_name"), price: p.get("price"), quantity: cnts[i]!, attributes: attrs[i]!, tags: p.get("tags") },
          w.reg,
        ),
      );
      const orderId = w.assignOrderId("delivery", user_id!);
      const location = make(Location, { address: address!, longitude: lng, latitude: lat }, w.reg);
      const order = make(
        Order,
        {
          order_id: orderId,
          order_type: "delivery",
          user_id: user_id!,
          store_id: store_id!,
          location,
          dispatch_time: dispatch_time!,
          shipping_time: shipping,
          delivery_time: deliveryTime,
          total_price: total,
          create_time: w.now(),
          update_time: w.now(),
          note: a.note!,
          products: ordered,
          status: "unpaid",
        },
        w.reg,
      );
      const orders = w.dict("orders");
      if (orders.has(orderId)) return "Order already exists";
      orders.set(orderId, order);
      return order.repr();
    },
  },
  {
    name: "pay_delivery_order",
    qualname: `${Q}.pay_delivery_order`,
    params: [{ name: "order_id" }],
    run(w, a) {
      const order = getDeliveryOrder(w, a.order_id!, "status");
      if (order.get("status") !== "unpaid") return "Order is not in `unpaid` status.";
      order.set("status", "paid");
      return "Payment successful";
    },
  },
  {
    name: "get_delivery_order_status",
    qualname: `${Q}.get_delivery_order_status`,
    params: [{ name: "order_id" }],
    run: (w, a) => getDeliveryOrder(w, a.order_id!, "status").get("status"),
  },
  {
    name: "cancel_delivery_order",
    qualname: `${Q}.cancel_delivery_order`,
    params: [{ name: "order_id" }],
    run(w, a) {
      const order = getDeliveryOrder(w, a.order_id!, "status");
      check(order.get("status") !== "cancelled", () => `Order ${pyStr(a.order_id!)} is already cancelled`);
      order.set("status", "cancelled");
      return `Order ${order.s("order_id")} has been cancelled.`;
    },
  },
  {
    name: "modify_delivery_order",
    qualname: `${Q}.modify_delivery_order`,
    params: [{ name: "order_id" }, { name: "note" }],
    run(w, a) {
      const order = getDeliveryOrder(w, a.order_id!, "note");
      order.set("note", a.note!);
      return `Order ${order.s("order_id")} has been modified.`;
    },
  },
  {
    name: "search_delivery_orders",
    qualname: `${Q}.search_delivery_orders`,
    params: [{ name: "user_id" }, { name: "status", default: "unpaid" }],
    run(w, a) {
      check(pyTruthy(a.user_id!), "User ID cannot be empty");
      check(checkUser(w, a.user_id!), "User ID does not match");
      const found = (w.dict("orders").values() as PyModel[]).filter(
        (o) => o.get("order_type") === "delivery" && pyEq(o.get("status"), a.status!) && pyEq(o.get("user_id"), a.user_id!),
      );
      if (!found.length) return "No delivery orders available";
      return found.map((o) => o.str()).join("\n");
    },
  },
  {
    name: "get_delivery_order_detail",
    qualname: `${Q}.get_delivery_order_detail`,
    params: [{ name: "order_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      return pyRepr(getDeliveryOrder(w, a.order_id!, "x"));
    },
  },
];
