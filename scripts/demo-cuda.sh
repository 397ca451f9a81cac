#!/bin/sh
# make demo-cuda: executable checks end to end, offline (docs/assertions.md,
# "command").
#
# build/fake-llm plays a small local coding student over the
# OpenAI-compatible API, scripted in examples/demo/cuda-scenario.json.  The
# skill, examples/skills/h100-cuda-kernels, keeps the H100 rules in a
# reference file; a student that reads it writes an RMSNorm kernel that
# compiles for sm_90, one that does not writes a kernel nvcc rejects.  The
# suite's command check compiles every student's kernel.cu with
# `nvcc -arch=sm_90 -c` in the sandbox, so the lift comes from checks
# that really ran.  Where nvcc is not installed the CUDA part is skipped
# with the reason; the Python example (examples/skills/python-slugify,
# checked by running its unit tests) runs everywhere.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DEMO_TARGET=demo-cuda
. "$TOP/scripts/demo-lib.sh"

cd "$T"
printf 'runs_dir: runs\nworkspace_dir: %s/work\ncache:\n  enabled: false\n' "$T" > upskill.config.yaml
export UPSKILL_CONFIG="$T/upskill.config.yaml"
STUDENT=qwen2.5-coder-7b-instruct

NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ]; then
    serve "$TOP/examples/demo/cuda-scenario.json" cuda
    step "$UPSKILL" eval "$TOP/examples/skills/h100-cuda-kernels" \
        -m "$STUDENT" --base-url "$URL/v1" --runs 3 --agent
else
    printf '\ndemo: skipping the CUDA example: nvcc is not installed (not on PATH, not in /usr/local/cuda/bin)\n'
fi
serve "$TOP/examples/demo/slugify-scenario.json" slug
step "$UPSKILL" eval "$TOP/examples/skills/python-slugify" \
    -m "$STUDENT" --base-url "$URL/v1" --runs 3 --agent
