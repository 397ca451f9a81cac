#!/usr/bin/env python3
"""Upstream upskill's skill schema, written here as plain checks.

Usage: upstream_schema.py SKILL_DIR_OR_META_JSON...
       upstream_schema.py --tree DIR
       upstream_schema.py --tests TESTS_JSON...

--tests checks a tests file (eval -t) as upstream's eval reads it: when
the top level holds "cases", every entry of it is a TestCase (the other
keys are ignored), else the top level is the list of TestCases.

--tree checks every skill_meta.json under DIR that upskill wrote (it
starts as our writer starts it: '{\n  "metadata": {\n    "version": '),
so hand-made broken fixtures are left alone; it prints nothing when there
is none, else "checked N" or the faults.

Checks each skill_meta.json (and the SKILL.md beside it) the way upstream
upskill 0.2.1's Skill.load does: SkillMetadata for "metadata" (unknown
keys ignored), TestCase with extra="forbid" for every entry of "tests"
(ExpectedSpec and TestCaseContext forbid unknown keys too), other
top-level keys ignored, and SKILL.md's frontmatter read line by line with
the name 1 to 64 characters matching ^[a-z0-9]+(-[a-z0-9]+)*$ (so a
quoted name fails, as upstream keeps the quotes) and the description 1 to
1024 characters.  Prints one
line per fault and exits 1 when there is any.  No pydantic needed.
"""
import datetime
import json
import os
import re
import sys

faults = []


def fault(where, what):
    faults.append(f"{where}: {what}")


def opt_str(where, v):
    if v is not None and not isinstance(v, str):
        fault(where, "expected a string or null")


def check_metadata(where, m):
    if not isinstance(m, dict):
        return fault(where, "metadata: expected an object")
    for k in ("version", "generated_by", "source_task", "license",
              "compatibility"):
        opt_str(f"{where}: metadata.{k}", m.get(k))
    if m.get("version", "1.0") is None:
        fault(where, "metadata.version: null is not a string")
    at = m.get("generated_at")
    if at is not None and not isinstance(at, (int, float)):  # Unix time
        try:
            datetime.datetime.fromisoformat(str(at).replace("Z", "+00:00"))
        except ValueError:
            fault(where, "metadata.generated_at: not a datetime")
    rate = m.get("test_pass_rate")
    if rate is not None and (isinstance(rate, bool) or
                             not isinstance(rate, (int, float))):
        fault(where, "metadata.test_pass_rate: expected a number or null")


def only(where, obj, keys):
    for k in obj:
        if k not in keys:
            fault(where, f"extra key {k!r} (extra=forbid)")


def check_test(where, t):
    if not isinstance(t, dict):
        return fault(where, "expected an object")
    only(where, t, ("input", "context", "expected", "output_file",
                    "validator", "validator_config"))
    if not isinstance(t.get("input"), str):
        fault(where, "input: required string")
    e = t.get("expected")
    if not isinstance(e, dict):
        fault(where, "expected: required object")
    else:
        only(where + ".expected", e, ("contains",))
        c = e.get("contains")
        if isinstance(c, str):
            c = [c]
        if not isinstance(c, list) or not all(isinstance(x, str) for x in c):
            fault(where, "expected.contains: required string or [string]")
    ctx = t.get("context")
    if ctx is not None:
        if not isinstance(ctx, dict):
            fault(where, "context: expected an object or null")
        else:
            only(where + ".context", ctx, ("files",))
            f = ctx.get("files")
            if f is not None and (not isinstance(f, dict) or not all(
                    isinstance(v, str) for v in f.values())):
                fault(where, "context.files: expected {name: text} or null")
    opt_str(where + ".output_file", t.get("output_file"))
    opt_str(where + ".validator", t.get("validator"))
    vc = t.get("validator_config")
    if vc is not None and (not isinstance(vc, dict) or not all(
            isinstance(v, (str, int, float, bool)) for v in vc.values())):
        fault(where, "validator_config: expected {name: scalar} or null")


def check_skill_md(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        return fault(path, str(e))
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    description = ""
    if text.startswith("---"):
        parts = text.split("---", 2)
        if len(parts) >= 3:
            for line in parts[1].strip().split("\n"):
                if ":" in line:
                    k, v = line.split(":", 1)
                    if k.strip() == "name":
                        name = v.strip()
                    elif k.strip() == "description":
                        description = v.strip()
    if not 1 <= len(name) <= 64:
        fault(path, "name: 1 to 64 characters")
    elif not re.match(r"^[a-z0-9]+(-[a-z0-9]+)*$", name):
        fault(path, f"name {name!r}: must be lowercase alphanumeric with "
              "hyphens (Skill.validate_name)")
    if not 1 <= len(description) <= 1024:
        fault(path, "description: 1 to 1024 characters")


def check(arg):
    meta = arg if arg.endswith(".json") else os.path.join(arg,
                                                          "skill_meta.json")
    md = os.path.join(os.path.dirname(meta), "SKILL.md")
    if os.path.exists(md):
        check_skill_md(md)
    if not os.path.exists(meta):
        return
    try:
        root = json.load(open(meta, encoding="utf-8"))
    except ValueError as e:
        return fault(meta, f"not JSON: {e}")
    if not isinstance(root, dict):
        return fault(meta, "expected an object")
    if "metadata" in root:
        check_metadata(meta, root["metadata"])
    if "tests" in root:
        if not isinstance(root["tests"], list):
            return fault(meta, "tests: expected a list")
        for i, t in enumerate(root["tests"]):
            check_test(f"{meta}: tests[{i}]", t)


SIGNATURE = '{\n  "metadata": {\n    "version": '


def saved_by_us(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(len(SIGNATURE)) == SIGNATURE
    except OSError:
        return False


def tree(top):
    n = 0
    for d, _, files in os.walk(top):
        p = os.path.join(d, "skill_meta.json")
        if "skill_meta.json" in files and saved_by_us(p):
            check(p)
            n += 1
    return n


def check_tests_file(path):
    try:
        data = json.load(open(path, encoding="utf-8"))
    except ValueError as e:
        return fault(path, f"not JSON: {e}")
    cases = data["cases"] if "cases" in data else data
    if not isinstance(cases, list):
        return fault(path, "cases: expected a list")
    for i, t in enumerate(cases):
        check_test(f"{path}: cases[{i}]", t)


if sys.argv[1:2] == ["--tests"]:
    for a in sys.argv[2:]:
        check_tests_file(a)
elif sys.argv[1:2] == ["--tree"]:
    n = tree(sys.argv[2])
    if n and not faults:
        print(f"checked {n}")
else:
    for a in sys.argv[1:]:
        check(a)
for f in faults:
    print(f)
sys.exit(1 if faults else 0)
