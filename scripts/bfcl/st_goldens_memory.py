"""Golden results of BFCL's memory back ends, for worker/envs/bfcl/memory/backends.test.ts.

Drives upstream's own ``MemoryAPI_kv`` (BM25+ key search from rank_bm25 0.2.2) and ``MemoryAPI_rec_sum``
(instances created and loaded as upstream's executor does, results turned into text by its rule) with
scripted calls built from the prerequisite conversations of every scenario (data/memory_prereq_conversation/):

* kv: a search on the empty memory, one archival entry per conversation turn until the 50-entry limit is hit
  (keys from the turn's first words), core entries until the 7-entry limit, invalid / duplicate keys,
  over-long values, key searches for every memory question of the scenario (core k=3, archival k=5, and
  k=0/-2/None/True/2.5), retrieve / replace / remove / list / retrieve_all / clear, and argument-binding
  errors;
* rec_sum: retrieve on empty, appends of every turn until the 10,000-character limit, replace (found, not
  found, empty old text), update (too long, ok), clear;
* BM25+ scores computed directly with rank_bm25 over each prerequisite entry's turns for every question;
* Python's ``math.log`` on every argument BM25+ can meet in memory search ((N + 1) / df, df ≤ N ≤ 50).

Output: test/fixtures/bfcl/memory/memory-goldens.jsonl.gz (gzip, mtime 0), one JSON object per line:
  {"kind": "call", "backend", "scenario", "method", "args", "kwargs", "result" | "digest"}  (one back-end
  instance per backend+scenario, calls in order), {"kind": "bm25", "scenario", "entry", "question",
  "scores": [repr]}, {"kind": "log", "values": [[x, repr(math.log(x))]]}.
No conversation text is stored: arguments taken from the data are references (see ``Ref``), and results
longer than 160 characters are stored as a sha1 digest. The test rebuilds them from the data.

Usage: RANK_BM25_PY=/path/to/rank_bm25.py python3 scripts/bfcl/st_goldens_memory.py   (or rank_bm25==0.2.2 installed)
"""

import copy
import gzip
import hashlib
import importlib
import io
import json
import os
import math
import re
import tempfile
from pathlib import Path

from st_reference import REPO_ROOT, prepare

DATA = prepare(need_rank_bm25=True)

from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING  # noqa: E402
from rank_bm25 import BM25Plus  # noqa: E402

OUT = REPO_ROOT / "test" / "fixtures" / "bfcl" / "memory" / "memory-goldens.jsonl.gz"
SCENARIOS = ["student", "customer", "finance", "healthcare", "notetaker"]
RESULT_DIR = Path(tempfile.mkdtemp(prefix="results-", dir=os.path.dirname(os.environ["BFCL_PROJECT_ROOT"])))


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]



class Ref:
    """An argument taken from the data, recorded symbolically so the fixture holds no conversation text.

    {"$t": [i, a, b]}       turns[i][a:b] (b may be null)
    {"$t+": [i, suffix]}    turns[i] + suffix
    {"$t*": [i, n]}         turns[i] * n
    {"$p+": [prefix, i, a, b]}  prefix + turns[i][a:b]
    {"$k": [i, suffix]}     key_of(turns[i], suffix)
    {"$q": i}               the scenario's i-th memory question
    """

    def __init__(self, tag, *args):
        self.tag = tag
        self.args = list(args)

    def resolve(self, turns, questions):
        a = self.args
        if self.tag == "$t":
            return turns[a[0]][a[1] : a[2]]
        if self.tag == "$t+":
            return turns[a[0]] + a[1]
        if self.tag == "$t*":
            return turns[a[0]] * a[1]
        if self.tag == "$p+":
            return a[0] + turns[a[1]][a[2] : a[3]]
        if self.tag == "$k":
            return key_of(turns[a[0]], a[1])
        if self.tag == "$q":
            return questions[a[0]]
        raise ValueError(self.tag)

    def record(self):
        return {self.tag: self.args[0] if self.tag == "$q" else self.args}


def result_record(text):
    """Short results as they are; longer ones (they quote conversation text) as a sha1 digest."""
    if len(text) <= 160:
        return {"result": text}
    return {"digest": hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]}


class Session:
    """One back-end instance, created and loaded as upstream's executor does, called with Python arguments.

    Calls go to the bound method directly (not through a call string): the call-string path rewrites text
    such as "word (" inside string arguments (upstream's ``_process_method_calls`` regex), which belongs to
    the multi-turn executor's tests, not to the back end's. The result becomes text by the executor's rule.
    """

    def __init__(self, backend, scenario, out, turns, questions):
        self.turns = turns
        self.questions = questions
        self.backend = backend
        self.scenario = scenario
        self.out = out
        category = "memory_" + backend.split("_", 1)[1]
        test_id = f"{category}_prereq_0-{scenario}-0"
        module = importlib.import_module(CLASS_FILE_PATH_MAPPING[backend])
        self.instance = getattr(module, backend)()
        config = {"model_result_dir": RESULT_DIR, "scenario": scenario, "test_id": test_id, "test_category": f"{category}_prereq"}
        self.instance._load_scenario(copy.deepcopy(config), long_context=False)

    def call(self, method, *args, **kwargs):
        value = lambda v: v.resolve(self.turns, self.questions) if isinstance(v, Ref) else v  # noqa: E731
        shown = lambda v: v.record() if isinstance(v, Ref) else v  # noqa: E731
        try:
            result = getattr(self.instance, method)(*[value(a) for a in args], **{k: value(v) for k, v in kwargs.items()})
            if type(result) == str:
                pass
            elif type(result) == dict:
                try:
                    result = json.dumps(result)
                except Exception:
                    result = str(result)
            else:
                result = str(result)
        except Exception as e:
            result = f"Error during execution: {str(e)}"
        self.out.append({"kind": "call", "backend": self.backend, "scenario": self.scenario, "method": method, "args": [shown(a) for a in args], "kwargs": [[k, shown(v)] for k, v in kwargs.items()], **result_record(result)})
        return result


def key_of(text, suffix):
    words = re.findall(r"[a-z]+", text.lower())[:4] or ["turn"]
    return "_".join(words) + f"_{suffix}"


def turns_of(scenario):
    entries = load_jsonl(DATA / "data" / "memory_prereq_conversation" / f"memory_{scenario}.json")
    return entries, [m["content"] for e in entries for turn in e["question"] for m in turn]


def kv_script(scenario, questions, out):
    _, turns = turns_of(scenario)
    s = Session("MemoryAPI_kv", scenario, out, turns, questions)
    s.call("core_memory_key_search", query="anything")
    s.call("archival_memory_list_keys")
    for i in range(min(51, len(turns))):
        s.call("archival_memory_add", key=Ref("$k", i, i), value=Ref("$t", i, 0, 2000))
    s.call("archival_memory_add", key="over_limit", value="x")
    for i in range(min(8, len(turns))):
        s.call("core_memory_add", key=Ref("$k", i, f"core_{i}"), value=Ref("$t", i, 0, 300))
    s.call("core_memory_remove", key=Ref("$k", 0, "core_0"))
    s.call("core_memory_add", key="Bad Key", value="v")
    s.call("core_memory_add", key="trailing_newline\n", value="v")
    s.call("core_memory_add", key=Ref("$k", 1, "core_1"), value="dup")
    s.call("core_memory_add", key="too_long", value=Ref("$t*", 0, 2))
    s.call("core_memory_add", "positional_key", 12.5)
    for i in range(len(questions)):
        s.call("core_memory_key_search", query=Ref("$q", i), k=3)
        s.call("archival_memory_key_search", query=Ref("$q", i))
    for k in (0, -2, None, True, 2.5, 100):
        s.call("archival_memory_key_search", query=Ref("$q", 0), k=k)
    s.call("archival_memory_key_search", query=42)
    s.call("archival_memory_key_search", Ref("$q", 0), 2)
    first = Ref("$k", 0, 0)
    s.call("archival_memory_retrieve", key=first)
    s.call("archival_memory_retrieve", key="missing_key")
    s.call("archival_memory_retrieve", key=["unhashable"])
    s.call("archival_memory_replace", key=first, value="replaced value")
    s.call("archival_memory_replace", key=first, value="y" * 2001)
    s.call("archival_memory_replace", key="missing_key", value="v")
    s.call("archival_memory_remove", key=first)
    s.call("archival_memory_remove", key=first)
    s.call("archival_memory_list_keys")
    s.call("core_memory_list_keys")
    s.call("core_memory_retrieve_all")
    s.call("core_memory_retrieve", key=Ref("$k", 1, "core_1"))
    s.call("core_memory_replace", key=Ref("$k", 1, "core_1"), value="updated")
    s.call("core_memory_add", key="a")
    s.call("core_memory_clear", 1)
    s.call("core_memory_add", key="a", value="b", extra=1)
    s.call("core_memory_add", "a", key="b", value="c")
    s.call("core_memory_clear")
    s.call("core_memory_retrieve_all")
    s.call("archival_memory_clear")
    s.call("archival_memory_key_search", query=Ref("$q", 0))


def rec_sum_script(scenario, questions, out):
    _, turns = turns_of(scenario)
    s = Session("MemoryAPI_rec_sum", scenario, out, turns, questions)
    s.call("memory_retrieve")
    for i in range(len(turns)):
        if "too long" in s.call("memory_append", text=Ref("$t+", i, "\n")):
            break
    s.call("memory_retrieve")
    s.call("memory_replace", old_text=Ref("$t", 0, 0, 40), new_text="[summary of the first turn]")
    s.call("memory_replace", old_text="not in the memory at all", new_text="x")
    s.call("memory_update", text="z" * 10001)
    s.call("memory_update", text=Ref("$p+", "Summary: ", len(turns) - 1, 0, 200))
    s.call("memory_replace", old_text="", new_text="|")
    s.call("memory_retrieve")
    s.call("memory_append", 12345)
    s.call("memory_clear")
    s.call("memory_retrieve")
    s.call("memory_append")


def bm25_cases(scenario, questions, out):
    """BM25+ over each prerequisite entry's turns (entry index e) for the scenario's first questions."""
    entries, _ = turns_of(scenario)
    for e, entry in enumerate(entries):
        corpus = [m["content"] for turn in entry["question"] for m in turn]
        bm25 = BM25Plus([t.replace("_", " ").lower().split() for t in corpus])
        for qi, q in enumerate(questions):
            scores = bm25.get_scores(q.replace("_", " ").lower().split())
            out.append({"kind": "bm25", "scenario": scenario, "entry": e, "question": qi, "scores": [repr(float(x)) for x in scores]})


def main():
    questions = load_jsonl(DATA / "data" / "BFCL_v4_memory.json")
    out = []
    out.append({"kind": "log", "values": [[x, repr(math.log(x))] for x in sorted({(n + 1) / d for n in range(1, 51) for d in range(1, n + 1)})]})
    for scenario in SCENARIOS:
        qs = [q["question"][0][0]["content"] for q in questions if q["scenario"] == scenario]
        kv_script(scenario, qs, out)
        rec_sum_script(scenario, qs, out)
        bm25_cases(scenario, qs[:4], out)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=9) as gz, io.TextIOWrapper(gz, encoding="utf-8") as f:
        for line in out:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(json.dumps({"lines": len(out), "calls": sum(1 for x in out if x["kind"] == "call")}))


if __name__ == "__main__":
    main()
