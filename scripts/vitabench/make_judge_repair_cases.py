"""
Judge cases whose replies are malformed the way judges get them wrong (test/fixtures/vitabench/judge-repair.cases.jsonl):
fences and prose, trailing commas, Python literals, truncation, falsy replies (states kept), non-string justifications
(carried into the next window's prompt as the value), lax booleans, and replies upstream raises on. The conversation is
the one of judge.cases.jsonl's "deliv-en-long" (23 messages, 3 windows).

  python scripts/vitabench/make_judge_repair_cases.py > test/fixtures/vitabench/judge-repair.cases.jsonl
"""
import json
import sys

base = None
with open("test/fixtures/vitabench/judge.cases.jsonl") as fp:
    for line in fp:
        c = json.loads(line)
        if c["id"] == "deliv-en-long":
            base = c


def v(idx, met, just="ok"):
    return {"rubric_idx": f"rubric_{idx}", "justification": just, "meetExpectation": met}


good = json.dumps([v(0, True), v(1, True)])
cases = {
    "repair-fenced-trailing-comma": ["Window 1 verdicts:\n```json\n" + json.dumps([v(0, True, "done in [3]")], indent=2)[:-2] + ",\n]\n```\nThanks.",
                                     "[{'rubric_idx': 'rubric_1', 'justification': 'yes', 'meetExpectation': True}]",
                                     '[{"rubric_idx": "rubric_0", "justification": "kept", "meetExpectation": true}, {"rubric_idx": "rubric_1", "justification": "cut'],
    "repair-falsy-keeps-states": [good, "[]", "{}"],
    "repair-non-string-justification": [json.dumps([{"rubric_idx": "rubric_0", "justification": None, "meetExpectation": True},
                                                   {"rubric_idx": "rubric_1", "justification": 7, "meetExpectation": 1}]),
                                        json.dumps([{"rubric_idx": "rubric_1", "justification": ["a", {"b": 1.0}], "meetExpectation": "yes"}]),
                                        json.dumps([{"rubric_idx": "rubric_0", "meetExpectation": False}, {"rubric_idx": "rubric_9"}, {"rubric_idx": 3}, {"justification": "no idx"}])],
    "repair-met-not-bool": [json.dumps([v(0, "maybe"), v(1, True)]), good, good],
    "repair-unreadable": [good, "I am unable to evaluate this window.", good],
    "repair-dict-reply": [json.dumps(v(0, True)), good, good],
    "repair-unhashable-idx": [json.dumps([{"rubric_idx": ["rubric_0"], "meetExpectation": True}]), good, good],
    "repair-string-reply": ['"all rubrics met"', good, good],
}
for cid, replies in cases.items():
    c = dict(base)
    c["id"] = cid
    c["replies"] = replies
    sys.stdout.write(json.dumps(c, ensure_ascii=False) + "\n")
