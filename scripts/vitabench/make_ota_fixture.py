"""
Writes test/fixtures/vitabench/ota-synthetic.json (an OTA task and a cross-domain task in upstream's task format,
made up here: OTA and cross-domain data are not shared) and ota.cases.jsonl (vita:calls cases reaching all 30 OTA
tools and the cross-domain merge). Deterministic.
"""
import json
import sys

data = sys.argv[1]
out_dir = sys.argv[2]
d0 = json.load(open(f"{data}/delivery/tasks_en.json"))[0]["environment"]
i0 = json.load(open(f"{data}/instore/tasks_en.json"))[0]["environment"]


def loc(addr, lng, lat):
    return {"address": addr, "longitude": lng, "latitude": lat}


ota_env = {
    "time": "2025-06-20 10:00:00",
    "user_id": "U000001",
    "weather": [{"city": "Hangzhou", "category": "sunny", "datetime": "2025-06-21", "temperature": [21, 30.5], "humidity": 60}],
    "location": [loc("West Lake, Xihu District, Hangzhou", 120.1445, 30.2429), loc("Hangzhou East Railway Station", 120.2126, 30.2906)],
    "user_historical_behaviors": {"hotel": {"budget": 600, "stars": 4.5}},
    "hotels": {
        "H1": {"hotel_id": "H1", "hotel_name": "Lakeview Hotel", "score": 4.6, "star_rating": 5, "location": loc("1 Lake Road, Xihu District, Hangzhou", 120.15, 30.25),
               "tags": ["wifi", "pool"], "products": [{"product_id": "R1", "price": 880, "quantity": 2, "date": "2025-06-21", "room_type": "King"},
                                                       {"product_id": "R2", "price": 450.5, "quantity": 0, "date": "2025-06-21", "room_type": "Twin"}]},
        "H2": {"hotel_id": "H2", "hotel_name": "Budget Inn", "score": 3.9, "star_rating": 2, "location": loc("9 Station Road, Shangcheng District, Hangzhou", 120.21, 30.29),
               "tags": ["breakfast"], "products": [{"product_id": "R3", "price": 199, "quantity": 5, "date": "2025-06-21", "room_type": "Single"}]},
        "H3": {"hotel_id": "H3", "hotel_name": "Bund Suites", "score": 4.8, "star_rating": 5, "location": loc("2 Bund, Huangpu District, Shanghai", 121.49, 31.24),
               "tags": ["river view"], "products": []},
    },
    "attractions": {
        "A1": {"attraction_id": "A1", "attraction_name": "Lingyin Temple", "location": loc("Lingyin Road, Xihu District, Hangzhou", 120.1, 30.24), "description": "Buddhist temple",
               "score": 4.7, "opening_hours": "07:00-18:00", "ticket_price": 75,
               "products": [{"product_id": "T1", "price": 75, "quantity": 10, "date": "2025-06-21", "ticket_type": "Adult"},
                            {"product_id": "T2", "price": 37.5, "quantity": 1, "date": "2025-06-21", "ticket_type": "Child"}]},
    },
    "flights": {
        "F1": {"flight_id": "F1", "flight_number": "MU5131", "departure_city": "Hangzhou", "arrival_city": "Beijing",
               "departure_airport_location": loc("Xiaoshan Airport, Hangzhou", 120.43, 30.23), "arrival_airport_location": loc("Capital Airport, Beijing", 116.6, 40.08),
               "departure_time": "2025-06-22 08:00:00", "arrival_time": "2025-06-22 10:15:00", "tags": ["direct"],
               "products": [{"product_id": "S1", "price": 1200, "quantity": 3, "date": "2025-06-22", "seat_type": "Economy"},
                            {"product_id": "S2", "price": 1350, "quantity": 3, "date": "2025-06-23", "seat_type": "Economy"},
                            {"product_id": "S3", "price": 900, "quantity": 3, "date": "2025-06-24", "seat_type": "Economy"}]},
    },
    "trains": {
        "G1": {"train_id": "G1", "train_number": "G7311", "departure_city": "Hangzhou", "arrival_city": "Shanghai",
               "departure_station_location": loc("Hangzhou East Railway Station", 120.2126, 30.2906), "arrival_station_location": loc("Shanghai Hongqiao Station", 121.32, 31.19),
               "departure_time": "2025-06-21 09:00:00", "arrival_time": "2025-06-21 10:00:00", "tags": ["high speed"],
               "products": [{"product_id": "E1", "price": 73, "quantity": 4, "date": "2025-06-21", "seat_type": "Second"},
                            {"product_id": "E2", "price": 117.5, "quantity": 2, "date": "2025-06-21", "seat_type": "First"},
                            {"product_id": "E3", "price": 80, "quantity": 4, "date": "2025-06-22", "seat_type": "Second"}]},
    },
    "orders": {
        "OO-train-1": {"order_id": "OO-train-1", "order_type": "train", "user_id": "U000001", "store_id": "G1", "total_price": 73, "create_time": "2025-06-19 09:00:00",
                       "status": "paid", "products": [{"product_id": "E1", "price": 73, "quantity": 1, "date": "2025-06-21", "seat_type": "Second"}]},
        "OO-flight-1": {"order_id": "OO-flight-1", "order_type": "flight", "user_id": "U000001", "store_id": "F1", "total_price": 1200, "create_time": "2025-06-19 09:00:00",
                        "update_time": "2025-06-19 09:30:00", "status": "paid", "products": [{"product_id": "S1", "price": 1200, "quantity": 1, "date": "2025-06-22", "seat_type": "Economy"}]},
        "OO-hotel-1": {"order_id": "OO-hotel-1", "order_type": "hotel", "user_id": "U000001", "store_id": "H2", "total_price": 199, "create_time": "2025-06-18 12:00:00",
                       "status": "paid", "products": [{"product_id": "R3", "price": 199, "quantity": 1, "date": "2025-06-21", "room_type": "Single"}]},
        "OO-attr-1": {"order_id": "OO-attr-1", "order_type": "attraction", "user_id": "U000001", "store_id": "A1", "total_price": 75, "create_time": "2025-06-18 12:00:00",
                      "status": "unpaid", "products": [{"product_id": "T1", "price": 75, "quantity": 1, "date": "2025-06-21", "ticket_type": "Adult"}]},
    },
}
# user_profile values are str, dict or list (upstream's UserScenario); numbers only inside them.
profile = {"user id": "U000001", "occupation": "Engineer", "age": "30", "budget": {"hotel": 1200.0, "nights": 2}, "likes": ["quiet", "lake view"]}
ec = {"expected_states": [{"required_orders": [], "optional_orders": None, "state_rubrics": ["Book the King room at Lakeview Hotel", "Pay for it"]}],
      "overall_rubrics": ["Pay for it", "Tell the user the refund amount"]}
ota_task = {"id": "ota-1", "domain": "ota", "environment": ota_env, "user_scenario": {"user_profile": profile},
            "instructions": "Book a hotel in Hangzhou for 2025-06-21 and a train to Shanghai.", "evaluation_criteria": ec, "message_history": None}
cross_env = dict(ota_env)
cross_env["stores"] = dict(list(d0["stores"].items())[:3])
cross_env["shops"] = dict(list(i0["shops"].items())[:3])
cross_env["books"] = {}
cross_env["reservations"] = {}
cross_task = dict(ota_task, id="cross-1", domain="delivery,instore,ota", environment=cross_env)
json.dump([ota_task, cross_task], open(f"{out_dir}/ota-synthetic.json", "w"), ensure_ascii=False, indent=1)

F = f"{out_dir}/ota-synthetic.json"
uid = "U000001"
calls = [
    {"tool": "get_ota_hotel_info", "arguments": {"hotel_id": "H1"}},
    {"tool": "get_ota_hotel_info", "arguments": {"hotel_id": "H9"}},
    {"tool": "get_ota_hotel_info", "arguments": {"hotel_id": ""}},
    {"tool": "get_ota_attraction_info", "arguments": {"attraction_id": "A1"}},
    {"tool": "get_ota_flight_info", "arguments": {"flight_id": "F1"}},
    {"tool": "get_ota_train_info", "arguments": {"train_id": "G1"}},
    {"tool": "get_ota_train_info", "arguments": {"train_id": "G9"}},
    {"tool": "hotel_search_recommand", "arguments": {"city_name": "Hangzhou", "key_words": ["pool"]}},
    {"tool": "hotel_search_recommand", "arguments": {"city_name": "Hangzhou"}},
    {"tool": "hotel_search_recommand", "arguments": {"city_name": "Zzzzzz"}},
    {"tool": "attractions_search_recommend", "arguments": {"city_name": "Hangzhou", "key_words": ["temple"]}},
    {"tool": "attractions_search_recommend", "arguments": {"city_name": "Qqq", "key_words": []}},
    {"tool": "flight_search_recommend", "arguments": {"departure": "Hangzhou", "destination": "Beijing"}},
    {"tool": "flight_search_recommend", "arguments": {"departure": "Hangzhou", "destination": "Tokyo"}},
    {"tool": "flight_search_recommend", "arguments": {"departure": "", "destination": "Tokyo"}},
    {"tool": "train_ticket_search", "arguments": {"departure": "Hangzhou", "destination": "Shanghai", "date": "2025-06-21"}},
    {"tool": "train_ticket_search", "arguments": {"departure": "Hangzhou", "destination": "Shanghai", "date": "2025-06-30"}},
    {"tool": "train_ticket_search", "arguments": {"departure": "Hangzhou", "destination": "Shanghai", "date": "21/06/2025"}},
    {"tool": "create_hotel_order", "arguments": {"hotel_id": "H1", "room_id": "R1", "user_id": uid}},
    {"tool": "create_hotel_order", "arguments": {"hotel_id": "H1", "room_id": "R2", "user_id": uid}},
    {"tool": "create_hotel_order", "arguments": {"hotel_id": "H1", "room_id": "R9", "user_id": uid}, "clock": "2025-01-01 00:00:09"},
    {"tool": "create_hotel_order", "arguments": {"hotel_id": "H9", "room_id": "R1", "user_id": uid}},
    {"tool": "create_attraction_order", "arguments": {"attraction_id": "A1", "ticket_id": "T1", "user_id": uid, "date": "2025-06-21", "quantity": 3}},
    {"tool": "create_attraction_order", "arguments": {"attraction_id": "A1", "ticket_id": "T2", "user_id": uid, "date": "2025-06-21", "quantity": 2}},
    {"tool": "create_attraction_order", "arguments": {"attraction_id": "A1", "ticket_id": "T1", "user_id": uid, "date": "2025-06-25", "quantity": 1}},
    {"tool": "create_attraction_order", "arguments": {"attraction_id": "A1", "ticket_id": "T1", "user_id": uid, "date": "2025-06-21", "quantity": 0}},
    {"tool": "create_flight_order", "arguments": {"flight_id": "F1", "seat_id": "S2", "user_id": uid, "date": "2025-06-23", "quantity": 2}, "clock": "2025-01-01 00:00:10"},
    {"tool": "create_flight_order", "arguments": {"flight_id": "F1", "seat_id": "S2", "user_id": uid, "date": "2025-06-23", "quantity": 9}},
    {"tool": "create_flight_order", "arguments": {"flight_id": "F1", "seat_id": "S2", "user_id": "U2", "date": "2025-06-23", "quantity": 1}},
    {"tool": "create_train_order", "arguments": {"train_id": "G1", "seat_id": "E2", "user_id": uid, "date": "2025-06-21", "quantity": 1}, "clock": "2025-01-01 00:00:11"},
    {"tool": "create_train_order", "arguments": {"train_id": "G1", "seat_id": "E2", "user_id": uid, "date": "2025-06-22", "quantity": 1}},
    {"tool": "create_train_order", "arguments": {"train_id": "G1", "seat_id": "E2", "user_id": uid, "date": "2025-06-21", "quantity": "1"}},
    {"tool": "search_hotel_order", "arguments": {"user_id": uid}},
    {"tool": "search_hotel_order", "arguments": {"user_id": uid, "status": "unpaid"}},
    {"tool": "search_hotel_order", "arguments": {"user_id": uid, "date": "2025-06-21", "status": None}},
    {"tool": "search_attraction_order", "arguments": {"user_id": uid, "status": "unpaid"}},
    {"tool": "search_attraction_order", "arguments": {"user_id": uid, "date": "2025-6-21"}},
    {"tool": "search_flight_order", "arguments": {"user_id": uid, "date": "2025-06-22"}},
    {"tool": "search_train_order", "arguments": {"user_id": uid}},
    {"tool": "search_train_order", "arguments": {"user_id": uid, "date": "bad"}},
    {"tool": "get_hotel_order_detail", "arguments": {"order_id": "OO-hotel-1"}},
    {"tool": "get_hotel_order_detail", "arguments": {"order_id": "OO-train-1"}},
    {"tool": "get_attraction_order_detail", "arguments": {"order_id": "OO-attr-1"}},
    {"tool": "get_flight_order_detail", "arguments": {"order_id": "OO-flight-1"}},
    {"tool": "get_train_order_detail", "arguments": {"order_id": "OO-train-1"}},
    {"tool": "get_train_order_detail", "arguments": {"order_id": "missing"}},
    {"tool": "pay_attraction_order", "arguments": {"order_id": "OO-attr-1"}},
    {"tool": "pay_attraction_order", "arguments": {"order_id": "OO-attr-1"}},
    {"tool": "pay_hotel_order", "arguments": {"order_id": "nope"}},
    {"tool": "modify_train_order", "arguments": {"order_id": "OO-train-1", "user_id": uid, "new_date": "2025-06-22"}},
    {"tool": "pay_train_order", "arguments": {"order_id": "OO-train-1"}},
    {"tool": "modify_train_order", "arguments": {"order_id": "OO-train-1", "user_id": uid, "new_date": "2025-06-21"}},
    {"tool": "modify_train_order", "arguments": {"order_id": "OO-train-1", "user_id": uid, "new_date": "2025-07-01"}},
    {"tool": "modify_train_order", "arguments": {"order_id": "OO-flight-1", "user_id": uid, "new_date": "2025-06-22"}},
    {"tool": "modify_flight_order", "arguments": {"order_id": "OO-flight-1", "user_id": uid, "new_date": "2025-06-24"}},
    {"tool": "modify_flight_order", "arguments": {"order_id": "OO-flight-1", "user_id": uid, "new_date": "2025-06-23"}},
    {"tool": "pay_flight_order", "arguments": {"order_id": "OO-flight-1"}},
    {"tool": "cancel_hotel_order", "arguments": {"order_id": "OO-hotel-1", "user_id": uid}},
    {"tool": "cancel_hotel_order", "arguments": {"order_id": "OO-hotel-1", "user_id": uid}},
    {"tool": "cancel_attraction_order", "arguments": {"order_id": "OO-attr-1", "user_id": uid}},
    {"tool": "cancel_flight_order", "arguments": {"order_id": "OO-flight-1", "user_id": uid}},
    {"tool": "cancel_train_order", "arguments": {"order_id": "OO-train-1", "user_id": uid}},
    {"tool": "cancel_train_order", "arguments": {"order_id": "OO-hotel-1", "user_id": uid}},
    {"tool": "get_nearby", "arguments": {"longitude": 120.2126, "latitude": 30.2906, "range": 3000}},
    {"tool": "get_nearby", "arguments": {"longitude": 116.6, "latitude": 40.08, "range": 100}},
    {"tool": "address_to_longitude_latitude", "arguments": {"address": "Hangzhou East Railway Station"}},
    {"tool": "weather", "arguments": {"address": "Hangzhou", "date_start": "2025-06-20", "date_end": "2025-06-22"}},
    {"tool": "get_user_historical_behaviors", "arguments": {}},
    {"tool": "get_user_all_orders", "arguments": {}},
    {"tool": "get_holiday_date", "arguments": {"year": "2024", "holiday_name": "Dragon Boat"}},
]
cases = [{"id": "ota-en", "task_file": F, "task_id": "ota-1", "lang": "en", "domain": "ota", "clock": "2025-01-01 00:00:00", "calls": calls}]
cross_calls = [
    {"tool": "get_nearby", "arguments": {"longitude": 120.2126, "latitude": 30.2906, "range": 3000}},
    {"tool": "get_nearby", "arguments": list(d0["stores"].values())[0]["location"] and {"longitude": list(d0["stores"].values())[0]["location"]["longitude"], "latitude": list(d0["stores"].values())[0]["location"]["latitude"], "range": 2000}},
    {"tool": "delivery_store_search_recommand", "arguments": {"keywords": ["noodle"]}},
    {"tool": "instore_product_search_recommend", "arguments": {"keywords": ["hair"]}},
    {"tool": "delivery_product_search_recommand", "arguments": {"keywords": ["rice"]}},
    {"tool": "create_hotel_order", "arguments": {"hotel_id": "H1", "room_id": "R1", "user_id": uid}},
    {"tool": "create_delivery_order", "arguments": {"user_id": uid, "store_id": list(d0["stores"])[0], "product_ids": [list(d0["stores"].values())[0]["products"][0]["product_id"]], "product_cnts": [1], "address": "West Lake, Xihu District, Hangzhou", "dispatch_time": "2025-06-20 12:00:00"}},
    {"tool": "get_user_all_orders", "arguments": {}},
    {"tool": "search_delivery_orders", "arguments": {"user_id": uid}},
    {"tool": "get_instore_orders", "arguments": {"user_id": uid}},
]
cases.append({"id": "cross-en", "task_file": F, "task_id": "cross-1", "lang": "en", "domain": "delivery,instore,ota", "clock": "2025-01-01 00:00:00", "calls": cross_calls})
cases.append({"id": "ota-zh", "task_file": F, "task_id": "ota-1", "lang": "zh", "domain": "ota", "clock": "2025-03-04 05:06:07", "calls": calls[:30]})
with open(f"{out_dir}/ota.cases.jsonl", "w") as fp:
    for c in cases:
        fp.write(json.dumps(c, ensure_ascii=False) + "\n")
