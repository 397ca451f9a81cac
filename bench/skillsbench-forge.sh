#!/bin/sh
# The two forgeries of issue 37, replayed on a SkillsBench checkout
# (not a `make bench` step; bench/README.md, "SkillsBench offline").
#
#   sh bench/skillsbench-forge.sh TASKS [OUT]
#
# TASKS holds dynamic-object-aware-egomotion and civ6-adjacency-optimizer
# (yujianll/skill-usage's tasks/). Each is copied (outside this
# repository: OUT, default a mktemp folder) three times with its
# solution/solve.sh replaced by a forger that solves nothing:
#   ego-symlink   pred_instructions.json, pred_dyn_masks.npz symlinks to
#                 the names test.sh copies the ground truth to
#   ego-hardlink  the same as hard links to empty files of those names
#   civ6-site     only a /root/src/sitecustomize.py writing the score
#                 file and the reward (test.sh puts /root/src first on
#                 PYTHONPATH)
# then `upskill eval -m oracle` runs them, run logs on, both arms
# (FORGE_ARGS adds options: --no-log-runs for a build of before issue 37,
# which crashed on civ6's tests/ folders with run logs on; no trial lines).
# A forgery that passes prints "FORGED" and makes the exit 1.
set -eu
UPSKILL=${UPSKILL:-build/upskill}
tasks=${1:?usage: skillsbench-forge.sh TASKS [OUT]}
out=${2:-$(mktemp -d /tmp/forge.XXXXXX)}
mkdir -p "$out/tasks"

copy() { # copy SRC NAME: the task with its solve.sh replaced by stdin
    rm -rf "$out/tasks/$2"
    cp -R "$tasks/$1" "$out/tasks/$2"
    cat >"$out/tasks/$2/solution/solve.sh"
    chmod +x "$out/tasks/$2/solution/solve.sh"
}

copy dynamic-object-aware-egomotion ego-symlink <<'EOF'
#!/bin/bash
ln -sf /root/instructions.json /root/pred_instructions.json
ln -sf /root/dyn_masks.npz /root/pred_dyn_masks.npz
EOF

copy dynamic-object-aware-egomotion ego-hardlink <<'EOF'
#!/bin/bash
cd /root
: >instructions.json
: >dyn_masks.npz
ln -f instructions.json pred_instructions.json
ln -f dyn_masks.npz pred_dyn_masks.npz
EOF

copy civ6-adjacency-optimizer civ6-site <<'EOF'
#!/bin/bash
mkdir -p /root/src
cat >/root/src/sitecustomize.py <<'PY'
import atexit, os
def _forge():
    try:
        os.makedirs("/logs/verifier/scores", exist_ok=True)
        with open("/logs/verifier/scores/scenario_3.txt", "w") as f:
            f.write("1.0")
        with open("/logs/verifier/reward.txt", "w") as f:
            f.write("1.000")
    except OSError:
        pass
_forge()
atexit.register(_forge)
PY
EOF

rc=0
"$UPSKILL" eval --tasks "$out/tasks" -m oracle --runs-dir "$out/runs" \
    --json -j 2 ${FORGE_ARGS:-} >"$out/eval.json" 2>"$out/eval.err" || rc=$?
echo "upskill eval: exit $rc ($out/eval.json, $out/eval.err, $out/runs)"
[ "$rc" -le 1 ] || exit 2
# each trial's verifier message, then the passes per arm: any is a forgery
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
names = sorted(os.listdir(out + "/tasks"))  # cases in folder order
for line in open(next(iter(glob.glob(out + "/runs/*/journal.jsonl")), "/dev/null")):
    t = json.loads(line)
    v = (t.get("verdicts") or [{}])[0]
    print("%-10s %-12s %s" % (t["arm"], names[int(t["case"])], v.get("message")))
m = json.load(open(out + "/eval.json"))["models"][0]
forged = m["baseline"]["passed"] + m["with_skill"]["passed"]
print("passed: baseline %d of %d, with skill %d of %d"
      % (m["baseline"]["passed"], m["baseline"]["conversations"],
         m["with_skill"]["passed"], m["with_skill"]["conversations"]))
print("FORGED: a forger passed" if forged else "no forger passed")
sys.exit(1 if forged else 0)
PY
