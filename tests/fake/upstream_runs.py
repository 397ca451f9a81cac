#!/usr/bin/env python3
"""Upstream upskill 0.2.1's readers of a runs folder, as plain Python.

Usage: upstream_runs.py best RUNS_DIR      (upstream's `runs` figures)
       upstream_runs.py csv RUNS_DIR OUT   (upstream's `runs --csv`)

best prints one line per (model, skill) upstream shows: "SKILL WITH BASE"
with the rates to 4 places and BASE "-" without a baseline, sorted, for a
test to compare with `upskill runs --best --json`.  csv writes upstream's
22 columns with Python's csv module (CRLF rows), the metadata-only row's
timestamp left empty (upstream writes the time of the export there).
Written from upstream's cli.py (_load_eval_results, runs_cmd) and
logging.py (summarize_runs_to_csv); no pydantic needed.
"""
import csv
import datetime
import json
import os
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def batches(top):
    return sorted(os.path.join(top, d) for d in os.listdir(top)
                  if os.path.isdir(os.path.join(top, d)))


def run_dirs(batch):
    return sorted(os.path.join(batch, d) for d in os.listdir(batch)
                  if d.startswith("run_") and
                  os.path.isdir(os.path.join(batch, d)))


def rate(r):
    t = r.get("assertions_total", 0)
    return r.get("assertions_passed", 0) / t if t else 0.0


def results(top):
    out = []
    for b in batches(top):
        s = load(os.path.join(b, "batch_summary.json"))
        runs = s.get("results") if isinstance(s, dict) else None
        if runs is None:
            runs = [r for r in (load(os.path.join(d, "run_result.json"))
                                for d in run_dirs(b)) if r]
        groups = {}
        for r in runs:
            key = (r["metadata"]["model"], r.get("skill_name") or "unknown")
            g = groups.setdefault(key, {"baseline": [], "with_skill": []})
            g["baseline" if r.get("run_type") == "baseline"
              else "with_skill"].append(r)
        for (model, skill), g in groups.items():
            base = sorted(g["baseline"],
                          key=lambda r: r["metadata"]["run_number"])
            for w in g["with_skill"]:
                n = w["metadata"]["run_number"]
                ok = [r for r in base if r["metadata"]["run_number"] <= n]
                pick = ok[-1] if ok else (base[-1] if base else None)
                out.append((model, skill, rate(w),
                            rate(pick) if pick else None))
    return out


def best(top):
    agg = {}
    for model, skill, w, b in results(top):
        k = (model, skill)
        if k not in agg or w > agg[k][0]:
            agg[k] = (w, b)
    for line in sorted(f"{s} {w:.4f} {'-' if b is None else f'{b:.4f}'}"
                       for (m, s), (w, b) in agg.items()):
        print(line)


FIELDS = ["batch_id", "run_number", "model", "task", "timestamp", "passed",
          "assertions_passed", "assertions_total", "input_tokens",
          "output_tokens", "total_tokens", "conversation_span_ms",
          "llm_time_ms", "tool_time_ms", "turns", "tool_calls",
          "tool_errors", "mcp_calls", "execute_calls", "error_message",
          "session_id", "session_history_file"]
FLOATS = ("conversation_span_ms", "llm_time_ms", "tool_time_ms")


def iso(t):
    if t is None:
        return ""
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).isoformat()


def row(d):
    r = load(os.path.join(d, "run_result.json"))
    if r is None:
        md = load(os.path.join(d, "run_metadata.json"))
        if not md:
            return None
        r = {"metadata": dict(md, timestamp=None), "stats": {},
             "passed": False, "error_message": "No result file found"}
    md, st = r["metadata"], r.get("stats", {})
    out = {k: md.get(k, "") for k in ("batch_id", "run_number", "model",
                                      "task")}
    out["timestamp"] = iso(md.get("timestamp"))
    out["passed"] = bool(r.get("passed"))
    for k in ("assertions_passed", "assertions_total"):
        out[k] = r.get(k, 0)
    for k in FIELDS[8:19]:
        out[k] = float(st.get(k, 0)) if k in FLOATS else st.get(k, 0)
    for k in FIELDS[19:]:
        out[k] = r.get(k) or ""
    return out


def write_csv(top, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for b in batches(top):
            for d in run_dirs(b):
                r = row(d)
                if r:
                    w.writerow(r)


if sys.argv[1] == "best":
    best(sys.argv[2])
else:
    write_csv(sys.argv[2], sys.argv[3])
