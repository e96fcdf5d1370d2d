"""Golden leaderboard aggregation, for worker/envs/bfcl/scoring/aggregate.golden.test.ts.

Feeds synthetic per-category results (random accuracies k/n, random subsets of categories left out, partial
entry counts, and the edge cases none / all / only one group) to upstream's own
``eval_runner_helper.generate_leaderboard_csv`` and records, per case, the rows it builds before formatting
(every accuracy at full precision, "N/A" where upstream displays it) and the CSV text it writes.

Output: test/fixtures/bfcl/score/aggregate-goldens.json: [{"results": {category: [accuracy, total_count]},
"rows": {file: [cells]}, "csv": {file: text}}], floats as repr strings prefixed "f:".

Usage: python3 scripts/bfcl/st_goldens_score.py
"""

import contextlib
import copy
import io
import json
import os
import random
import tempfile
from pathlib import Path

from st_reference import REPO_ROOT, prepare

prepare()

import bfcl_eval.eval_checker.eval_runner_helper as helper  # noqa: E402
from bfcl_eval.constants.category_mapping import ALL_SCORING_CATEGORIES  # noqa: E402

OUT = REPO_ROOT / "test" / "fixtures" / "bfcl" / "score" / "aggregate-goldens.json"
COUNTS = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200, "parallel": 200,
    "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258, "live_multiple": 1053, "live_parallel": 16,
    "live_parallel_multiple": 24, "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
    "multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200,
    "web_search_base": 100, "web_search_no_snippet": 100, "memory_kv": 155, "memory_vector": 155, "memory_rec_sum": 155,
}
assert sorted(COUNTS) == sorted(ALL_SCORING_CATEGORIES)
FILES = {"data_non_live.csv": "non_live", "data_live.csv": "live", "data_multi_turn.csv": "multi_turn", "data_agentic.csv": "agentic", "data_overall.csv": "overall"}

captured = {}
original_write = helper.write_score_csv_file


def capturing_write(data, file_path, header, sort_column_index, no_conversion_numeric_column_index=[]):
    captured[FILES.get(Path(file_path).name, Path(file_path).name)] = copy.deepcopy(data[0]) if data else None
    original_write(data, file_path, header, sort_column_index, no_conversion_numeric_column_index)


helper.write_score_csv_file = capturing_write


def cell(v):
    return "f:" + repr(v) if isinstance(v, float) else v


def run(results):
    table = {"plain": {c: {"accuracy": a, "total_count": n} for c, (a, n) in results.items()}}
    out_dir = Path(tempfile.mkdtemp(prefix="score-", dir=os.path.dirname(os.environ["BFCL_PROJECT_ROOT"])))
    captured.clear()
    with contextlib.redirect_stdout(io.StringIO()):
        helper.generate_leaderboard_csv(table, out_dir)
    rows = {k: [cell(x) for x in v] for k, v in captured.items() if k in FILES.values()}
    csv = {FILES[name]: (out_dir / name).read_text() for name in FILES}
    return {"results": results, "rows": rows, "csv": csv}


def main():
    rng = random.Random(13)
    cases = []
    everything = {c: n for c, n in COUNTS.items()}
    cases.append({})
    cases.append({c: (rng.randint(0, n) / n, n) for c, n in everything.items()})
    cases.append({c: (1.0, n) for c, n in everything.items()})
    cases.append({c: (0.0, n) for c, n in everything.items()})
    runnable = [c for c in COUNTS if c not in ("memory_vector", "web_search_base", "web_search_no_snippet")]
    cases.append({c: (rng.randint(0, COUNTS[c]) / COUNTS[c], COUNTS[c]) for c in runnable})
    cases.append({c: (rng.randint(0, COUNTS[c]) / COUNTS[c], COUNTS[c]) for c in COUNTS if c.startswith("multi_turn")})
    cases.append({c: (rng.randint(0, COUNTS[c]) / COUNTS[c], COUNTS[c]) for c in COUNTS if not c.startswith("live") and "_" in c and c.split("_")[0] in ("simple", "multiple", "parallel", "irrelevance")})
    for _ in range(40):
        chosen = [c for c in COUNTS if rng.random() < 0.7]
        case = {}
        for c in chosen:
            n = COUNTS[c] if rng.random() < 0.8 else rng.randint(1, COUNTS[c])
            case[c] = (rng.randint(0, n) / n, n)
        cases.append(case)
    # Accuracies whose percentage sits exactly on a rounding tie, and values near .005 boundaries.
    cases.append({"simple_python": (0.12125, 400), "multiple": (0.5, 200), "live_simple": (1 / 8, 8), "memory_kv": (0.00125, 800)})
    out = [run({c: list(v) for c, v in case.items()}) for case in cases]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=None, ensure_ascii=False) + "\n")
    print(json.dumps({"cases": len(out), "bytes": OUT.stat().st_size}))


if __name__ == "__main__":
    main()
