#!/usr/bin/env bash
# A learning run under a real Slurm scheduler on this one machine (issue 8, docs/CLUSTER.md):
# installs Slurm and munge from Debian's packages when they are missing, starts a
# single-node cluster on localhost, submits a small 6x6 run with `flipzero cluster submit`
# (a self-play job array, the trainer asking for a GPU that gres declares without hardware,
# the evaluator), waits for it, checks the run directory and shuts the cluster down.
#
#   scripts/slurm-test.sh [path/to/flipzero]    (default: cargo build, target/debug/flipzero)
#
# Where the packages cannot be installed or the daemons do not start, it prints SKIPPED and
# exits 0; a run that does not do what it should exits 1.
set -euo pipefail

skip() {
    echo "SKIPPED: slurm test: $*"
    exit 0
}
fail() {
    echo "FAILED: slurm test: $*"
    exit 1
}
say() { echo "slurm test: $*"; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || skip "needs root to install and start the daemons"
if [ $# -ge 1 ]; then
    BIN=$(realpath "$1") || fail "no program at $1"
else
    (cd "$ROOT" && cargo build --quiet --bin flipzero) || fail "cargo build"
    BIN="$ROOT/target/debug/flipzero"
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurmctld, slurmd, slurm-client and munge from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq slurmctld slurmd slurm-client munge; } \
        >/tmp/flipzero-slurm-apt.log 2>&1 \
        || skip "the packages could not be installed (see /tmp/flipzero-slurm-apt.log)"
fi

# Everything of this cluster lives in one state directory, wiped for each run.
STATE=$(mktemp -d /tmp/flipzero-slurm.XXXXXX)
chmod 755 "$STATE"
PIDS=()
cleanup() {
    set +e
    if [ -n "${SLURM_CONF:-}" ] && command -v squeue >/dev/null; then
        scancel --user=root >/dev/null 2>&1
        for _ in $(seq 1 30); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    # slurmd first, then slurmctld, then munged.
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    [ -n "${FLIPZERO_SLURM_KEEP:-}" ] || rm -rf "$STATE"
}
trap cleanup EXIT

# munge: a fresh key and socket in the state directory.
mkdir -p "$STATE/munge/run" "$STATE/munge/log" "$STATE/munge/lib"
dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
chown -R munge: "$STATE/munge" 2>/dev/null || true
chmod 700 "$STATE/munge/lib" "$STATE/munge/log"
chmod 400 "$STATE/munge/munge.key"
MUNGE_SOCKET="$STATE/munge/run/munge.socket.2"
runuser -u munge -- munged --foreground --force \
    --key-file="$STATE/munge/munge.key" --socket="$MUNGE_SOCKET" \
    --pid-file="$STATE/munge/run/munged.pid" --log-file="$STATE/munge/log/munged.log" \
    --seed-file="$STATE/munge/lib/munged.seed" >"$STATE/munged.out" 2>&1 &
MUNGED=$!
PIDS=("$MUNGED")
sleep 1
kill -0 "$MUNGED" 2>/dev/null || skip "munged did not start"

CPUS=16
cat >"$STATE/slurm.conf" <<EOF
ClusterName=flipzero
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/ctld.pid
SlurmdPidFile=$STATE/d.pid
SlurmctldLogFile=$STATE/ctld.log
SlurmdLogFile=$STATE/d.log
ProctrackType=proctrack/linuxproc
MpiDefault=none
TaskPlugin=task/none
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=localhost CPUs=$CPUS Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
# A GPU in name only: the trainer's --gres=gpu:1 is granted, no device is bound.
cat >"$STATE/gres.conf" <<EOF
AutoDetect=off
NodeName=localhost Name=gpu File=/dev/null Count=1
EOF
mkdir -p "$STATE/ctld" "$STATE/d"
export SLURM_CONF="$STATE/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$STATE/ctld.out" 2>&1 &
CTLD=$!
slurmd -D -f "$SLURM_CONF" >"$STATE/d.out" 2>&1 &
SLURMD=$!
# Stopped in this order by cleanup.
PIDS=("$SLURMD" "$CTLD" "$MUNGED")
for _ in $(seq 1 30); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 1
done
if ! sinfo -h -o %t 2>/dev/null | grep -q idle; then
    tail -5 "$STATE/ctld.log" "$STATE/d.log" 2>/dev/null
    skip "the single-node cluster did not come up"
fi
say "cluster up: $(sinfo -h -o '%P %D %t %C %G')"

# A small 6x6 run: 3 iterations of 6 games, an evaluation after every iteration.
# The replay window holds every game, so that no shard can be left out of all trainings.
sed -e 's/^iterations = 2/iterations = 3/' -e 's/^every_iterations = 2/every_iterations = 1/' \
    -e 's/^window_samples = 1000/window_samples = 1000000/' \
    "$ROOT/crates/flipzero-run/tests/tiny.toml" >"$STATE/run.toml"
RUN="$STATE/run"
"$BIN" cluster submit --scheduler slurm --config "$STATE/run.toml" --run-dir "$RUN" \
    --workers 3 --throttle 3 --cpus-per-worker 1 --time 00:20:00 --program "$BIN" \
    || fail "flipzero cluster submit"

# Poll the queue (sbatch --wait is slow to return).
started=$(date +%s)
while true; do
    queue=$(squeue -h) || fail "squeue failed: is slurmctld still running?"
    [ -z "$queue" ] && break
    if [ $(($(date +%s) - started)) -gt 900 ]; then
        squeue
        fail "the jobs did not finish within 15 minutes"
    fi
    sleep 2
done
say "queue empty after $(($(date +%s) - started)) s"

"$BIN" cluster status "$RUN" || fail "flipzero cluster status"
STATUS=$("$BIN" cluster status --json "$RUN") || fail "flipzero cluster status --json"
check() {
    python3 -c "import json,sys; s=json.loads(sys.argv[1]); sys.exit(0 if ($1) else 1)" \
        "$STATUS" || fail "$2"
}
check 's["finished"]' "the trainer did not finish the run"
check 'len(s["checkpoints"]) >= 3' "fewer than two checkpoints published after step 0"
check 's["skipped"] == 0 and s["missing"] == 0' "the trainer's records disagree with the shards"
check 's["consumed"] >= 6 and s["games"] >= s["consumed"]' "the trainer consumed no shards"
check 'len(s["games_by_worker"]) == 3' "not every array task played"
check 'len(s["ratings"]) == 2' "the evaluator did not report"
for log in "$RUN"/slurm/logs/*.log; do
    if grep -qE "^error|panicked|CANCELLED|TIME LIMIT" "$log"; then
        cat "$log"
        fail "a job failed: $log"
    fi
done
say "passed: $(ls "$RUN/slurm/logs" | wc -l) job logs, checkpoints $(python3 -c \
    'import json,sys; print(json.loads(sys.argv[1])["checkpoints"])' "$STATUS")"
