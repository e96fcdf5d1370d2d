"""
Golden generator for the VitaBench port: runs UPSTREAM's own code (meituan-longcat/vitabench @ 96f3b85) on the
case files of the four `vita:*` commands and prints what upstream gives, in the commands' output format.

Nothing of upstream is copied here: the script imports upstream's package from a checkout.

  PYTHONPATH=<shims>:<json_repair 0.52.5 src>:<vitabench checkout>/src TZ=UTC \
    python scripts/vitabench/oracle.py calls|judge-prompts|user-prompt|schemas|score --data DIR --cases FILE --out FILE

Environment it needs (see worker/envs/vitabench/README.md, "Goldens"): Python 3.11 with pydantic 2, rapidfuzz 3.14.6,
holidays 0.105, loguru, python-dotenv, deepdiff, pyyaml, toml, docstring-parser; json_repair at v0.52.5 (5698f78,
the release of upstream's commit date) on the path; a `thefuzz` and an `addict` module (thefuzz's process/fuzz/utils
as of seatgeek/thefuzz 1ba86f3 — a thin layer over rapidfuzz — and addict.Dict, which the tools never reach).
"""
import argparse
import datetime as _dt
import hashlib
import json
import sys
import threading

LANG = {"zh": "chinese", "en": "english"}


def load_task(data_dir, task_file, task_id):
    import os
    path = task_file if os.path.isabs(task_file) else os.path.join(data_dir, task_file)
    with open(path) as fp:
        tasks = json.load(fp)
    for t in tasks:
        if t["id"] == task_id:
            return t
    raise SystemExit(f"{path}: no task {task_id}")


class FrozenClock:
    value = None


def freeze(clock):
    FrozenClock.value = _dt.datetime.strptime(clock, "%Y-%m-%d %H:%M:%S")


class _FrozenDatetime(_dt.datetime):
    @classmethod
    def now(cls, tz=None):
        v = FrozenClock.value
        return cls(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)


def make_env(domain, environment, language):
    from vita.registry import registry
    from vita.environment.environment import get_cross_environment
    from vita.run import _clear_global_state
    _clear_global_state()
    if "," in domain:
        return get_cross_environment(domain, environment, language)
    return registry.get_env_constructor(domain)(environment, language)


def state_hash(env):
    dump = env.tools.db.model_dump()
    text = json.dumps(dump, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def run_calls(case, data_dir):
    import vita.environment.db as dbmod
    from vita.data_model.message import ToolCall
    dbmod.datetime = _FrozenDatetime
    task = load_task(data_dir, case["task_file"], case["task_id"])
    freeze(case["clock"])
    env = make_env(case["domain"], task["environment"], LANG[case["lang"]])
    out = []
    for i, call in enumerate(case["calls"]):
        if call.get("clock"):
            freeze(call["clock"])
        msg = env.get_response(ToolCall(id=str(i), name=call["tool"], arguments=call.get("arguments", {})))
        out.append({"case": case["id"], "index": i, "tool": call["tool"], "error": msg.error, "content": msg.content,
                    "state_hash": state_hash(env)})
    return out


def in_fresh_thread(fn, *args):
    # Upstream's Location registry is per thread and never cleared: a fresh thread is a fresh episode.
    box = {}

    def target():
        try:
            box["out"] = fn(*args)
        except BaseException as e:  # noqa: BLE001
            box["err"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "err" in box:
        raise box["err"]
    return box["out"]


def to_messages(raw):
    from vita.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
    out = []
    for i, m in enumerate(raw):
        if m["role"] == "user":
            out.append(UserMessage(role="user", content=m.get("content")))
        elif m["role"] == "assistant":
            calls = [ToolCall(id=f"c{i}_{j}", name=c["name"], arguments=c.get("arguments", {})) for j, c in enumerate(m.get("tool_calls") or [])]
            out.append(AssistantMessage(role="assistant", content=m.get("content"), tool_calls=calls or None))
        else:
            out.append(ToolMessage(id=f"t{i}", role="tool", content=m.get("content"), name=m.get("name")))
    return out


def run_judge(case, data_dir):
    import vita.evaluator.evaluator_traj as ev
    from vita.data_model.message import AssistantMessage
    from vita.data_model.tasks import Task
    task = Task.model_validate(load_task(data_dir, case["task_file"], case["task_id"]))
    replies = list(case["replies"])
    prompts = []

    def fake_generate(model, messages, **kwargs):
        prompts.append((messages[0].content, messages[1].content))
        return AssistantMessage(role="assistant", content=replies.pop(0))

    ev.generate = fake_generate
    out = []
    try:
        info = ev.TrajectoryEvaluator.calculate_reward(task=task, full_trajectory=to_messages(case["messages"]), final_state={},
                                                       llm_evaluator="x", llm_args_evaluator={}, language=LANG[case["lang"]])
        final = {"reward": info.reward, "partial": info.reward_breakdown["NL_ASSERTION"] if info.reward_breakdown else None,
                 "met": [c.met for c in (info.nl_rubrics or [])]}
    except Exception as e:  # noqa: BLE001 -- upstream raises: the port reports a judge failure
        final = {"error": type(e).__name__}
    for i, (s, u) in enumerate(prompts):
        out.append({"case": case["id"], "window": i + 1, "system": s, "user": u})
    out.append({"case": case["id"], "final": final})
    return out


def run_user_prompt(case, data_dir):
    from vita.agent.llm_agent import LLMAgent
    from vita.data_model.tasks import Task
    from vita.user.user_simulator import UserSimulator
    task = Task.model_validate(load_task(data_dir, case["task_file"], case["task_id"]))
    lang = LANG[case["lang"]]
    env = make_env(case["domain"], task.environment, lang)
    user = UserSimulator(persona=str(task.user_scenario.user_profile), instructions=str(task.instructions), llm="x", llm_args={}, language=lang)
    agent = LLMAgent(tools=env.get_tools(), domain_policy=env.get_policy(), llm="x", llm_args={}, time=env.tools.db.time, language=lang)
    return [{"case": case["id"], "user_system": user.system_prompt, "agent_system": agent.system_prompt}]


def run_schemas(case, data_dir):
    # case: {"id","domain","lang"}: the agent's tools as upstream sends them (openai_schema, in order).
    lang = LANG[case["lang"]]
    env = make_env(case["domain"], {}, lang)
    return [{"case": case["id"], "tools": [t.openai_schema for t in env.get_tools()]}]


def run_score(case, data_dir):
    # case: {"id","num_trials","runs":[{"task_id","termination_reason","verdicts":[bool]|null}]}: each run's reward as
    # evaluate_simulation gives it (a task with one overall rubric per verdict, the judge replying the verdicts; null:
    # a task without evaluation criteria), then compute_metrics over the runs.
    import vita.evaluator.evaluator_traj as ev
    from vita.data_model.message import AssistantMessage
    from vita.data_model.simulation import AgentInfo, Info, Results, SimulationRun, UserInfo
    from vita.data_model.tasks import Task
    from vita.environment.environment import EnvironmentInfo
    from vita.evaluator.evaluator import evaluate_simulation
    from vita.metrics.agent_metrics import compute_metrics
    sims, tasks = [], {}
    for i, run in enumerate(case["runs"]):
        verdicts = run["verdicts"]
        criteria = None if verdicts is None else {"overall_rubrics": [f"rubric {j}" for j in range(len(verdicts))]}
        task = Task.model_validate({"id": run["task_id"], "domain": "delivery", "environment": {"time": "2025-01-01 00:00:00"},
                                    "user_scenario": {"user_profile": {}}, "instructions": "x", "evaluation_criteria": criteria})
        tasks[task.id] = task
        reply = json.dumps([{"rubric_idx": f"rubric_{j}", "justification": "j", "meetExpectation": m} for j, m in enumerate(verdicts or [])])
        ev.generate = lambda model, messages, reply=reply, **kw: AssistantMessage(role="assistant", content=reply)
        sim = SimulationRun(id=f"s{i}", task_id=task.id, start_time="20250101_000000", end_time="20250101_000000", duration=0.0,
                            termination_reason=run["termination_reason"], messages=[AssistantMessage(role="assistant", content="hi")], trial=i)
        sim.reward_info = evaluate_simulation(simulation=sim, task=task, evaluation_type="trajectory", domain="delivery",
                                              llm_evaluator="x", llm_args_evaluator={}, language="english")
        sims.append(sim)
    info = Info(git_commit="x", num_trials=case["num_trials"], max_steps=300, max_errors=10, user_info=UserInfo(implementation="u"),
                agent_info=AgentInfo(implementation="a"), environment_info=EnvironmentInfo(domain_name="delivery"))
    results = Results(info=info, tasks=list(tasks.values()), simulations=sims)
    m = compute_metrics(results)
    partials = [(s.reward_info.reward_breakdown or {}).get("NL_ASSERTION") for s in sims]
    keys = lambda d: {str(k): v for k, v in (d or {}).items()}
    return [{"case": case["id"], "rewards": [s.reward_info.reward for s in sims], "partials": partials,
             "avg_reward": m.avg_reward, "avg_partial": (m.avg_reward_breakdown or {}).get("NL_ASSERTION"),
             "pass_hat_k": keys(m.pass_hat_ks), "pass_at_k": keys(m.pass_at_n), "avg_at_k": keys(m.average_at_n)}]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["calls", "judge-prompts", "user-prompt", "schemas", "score"])
    ap.add_argument("--data", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True, help="output JSONL (upstream prints to stdout itself)")
    args = ap.parse_args()
    fn = {"calls": run_calls, "judge-prompts": run_judge, "user-prompt": run_user_prompt, "schemas": run_schemas, "score": run_score}[args.command]
    with open(args.cases) as fp:
        cases = [json.loads(line) for line in fp if line.strip()]
    with open(args.out, "w") as out:
        for case in cases:
            for row in in_fresh_thread(fn, case, args.data):
                out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
