"""Expected output of `npm run -s finmcp:score` computed by upstream's own scorer.

usage: python3 scripts/finmcp/score_golden.py EVALUATION_PY S.json P.json > expected.json

EVALUATION_PY is upstream's DianJin-TIR/eval/evaluation.py (aliyun/qwen-dianjin @ fd9b511), imported as it is
(its argparse runs at import, so argv is set for it); its get_instance_result and compute_metrics do the work.
The records are built as the command builds them (each prediction laid over its sample), errors dropped as its
main() drops them and KeyErrors skipped as its main() skips them; a record it would stop on prints {"abort": …}.
"""
import importlib.util
import json
import sys

evaluation_py, samples_path, predictions_path = sys.argv[1:4]
sys.argv = [evaluation_py, "--eval_data_path", samples_path]
spec = importlib.util.spec_from_file_location("upstream_evaluation", evaluation_py)
upstream = importlib.util.module_from_spec(spec)
spec.loader.exec_module(upstream)

samples = json.load(open(samples_path))
predictions = json.load(open(predictions_path))
records = []
for sample, prediction in zip(samples, predictions):
    record = dict(sample)
    record.update(prediction)
    records.append(record)

scored = []
try:
    for index, record in enumerate(records):
        if record.get("error", False):
            continue
        try:
            result = upstream.get_instance_result(record)
        except KeyError:
            continue
        scored.append((index, result))
    overall, level1, difficulty, task = upstream.compute_metrics([r for _, r in scored])
except Exception as e:  # what stops upstream's script
    print(json.dumps({"abort": f"{type(e).__name__}: {e}"}, ensure_ascii=False))
    sys.exit(0)

print(
    json.dumps(
        {
            "overall": overall,
            "scenario": level1,
            "difficulty": difficulty,
            "task": task,
            "samples": [
                {"index": i, "TP": r["TP"], "FP": r["FP"], "FN": r["FN"], "consist": r["consist"], "class_Level1": r["class_Level1"], "class_difficulty": r["class_difficulty"], "task": r["task"]}
                for i, r in scored
            ],
        },
        ensure_ascii=False,
    )
)
