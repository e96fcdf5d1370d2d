"""
Writes test/fixtures/vitabench/calls.cases.jsonl: vita:calls cases over the shared delivery (zh, en) and in-store
(en) tasks that reach every tool's answers and errors (ids picked from the tasks themselves). Deterministic.
"""
import json
import sys

data = sys.argv[1]
out = []


def load(rel):
    return json.load(open(f"{data}/{rel}"))


def delivery_case(rel, lang, idx, cid):
    t = load(rel)[idx]
    env = t["environment"]
    uid = env["user_id"]
    stores = list(env["stores"].values())
    s = stores[0]
    p = s["products"][0]
    p2 = s["products"][-1]
    addr = env["location"][0]["address"] if env.get("location") else "nowhere"
    oid = next(iter(env.get("orders") or {}), "O404")
    city = env["weather"][0]["city"] if env.get("weather") else "X"
    day = env["weather"][0]["datetime"] if env.get("weather") else "2025-01-01"
    t0 = env["time"]
    later = t0[:11] + "23:00:00"
    calls = [
        {"tool": "get_user_historical_behaviors", "arguments": {}},
        {"tool": "get_user_all_orders", "arguments": {}},
        {"tool": "delivery_store_search_recommand", "arguments": {"keywords": [s["name"][:4]]}},
        {"tool": "delivery_store_search_recommand", "arguments": {"keywords": "noodle"}},
        {"tool": "delivery_store_search_recommand", "arguments": {"keywords": [1]}},
        {"tool": "delivery_product_search_recommand", "arguments": {"keywords": [p["name"][:3], "辣"]}},
        {"tool": "get_delivery_store_info", "arguments": {"store_id": s["store_id"]}},
        {"tool": "get_delivery_store_info", "arguments": {"store_id": "S404"}},
        {"tool": "get_delivery_product_info", "arguments": {"product_id": p["product_id"]}},
        {"tool": "get_delivery_product_info", "arguments": {"product_id": "P404"}},
        {"tool": "delivery_distance_to_time", "arguments": {"distance": 1234.5}},
        {"tool": "delivery_distance_to_time", "arguments": {"distance": 3000}},
        {"tool": "delivery_distance_to_time", "arguments": {"distance": "12"}},
        {"tool": "longitude_latitude_to_distance", "arguments": {"longitude1": 116.3, "latitude1": 39.9, "longitude2": 121.47, "latitude2": 31.23}},
        {"tool": "longitude_latitude_to_distance", "arguments": {"longitude1": 1, "latitude1": 2, "longitude2": 1, "latitude2": 2}},
        {"tool": "longitude_latitude_to_distance", "arguments": {"longitude1": "a", "latitude1": 2, "longitude2": 1, "latitude2": 2}},
        {"tool": "longitude_latitude_to_distance", "arguments": {"longitude1": 1}},
        {"tool": "address_to_longitude_latitude", "arguments": {"address": addr}},
        {"tool": "address_to_longitude_latitude", "arguments": {"address": "zzzz qqqq"}},
        {"tool": "weather", "arguments": {"address": city, "date_start": day, "date_end": day}},
        {"tool": "weather", "arguments": {"address": city, "date_start": "2030-01-01", "date_end": "2030-01-02"}},
        {"tool": "weather", "arguments": {"address": "Atlantis", "date_start": day, "date_end": day}},
        {"tool": "weather", "arguments": {"address": city, "date_start": "2025/01/01", "date_end": day}},
        {"tool": "get_date_holiday_info", "arguments": {"date": "2025-10-01"}},
        {"tool": "get_date_holiday_info", "arguments": {"date": "2020-10-01"}},
        {"tool": "get_date_holiday_info", "arguments": {"date": "2025-10-09"}},
        {"tool": "get_date_holiday_info", "arguments": {"date": "2025-13-01"}},
        {"tool": "get_holiday_date", "arguments": {"year": "2025", "holiday_name": "中秋" if lang == "zh" else "Mid-Autumn"}},
        {"tool": "get_holiday_date", "arguments": {"year": "2024", "holiday_name": "Spring"}},
        {"tool": "get_holiday_date", "arguments": {"year": 2025, "holiday_name": "x"}},
        {"tool": "get_nearby", "arguments": {"longitude": s["location"]["longitude"], "latitude": s["location"]["latitude"], "range": 1500}},
        {"tool": "get_nearby", "arguments": {"longitude": 0, "latitude": 0, "range": 10}},
        {"tool": "search_delivery_orders", "arguments": {"user_id": uid, "status": "paid"}},
        {"tool": "search_delivery_orders", "arguments": {"user_id": uid}},
        {"tool": "search_delivery_orders", "arguments": {"user_id": "nobody"}},
        {"tool": "get_delivery_order_detail", "arguments": {"order_id": oid}},
        {"tool": "get_delivery_order_status", "arguments": {"order_id": oid}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"], p2["product_id"]], "product_cnts": [2, 1], "address": addr, "dispatch_time": later, "attributes": ["少辣", ""], "note": "快点"}},
        {"tool": "get_delivery_product_info", "arguments": {"product_id": p["product_id"]}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [1], "address": addr, "dispatch_time": later}, "clock": "2025-01-01 00:00:01"},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [1], "address": addr, "dispatch_time": later}, "clock": "2025-01-01 00:00:01"},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [0], "address": addr, "dispatch_time": later}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [1], "address": addr, "dispatch_time": "2000-01-01 00:00:00"}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": ["P404"], "product_cnts": [1], "address": addr, "dispatch_time": later}},
        {"tool": "create_delivery_order", "arguments": {"user_id": "U1", "store_id": s["store_id"], "product_ids": [], "product_cnts": [], "address": addr, "dispatch_time": later}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [1], "address": addr, "dispatch_time": "tomorrow"}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": "S404", "product_ids": [p["product_id"]], "product_cnts": [1], "address": addr, "dispatch_time": later}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": s["store_id"], "product_ids": [p["product_id"]], "product_cnts": [1], "address": "", "dispatch_time": later}},
        {"tool": "create_delivery_order", "arguments": {"user_id": uid}},
        {"tool": "search_delivery_orders", "arguments": {"user_id": uid}},
        {"tool": "get_user_all_orders", "arguments": {}},
        {"tool": "pay_delivery_order", "arguments": {"order_id": oid}},
        {"tool": "cancel_delivery_order", "arguments": {"order_id": oid}},
        {"tool": "cancel_delivery_order", "arguments": {"order_id": oid}},
        {"tool": "modify_delivery_order", "arguments": {"order_id": oid, "note": "no cilantro"}},
        {"tool": "get_delivery_order_detail", "arguments": {"order_id": oid}},
        {"tool": "pay_delivery_order", "arguments": {"order_id": "O404"}},
        {"tool": "get_delivery_order_status", "arguments": {"order_id": None}},
        {"tool": "get_delivery_order_detail", "arguments": {"order_id": ""}},
        {"tool": "no_such_tool", "arguments": {}},
        {"tool": "get_delivery_store_info", "arguments": {"store_id": s["store_id"], "extra": 1}},
    ]
    return {"id": cid, "task_file": rel, "task_id": t["id"], "lang": lang, "domain": "delivery", "clock": "2025-01-01 00:00:00", "calls": calls}


def instore_case(rel, lang, idx, cid):
    t = load(rel)[idx]
    env = t["environment"]
    uid = env["user_id"]
    shops = list(env["shops"].values())
    book_shop = next((s for s in shops if s["enable_book"]), shops[0])
    nobook = next((s for s in shops if not s["enable_book"]), shops[0])
    s = shops[0]
    p = s["products"][0]
    oid = next(iter(env.get("orders") or {}), "O404")
    t0 = env["time"]
    later = t0[:11] + "19:00:00"
    calls = [
        {"tool": "instore_shop_search_recommend", "arguments": {"keywords": [s["shop_name"][:5]]}},
        {"tool": "instore_product_search_recommend", "arguments": {"keywords": [p["name"][:4]]}},
        {"tool": "get_nearby", "arguments": {"longitude": s["location"]["longitude"], "latitude": s["location"]["latitude"], "range": 800}},
        {"tool": "get_instore_orders", "arguments": {"user_id": uid}},
        {"tool": "get_instore_books", "arguments": {"user_id": uid}},
        {"tool": "get_instore_reservations", "arguments": {"user_id": uid}},
        {"tool": "create_instore_product_order", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "product_id": p["product_id"], "quantity": 2}},
        {"tool": "create_instore_product_order", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "product_id": p["product_id"], "quantity": 3.0}, "clock": "2025-01-01 00:00:05"},
        {"tool": "create_instore_product_order", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "product_id": "P404"}},
        {"tool": "create_instore_product_order", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "product_id": p["product_id"], "quantity": 0}},
        {"tool": "create_instore_product_order", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "product_id": p["product_id"], "quantity": "2"}},
        {"tool": "get_instore_orders", "arguments": {"user_id": uid}},
        {"tool": "instore_book", "arguments": {"user_id": uid, "shop_id": book_shop["shop_id"], "time": later, "customer_count": 4}},
        {"tool": "instore_book", "arguments": {"user_id": uid, "shop_id": nobook["shop_id"], "time": later}},
        {"tool": "instore_book", "arguments": {"user_id": uid, "shop_id": book_shop["shop_id"], "time": "7pm"}},
        {"tool": "get_instore_books", "arguments": {"user_id": uid}},
        {"tool": "instore_reservation", "arguments": {"user_id": uid, "shop_id": s["shop_id"], "time": later, "customer_count": 2}},
        {"tool": "instore_reservation", "arguments": {"user_id": uid, "shop_id": "X", "time": later}},
        {"tool": "get_instore_reservations", "arguments": {"user_id": uid}},
        {"tool": "search_instore_book", "arguments": {"user_id": uid}},
        {"tool": "search_instore_reservation", "arguments": {"user_id": uid}},
        {"tool": "search_instore_reservation", "arguments": {"user_id": uid, "reservation_id": "R404"}},
        {"tool": "pay_instore_order", "arguments": {"order_id": oid}},
        {"tool": "instore_cancel_order", "arguments": {"order_id": oid}},
        {"tool": "instore_cancel_order", "arguments": {"order_id": oid}},
        {"tool": "pay_instore_order", "arguments": {"order_id": "O404"}},
        {"tool": "pay_instore_book", "arguments": {"book_id": "B404"}},
        {"tool": "instore_cancel_book", "arguments": {"book_id": ""}},
        {"tool": "instore_modify_reservation", "arguments": {"reservation_id": "R404", "time": later}},
        {"tool": "instore_cancel_reservation", "arguments": {"reservation_id": "R404"}},
        {"tool": "get_user_all_orders", "arguments": {}},
        {"tool": "weather", "arguments": {"address": env["weather"][0]["city"] if env.get("weather") else "x", "date_start": "2025-01-01", "date_end": "2026-12-31"}},
    ]
    return {"id": cid, "task_file": rel, "task_id": t["id"], "lang": lang, "domain": "instore", "clock": "2025-01-01 00:00:00", "calls": calls}


for i, idx in enumerate([0, 5, 37, 81]):
    out.append(delivery_case("delivery/tasks_en.json", "en", idx, f"delivery-en-{idx}"))
for idx in [3, 60]:
    out.append(delivery_case("delivery/tasks.json", "zh", idx, f"delivery-zh-{idx}"))
for idx in [0, 12, 50, 99]:
    out.append(instore_case("instore/tasks_en.json", "en", idx, f"instore-en-{idx}"))
for c in out:
    sys.stdout.write(json.dumps(c, ensure_ascii=False) + "\n")
