"""
Goldens for worker/envs/vitabench/json-repair.ts: what json_repair 0.52.5 (the version of upstream's commit date) makes of
judge replies. Nothing of json_repair is copied: the script imports it.

  PYTHONPATH=<json_repair 0.52.5 src> python scripts/vitabench/json_repair_goldens.py > test/fixtures/vitabench/json-repair.golden.jsonl

Each line: {"input", "parsed", "extracted"?} ("extracted" only where it differs from "parsed"). "parsed" is json.dumps (ensure_ascii=True) of what the parser alone gives
(repair_json(..., skip_json_loads=True, return_objects=True)), null when it gives ""; "extracted" is upstream's
evaluator_extracter: json.loads(repair_json(input)) dumped the same way, or {"error": <exception type>}.

Inputs: replies written the way judges get them wrong (fences, prose around the JSON, trailing commas, truncation,
Python literals, single and curly quotes, comments, unquoted keys, stray escapes, doubled quotes, Chinese text), then
deterministic mutations of well-formed replies (characters deleted, inserted, swapped, the reply cut short).
"""
import json
import random
import sys

from json_repair import repair_json

RUBRICS_EN = [
    ("rubric_0", "Ordered 2 noodles", "Done in [12]", True),
    ("rubric_1", "No chili, \"no spicy\"", "Note missing, see [3]", False),
]
RUBRICS_ZH = [
    ("rubric_0", "下单两份牛肉面", "第[12]轮完成", True),
    ("rubric_1", "备注“不要辣”", "未备注，见[3]", False),
]


def reply(rubrics, indent=2, fence=True, prose=""):
    body = json.dumps([{"rubric_idx": k, "rubric": r, "justification": j, "meetExpectation": m} for k, r, j, m in rubrics],
                      ensure_ascii=False, indent=indent)
    text = f"```json\n{body}\n```" if fence else body
    return prose + text


HANDWRITTEN = [
    "",
    "   ",
    "no json here",
    "I cannot evaluate this window.",
    "[]",
    "{}",
    "null",
    "true",
    "\"just a string\"",
    "42",
    reply(RUBRICS_EN),
    reply(RUBRICS_ZH),
    reply(RUBRICS_EN, fence=False),
    reply(RUBRICS_EN, indent=None, fence=False),
    reply(RUBRICS_EN, prose="Here is my evaluation of window 2:\n\n"),
    reply(RUBRICS_ZH, prose="评估结果如下：\n") + "\n以上。",
    reply(RUBRICS_EN) + "\n\nLet me know if you need anything else.",
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true},]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true,}]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": True}, {"rubric_idx": "rubric_1", "justification": "no", "meetExpectation": False}]',
    "[{'rubric_idx': 'rubric_0', 'justification': 'ok', 'meetExpectation': true}]",
    '[{“rubric_idx”: “rubric_0”, “justification”: “ok”, “meetExpectation”: true}]',
    '[{rubric_idx: "rubric_0", justification: "ok", meetExpectation: true}]',
    '[{"rubric_idx": rubric_0, "justification": ok, "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "the user said "no spicy" twice", "meetExpectation": false}]',
    '[{"rubric_idx": "rubric_0", "justification": "path C:\\new\\table", "meetExpectation": false}]',
    '[{"rubric_idx": "rubric_0", "justification": "tab\\tand \\u4e2d and \\x41", "meetExpectation": false}]',
    '[{"rubric_idx": "rubric_0", "justification": "line one\nline two", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", // first\n "justification": "ok", "meetExpectation": true} /* done */]',
    '# verdicts\n[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": tr',
    '[{"rubric_idx": "rubric_0", "justification": "the order was pla',
    '[{"rubric_idx": "rubric_0", "justif',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}] [{"rubric_idx": "rubric_1", "justification": "ok", "meetExpectation": false}]',
    '{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}\n{"rubric_idx": "rubric_1", "justification": "no", "meetExpectation": false}',
    '{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}, {"rubric_idx": "rubric_1", "justification": "no", "meetExpectation": false}',
    '[{"rubric_idx": "rubric_0", "justification": ""ok"", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0" "justification": "ok" "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": "true"}]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": 1}, {"rubric_idx": "rubric_1", "meetExpectation": 0.0}]',
    '[{"rubric_idx": "rubric_0", "score": 1,5, "n": -3, "x": 1e3, "y": .5, "z": 1/2}]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}, ...]',
    '[{"rubric_idx": "rubric_0", "justification": "ok", "meetExpectation": true}, {"rubric_idx": "rubric_0", "justification": "again", "meetExpectation": false}]',
    '[{"rubric_idx": "rubric_0", "rubric_idx": "rubric_1", "meetExpectation": true}]',
    '{"results": [{"rubric_idx": "rubric_0", "meetExpectation": true}] [{"rubric_idx": "rubric_1", "meetExpectation": false}]}',
    '[{"a": {"b": [1, 2, {"c": "d"}]}, "e": NaN, "f": Infinity}]',
    '[{"rubric_idx": "rubric_0", "justification": "emoji 😀 ok", "meetExpectation": true}]',
    '```\n[{"rubric_idx": "rubric_0", "meetExpectation": true}]\n```',
    '```json\n[{"rubric_idx": "rubric_0", "meetExpectation": true}\n```',
    '{"rubric_idx": "rubric_0", "meetExpectation": true}```',
    '[{"rubric_idx": "rubric_0", "justification": "see {details}, and more", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "a, b, c", "meetExpectation": true}]',
    '[{"rubric_idx": "rubric_0", "justification": "ends with a backslash \\', 
    "['a', 'b' c, \"d\"]",
    '["value1" value2", "value3"]',
    '["bla bla bla "puppy" bla bla bla "kitty" bla bla"]',
    '{"key": "value"}, "key2": "value2"}',
    '{"key": [1, 2] [3, 4]}',
    '{"key": [1, 2], [3, 4]}',
    '{: "x", "a": 1}',
    '{"a": , "b": 2}',
    '{"a" "b"}',
    '{"a": "b" "c": "d"}',
    '{"a": "va"lue", "b": 1}',
    '{"a": "it\'s", \'b\': \'it"s\'}',
    '{"a": tRuE, "b": NULL, "c": nul}',
    '[1, 2, 3,, 4, -, 5e, 6/7]',
    '{"a": 12abc, "b": 1.2.3}',
    '[[[[',
    ']]]}}}',
    '{"a": {"b": {"c": "d"',
    '“hello”',
    '”oops”',
    '{"a": “b”}',
    '[{"rubric_idx": "rubric_0"\u3000, "meetExpectation": true}]',
]

SPECIAL = list('{}[]",:\'“”\\\n #/*`') + ["true", "null", "```json\n", "\n```", "..."]


def mutate(rng, text):
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(chars) + 1)
        if op < 0.35 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op < 0.65:
            chars.insert(i, rng.choice(SPECIAL))
        elif op < 0.8 and chars:
            j = rng.randrange(len(chars))
            chars[min(i, len(chars) - 1)], chars[j] = chars[j], chars[min(i, len(chars) - 1)]
        else:
            chars = chars[: max(1, i)]
    return "".join(chars)


def dumps(v):
    return json.dumps(v, ensure_ascii=True)


def case(text):
    parsed = repair_json(text, skip_json_loads=True, return_objects=True)
    try:
        extracted = dumps(json.loads(repair_json(text)))
    except Exception as e:  # noqa: BLE001 -- upstream raises; the port reports a judge failure
        extracted = {"error": type(e).__name__}
    out = {"input": text, "parsed": None if parsed == "" else dumps(parsed)}
    if extracted != out["parsed"]:
        out["extracted"] = extracted
    return out


def main():
    rng = random.Random(23)
    bases = [reply(RUBRICS_EN), reply(RUBRICS_ZH), reply(RUBRICS_EN, indent=None, fence=False), reply(RUBRICS_ZH[:1], prose="结果：")]
    inputs = list(HANDWRITTEN)
    for _ in range(700):
        inputs.append(mutate(rng, rng.choice(bases)))
    for text in inputs:
        sys.stdout.write(json.dumps(case(text), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
