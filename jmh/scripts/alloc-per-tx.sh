#!/usr/bin/env bash
# Bytes the proxy's event loops allocate per relayed transaction: the sum of the allocated= figures of its event-loop
# threads (jcmd <pid> Thread.print -e) before and after one pgbench run, divided by the transactions it made.
#
#   alloc-per-tx.sh PID HOST:PORT PGBENCH_FLAGS...       e.g. alloc-per-tx.sh 1234 127.0.0.1:6432 -S -M simple -c 8 -T 10
#
# jcmd prints allocated= in B, K, M or G: a run long enough that its growth is many megabytes (10 s at a few thousand
# transactions a second) keeps the rounding under a byte per transaction. Warm the process first: the first seconds
# of new traffic allocate for the JIT's profiling too. Credentials from PGUSER / PGPASSWORD / PGDATABASE.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0"; exit 2; }
pid=$1 target=$2
shift 2
host=${target%:*} port=${target##*:}

allocated() {
  jcmd "$pid" Thread.print -e | grep -E '^"(multiThreadIoEventLoopGroup|pgmux-loop|epollEventLoopGroup|epollEventLoops|ioUring)' \
    | grep -Eo 'allocated=[0-9.]+[BKMG]' | cut -d= -f2 \
    | awk '{ v = $1; u = substr(v, length(v)); v = substr(v, 1, length(v) - 1);
             m = (u == "K") ? 1024 : (u == "M") ? 1048576 : (u == "G") ? 1073741824 : 1; s += v * m }
           END { printf "%.0f", s }'
}

before=$(allocated)
out=$(pgbench -n "$@" -h "$host" -p "$port" 2>&1)
after=$(allocated)
tx=$(grep -Eo 'number of transactions actually processed: [0-9]+' <<<"$out" | awk '{print $NF}')
[ -n "$tx" ] && [ "$tx" -gt 0 ] || { echo "pgbench made no transaction: $out" >&2; exit 1; }
awk -v a="$before" -v b="$after" -v t="$tx" -v f="$*" 'BEGIN { printf "%s: %.0f B per transaction (%d transactions)\n", f, (b - a) / t, t }'
