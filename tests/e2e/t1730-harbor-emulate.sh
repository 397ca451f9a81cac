#!/bin/sh
# More of Docker emulated for Harbor tasks (issue 24, docs/harbor.md):
# the JSON form of COPY (a file name with blanks), and pytest's --ctrf
# report (our own plugin, offline) read by a test.sh for a fractional
# reward; a COPY or mkdir outside the WORKDIR (/data, /output); ENV.
# Each task is made here, from the sound fixture; the oracle must pass
# and the null student fail; an agent student's `run` tool sees the
# same places and variables.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor-oracle"

# a task from the sound fixture, its Dockerfile, solve.sh and test.sh given
task() {
    cp -R "$H/sound" "$T/$1"
    printf '%b' "$2" >"$T/$1/environment/Dockerfile"
    printf '%b' "$3" >"$T/$1/solution/solve.sh"
    printf '%b' "$4" >"$T/$1/tests/test.sh"
}

# --- COPY ["a b", "/root/a b"]: the JSON form, a name with blanks ----------
task json-copy 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY ["in put.txt", "/root/in put.txt"]\n' \
    '#!/bin/bash\ncp "/root/in put.txt" /root/out.txt\n' \
    '#!/bin/bash\nif grep -qx ok /root/out.txt; then echo 1; else echo 0; fi >/logs/verifier/reward.txt\n'
echo ok >"$T/json-copy/environment/in put.txt"
run "$UPSKILL" eval --tasks "$T/json-copy" --check
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
like "$out" "json-copy: runnable (workdir /root, 1 skill" \
    "COPY in the JSON form is read"
like "$out" "json-copy: sound (oracle passes, null fails, both arms, 1 run)" \
    "the file with blanks in its name is seeded at its place"
printf 'FROM ubuntu:24.04\nCOPY ["in put.txt" "/root/"]x\n' \
    >"$T/json-copy/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/json-copy" --check --static
like "$out" "json-copy: not runnable: line 2: COPY [...] is not a JSON array of strings" \
    "a JSON form that is not an array of strings is refused, with its line"

# --- pytest --ctrf FILE: our plugin writes the summary test.sh reads -------
# (the reward is the fraction of tests passed; pytest from Debian, the
# plugin never installed: test.sh's pip step fails offline)
ctrf_sh='#!/bin/bash
pip3 install pytest-json-ctrf==0.3.6 2>/dev/null
mkdir -p /logs/verifier
pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
python3 -c "import json; s=json.load(open(\\"/logs/verifier/ctrf.json\\"))[\\"results\\"][\\"summary\\"]; print(round(s[\\"passed\\"] / s[\\"tests\\"], 3))" >/logs/verifier/reward.txt || echo 0 >/logs/verifier/reward.txt
'
task ctrf 'FROM ubuntu:24.04\nWORKDIR /root\n' \
    '#!/bin/bash\nprintf "a\\nb\\nc\\n" >/root/out.txt\n' "$ctrf_sh"
cat >"$T/ctrf/tests/test_outputs.py" <<'PY'
import os

def lines():
    return open("/root/out.txt").read().split() if os.path.exists("/root/out.txt") else []

def test_a(): assert "a" in lines()
def test_b(): assert "b" in lines()
def test_c(): assert "c" in lines()
def test_always(): assert True
PY
run "$UPSKILL" eval --tasks "$T/ctrf" --check
like "$out" "ctrf: sound (oracle passes, null fails, both arms, 1 run)" \
    "pytest --ctrf runs offline; the summary's counts make the reward"
printf '#!/bin/bash\necho a >/root/out.txt\n' >"$T/ctrf/solution/solve.sh"
run "$UPSKILL" eval --tasks "$T/ctrf" --check
like "$out" "ctrf: not sound: oracle failed in the baseline arm (1 of 1 run: reward 0.5, below the threshold 1" \
    "a fractional reward from the report: 2 of 4 tests passed"

# --- COPY to /data and mkdir /output, outside the WORKDIR: places ----------
# bound writable at their path for the oracle and the verifier alike; the
# workspace's own folder of them is hidden (empty) inside the sandbox
task places 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY data/ /data/\nRUN mkdir -p /output /logs/verifier\n' \
    '#!/bin/bash\ntr a-z A-Z </data/in.txt >/output/out.txt\n' \
    '#!/bin/bash\nls -A /root/.upskill-places | grep -q . && { echo 0 >/logs/verifier/reward.txt; exit; }\nif grep -qx OK /output/out.txt; then echo 1; else echo 0; fi >/logs/verifier/reward.txt\n'
mkdir -p "$T/places/environment/data"
echo ok >"$T/places/environment/data/in.txt"
run "$UPSKILL" eval --tasks "$T/places" --check
like "$out" "places: sound (oracle passes, null fails, both arms, 1 run)" \
    "/data is seeded and /output made, outside the WORKDIR"
printf 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY data/ /usr/local/data/\nCOPY data/in.txt /home/x\nCOPY data/in.txt /root/.upskill-places/etc/x\n' \
    >"$T/places/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/places" --check --static
like "$out" "COPY to '/usr/local/data', outside WORKDIR /root, is not emulated (/usr: a system folder the sandbox mounts itself)" \
    "a COPY into a system folder is not emulated, saying why"
like "$out" "COPY to '/home/x', outside WORKDIR /root, is not emulated (/home: a folder the sandbox keeps for itself)" \
    "nor one into /home"
like "$out" "COPY to '/root/.upskill-places/etc/x': .upskill-places is upskill's own folder" \
    "nor one into upskill's own folder of places"

# --- ENV: set for the oracle (and the run tool, a CLI) and the verifier ----
# ($VAR and ${VAR} of earlier ENV and of the sandbox's PATH expanded; the
# old form ENV NAME value); the verifier's PATH leaves out the folders
# the student can write; a variable of the sandbox's own is refused
task env 'FROM ubuntu:24.04\nWORKDIR /root\nENV GREETING=hello WHO="the world"\nENV MSG ${GREETING}, $WHO\nENV PATH="/root/bin:$PATH"\n' \
    '#!/bin/bash\necho "$MSG" >/root/out.txt\necho "$PATH" >/root/path.txt\n' \
    '#!/bin/bash\nok=1\ngrep -qx "hello, the world" /root/out.txt || ok=0\ngrep -qx "/root/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" /root/path.txt || ok=0\n[ "$GREETING" = hello ] || ok=0\ncase ":$PATH:" in *:/root/bin:*) ok=0 ;; esac\necho $ok >/logs/verifier/reward.txt\n'
run "$UPSKILL" eval --tasks "$T/env" --check
like "$out" "env: sound (oracle passes, null fails, both arms, 1 run)" \
    "ENV reaches the oracle and the verifier, expanded; the verifier's PATH has no student folder"
printf 'FROM ubuntu:24.04\nWORKDIR /root\nENV LD_PRELOAD=/root/x.so\nENV BASH_ENV /root/x.sh\n' \
    >"$T/env/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/env" --check --static
like "$out" "env: not runnable: line 3: ENV LD_PRELOAD would change the sandbox (not emulated); line 4: ENV BASH_ENV would change the sandbox (not emulated)" \
    "a variable that would change the sandbox is refused, with its line"

# --- a test.sh that installs from the network runs offline, all of it ----
# (the install steps skipped; uvx's options cut, Debian's pytest runs; its
# other steps kept: a copy of the expected output, a here-document whose
# line `pip = ...` is Python, not a step)
# test-needs: not uvx pip3 (install steps the offline rewrite replaces)
task offline 'FROM ubuntu:24.04\nWORKDIR /root\n' \
    '#!/bin/bash\necho 42 >/root/out.txt\n' \
    '#!/bin/bash
set -euo pipefail
apt-get update
curl -LsSf https://astral.sh/uv/install.sh | sh
source "$HOME/.local/bin/env"
cp /tests/expected.txt /root/expected.txt
rc=0
uvx \\
  --with pytest==8.4.1 \\
  --with pytest-json-ctrf==0.3.5 \\
  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA || rc=$?
python3 - "$rc" << '"'PYEOF'"'
import sys
pip = 1 if sys.argv[1] == "0" else 0
open("/logs/verifier/reward.txt", "w").write(str(pip))
PYEOF
'
echo 42 >"$T/offline/tests/expected.txt"
printf 'def test_same():\n    assert open("/root/out.txt").read() == open("/root/expected.txt").read()\n' \
    >"$T/offline/tests/test_outputs.py"
run "$UPSKILL" eval --tasks "$T/offline" --check
like "$out" "offline: sound (oracle passes, null fails, both arms, 1 run)" \
    "test.sh runs offline with its own steps (the copy, the here-document)"

# --- the agent student's run tool: the places and ENV too -----------------
task agent 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY data/ /data/\nRUN mkdir -p /output\nENV GREETING=hello\n' \
    '#!/bin/bash\ntrue\n' \
    '#!/bin/bash\nif grep -qx ok-hello /output/out.txt; then echo 1; else echo 0; fi >/logs/verifier/reward.txt\n'
mkdir -p "$T/agent/environment/data"
echo ok >"$T/agent/environment/data/in.txt"
cat >"$T/sc.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/ok-writer/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "run", "arguments": {"command": "echo \"$(cat /data/in.txt)-$GREETING\" >/output/out.txt; cat /output/out.txt; ls -A /root/.upskill-places | wc -l; echo PROBED"}}]}},
  {"match": {"assistant_turns": 0}, "reply": {"text": "I will not do it."}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done."}}
]}
JSON
fake_start "$T/sc.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache --tasks "$T/agent" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --no-log-runs -v
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "the run tool reads /data, sees ENV and writes /output, which the verifier reads"
like "$(cat "$T/rec.jsonl")" 'ok-hello\n0\nPROBED' \
    "the workspace's own folder of places is empty in the sandbox"

# --- Debian's matplotlib reads /etc/matplotlibrc: the sandbox binds it -----
if [ -r /etc/matplotlibrc ]; then
    task mplrc 'FROM ubuntu:24.04\nWORKDIR /root\n' \
        '#!/bin/bash\ngrep -q . /etc/matplotlibrc && echo ok >/root/out.txt\n' \
        '#!/bin/bash\nif grep -qx ok /root/out.txt; then echo 1; else echo 0; fi >/logs/verifier/reward.txt\n'
    run "$UPSKILL" eval --tasks "$T/mplrc" --check
    like "$out" "mplrc: sound (oracle passes, null fails, both arms, 1 run)" \
        "/etc/matplotlibrc is readable in the sandbox"
fi
done_testing
