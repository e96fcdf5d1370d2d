"""
Fuzzy-matching goldens for worker/envs/vitabench/fuzz.ts, computed with the real rapidfuzz 3.14.6 and thefuzz's
process.extract semantics (processor=utils.full_process on both sides, limit=None, ranked by the unrounded score).

  python scripts/vitabench/fuzz_goldens.py DATA_DIR > test/fixtures/vitabench/fuzz.json
"""
import json
import random
import sys

from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

data = sys.argv[1]
rng = random.Random(23)
tasks = json.load(open(f"{data}/delivery/tasks.json")) + json.load(open(f"{data}/delivery/tasks_en.json")) + json.load(open(f"{data}/instore/tasks_en.json"))
docs = []
for t in tasks[::9]:
    env = t["environment"]
    for s in list(env.get("stores", {}).values())[:6]:
        docs.append(s["name"] + ",".join(s["tags"]))
        for p in s["products"][:3]:
            docs.append(f"{s['name']} {p['name']} {p['tags']}")
    for s in list(env.get("shops", {}).values())[:6]:
        docs.append(s["shop_name"] + "," + ",".join(s["tags"]))
    for w in env.get("weather", [])[:3]:
        docs.append(w["city"])
    for loc in env.get("location", [])[:3]:
        docs.append(loc["address"])
alphabet = "abcab cd的饭面火锅北京市朝阳区A1-_,.·"
pairs = []
for _ in range(400):
    a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
    b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
    pairs.append([a, b])
for _ in range(200):
    d = rng.choice(docs)
    i = rng.randint(0, max(0, len(d) - 2))
    q = d[i:i + rng.randint(1, 8)]
    if rng.random() < 0.5:
        q = q + rng.choice(["饭", "x", " ", "面"])
    pairs.append([q, rng.choice(docs)])
pairs.append(["a" * 70 + "b", "c" * 10 + "a" * 69 + "bb" + "d" * 30])
pairs.append(["", ""])
out = {"version": "rapidfuzz 3.14.6", "pairs": [], "extract": []}
for a, b in pairs:
    out["pairs"].append({"a": a, "b": b, "partial_ratio": fuzz.partial_ratio(a, b), "ratio": fuzz.ratio(a, b),
                         "processed_a": default_process(a)})
queries = ["火锅", "Rice noodles", "北京", "pizza", "奶茶", "Spicy", "", "!!", "Kunming", "蛋糕 生日", "coffee latte"]
for q in queries:
    choices = rng.sample(docs, 40) + ["火锅", "火锅"]
    res = process.extract(q, choices, processor=default_process, scorer=fuzz.partial_ratio, limit=None)
    out["extract"].append({"query": q, "choices": choices, "ranked": [[idx, int(round(score))] for _, score, idx in res]})
json.dump(out, sys.stdout, ensure_ascii=False, indent=0)
