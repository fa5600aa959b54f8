#!/usr/bin/env bash
# Runs zk-bench with every fsync/fdatasync of both servers (zkr and ZooKeeper, each in its own JVM) slowed by a
# fixed delay: the slow-fsync machine of issue 31 on a machine whose disk is fast. It uses zk-chaos's shim
# (zk-chaos/src/main/resources/dev/zkr/chaos/nemesis/slowfsync.c, compiled here with gcc), LD_PRELOADed into the
# runner and so into the servers it starts; the runner itself never fsyncs on the measured path, and the delay is
# written only into the control file of each server process (a child of the runner) as it appears.
#
# usage: zk-bench/slow-disk.sh DELAY_MS [zk-bench options...]
#   e.g. zk-bench/slow-disk.sh 2 --only notify,rwlock,queue,cache,discovery --rounds 3 --warmup-rounds 1
# Build the bench first: mvn -B -q -pl zk-bench -am package -DskipTests
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
delay=${1:?usage: slow-disk.sh DELAY_MS [zk-bench options...]}
shift
jar=$here/target/zk-bench.jar
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -q -pl zk-bench -am package -DskipTests)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -shared -fPIC -O2 -o "$work/libslowfsync.so" "$here/../zk-chaos/src/main/resources/dev/zkr/chaos/nemesis/slowfsync.c" -ldl
mkdir "$work/control"
LD_PRELOAD=$work/libslowfsync.so ZKR_SLOW_FSYNC_DIR=$work/control java -jar "$jar" "$@" &
runner=$!
while kill -0 "$runner" 2>/dev/null; do
    for p in $(pgrep -P "$runner" || true); do
        [ -f "$work/control/$p" ] || echo "$delay" > "$work/control/$p"
    done
    sleep 0.1
done
wait "$runner"
