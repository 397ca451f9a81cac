#!/bin/sh
# A request that outgrew the model's context is the arm's failure, not a
# failed conversation: beside a coding-agent CLI that failed, the eval
# exits 1 (only CLIs failed), not 4 (a provider's error).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [{"input": "question one", "expected": {"contains": ["good"]}}]}
JSON
cat > "$T/s.json" <<'JSON'
{"rules": [{"reply": {"status": 400, "error_type": "invalid_request_error",
  "error_message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages."}}]}
JSON
fake_start "$T/s.json" || fake_skip_all "fake-llm did not start"

if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    echo "ok 1 # SKIP a stand-in CLI: bubblewrap cannot run here"
    done_testing
    exit 0
fi
# the stand-in's install folder ($T/cli) must not hold TMPDIR ($T/tmp)
mkdir -p "$T/cli/bin"
printf '#!/bin/sh\necho broken >&2\nexit 3\n' >"$T/cli/bin/broken"
chmod +x "$T/cli/bin/broken"
run env UPSKILL_CLI_COMMAND="$T/cli/bin/broken {prompt} {base_url}" \
    "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local -m cli.command \
    --base-url "$FAKE_URL/v1" --no-log-runs
like "$err" "the CLI failed" "the CLI's conversations fail with the reason"
unlike "$err" "'local': no conversation was answered" \
    "the model whose requests outgrew its context answered (failed)"
is "$rc" 1 "only a CLI failed: exit 1, not the provider error's 4"

done_testing
