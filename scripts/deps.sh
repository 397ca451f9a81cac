#!/bin/sh
# Installs the Debian packages that building and testing upskill need.
# Idempotent: packages already present are left alone. Uses sudo only when
# not running as root.
set -eu

PKGS="build-essential pkg-config perl curl python3 clang clang-format \
libcurl4-openssl-dev libjansson-dev libyaml-dev libsqlite3-dev \
libpcre2-dev libutf8proc-dev libcriterion-dev libmicrohttpd-dev \
bubblewrap ripgrep chromium slurm-wlm munge python3-yaml jq python3-pytest"

# chromium: headless, for tests/e2e/t1600-report.sh (the HTML report
# rendered in a real browser; the test skips where it is absent).

# slurm-wlm (slurmctld, slurmd, the sbatch/squeue/sinfo client) and munge
# (its authentication): tests/e2e/t1800-slurm.sh brings up a one-node
# cluster with its own config, key and ports in its scratch folder and
# runs docs/examples' sharded-sweep scripts on it (docs/sharding.md; it
# skips where Slurm cannot start).  The packages' own services are not
# needed: the test starts and stops daemons of its own.
# python3-yaml: tests/e2e/t1805-shard-docs.sh parses the Kubernetes and
# GitHub Actions examples of docs/sharding.md.  jq: the end-to-end tests
# that compare batches (t1630, t1800, ...) read their JSON with it.
# python3-pytest: the Harbor tasks of tests/e2e/t1730-harbor-emulate.sh
# run pytest in their verifier, offline, as SkillsBench's do.
# Every program and Python module the tests run must come from a package
# here (or the base system), or the test must skip without it: `make
# lint` checks it with scripts/test_needs.py.

# node and npm, for `make clis` (the coding-agent CLIs, docs/agent-clis.md),
# only when missing: a machine with nodesource's nodejs already has both,
# and Debian's npm package would conflict with it.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    PKGS="$PKGS nodejs npm"
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "deps: installing$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
