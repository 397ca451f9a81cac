"""Checks of docs/sharding.md's examples, for tests/e2e/t1805-shard-docs.sh.

usage: shard_docs.py DOC TOP SCRATCH

Prints one line per check, "PASS name" or "FAIL name: why".  The checks:
every block marked <!-- file: PATH --> is that file byte for byte; every sh
block parses (sh -n); the Kubernetes Indexed Job and the GitHub Actions
workflow parse as YAML, have the keys that make them a sharded sweep, and
their commands, run by sh with a stub `upskill` for every index, ask for
shards 1/N..N/N, each into its own runs folder.
"""

import os
import re
import subprocess
import sys

import yaml

DOC, TOP, SCRATCH = sys.argv[1:4]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def report(name, why):
    print(f"FAIL {name}: {why}" if why else f"PASS {name}")


def blocks(text):
    """(section, marker, language, body) of every fenced block."""
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()]
        heads = re.findall(r"^## (.*)$", before, re.M)
        mark = re.search(r"<!-- file: (\S+) -->\n\Z", before)
        out.append((heads[-1] if heads else "", mark and mark.group(1),
                    m.group(1), m.group(2)))
    return out


def stub_runs(script, env):
    """The argument lists `upskill` got when sh ran SCRIPT in ENV."""
    bindir = os.path.join(SCRATCH, "stub")
    log = os.path.join(SCRATCH, "stub.log")
    os.makedirs(bindir, exist_ok=True)
    with open(os.path.join(bindir, "upskill"), "w") as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$*" >>"$STUB_LOG"\n')
    os.chmod(os.path.join(bindir, "upskill"), 0o755)
    if os.path.exists(log):
        os.remove(log)
    env = dict(env, PATH=bindir + ":" + os.environ["PATH"], STUB_LOG=log)
    subprocess.run(["sh", "-c", script], env=env, cwd=SCRATCH, check=True,
                   timeout=10)
    with open(log) as f:
        return f.read().splitlines()


def shard_args(calls):
    """(shard, runs dir) of each eval call."""
    out = []
    for c in calls:
        s = re.search(r"--shard (\S+)", c)
        d = re.search(r"--runs-dir (\S+)", c)
        out.append((s and s.group(1), d and d.group(1)))
    return out


def want_shards(name, got, n):
    shards = [g[0] for g in got]
    dirs = [g[1] for g in got]
    if shards != [f"{i}/{n}" for i in range(1, n + 1)]:
        return report(name, f"--shard values {shards}, not 1/{n}..{n}/{n}")
    if None in dirs or len(set(dirs)) != n:
        return report(name, f"runs folders {dirs} are not one per shard")
    report(name, None)


def check_files(bs):
    marked = [b for b in bs if b[1]]
    report("the docs quote files (<!-- file: -->)",
           None if len(marked) >= 2 else f"{len(marked)} marked blocks")
    for _, path, _, body in marked:
        try:
            with open(os.path.join(TOP, path)) as f:
                same = f.read() == body
        except OSError as e:
            same = e
        report(f"the docs' block of {path} is the file",
               None if same is True else same or "they differ")


def check_sh(bs):
    bad = []
    for sec, _, lang, body in bs:
        if lang == "sh":
            r = subprocess.run(["sh", "-n"], input=body, text=True,
                               capture_output=True)
            if r.returncode:
                bad.append(f"{sec}: {r.stderr.strip()}")
    report("every sh block parses (sh -n)", "; ".join(bad))


def check_k8s(body):
    job = yaml.safe_load(body)
    spec = job["spec"]
    pod = spec["template"]["spec"]
    c = pod["containers"][0]
    n = spec["completions"]
    why = None
    if (job["apiVersion"], job["kind"]) != ("batch/v1", "Job"):
        why = "not a batch/v1 Job"
    elif spec.get("completionMode") != "Indexed":
        why = "completionMode is not Indexed"
    elif not 0 < spec.get("parallelism", 1) <= n:
        why = "parallelism is not 1..completions"
    elif pod.get("restartPolicy") not in ("Never", "OnFailure"):
        why = "a Job's pods need restartPolicy Never or OnFailure"
    elif c.get("command") != ["sh", "-c"] or len(c.get("args", [])) != 1:
        why = "the container is not sh -c SCRIPT"
    elif any("value" in e for e in c.get("env", [])):
        why = "a key given as a literal value, not from a secret"
    report("the Kubernetes example is an Indexed Job", why)
    got = []
    for i in range(n):
        env = dict(os.environ, JOB_COMPLETION_INDEX=str(i))
        got += shard_args(stub_runs(c["args"][0], env))
    want_shards(f"JOB_COMPLETION_INDEX 0..{n - 1} runs shards 1/{n}..{n}/{n}",
                got, n)


def gha_step(step, env):
    """A step's run script with ${{ ... }} filled from ENV."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}",
                  lambda m: env.get(m.group(1), "X"), step.get("run", ""))


def check_gha(body):
    wf = yaml.safe_load(body)
    shard = wf["jobs"]["shard"]
    collect = wf["jobs"]["collect"]
    values = shard["strategy"]["matrix"]["shard"]
    n = len(values)
    why = None
    if values != list(range(1, n + 1)):
        why = f"matrix.shard is {values}, not 1..N"
    elif shard["strategy"].get("fail-fast", True):
        why = "fail-fast would cancel the other shards"
    elif collect.get("needs") != "shard":
        why = "collect does not wait for the shards"
    elif any("secrets." in s.get("run", "") for j in wf["jobs"].values()
             for s in j["steps"]):
        why = "a secret on a command line"
    report("the GitHub Actions example is a matrix of shards", why)
    got, up = [], []
    for v in values:
        env = {"matrix.shard": str(v)}
        for step in shard["steps"]:
            if "upskill eval" in step.get("run", ""):
                got += shard_args(stub_runs(gha_step(step, env), os.environ))
            if "upload-artifact" in step.get("uses", ""):
                w = {k: gha_step({"run": x}, env)
                     for k, x in step.get("with", {}).items()}
                up.append(w.get("path"))
    want_shards(f"matrix.shard 1..{n} runs shards 1/{n}..{n}/{n}", got, n)
    report("each shard uploads its runs folder",
           None if up == [g[1] for g in got] else f"uploads {up}")


def main():
    with open(DOC) as f:
        bs = blocks(f.read())
    check_files(bs)
    check_sh(bs)
    yamls = {sec: body for sec, _, lang, body in bs if lang == "yaml"}
    for sec, fn in (("Kubernetes Indexed Job", check_k8s),
                    ("GitHub Actions matrix", check_gha)):
        if sec not in yamls:
            report(f"docs/sharding.md has a YAML block under '{sec}'",
                   "missing")
            continue
        try:
            fn(yamls[sec])
        except (KeyError, TypeError, IndexError, yaml.YAMLError,
                subprocess.SubprocessError, OSError) as e:
            report(f"the '{sec}' example", f"{type(e).__name__}: {e}")


main()
