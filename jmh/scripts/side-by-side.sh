#!/usr/bin/env bash
# Poolers side by side in one run: for each pgbench workload, each target in turn (A B C, A B C, ...), the
# pooler process's CPU time per transaction (utime and stime from /proc, all its threads), of it the part its JIT
# compiler threads took (a JVM's; 0 for PgBouncer), TPS, and the average and 99th-percentile latency from
# pgbench's per-transaction log.
#
#   side-by-side.sh ROUNDS SECONDS "WORKLOAD ..." NAME=HOST:PORT:PID [NAME=HOST:PORT:PID ...]
#
# WORKLOAD is KIND:CLIENTS, KIND one of select (-S -M simple), select-ext (-S -M extended), prepared
# (-S -M prepared), tpcb (-M simple), connect (-C -S -M simple: each transaction a new connection, login and
# logout included). Each workload runs WARMUP seconds (default 3) on every target before its rounds, the JIT's
# warm-up: a JVM's compiler threads keep compiling for a minute or more after a workload starts (the "of it JIT"
# column), which WARMUP=60 leaves out of the rounds. LOGIN_WARMUP (default 0) seconds of the connect workload with
# 64 clients run on every target before the first workload: the login path is compiled then, not in some workload's
# rounds. Credentials from PGUSER / PGPASSWORD / PGDATABASE. Prints a Markdown table of medians, with ratios to the
# LAST target.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
ROUNDS=$1 SECONDS_PER_RUN=$2 WORKLOADS=$3 WARMUP=${WARMUP:-3} LOGIN_WARMUP=${LOGIN_WARMUP:-0}
shift 3
TICK=$(getconf CLK_TCK)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

flags() { case $1 in
  select) echo "-S -M simple";; select-ext) echo "-S -M extended";; prepared) echo "-S -M prepared";;
  tpcb) echo "-M simple";; connect) echo "-C -S -M simple";; *) echo "unknown workload $1" >&2; exit 2;; esac; }
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
# CPU ticks of the JIT compiler threads alive now (HotSpot names them "C1 CompilerThread0", "C2 …"; a thread that
# exits during a run takes its ticks along, so this never overstates the compiler's share)
jit() { local t ticks=0 name; for t in /proc/"$1"/task/*; do read -r name 2>/dev/null <"$t/comm" || continue
  case $name in C[12]\ CompilerThre*) ticks=$((ticks + $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)));;
  esac; done; echo "$ticks"; }
# NAME=HOST:PORT:PID into name, host, port and pid
target() { name=${1%%=*}; local rest=${1#*=}; host=${rest%%:*}; rest=${rest#*:}; port=${rest%%:*}; pid=${rest#*:}; }
# warm KIND CLIENTS SECONDS TARGET...: the workload on every target in turn, its output dropped
warm() { local kind=$1 clients=$2 seconds=$3 t; shift 3; [ "$seconds" -gt 0 ] || return 0
  for t in "$@"; do target "$t"
    # shellcheck disable=SC2046
    pgbench -n $(flags "$kind") -c "$clients" -j 2 -T "$seconds" -h "$host" -p "$port" >/dev/null 2>&1 || true
  done; }

warm connect 64 "$LOGIN_WARMUP" "$@"
for w in $WORKLOADS; do
  kind=${w%%:*} clients=${w##*:}
  warm "$kind" "$clients" "$WARMUP" "$@"
  for _ in $(seq "$ROUNDS"); do
    for t in "$@"; do
      target "$t"
      [ -r "/proc/$pid/stat" ] || { echo "no process $pid for $name" >&2; exit 1; }
      logs=$(mktemp -d "$OUT/log.XXXX")
      read -r user0 sys0 < <(cpu "$pid"); jit0=$(jit "$pid")
      # shellcheck disable=SC2046
      out=$(cd "$logs" && pgbench -n $(flags "$kind") -c "$clients" -j 2 -T "$SECONDS_PER_RUN" -h "$host" \
          -p "$port" -l --log-prefix=tx 2>&1 || true)
      read -r user1 sys1 < <(cpu "$pid"); jit1=$(jit "$pid")
      tx=$(grep -Eo 'number of transactions actually processed: [0-9]+' <<<"$out" | awk '{print $NF}')
      tps=$(grep -Eo '^tps = [0-9.]+' <<<"$out" | awk '{print $3}' | head -1)
      latency=$(cat "$logs"/tx.* | awk '{print $3}' | sort -n \
          | awk '{v[NR] = $1; s += $1} END {i = int(NR * 0.99); if (i < 1) i = 1; printf "%.3f %.3f", s / NR / 1000, v[i] / 1000}')
      us=$(awk -v u=$((user1 - user0)) -v s=$((sys1 - sys0)) -v j=$((jit1 - jit0)) -v t="${tx:-0}" -v k="$TICK" 'BEGIN {
          if (t > 0) printf "%.1f %.1f %.1f %.1f", (u + s) * 1e6 / k / t, u * 1e6 / k / t, s * 1e6 / k / t, j * 1e6 / k / t;
          else print "NaN NaN NaN NaN" }')
      echo "$kind:$clients $name $us ${tps:-0} $latency" | tee -a "$OUT/results" >&2
      rm -rf "$logs"
    done
  done
done

python3 - "$OUT/results" "$@" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
names = [a.split('=')[0] for a in sys.argv[2:]]
last = names[-1]
print(f"| workload | pooler | CPU µs / tx | user | system | of it JIT | TPS | latency avg ms | p99 ms | CPU / {last}"
      f" | user / {last} | TPS / {last} |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for w in dict.fromkeys(r[0] for r in rows):
    med = {n: [st.median(float(r[k]) for r in rows if r[0] == w and r[1] == n) for k in range(2, 9)] for n in names}
    ref = med[last]
    for n in names:
        m = med[n]
        print(f"| {w} | {n} | {m[0]:.1f} | {m[1]:.1f} | {m[2]:.1f} | {m[3]:.1f} | {m[4]:,.0f} | {m[5]:.2f} | {m[6]:.2f}"
              f" | {m[0] / ref[0]:.2f} | {m[1] / ref[1]:.2f} | {m[4] / ref[4]:.2f} |")
PY
