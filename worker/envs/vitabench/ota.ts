/** The OTA tools (vita/domains/ota/tools.py OTATools @ 96f3b85): 30 tools, upstream's texts and state changes. */
import { pyJoin } from "../../../lib/python/builtins";
import { pyAdd, pyMul, pySub } from "../../../lib/python/numbers";
import { PyDict, pyCompare, pyEq, PyException, pyRepr, pyStr, pyTruthy, pyTypeName, valueError, type PyValue } from "../../../lib/python/values";
import { checkUser, inDict } from "./delivery";
import { partialRatio } from "./fuzz";
import { AttractionProduct, FlightProduct, HotelProduct, make, Order, PyModel, TrainProduct, type ModelClass } from "./models";
import { rerank } from "./rerank";
import { check, checkTimeFormat, type ToolDef, type World } from "./world";

const Q = "OTATools";
const DATE_FMT = "Date format is incorrect, correct format is %Y-%m-%d";

/** utils.fuzzy_match: fuzz.partial_ratio(x, y) >= 40, unprocessed. */
function fuzzyMatch(x: PyValue, y: PyValue): boolean {
  if (typeof x !== "string" || typeof y !== "string") throw new PyException("TypeError", "sentence must be a String");
  return partialRatio(x, y) >= 40;
}

const checkDate = (d: PyValue) => checkTimeFormat(d, "%Y-%m-%d");

function lookup(w: World, table: string, label: string, id: PyValue): PyModel {
  const d = w.dict(table);
  if (!inDict(d, id)) throw valueError(`${label} ${pyStr(id)} not found`);
  return d.get(id) as PyModel;
}

/** OTATools._get_ota_order(order_id): the order by id (any type). A falsy id gives the list of all OTA orders. */
function getOrder(w: World, orderId: PyValue): PyModel {
  const orders = w.dict("orders");
  if (!pyTruthy(orderId)) throw new PyException("AttributeError", "'list' object has no attribute 'status'");
  if (!inDict(orders, orderId)) throw valueError(`Order ${pyStr(orderId)} not found`);
  return orders.get(orderId) as PyModel;
}

const ordersOf = (w: World, scene: string) => (w.dict("orders").values() as PyModel[]).filter((o) => o.get("order_type") === scene);

const userChecks = (w: World, userId: PyValue) => {
  check(pyTruthy(userId), "User ID cannot be empty");
  check(checkUser(w, userId), "User ID does not match");
};

/** `getattr(product, "date")` of an order's product: a model's field, or nothing (a raw dict has no attribute). */
const productDate = (p: PyValue): PyValue | undefined => (p instanceof PyModel && p.has("date") ? p.get("date") : undefined);

/** search_<scene>_order: the user's orders of a scene, optionally of a status and with a product on a date. */
function searchOrders(w: World, scene: string, a: Record<string, PyValue>): string {
  const picked: PyModel[] = [];
  for (const order of ordersOf(w, scene)) {
    let selected: PyModel | null = pyEq(order.get("user_id"), a.user_id!) ? order : null;
    if (pyTruthy(a.status!) && !pyEq(order.get("status"), a.status!)) selected = null;
    if (pyTruthy(a.date!)) {
      if (selected === null) selected = null;
      else if (!(selected.get("products") as PyValue[]).some((p) => productDate(p) !== undefined && pyEq(productDate(p)!, a.date!))) selected = null;
    }
    if (selected) picked.push(selected);
  }
  return picked.map((o) => o.str()).join("\n");
}

function infoTool(name: string, table: string, label: string, arg: string, title: string, emptyMsg: string): ToolDef {
  return {
    name,
    qualname: `${Q}.${name}`,
    params: [{ name: arg }],
    run(w, a) {
      check(pyTruthy(a[arg]!), emptyMsg);
      try {
        return `${title} Info:\n${lookup(w, table, label, a[arg]!).repr()}`;
      } catch (e) {
        if (e instanceof PyException && e.pyType === "ValueError") return `Error: ${e.pyMessage}`;
        throw e;
      }
    },
  };
}

/** create_{attraction,flight,train}_order: take `quantity` of a product on a date. */
function createTicketOrder(
  scene: "attraction" | "flight" | "train",
  idArg: string,
  productArg: string,
  cls: ModelClass,
  typeField: string,
  messages: { empty: [string, string]; none: string; short: string },
): ToolDef {
  const table = `${scene}s`;
  return {
    name: `create_${scene}_order`,
    qualname: `${Q}.create_${scene}_order`,
    params: [{ name: idArg }, { name: productArg }, { name: "user_id" }, { name: "date" }, { name: "quantity" }],
    run(w, a) {
      check(pyTruthy(a[idArg]!), messages.empty[0]);
      check(pyTruthy(a[productArg]!), messages.empty[1]);
      check(pyTruthy(a.user_id!), "User ID cannot be empty");
      check(pyCompare(a.quantity!, ">", 0n), "Booking quantity must be greater than 0");
      check(checkUser(w, a.user_id!), "User ID does not match");
      const owner = lookup(w, table, scene, a[idArg]!);
      const target = (owner.get("products") as PyModel[]).find((p) => pyEq(p.get("date"), a.date!) && pyEq(p.get("product_id"), a[productArg]!));
      if (!target) return messages.none;
      if (pyCompare(target.get("quantity"), "<", a.quantity!)) return messages.short;
      target.set("quantity", pySub(target.get("quantity"), a.quantity!));
      const ordered = make(
        cls,
        { product_id: target.get("product_id"), price: target.get("price"), date: a.date!, quantity: a.quantity!, [typeField]: target.get(typeField) },
        w.reg,
      );
      let total: PyValue = 0n;
      total = pyAdd(total, pyMul(ordered.get("price"), ordered.get("quantity")));
      const order = make(
        Order,
        {
          order_id: w.assignOrderId(scene, a.user_id!),
          order_type: scene,
          user_id: a.user_id!,
          store_id: a[idArg]!,
          total_price: total,
          update_time: w.now(),
          create_time: w.now(),
          status: "unpaid",
          products: [ordered],
        },
        w.reg,
      );
      return addOrder(w, order);
    },
  };
}

function addOrder(w: World, order: PyModel): string {
  const orders = w.dict("orders");
  if (orders.has(order.get("order_id"))) return "Order already exists";
  orders.set(order.get("order_id"), order);
  return order.repr();
}

function payTool(scene: string): ToolDef {
  return {
    name: `pay_${scene}_order`,
    qualname: `${Q}.pay_${scene}_order`,
    params: [{ name: "order_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      const order = getOrder(w, a.order_id!);
      if (order.get("status") !== "unpaid") return "Order status must be unpaid";
      order.set("status", "paid");
      order.set("update_time", w.now());
      return "Payment successful";
    },
  };
}

function searchTool(scene: string): ToolDef {
  return {
    name: `search_${scene}_order`,
    qualname: `${Q}.search_${scene}_order`,
    params: [{ name: "user_id" }, { name: "date", default: null }, { name: "status", default: "paid" }],
    run(w, a) {
      userChecks(w, a.user_id!);
      if (scene === "hotel") {
        if (!ordersOf(w, "hotel").some((o) => pyEq(o.get("user_id"), a.user_id!))) throw valueError("User does not exist or has no order records");
      }
      if (pyTruthy(a.date!)) check(checkDate(a.date!), DATE_FMT);
      return searchOrders(w, scene, a);
    },
  };
}

function detailTool(scene: string, article: string): ToolDef {
  return {
    name: `get_${scene}_order_detail`,
    qualname: `${Q}.get_${scene}_order_detail`,
    params: [{ name: "order_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      const order = getOrder(w, a.order_id!);
      check(order.get("order_type") === scene, `Order type is not ${article} ${scene} order`);
      return pyRepr(order);
    },
  };
}

function cancelTool(scene: string, article: string): ToolDef {
  return {
    name: `cancel_${scene}_order`,
    qualname: `${Q}.cancel_${scene}_order`,
    params: [{ name: "order_id" }, { name: "user_id" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      check(pyTruthy(a.user_id!), "User ID cannot be empty");
      check(checkUser(w, a.user_id!), "User ID does not match");
      const order = getOrder(w, a.order_id!);
      check(order.get("order_type") === scene, `Order type is not ${article} ${scene} order`);
      check(order.get("status") !== "cancelled", "Order is already in cancelled status");
      let refund: PyValue = 0n;
      if (order.get("status") === "paid") refund = order.get("total_price");
      order.set("status", "cancelled");
      order.set("update_time", w.now());
      return `Cancellation successful, refund amount: ${pyStr(refund)}`;
    },
  };
}

/** `d.get(k)` of a raw dict product, or the model's field. */
const field = (p: PyValue, name: string): PyValue => {
  if (p instanceof PyDict) return p.get(name) ?? null;
  if (p instanceof PyModel) {
    if (!p.has(name)) throw new PyException("AttributeError", `'${p.pyType}' object has no attribute '${name}'`);
    return p.get(name);
  }
  throw new PyException("AttributeError", `'${pyTypeName(p)}' object has no attribute '${name}'`);
};

/** modify_{train,flight}_order: move a paid single-ticket order to another date of the same seat type. */
function modifyTool(scene: "train" | "flight"): ToolDef {
  const cls = scene === "train" ? TrainProduct : FlightProduct;
  return {
    name: `modify_${scene}_order`,
    qualname: `${Q}.modify_${scene}_order`,
    params: [{ name: "order_id" }, { name: "user_id" }, { name: "new_date" }],
    run(w, a) {
      check(pyTruthy(a.order_id!), "Order ID cannot be empty");
      check(pyTruthy(a.user_id!), "User ID cannot be empty");
      check(pyTruthy(a.new_date!), "New departure date cannot be empty");
      let order: PyModel;
      if (scene === "train") {
        check(checkUser(w, a.user_id!), "User ID does not match");
        check(checkDate(a.new_date!), DATE_FMT);
        check(pyTruthy(getOrder(w, a.order_id!)), "Order does not exist");
        order = getOrder(w, a.order_id!);
        check(order.get("order_type") === "train", "Order type is not a train order");
        check(pyEq(order.get("user_id"), a.user_id!), () => `Order ${pyStr(a.order_id!)} does not belong to user ${pyStr(a.user_id!)}`);
        check(order.get("status") === "paid", () => `Only paid orders can be modified, current status: ${pyStr(order.get("status"))}`);
        check((order.get("products") as PyValue[]).length === 1, "Only single train ticket order modification is supported");
      } else {
        check(checkDate(a.new_date!), DATE_FMT);
        check(checkUser(w, a.user_id!), "User ID does not match");
        order = getOrder(w, a.order_id!);
        check(order.get("order_type") === "flight", "Order type is not a flight order");
        check(pyEq(order.get("user_id"), a.user_id!), () => `User ${pyStr(a.user_id!)} does not have permission to modify this order`);
        check(order.get("status") === "paid", "Only paid orders can be modified");
        check((order.get("products") as PyValue[]).length === 1, "Only single flight ticket order modification is supported");
      }
      const old = (order.get("products") as PyValue[])[0]!;
      const seatType = field(old, "seat_type");
      const quantity = field(old, "quantity");
      const owners = w.dict(`${scene}s`);
      if (!owners.has(order.get("store_id"))) throw new PyException("KeyError", pyRepr(order.get("store_id")));
      const owner = owners.get(order.get("store_id")) as PyModel;
      const products = owner.get("products") as PyModel[];
      const next = products.find((p) => pyEq(p.get("date"), a.new_date!) && pyEq(p.get("seat_type"), seatType));
      check(next !== undefined, () => `New date ${pyStr(a.new_date!)} does not have ${pyStr(seatType)} type seats`);
      check(pyCompare(next.get("quantity"), ">=", quantity), () => `Insufficient ${pyStr(seatType)} seat inventory for new date ${pyStr(a.new_date!)}`);
      for (const p of products) {
        const oldDate = field(old, "date");
        if (pyEq(p.get("date"), oldDate) && pyEq(p.get("seat_type"), seatType)) {
          p.set("quantity", pyAdd(p.get("quantity"), quantity));
          break;
        }
      }
      next.set("quantity", pySub(next.get("quantity"), quantity));
      const oldTotal = pyMul(field(old, "price"), quantity);
      const newTotal = pyMul(next.get("price"), quantity);
      const diff = pySub(newTotal, oldTotal);
      if (pyCompare(diff, ">", 0n)) order.set("status", "unpaid");
      order.set("products", [make(cls, { product_id: next.get("product_id"), price: next.get("price"), date: a.new_date!, seat_type: seatType, quantity }, w.reg)]);
      order.set("total_price", newTotal);
      order.set("update_time", w.now());
      if (pyCompare(diff, ">", 0n)) return `Modification successful, need to pay additional amount: ${pyStr(diff)}, please pay as soon as possible`;
      return `Modification successful, price difference: ${pyStr(diff)}, refunded`;
    },
  };
}

export const OTA_TOOLS: readonly ToolDef[] = [
  infoTool("get_ota_hotel_info", "hotels", "hotel", "hotel_id", "Hotel", "Hotel ID cannot be empty"),
  infoTool("get_ota_attraction_info", "attractions", "attraction", "attraction_id", "Attraction", "Attraction ID cannot be empty"),
  infoTool("get_ota_flight_info", "flights", "flight", "flight_id", "Flight", "Flight ID cannot be empty"),
  infoTool("get_ota_train_info", "trains", "train", "train_id", "Train", "Train ID cannot be empty"),
  {
    name: "hotel_search_recommand",
    qualname: `${Q}.hotel_search_recommand`,
    params: [{ name: "city_name" }, { name: "key_words", default: null }],
    run(w, a) {
      const hotels = (w.dict("hotels").values() as PyModel[]).filter((h) => fuzzyMatch(a.city_name!, (h.get("location") as PyModel).get("address")));
      if (!hotels.length) return "No hotels found matching the criteria. Please check if the city name is correct and try again.";
      const docs = new Map<string, string>();
      for (const h of hotels) {
        // _get_hotel_tags: self.db.hotels[hotel_id] (a KeyError when the key is not the hotel's id).
        const byId = w.dict("hotels").get(h.get("hotel_id")) as PyModel | undefined;
        if (!byId) throw new PyException("KeyError", pyRepr(h.get("hotel_id")));
        docs.set(h.s("hotel_id"), byId.s("hotel_name") + (byId.get("tags") as string[]).join(","));
      }
      return rerank(pyJoin("", pyTruthy(a.key_words!) ? a.key_words! : []), docs)
        .slice(0, 100)
        .map((r) => lookup(w, "hotels", "hotel", r.key).str())
        .join("\n");
    },
  },
  {
    name: "attractions_search_recommend",
    qualname: `${Q}.attractions_search_recommend`,
    params: [{ name: "city_name" }, { name: "key_words" }],
    run(w, a) {
      const found = (w.dict("attractions").values() as PyModel[]).filter((x) => fuzzyMatch(a.city_name!, (x.get("location") as PyModel).get("address")));
      if (!found.length) return "No attractions found matching the criteria. Please check if the city name is correct and try again.";
      const docs = new Map<string, string>();
      for (const x of found) {
        const at = lookup(w, "attractions", "attraction", x.get("attraction_id"));
        docs.set(x.s("attraction_id"), `${pyStr(at.get("attraction_name"))},${pyStr(at.get("description"))},${pyStr((at.get("location") as PyModel).get("address"))}`);
      }
      return rerank(pyJoin("", a.key_words!), docs)
        .slice(0, 100)
        .map((r) => lookup(w, "attractions", "attraction", r.key).str())
        .join("\n");
    },
  },
  {
    name: "flight_search_recommend",
    qualname: `${Q}.flight_search_recommend`,
    params: [{ name: "departure" }, { name: "destination" }],
    run(w, a) {
      check(pyTruthy(a.departure!), "Departure city cannot be empty");
      check(pyTruthy(a.destination!), "Destination city cannot be empty");
      const found = (w.dict("flights").values() as PyModel[]).filter((f) => fuzzyMatch(a.departure!, f.get("departure_city")) && fuzzyMatch(a.destination!, f.get("arrival_city")));
      if (!found.length) return "No flights found matching the criteria";
      return found.map((f) => f.str()).join("\n");
    },
  },
  {
    name: "train_ticket_search",
    qualname: `${Q}.train_ticket_search`,
    params: [{ name: "departure" }, { name: "destination" }, { name: "date" }],
    run(w, a) {
      check(pyTruthy(a.departure!), "Departure city cannot be empty");
      check(pyTruthy(a.destination!), "Destination city cannot be empty");
      check(pyTruthy(a.date!), "Departure date cannot be empty");
      check(checkDate(a.date!), DATE_FMT);
      const found: PyModel[] = [];
      for (const t of w.dict("trains").values() as PyModel[]) {
        // A train is listed once per product on the date (upstream appends inside the product loop).
        for (const p of t.get("products") as PyModel[]) {
          if (!pyEq(p.get("date"), a.date!)) continue;
          if (!fuzzyMatch(a.departure!, t.get("departure_city"))) continue;
          if (!fuzzyMatch(a.destination!, t.get("arrival_city"))) continue;
          found.push(t);
        }
      }
      if (!found.length) return "No trains found matching the criteria";
      return found.map((t) => t.str()).join("\n");
    },
  },
  {
    name: "create_hotel_order",
    qualname: `${Q}.create_hotel_order`,
    params: [{ name: "hotel_id" }, { name: "room_id" }, { name: "user_id" }],
    run(w, a) {
      check(pyTruthy(a.hotel_id!), "Hotel ID cannot be empty");
      check(pyTruthy(a.user_id!), "User ID cannot be empty");
      check(checkUser(w, a.user_id!), "User ID does not match");
      const hotel = lookup(w, "hotels", "hotel", a.hotel_id!);
      const rooms: PyModel[] = [];
      for (const p of hotel.get("products") as PyModel[]) {
        if (!pyEq(p.get("product_id"), a.room_id!)) continue;
        if (pyCompare(p.get("quantity"), "<=", 0n)) return "No available rooms at the moment";
        p.set("quantity", pySub(p.get("quantity"), 1n));
        rooms.push(make(HotelProduct, { product_id: p.get("product_id"), price: p.get("price"), date: p.get("date"), quantity: 1n, room_type: p.get("room_type") }, w.reg));
        break;
      }
      let total: PyValue = 0n;
      for (const r of rooms) total = pyAdd(total, r.get("price"));
      const order = make(
        Order,
        {
          order_id: w.assignOrderId("hotel", a.user_id!, { hotel_id: a.hotel_id!, product_id: a.room_id! }),
          order_type: "hotel",
          user_id: a.user_id!,
          store_id: a.hotel_id!,
          total_price: total,
          update_time: w.now(),
          create_time: w.now(),
          status: "unpaid",
          products: rooms,
        },
        w.reg,
      );
      return addOrder(w, order);
    },
  },
  createTicketOrder("attraction", "attraction_id", "ticket_id", AttractionProduct, "ticket_type", {
    empty: ["Attraction ID cannot be empty", "Ticket ID cannot be empty"],
    none: "The attraction does not have the specified ticket on the specified date",
    short: "Insufficient ticket inventory for the specified date",
  }),
  createTicketOrder("flight", "flight_id", "seat_id", FlightProduct, "seat_type", {
    empty: ["Flight ID cannot be empty", "Seat ID cannot be empty"],
    none: "The flight does not have the specified seat on the specified date",
    short: "Insufficient seat inventory for the specified date",
  }),
  createTicketOrder("train", "train_id", "seat_id", TrainProduct, "seat_type", {
    empty: ["Train ID cannot be empty", "Seat ID cannot be empty"],
    none: "The train does not have the specified seat on the specified date",
    short: "Insufficient seat inventory for the specified date",
  }),
  payTool("hotel"),
  payTool("attraction"),
  payTool("flight"),
  payTool("train"),
  searchTool("hotel"),
  searchTool("attraction"),
  searchTool("flight"),
  searchTool("train"),
  detailTool("hotel", "a"),
  detailTool("attraction", "an"),
  detailTool("flight", "a"),
  detailTool("train", "a"),
  modifyTool("train"),
  modifyTool("flight"),
  cancelTool("hotel", "a"),
  cancelTool("attraction", "an"),
  cancelTool("flight", "a"),
  cancelTool("train", "a"),
];
