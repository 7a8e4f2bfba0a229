#!/usr/bin/env bash
# The sim provider's TCP transport under the conformance suite, from the built application
# (dat.app/target/app.jar, after mvn verify). Four runs, each writing JUnit XML under
# dat.provider.sim/target/test-reports/, which .ci/run's closing line counts:
#   1. tcp-one-jvm:   the whole suite against a TCP IA; both IA instances of every test are in this
#                     JVM, and every connection between them is a real TCP connection on loopback;
#   2. tcp-two-jvms:  the whole suite with every passive side in a peer agent in a second JVM
#                     (dat test --serve): the transaction tests' server sides, and every other test's
#                     second IA instance, through proxies (RemoteIa), over loopback;
#   2b. shm-two-jvms: run 2 with both IAs shm=on: every connection's data moves through a ring file
#                     in /dev/shm both JVMs map (the TCP connection stays as its control channel; an
#                     shm=on IA refuses a connection that cannot share, so none falls back to TCP);
#   3. tcp-two-netns: the transaction tests between two network namespaces joined by a veth pair,
#                     one JVM in each (root needed; skipped with a message otherwise). The script checks
#                     that each namespace has no other interface and no other route, and that the
#                     test traffic crossed the veth.
# Between 2b and 3 it runs `dat perf --client` against `dat perf --server` in two JVMs (--quick), over
# TCP and over shared memory, and prints the figures with their baselines: a benchmark, not a test.
# Usage: .ci/tcp-stage.sh   (about 1-2 minutes)
set -uo pipefail
cd "$(dirname "$0")/.."
tag=tcp
work=dat.provider.sim/target/tcp-stage
reports=dat.provider.sim/target/test-reports
# shellcheck source=stage-lib.sh
. .ci/stage-lib.sh
start=$(date +%s)
[ -f dat.app/target/app.jar ] || { log "dat.app/target/app.jar missing: run mvn verify first"; exit 1; }
rm -rf "$work" "$reports"/tcp-* "$reports"/shm-*; mkdir -p "$work"
status=0
export DAT_NO_BUILD=1

conf() { printf '%s u1.2 threadsafe default sim 1.0 "tcp=%s" ""\n' "$1" "$2" > "$work/$1.conf"; echo "$work/$1.conf"; }
# the same IA with shm=on: its connections move their data through shared memory
conf_shm() { printf '%s u1.2 threadsafe default sim 1.0 "tcp=%s shm=on" ""\n' "$1" "$2" > "$work/$1-shm.conf"; echo "$work/$1-shm.conf"; }

# --- 1. the whole suite against a TCP IA ------------------------------------------------------------
log "1. the conformance suite against tcpA (TCP on 127.0.0.1, both IA instances in one JVM)"
DAT_CONF=$(conf tcpA 127.0.0.1:0) timeout 900 ./dat test tcpA --xml "$reports/tcp-one-jvm/TEST-conformance-tcpA.xml" \
    > "$work/one-jvm.log" 2>&1 || status=1
summary "$work/one-jvm.log"

# --- 2. the whole suite with every passive side in a second JVM -----------------------------------
# The transaction tests put their server sides in the peer agent; every other test's second IA
# instance (t.peer()) is an instance of the agent's IA, used through proxies, its buffers in files
# both JVMs map: each connection between the two instances crosses the processes.
log "2. the conformance suite against tcpA, the peer IA instance in a peer agent JVM (tcpB, 127.0.0.1:7701)"
peer_jvm_suite tcpA "$(conf tcpA 127.0.0.1:0)" tcpB "$(conf tcpB 127.0.0.1:7700)" \
    "$reports/tcp-two-jvms/TEST-conformance-tcpA-peer-jvm.xml" two-jvms

# --- 2b. run 2 over shared memory ---------------------------------------------------------------------
log "2b. the conformance suite against tcpA shm=on, the peer IA instance in a peer agent JVM (tcpB shm=on, 127.0.0.1:7701)"
peer_jvm_suite tcpA "$(conf_shm tcpA 127.0.0.1:0)" tcpB "$(conf_shm tcpB 127.0.0.1:7700)" \
    "$reports/shm-two-jvms/TEST-conformance-tcpA-shm-peer-jvm.xml" shm-two-jvms
# a ring file is unlinked once both sides mapped it: one left behind by these runs is a leak
left=$(find /dev/shm -maxdepth 1 -name 'dat-sim-*.ring' 2>/dev/null | wc -l)
[ "$left" = 0 ] || { log "$left ring files left in /dev/shm"; status=1; }

# --- dat perf across two processes (a benchmark: printed, not counted; a failing run fails the stage) ---
log "dat perf tcpA --client 127.0.0.1:7700 --quick against dat perf tcpB --server (two JVMs, loopback)"
perf_two_jvms tcpA "$(conf tcpA 127.0.0.1:0)" tcpB "$(conf tcpB 127.0.0.1:7700)" --quick two-jvms
log "dat perf tcpA --client 127.0.0.1:7700 --quick against dat perf tcpB --server, both shm=on (two JVMs, shared memory)"
perf_two_jvms tcpA "$(conf_shm tcpA 127.0.0.1:0)" tcpB "$(conf_shm tcpB 127.0.0.1:7700)" --quick shm-two-jvms

# --- 3. transactions across two network namespaces -------------------------------------------------
netns_transactions datA datB 10.77.0 tcpA 10.77.0.1:0 tcpB 10.77.0.2:7700 "$reports/tcp-two-netns/TEST-transactions-tcpA-netns.xml"
log "took $(( $(date +%s) - start )) s"
exit $status
