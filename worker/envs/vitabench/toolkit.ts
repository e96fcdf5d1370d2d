/**
 * The generic toolkit every domain has (vita/environment/toolkit.py ToolKitBase @ 96f3b85): distance by haversine,
 * weather, address → coordinates, China's holidays, the hard-coded holiday-date table, the user's history and
 * orders, and what is nearby. Texts, thresholds and errors as upstream's.
 */
import { PyDateTime, strptime } from "../../../lib/python/datetime";
import { isNumber, PyDict, pyCompare, pyEq, PyException, pyRepr, pyStr, pyTypeName, PyTuple, typeError, valueError, type PyValue } from "../../../lib/python/values";
import { extract, pyRoundHalfEven, ratio } from "./fuzz";
import { chinaHoliday } from "./holidays";
import type { PyModel } from "./models";
import { rerank } from "./rerank";
import { check, checkTimeFormat, type ToolDef, type World } from "./world";

const Q = "ToolKitBase";

/** math.radians(x): a real number, else Python's TypeError. */
function radians(x: PyValue): number {
  if (!isNumber(x)) throw typeError(`must be real number, not ${pyTypeName(x)}`);
  return (Number(typeof x === "boolean" ? (x ? 1 : 0) : x) * Math.PI) / 180;
}

/** ToolKitBase.longitude_latitude_to_distance: haversine on a 6371 km sphere, `round(distance, 0)`. */
export function distance(lon1: PyValue, lat1: PyValue, lon2: PyValue, lat2: PyValue): number {
  if (pyEq(lon1, lon2) && pyEq(lat1, lat2)) return 0;
  const [a1, b1, a2, b2] = [radians(lon1), radians(lat1), radians(lon2), radians(lat2)];
  const dlon = a2 - a1;
  const dlat = b2 - b1;
  const a = Math.sin(dlat / 2) ** 2 + Math.cos(b1) * Math.cos(b2) * Math.sin(dlon / 2) ** 2;
  const c = 2 * Math.asin(Math.sqrt(a));
  return pyRoundHalfEven(6371000 * c);
}

const asStr = (v: PyValue): string => {
  // rapidfuzz's processor on a non-string query raises TypeError("sentence must be a String").
  if (typeof v !== "string") throw typeError("sentence must be a String");
  return v;
};

/** Iterating a value that may be None (`for x in self.db.weather`). */
function iter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof PyDict) return v.keys();
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}

/** ToolKitBase.address_to_longitude_latitude: the best Location of the registry by partial_ratio (≥ 30, ratio ≥ 20). */
export function addressToLngLat(w: World, address: PyValue): [PyValue, PyValue] {
  const docs = new Map<string, string>();
  for (const a of w.reg.locations.keys()) docs.set(a, a);
  const ranked = rerank(asStr(address), docs);
  if (!ranked.length) throw new PyException("IndexError", "list index out of range");
  const best = ranked[0]!;
  if (best.score < 30 || !(ratio(address as string, best.key) >= 20)) throw valueError(`Longitude and latitude not found for address ${pyStr(address)}`);
  const loc = w.reg.locations.get(best.key)!;
  return [loc.get("longitude"), loc.get("latitude")];
}

const HOLIDAY_DATES: Record<"english" | "chinese", Record<string, Record<string, string>>> = {
  english: {
    "2025": {
      "New Year's Day": "2025-01-01",
      "Start of Autumn": "2025-08-07",
      "Women's Day": "2025-03-08",
      "Laba Festival": "2025-01-07",
      "Dragon Head Festival": "2025-03-01",
      "Party Founding Day": "2025-07-01",
      "Qingming Festival": "2025-04-04",
      "Double Ninth Festival": "2025-10-29",
      "Dragon Boat Festival": "2025-05-31",
      "Mother's Day": "2025-05-11",
      "Lantern Festival": "2025-02-15",
      "Labor Day": "2025-05-01",
      "Qixi Festival": "2025-08-29",
      "Winter Solstice": "2025-12-21",
      "Christmas Day": "2025-12-25",
      "National Day": "2025-10-01",
      "Mid-Autumn Festival": "2025-10-06",
    },
    "2024": {
      "Double Ninth Festival": "2024-10-11",
      "Qixi Festival": "2024-08-10",
      "Valentine's Day": "2024-02-14",
      "Qingming Festival": "2024-04-04",
      "Dragon Boat Festival": "2024-06-10",
      "Lantern Festival": "2024-02-24",
      "Mid-Autumn Festival": "2024-09-17",
    },
    "2023": {
      "National Day": "2023-10-01",
      "Dragon Boat Festival": "2023-06-22",
      "Mid-Autumn Festival": "2023-09-29",
      "Qingming Festival": "2023-04-05",
      "Double Ninth Festival": "2023-10-23",
      "Father's Day": "2023-06-18",
    },
  },
  chinese: {
    "2025": {
      元旦节: "2025-01-01",
      立秋: "2025-08-07",
      妇女节: "2025-03-08",
      腊八节: "2025-01-07",
      龙头节: "2025-03-01",
      建党节: "2025-07-01",
      清明节: "2025-04-04",
      重阳节: "2025-10-29",
      端午节: "2025-05-31",
      母亲节: "2025-05-11",
      元宵节: "2025-02-15",
      劳动节: "2025-05-01",
      七夕节: "2025-08-29",
      冬至: "2025-12-21",
      圣诞节: "2025-12-25",
      国庆节: "2025-10-01",
      中秋节: "2025-10-06",
    },
    "2024": {
      重阳节: "2024-10-11",
      七夕节: "2024-08-10",
      情人节: "2024-02-14",
      清明节: "2024-04-04",
      端午节: "2024-06-10",
      元宵节: "2024-02-24",
      中秋节: "2024-09-17",
    },
    "2023": {
      国庆节: "2023-10-01",
      端午节: "2023-06-22",
      中秋节: "2023-09-29",
      清明节: "2023-04-05",
      重阳节: "2023-10-23",
      父亲节: "2023-06-18",
    },
  },
};

/** Store/shop/hotel/… whose location lies within `range` metres (ToolKitBase.get_nearby). */
function nearby(w: World, lon: PyValue, lat: PyValue, range: PyValue): string {
  const out: string[] = [];
  const within = (loc: PyModel) => pyCompare(distance(lon, lat, loc.get("longitude"), loc.get("latitude")), "<=", range);
  for (const field of ["stores", "shops", "hotels", "attractions"]) {
    if (!w.has(field)) continue;
    for (const item of w.dict(field).values() as PyModel[]) if (within(item.get("location") as PyModel)) out.push(item.str());
  }
  for (const [field, dep, arr] of [
    ["flights", "departure_airport_location", "arrival_airport_location"],
    ["trains", "departure_station_location", "arrival_station_location"],
  ] as const) {
    if (!w.has(field)) continue;
    for (const item of w.dict(field).values() as PyModel[]) {
      if (within(item.get(dep) as PyModel)) out.push(item.str());
      else if (within(item.get(arr) as PyModel)) out.push(item.str());
    }
  }
  return out.length ? out.join("\n") : "No search results found";
}

export const TOOLKIT_TOOLS: readonly ToolDef[] = [
  {
    name: "longitude_latitude_to_distance",
    qualname: `${Q}.longitude_latitude_to_distance`,
    params: [{ name: "longitude1" }, { name: "latitude1" }, { name: "longitude2" }, { name: "latitude2" }],
    run: (_w, a) => distance(a.longitude1!, a.latitude1!, a.longitude2!, a.latitude2!),
  },
  {
    name: "weather",
    qualname: `${Q}.weather`,
    params: [{ name: "address" }, { name: "date_start" }, { name: "date_end" }],
    run(w, a) {
      check(checkTimeFormat(a.date_start!, "%Y-%m-%d"), () => `Invalid date_start format. Expected yyyy-mm-dd, got: ${pyStr(a.date_start!)}`);
      check(checkTimeFormat(a.date_end!, "%Y-%m-%d"), () => `Invalid date_end format. Expected yyyy-mm-dd, got: ${pyStr(a.date_end!)}`);
      const all = iter(w.get("weather")) as PyModel[];
      const cities = new Map<string, string>();
      for (const cw of all) cities.set(cw.s("city"), cw.s("city"));
      const ranked = rerank(asStr(a.address!), cities);
      if (!ranked.length) throw new PyException("IndexError", "list index out of range");
      const best = ranked[0]!;
      if (best.score < 50) throw valueError(`Weather information not found for ${pyStr(a.address!)}`);
      const start = strptime(a.date_start!, "%Y-%m-%d");
      const end = strptime(a.date_end!, "%Y-%m-%d");
      const picked: PyModel[] = [];
      for (const cw of all) {
        if (cw.s("city") !== best.key) continue;
        const d = strptime(cw.get("datetime"), "%Y-%m-%d");
        if (start.ordinal() <= d.ordinal() && d.ordinal() <= end.ordinal()) picked.push(cw);
      }
      if (!picked.length) return `No weather information found for ${best.key} between ${pyStr(a.date_start!)} and ${pyStr(a.date_end!)}`;
      // list.sort(key=datetime): stable, by code point.
      const sorted = picked.map((p, i) => ({ p, i })).sort((x, y) => (x.p.s("datetime") < y.p.s("datetime") ? -1 : x.p.s("datetime") > y.p.s("datetime") ? 1 : x.i - y.i));
      return sorted.map(({ p }) => p.repr()).join("\n");
    },
  },
  {
    name: "address_to_longitude_latitude",
    qualname: `${Q}.address_to_longitude_latitude`,
    params: [{ name: "address" }],
    run: (w, a) => addressToLngLat(w, a.address!),
  },
  {
    name: "get_date_holiday_info",
    qualname: `${Q}.get_date_holiday_info`,
    params: [{ name: "date" }],
    run(_w, a) {
      check(checkTimeFormat(a.date!, "%Y-%m-%d"), () => `Date format error, should be yyyy-mm-dd, actual: ${pyStr(a.date!)}`);
      const d: PyDateTime = strptime(a.date!, "%Y-%m-%d");
      const iso = `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
      return chinaHoliday(iso) ?? `Date ${pyStr(a.date!)} is not a holiday`;
    },
  },
  {
    name: "get_holiday_date",
    qualname: `${Q}.get_holiday_date`,
    params: [{ name: "year" }, { name: "holiday_name" }],
    run(w, a) {
      const data = HOLIDAY_DATES[w.language];
      const year = a.year!;
      const table = typeof year === "string" && Object.hasOwn(data, year) ? data[year]! : undefined;
      if (!table) return `Holiday data for year ${pyStr(year)} not found`;
      const matched = extract(asStr(a.holiday_name!), Object.keys(table).map((choice) => ({ key: choice, choice })));
      if (matched.length && matched[0]!.score >= 80) return table[matched[0]!.key]!;
      return `Holiday named '${pyStr(a.holiday_name!)}' not found in year ${pyStr(year)}`;
    },
  },
  {
    name: "get_user_historical_behaviors",
    qualname: `${Q}.get_user_historical_behaviors`,
    params: [],
    run: (w) => pyStr(w.get("user_historical_behaviors")),
  },
  {
    name: "get_user_all_orders",
    qualname: `${Q}.get_user_all_orders`,
    params: [],
    run(w) {
      const orders = w.get("orders");
      if (orders === null) return "User currently has no order information";
      return (orders as PyDict).values().map((o) => pyRepr(o)).join("\n");
    },
  },
  {
    name: "get_nearby",
    qualname: `${Q}.get_nearby`,
    params: [{ name: "longitude" }, { name: "latitude" }, { name: "range" }],
    run: (w, a) => nearby(w, a.longitude!, a.latitude!, a.range!),
  },
];
