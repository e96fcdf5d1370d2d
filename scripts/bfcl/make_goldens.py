#!/usr/bin/env python3
"""
Golden expectations for the TypeScript port of BFCL's multi-turn back ends (worker/envs/bfcl/).

It runs upstream's own Python (the reference copy in $ENVACE_DATA_DIR/bfcl/reference, default
../shared/data/bfcl/reference) and writes compact expectations under test/fixtures/bfcl/. The tests
replay the same inputs with the TypeScript port and compare exactly; they need no Python.

    python3 scripts/bfcl/make_goldens.py                 # everything (a few minutes); needs mpmath (pure-Python backend)
    python3 scripts/bfcl/make_goldens.py --only edge     # after editing edge-cases.jsonl
    ENVACE_DATA_DIR=/path/to/data python3 scripts/bfcl/make_goldens.py

Outputs (the shared data itself is never copied):
  gt-replay.jsonl      every task of multi_turn_{base,miss_func,miss_param,long_context}: the ground truth
                       replayed turn by turn through execute_multi_turn_func_call; per call the first 16 hex
                       digits of sha256(result text), per turn the same digest of the instances' public state
                       (a canonical JSON form of `vars(instance)` without private attributes).
  gt-replay-full.jsonl the full result texts of a curated subset (the first 3 tasks of each category and
                       every result shorter than 200 characters elsewhere is covered by the digests).
  edge-expected.jsonl  the `npm run bfcl:calls` output (one {"id","turn","index","result"} line per call;
                       results over 2000 characters as result_sha256/result_length/result_head)
                       for the hand-written cases in edge-cases.jsonl: errors raised by the classes, Python
                       TypeErrors, randomness, floats, dates, nested arguments, unknown functions, malformed
                       call strings.
  fuzz.jsonl           120 real tasks (by id) with 20 calls each whose arguments have random types and
                       values (wrong types, missing/unknown arguments, ground-truth calls mixed in), and
                       the digest of upstream's result for each.
  checker.jsonl        per task, upstream multi_turn_checker verdicts for the ground truth and deterministic
                       perturbations of it (dropped calls, empty turns, split steps, duplicated calls):
                       true, or the error type, a digest of the message, the differing attributes and
                       digests of the missing results.

Isolation: upstream keeps instances in module globals and shares module-level objects (mutable default
arguments, long_context.py's dicts) across a whole process. The port scopes both to one task, so this
script reloads the back-end modules before every task (and every perturbation) to match.
`datetime.today()` (TravelAPI's age check) is pinned to FIXED_TODAY; the port's tests pin the same day.
"""
import argparse
import copy
import datetime as _dt
import hashlib
import importlib
import json
import os
import sys
import time
from pathlib import Path

os.environ["TZ"] = "UTC"
time.tzset()

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("ENVACE_DATA_DIR", REPO.parent / "shared" / "data")) / "bfcl"
OUT = REPO / "test" / "fixtures" / "bfcl"
sys.path.insert(0, str(DATA / "reference"))

FIXED_TODAY = _dt.datetime(2026, 1, 15, 12, 0, 0)
MODEL = "bfcl"  # instance names are f"{MODEL}_{id}_{Class}_instance", as the port's default
LONG_RESULT = 2000  # longer edge-case results are stored as sha256 + length + head
CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]
BACKEND_PREFIX = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
BACKEND_MODULES = ["long_context", "gorilla_file_system", "math_api", "message_api", "posting_api", "ticket_api", "trading_bot", "travel_booking", "vehicle_control"]

import mpmath  # noqa: E402

assert mpmath.libmp.BACKEND == "python", "goldens assume mpmath's pure-Python backend (no gmpy)"

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_checker as checker_mod  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402


class FixedDatetime(_dt.datetime):
    @classmethod
    def today(cls):
        return FIXED_TODAY


def fresh_modules(long_context: bool = True):
    """Reload the back ends (new module-level objects) and forget every instance, like a new process.

    Without long context, long_context.py's objects are never touched, so only the modules holding
    other module-level state are reloaded (posting_api's mutable default arguments); that keeps the
    run short."""
    names = BACKEND_MODULES if long_context else ["posting_api", "travel_booking"]
    for name in names:
        importlib.reload(importlib.import_module(f"{BACKEND_PREFIX}.{name}"))
    travel = importlib.import_module(f"{BACKEND_PREFIX}.travel_booking")
    travel.datetime = FixedDatetime
    for key in [k for k in vars(multi_turn_utils) if k.endswith("_instance")]:
        del vars(multi_turn_utils)[key]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def canon(v):
    """A JSON-able canonical form of a state value (mirrored by worker/envs/bfcl/state.ts)."""
    fs = importlib.import_module(f"{BACKEND_PREFIX}.gorilla_file_system")
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, tuple):
        return {"tuple": [canon(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[canon(k), canon(x)] for k, x in v.items()]}
    if isinstance(v, set):
        return {"set": sorted((canon(x) for x in v), key=lambda c: json.dumps(c, separators=(",", ":")))}
    if isinstance(v, fs.File):
        return {"File": [canon(v.name), canon(v.content)]}
    if isinstance(v, fs.Directory):
        return {"Directory": [canon(v.name), canon(v.contents)]}
    return {"repr": repr(v)}


def state_digest(instances: dict, involved_classes: list) -> str:
    state = []
    for class_name in involved_classes:
        inst = instances[class_name]
        state.append([class_name, [[k, canon(x)] for k, x in vars(inst).items() if not k.startswith("_")]])
    return digest(json.dumps(state, separators=(",", ":")))


def load_jsonl(path: Path) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def replay_ground_truth():
    replay_lines, full_lines = [], []
    for category in CATEGORIES:
        entries = load_jsonl(DATA / "data" / f"BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in load_jsonl(DATA / "data" / "possible_answer" / f"BFCL_v4_{category}.json")}
        for index, entry in enumerate(entries):
            fresh_modules("long_context" in category)
            results, states, full = [], [], []
            for turn in answers[entry["id"]]:
                out, instances = multi_turn_utils.execute_multi_turn_func_call(
                    turn, entry["initial_config"], entry["involved_classes"], MODEL, entry["id"],
                    long_context=("long_context" in category or "composite" in category),
                )
                results.append([digest(r) for r in out])
                states.append(state_digest(instances, entry["involved_classes"]))
                full.append(out)
            replay_lines.append({"id": entry["id"], "results": results, "states": states})
            if index < 3:
                full_lines.append({"id": entry["id"], "results": full})
    return replay_lines, full_lines


def run_edge_cases():
    lines = []
    for case in load_jsonl(OUT / "edge-cases.jsonl"):
        fresh_modules(bool(case.get("long_context", False)))
        for turn_index, turn in enumerate(case["turns"]):
            out, _ = multi_turn_utils.execute_multi_turn_func_call(
                turn, case.get("initial_config", {}), case["involved_classes"], MODEL, case["id"],
                long_context=bool(case.get("long_context", False)),
            )
            for call_index, result in enumerate(out):
                line = {"id": case["id"], "turn": turn_index, "index": call_index}
                if len(result) > LONG_RESULT:
                    line.update({"result_sha256": hashlib.sha256(result.encode("utf-8", "surrogatepass")).hexdigest(), "result_length": len(result), "result_head": result[:300]})
                else:
                    line["result"] = result
                lines.append(line)
    return lines


def perturbations(gt: list) -> dict:
    """Deterministic variants of a ground truth, as model results (turn → steps → calls); test/fixtures/bfcl-perturb.ts builds the same."""
    as_steps = [[list(turn)] if turn else [] for turn in gt]
    variants = {"gt": as_steps, "split": [[[c] for c in turn] for turn in gt]}
    nonempty = [i for i, turn in enumerate(gt) if turn]
    if nonempty:
        last = nonempty[-1]
        dropped = copy.deepcopy(as_steps)
        dropped[last] = [gt[last][:-1]] if len(gt[last]) > 1 else []
        variants["drop_last"] = dropped
        first = nonempty[0]
        empty = copy.deepcopy(as_steps)
        empty[first] = []
        variants["empty_first"] = empty
        doubled = copy.deepcopy(as_steps)
        doubled[first] = [[gt[first][0]] + list(gt[first])]
        variants["dup_first"] = doubled
    return variants


def checker_verdict(result: dict):
    """A compact verdict: True, or the error type, a digest of upstream's message, the differing
    attribute names (state mismatch) and digests of the missing results (response mismatch)."""
    if result["valid"]:
        return True
    verdict = {"type": result["error_type"], "message": digest(result["error_message"])}
    details = result.get("details", {})
    if "differences" in details:
        verdict["differences"] = sorted(details["differences"].keys())
    if "missing_items" in details:
        verdict["missing"] = [digest(m) for m in details["missing_items"]]
    return verdict


def run_checker():
    lines = []
    for category in CATEGORIES:
        entries = load_jsonl(DATA / "data" / f"BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in load_jsonl(DATA / "data" / "possible_answer" / f"BFCL_v4_{category}.json")}
        for entry in entries:
            gt = answers[entry["id"]]
            verdicts = {}
            for name, model_turns in perturbations(gt).items():
                fresh_modules("long_context" in category)
                result = checker_mod.multi_turn_checker(model_turns, gt, copy.deepcopy(entry), category, MODEL)
                verdicts[name] = checker_verdict(result)
            lines.append({"id": entry["id"], "verdicts": verdicts})
    return lines


FUZZ_VALUES = [
    "'x'", "''", "'docs'", "'USR002'", "'AAPL'", "'SFO'", "'2024-11-15'", "'economy'", "'#tag'", "'a.txt'", "'..'", "'/'", "0", "1", "-3",
    "5", "12345", "2.5", "-0.5", "1e3", "True", "False", "None", "[]", "['a', 'b']", "[1, 2.5]", "{}", "{'title': 'T'}", "(1,)",
    "'{symbol}'", "10**3", "'START'", "'on'", "'fuel'", "100.0", "-1e-7", "2**64", "'\u00e9\u4e2d'", "{'a': {'b': [1]}}", "'a|b'",
    "'Open'", "'USD'", "'EUR'", "'2024/01/01'", "0.1", "3.0", "[None]", "'ls()'", "'x(y)'", "('a', 'b')", "{1, 2}", "-0.0",
    "999999999999", "'driver'", "['driver', 'passenger']", "'engage'", "'celsius'", "'fahrenheit'", "'km'", "'m'", "'l'", "'w'", "'c'",
]


def fuzz_calls(rng, task, gt, docs):
    """Calls of the task's classes with arguments of every type (and some ground-truth calls between them)."""
    calls = []
    flat = [c for turn in gt for c in turn]
    for _ in range(20):
        if flat and rng.random() < 0.3:
            calls.append(rng.choice(flat))
            continue
        doc = rng.choice(docs[rng.choice(task["involved_classes"])])
        required = doc["parameters"].get("required", [])
        positional, keywords = [], []
        for name in doc["parameters"]["properties"]:
            if (name in required and rng.random() > 0.1) or rng.random() < 0.4:
                value = rng.choice(FUZZ_VALUES)
                if rng.random() < 0.2 and not keywords:
                    positional.append(value)
                else:
                    keywords.append(f"{name}={value}")
        if rng.random() < 0.05:
            keywords.append(f"bogus={rng.choice(FUZZ_VALUES)}")
        calls.append(f"{doc['name']}({', '.join(positional + keywords)})")
    return [calls[:10], calls[10:]]


def run_fuzz():
    """Randomly typed calls on 120 real tasks (inputs are stored by task id; the data stays in the data dir)."""
    import random as _random

    rng = _random.Random(20260115)
    docs = {}
    for cls, name in [("GorillaFileSystem", "gorilla_file_system"), ("MathAPI", "math_api"), ("MessageAPI", "message_api"), ("TwitterAPI", "posting_api"),
                      ("TicketAPI", "ticket_api"), ("TradingBot", "trading_bot"), ("TravelAPI", "travel_booking"), ("VehicleControlAPI", "vehicle_control")]:
        docs[cls] = load_jsonl(DATA / "data" / "multi_turn_func_doc" / f"{name}.json")
    lines = []
    for category in CATEGORIES:
        entries = load_jsonl(DATA / "data" / f"BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in load_jsonl(DATA / "data" / "possible_answer" / f"BFCL_v4_{category}.json")}
        for entry in rng.sample(entries, 30):
            turns = fuzz_calls(rng, entry, answers[entry["id"]], docs)
            fresh_modules("long_context" in category)
            results = []
            for turn in turns:
                out, _ = multi_turn_utils.execute_multi_turn_func_call(
                    turn, entry["initial_config"], entry["involved_classes"], MODEL, entry["id"],
                    long_context=("long_context" in category or "composite" in category),
                )
                results.append([digest(r) for r in out])
            lines.append({"id": entry["id"], "turns": turns, "results": results})
    return lines


def write_jsonl(path: Path, lines: list):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser(description="Write BFCL goldens under test/fixtures/bfcl.")
    parser.add_argument("--only", choices=["replay", "edge", "checker", "fuzz"], help="regenerate one part only (default: all)")
    only = parser.parse_args().only
    OUT.mkdir(parents=True, exist_ok=True)
    if only in (None, "replay"):
        replay, full = replay_ground_truth()
        write_jsonl(OUT / "gt-replay.jsonl", replay)
        write_jsonl(OUT / "gt-replay-full.jsonl", full)
        print(f"wrote {len(replay)} ground-truth replays ({len(full)} in full)")
    if only in (None, "edge"):
        write_jsonl(OUT / "edge-expected.jsonl", run_edge_cases())
        print("wrote the edge-case expectations")
    if only in (None, "checker"):
        write_jsonl(OUT / "checker.jsonl", run_checker())
        print("wrote the checker verdicts")
    if only in (None, "fuzz"):
        write_jsonl(OUT / "fuzz.jsonl", run_fuzz())
        print("wrote the randomly typed calls and their result digests")
    meta = {
        "source": "ShishirPatil/gorilla berkeley-function-call-leaderboard/bfcl_eval (see the data README)",
        "python": sys.version.split()[0],
        "mpmath": mpmath.__version__,
        "model_name": MODEL,
        "fixed_today": FIXED_TODAY.isoformat(),
        "tz": "UTC",
    }
    with open(OUT / "meta.json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
