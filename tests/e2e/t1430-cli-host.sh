#!/bin/sh
# Issue 23 items 10, 11, 12, 15: what a coding-agent CLI's sandbox lets it
# see and use of the host (docs/agent-clis.md, "The sandbox").  A CLI found
# on PATH in a folder whose install folder is the home (~/bin/claude) or a
# folder holding credentials (~/.cargo) is refused, never bound; a stand-in
# CLI (cli.command) finds no /etc/ssl/private and no host path in any
# command line under /proc, and runs into the process and file-size caps
# of the config's sandbox.* keys, set low so the test stays small.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! command -v python3 >/dev/null 2>&1 ||
    ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
    echo "1..0 # SKIP needs python3 and a bubblewrap that can unshare the network"
    exit 0
fi
SKILL=$TOP/examples/skills/incident-report
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
echo '{"cases": [{"input": "Say hi.", "expected": {"contains": ["hi"]}}]}' \
    >"$T/tests.json"

# ---- item 10: a CLI whose install folder is the home, or holds keys ----
# plant(HOME, BINDIR): a home with an ssh key and a Claude Code stand-in in
# BINDIR that prints whatever key it can read as its answer
plant() {
    mkdir -p "$1/.ssh" "$2"
    echo "PLANTED-SSH-KEY-1430" >"$1/.ssh/id_ed25519"
    cat >"$2/claude" <<EOF
#!/bin/sh
key=\$(cat "$1/.ssh/id_ed25519" "$1/.cargo/credentials.toml" 2>/dev/null | tr '\n' ' ')
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi %s"}\n' "\$key"
EOF
    chmod +x "$2/claude"
}
H=$T/home
plant "$H" "$H/bin"
run env -u UPSKILL_CLIS HOME="$H" PATH="$H/bin:/usr/bin:/bin" "$UPSKILL" eval \
    "$SKILL" --tests "$T/tests.json" -m cli.claude-code --base-url "$FAKE_URL" \
    --runs-dir "$T/runs1"
like "$err" "'$H/bin/claude': the CLI's install folder '$H' is your home folder" \
    "~/bin/claude: refused, naming the folder"
like "$err" "install the CLI with \`make clis\`" "the refusal says how to install it"
ok "$(grep -rq PLANTED-SSH-KEY "$T/runs1" "$T/.out" "$T/.err"; [ $? -ne 0 ]; echo $?)" \
    "~/bin/claude never ran: the ssh key is in no artifact or output"

H=$T/home2
plant "$H" "$H/.cargo/bin"
echo 'token = "PLANTED-CARGO-TOKEN-1430"' >"$H/.cargo/credentials.toml"
rm -rf "$H/.ssh"
run env -u UPSKILL_CLIS HOME="$H" PATH="$H/.cargo/bin:/usr/bin:/bin" "$UPSKILL" \
    eval "$SKILL" --tests "$T/tests.json" -m cli.claude-code \
    --base-url "$FAKE_URL" --runs-dir "$T/runs2"
like "$err" "install folder '$H/.cargo' is a folder holding credentials (credentials.toml)" \
    "~/.cargo/bin/claude: refused, naming the credentials"
ok "$(grep -rq PLANTED-CARGO-TOKEN "$T/runs2" "$T/.out" "$T/.err"; [ $? -ne 0 ]; echo $?)" \
    "~/.cargo/bin/claude never ran: the token is in no artifact or output"

# ---- items 11, 12, 15: a stand-in CLI looks around and pushes limits ----
mkdir -p "$T/agent/bin" "$T/convs"
cat >"$T/agent/bin/probe" <<'EOF'
#!/usr/bin/python3
import os, signal, sys, time
out, stop = [], 0
if os.path.exists("/etc/ssl/private"):
    out.append("SSL-PRIVATE-THERE")
if os.path.isdir("/etc/ssl/certs"):
    out.append("CERTS")
lines = []
for p in os.listdir("/proc"):
    try:
        lines.append(open("/proc/%s/cmdline" % p, "rb").read().decode())
    except (OSError, UnicodeError):
        pass
out.append("BWRAP-SEEN" if any("bwrap" in l for l in lines) else "NO-BWRAP")
if any("upskill-cli-" in l for l in lines):
    out.append("HOST-PATH-IN-CMDLINE")
if "FORK" in sys.argv[1]:
    kids = []
    for i in range(48):
        try:
            pid = os.fork()
        except OSError as e:
            print("fork: " + e.strerror, file=sys.stderr)
            stop = 1
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
    for k in kids:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
    out.append("FORKS:%d" % len(kids))
if "FILE" in sys.argv[1]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        with open("/tmp/big", "wb") as f:
            for i in range(32):
                f.write(b"\0" * (1 << 20))
                f.flush()
    except OSError as e:
        print(e.strerror, file=sys.stderr)
        stop = 1
    out.append("TMPFILE-MB:%d" % (os.path.getsize("/tmp/big") >> 20))
print(" ".join(out))
sys.exit(stop)
EOF
chmod +x "$T/agent/bin/probe"
cat >"$T/limits.yaml" <<'YAML'
sandbox:
  processes: 16
  file_size_mb: 4
YAML
cat >"$T/probe.json" <<'EOF'
{"cases": [{"input": "FORK", "expected": {"contains": ["FORKS"]}},
 {"input": "FILE", "expected": {"contains": ["TMPFILE"]}}]}
EOF
run env UPSKILL_CONFIG="$T/limits.yaml" TMPDIR="$T/convs" \
    UPSKILL_CLI_COMMAND="$T/agent/bin/probe {prompt}" "$UPSKILL" eval "$SKILL" \
    --tests "$T/probe.json" -m cli.command -j 1 --base-url "$FAKE_URL" \
    --runs-dir "$T/runs3"
cases=$(cat "$T"/runs3/*/run_*/cases/transcripts.jsonl "$T"/runs3/*/run_*/cases/*.json 2>/dev/null)
like "$cases" "CERTS" "the certificate store is there"
unlike "$cases" "SSL-PRIVATE-THERE" "/etc/ssl/private is not (item 11)"
like "$cases" "BWRAP-SEEN" "the stand-in read bwrap's command line"
unlike "$cases" "HOST-PATH-IN-CMDLINE" \
    "no command line in the sandbox holds the conversation's host folder (item 15)"
forks=$(printf '%s' "$cases" | grep -o 'FORKS:[0-9]*' | head -1 | cut -d: -f2)
ok "$([ -n "$forks" ] && [ "$forks" -lt 16 ]; echo $?)" \
    "48 forks stop under sandbox.processes: 16 (got ${forks:-none})"
mb=$(printf '%s' "$cases" | grep -o 'TMPFILE-MB:[0-9]*' | head -1 | cut -d: -f2)
is "${mb:-none}" 4 "a 32 MiB /tmp file stops at sandbox.file_size_mb: 4"
like "$err" "over the sandbox's limit on processes (16)" \
    "the fork case's failure names the process cap (item 12)"
like "$err" "over the sandbox's limit on file size (4 MiB)" \
    "the file case's failure names the file-size cap"
like "$cases" '"sandbox_limit":"file size (4 MiB)"' "the artifact names the cap too"

printf "%s\n" "$err" | sed "s|^|# |"
done_testing
