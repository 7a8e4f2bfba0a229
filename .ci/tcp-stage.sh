#!/usr/bin/env bash
# The sim provider's TCP transport under the conformance suite, from the built application
# (dat.app/target/app.jar, after mvn verify). Three runs, each writing JUnit XML under
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
log() { echo "[tcp] $*"; }
start=$(date +%s)
[ -f dat.app/target/app.jar ] || { log "dat.app/target/app.jar missing: run mvn verify first"; exit 1; }
work=dat.provider.sim/target/tcp-stage
reports=dat.provider.sim/target/test-reports
rm -rf "$work" "$reports"/tcp-* "$reports"/shm-*; mkdir -p "$work"
status=0
export DAT_NO_BUILD=1

conf() { printf '%s u1.2 threadsafe default sim 1.0 "tcp=%s" ""\n' "$1" "$2" > "$work/$1.conf"; echo "$work/$1.conf"; }
# the same IA with shm=on: its connections move their data through shared memory
conf_shm() { printf '%s u1.2 threadsafe default sim 1.0 "tcp=%s shm=on" ""\n' "$1" "$2" > "$work/$1-shm.conf"; echo "$work/$1-shm.conf"; }

# starts a server JVM, `./dat ARGS...` (in namespace $1 when not empty, with DAT_CONF=$2, output to
# $3), and waits until its output has the line $4; stop_server ends it
start_server() {
    local ns=$1 conf=$2 out=$3 ready=$4
    shift 4
    if [ -n "$ns" ]; then
        DAT_CONF=$conf timeout 600 ip netns exec "$ns" ./dat "$@" > "$out" 2>&1 &
    else
        DAT_CONF=$conf timeout 600 ./dat "$@" > "$out" 2>&1 &
    fi
    server_pid=$!
    for _ in $(seq 1 120); do
        grep -q "$ready" "$out" && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.5
    done
    log "the server ./dat $* did not start:"; tail -20 "$out"
    return 1
}

start_agent() { start_server "$1" "$2" "$4" 'control connections at' test --serve "$3"; }

stop_server() {
    [ -n "${server_pid:-}" ] || return 0
    pkill -TERM -P "$server_pid" 2>/dev/null; kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
    # the launcher's bash waits for its JVM, which the TERM above does not reach inside a namespace
    pkill -KILL -f -- "-Ddat.batch.arg.1=--serve" 2>/dev/null; pkill -KILL -f -- "-Ddat.batch.arg.2=--server" 2>/dev/null
    server_pid=
}

summary() { grep -a -E '^TOTAL' "$1" | tail -1; grep -a '^FAILED' "$1" | sed 's/^/[tcp]   /'; }

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
if start_agent "" "$(conf tcpB 127.0.0.1:7700)" tcpB "$work/agent-two-jvms.log"; then
    DAT_CONF=$(conf tcpA 127.0.0.1:0) timeout 600 ./dat test tcpA --peer 127.0.0.1:7701 \
        --xml "$reports/tcp-two-jvms/TEST-conformance-tcpA-peer-jvm.xml" > "$work/two-jvms.log" 2>&1 || status=1
    summary "$work/two-jvms.log"
    crossed=$(grep -a -o 'peer agent: [0-9]* peer IA instances lived in its process, [0-9]* calls crossed to them' "$work/two-jvms.log")
    log "${crossed:-no peer summary}"
    # a run whose peer instances all stayed in this JVM proves nothing about two processes
    [[ "$crossed" =~ ^peer\ agent:\ [1-9] ]] || { log "no peer IA instance lived in the agent's JVM"; status=1; }
else
    status=1
fi
stop_server

# --- 2b. run 2 over shared memory ---------------------------------------------------------------------
log "2b. the conformance suite against tcpA shm=on, the peer IA instance in a peer agent JVM (tcpB shm=on, 127.0.0.1:7701)"
if start_agent "" "$(conf_shm tcpB 127.0.0.1:7700)" tcpB "$work/agent-shm-two-jvms.log"; then
    DAT_CONF=$(conf_shm tcpA 127.0.0.1:0) timeout 600 ./dat test tcpA --peer 127.0.0.1:7701 \
        --xml "$reports/shm-two-jvms/TEST-conformance-tcpA-shm-peer-jvm.xml" > "$work/shm-two-jvms.log" 2>&1 || status=1
    summary "$work/shm-two-jvms.log"
    crossed=$(grep -a -o 'peer agent: [0-9]* peer IA instances lived in its process, [0-9]* calls crossed to them' "$work/shm-two-jvms.log")
    log "${crossed:-no peer summary}"
    [[ "$crossed" =~ ^peer\ agent:\ [1-9] ]] || { log "no peer IA instance lived in the agent's JVM"; status=1; }
else
    status=1
fi
stop_server
# a ring file is unlinked once both sides mapped it: one left behind by these runs is a leak
left=$(find /dev/shm -maxdepth 1 -name 'dat-sim-*.ring' 2>/dev/null | wc -l)
[ "$left" = 0 ] || { log "$left ring files left in /dev/shm"; status=1; }

# --- dat perf across two processes (a benchmark: printed, not counted; a failing run fails the stage) ---
log "dat perf tcpA --client 127.0.0.1:7700 --quick against dat perf tcpB --server (two JVMs, loopback)"
start_server "" "$(conf tcpB 127.0.0.1:7700)" "$work/perf-server.log" 'serving until stopped' perf tcpB --server || status=1
if DAT_CONF=$(conf tcpA 127.0.0.1:0) timeout 300 ./dat perf tcpA --client 127.0.0.1:7700 --quick --json "$work/perf-two-jvms.json" \
    > "$work/perf-client.log" 2>&1; then
    grep -a -v -E '^(INFO|WARNING):|^[A-Z][a-z]{2} [0-9]+, ' "$work/perf-client.log" | sed 's/^/[tcp]   /'
else
    log "dat perf --client failed:"; tail -20 "$work/perf-client.log"; status=1
fi
stop_server
log "dat perf tcpA --client 127.0.0.1:7700 --quick against dat perf tcpB --server, both shm=on (two JVMs, shared memory)"
start_server "" "$(conf_shm tcpB 127.0.0.1:7700)" "$work/perf-shm-server.log" 'serving until stopped' perf tcpB --server || status=1
if DAT_CONF=$(conf_shm tcpA 127.0.0.1:0) timeout 300 ./dat perf tcpA --client 127.0.0.1:7700 --quick --json "$work/perf-shm-two-jvms.json" \
    > "$work/perf-shm-client.log" 2>&1; then
    grep -a -v -E '^(INFO|WARNING):|^[A-Z][a-z]{2} [0-9]+, ' "$work/perf-shm-client.log" | sed 's/^/[tcp]   /'
else
    log "dat perf --client over shared memory failed:"; tail -20 "$work/perf-shm-client.log"; status=1
fi
stop_server

# --- 3. transactions across two network namespaces -------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
    log "3. skipped: two network namespaces need root and iproute2"
    # a skipped test in the reports, so that the closing line shows the stage did not run
    mkdir -p "$reports/tcp-two-netns"
    cat > "$reports/tcp-two-netns/TEST-transactions-tcpA-netns.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="tcp-two-netns" tests="1" skipped="1" failures="0" errors="0">
  <testcase name="transactions across two network namespaces" classname="tcp-two-netns"><skipped message="needs root and iproute2"/></testcase>
</testsuite>
XML
else
    log "3. the transaction tests across network namespaces datA (10.77.0.1) and datB (10.77.0.2), veth pair"
    cleanup_ns() { ip netns del datA 2>/dev/null; ip netns del datB 2>/dev/null; ip link del vdatA 2>/dev/null; }
    cleanup_ns
    ok=1
    { ip netns add datA && ip netns add datB \
        && ip link add vdatA type veth peer name vdatB \
        && ip link set vdatA netns datA && ip link set vdatB netns datB \
        && ip -n datA addr add 10.77.0.1/24 dev vdatA && ip -n datB addr add 10.77.0.2/24 dev vdatB \
        && ip -n datA link set lo up && ip -n datB link set lo up \
        && ip -n datA link set vdatA up && ip -n datB link set vdatB up; } || ok=0
    if [ $ok = 1 ] && start_agent datB "$(conf tcpB 10.77.0.2:7700)" tcpB "$work/agent-netns.log"; then
        # nothing leaves the namespaces: each has only its loopback and its end of the veth, and no route
        # beyond 10.77.0.0/24 (a connect from the host namespace proves nothing here: a sandbox's
        # transparent proxy may accept any outgoing connection)
        for ns in datA datB; do
            links=$(ip -n "$ns" -o link show | wc -l); routes=$(ip -n "$ns" route show | grep -vc '^10\.77\.0\.0/24')
            if [ "$links" != 2 ] || [ "$routes" != 0 ]; then
                log "namespace $ns is not isolated: $links links, $routes routes beyond 10.77.0.0/24"; status=1
            fi
        done
        before=$(ip -n datB -s link show vdatB | awk '/RX:/{getline; print $1; exit}')
        DAT_CONF=$(conf tcpA 10.77.0.1:0) timeout 600 ip netns exec datA ./dat test tcpA --peer 10.77.0.2:7701 \
            --filter '^transactions/' --xml "$reports/tcp-two-netns/TEST-transactions-tcpA-netns.xml" > "$work/two-netns.log" 2>&1 \
            || status=1
        after=$(ip -n datB -s link show vdatB | awk '/RX:/{getline; print $1; exit}')
        summary "$work/two-netns.log"
        log "bytes received on datB's veth during the run: $(( ${after:-0} - ${before:-0} ))"
        [ $(( ${after:-0} - ${before:-0} )) -gt 1000000 ] || { log "the test traffic did not cross the veth pair"; status=1; }
    else
        log "could not set up the namespaces or start the agent in datB"; status=1
    fi
    stop_server
    cleanup_ns
fi
log "took $(( $(date +%s) - start )) s"
exit $status
