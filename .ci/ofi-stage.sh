#!/usr/bin/env bash
# The ofi provider (DAT over libfabric) on libfabric's tcp provider, under the conformance suite,
# from the built application (dat.app/target/app.jar, after mvn verify). Three runs, each writing
# JUnit XML under dat.provider.ofi/target/test-reports/, which .ci/run's closing line counts:
#   1. ofi-one-jvm:   the whole suite against ofiA (tcp on 127.0.0.1); both IA instances of every
#                     test are in this JVM, every connection a libfabric tcp connection on loopback;
#   2. ofi-two-jvms:  the whole suite with every passive side in a peer agent in a second JVM
#                     (dat test --serve ofiB), over loopback;
#   3. ofi-two-netns: the transaction tests between two network namespaces joined by a veth pair,
#                     one JVM in each, each IA on its namespace's address (root needed; skipped with a
#                     message otherwise). The script checks that each namespace has no other
#                     interface and no other route, and that the test traffic crossed the veth.
# Between 2 and 3 it runs `dat perf --client` against `dat perf --server` in two JVMs (--quick),
# beside libfabric's own fi_pingpong (tcp, msg endpoints, the same 8-byte size) in the same run:
# a benchmark, printed, not a test. OFI_BENCHMARKS=1 runs dat perf without --quick.
# Usage: .ci/ofi-stage.sh   (about 2-4 minutes)
set -uo pipefail
cd "$(dirname "$0")/.."
log() { echo "[ofi] $*"; }
start=$(date +%s)
[ -f dat.app/target/app.jar ] || { log "dat.app/target/app.jar missing: run mvn verify first"; exit 1; }
work=dat.provider.ofi/target/ofi-stage
reports=dat.provider.ofi/target/test-reports
rm -rf "$work" "$reports"/ofi-*; mkdir -p "$work"
status=0
export DAT_NO_BUILD=1

if ! command -v fi_info >/dev/null || ! fi_info -p tcp -t FI_EP_MSG >/dev/null 2>&1; then
    log "libfabric's tcp provider is missing (apt-get install libfabric1 libfabric-bin): the stage cannot run"
    mkdir -p "$reports/ofi-one-jvm"
    cat > "$reports/ofi-one-jvm/TEST-conformance-ofi.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ofi-stage" tests="1" skipped="0" failures="1" errors="0">
  <testcase name="libfabric tcp provider present" classname="ofi-stage"><failure message="fi_info -p tcp -t FI_EP_MSG failed"/></testcase>
</testsuite>
XML
    exit 1
fi

# a dat.conf with one entry: IA $1 of the ofi provider on address $2 (whichever tcp domain has it)
conf() { printf '%s u1.2 threadsafe default ofi 1.0 "provider=tcp address=%s" ""\n' "$1" "$2" > "$work/$1.conf"; echo "$work/$1.conf"; }

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

# the process ids of a process and all its descendants (timeout, ip netns exec, the launcher, the JVM)
tree() { local child; echo "$1"; for child in $(pgrep -P "$1" 2>/dev/null); do tree "$child"; done; }

stop_server() {
    [ -n "${server_pid:-}" ] || return 0
    local pids; pids=$(tree "$server_pid")
    kill -TERM $pids 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL $pids 2>/dev/null # the JVM of a launcher inside a namespace, which the TERM may not reach
    wait "$server_pid" 2>/dev/null
    server_pid=
}

summary() { grep -a -E '^TOTAL' "$1" | tail -1; grep -a '^FAILED' "$1" | sed 's/^/[ofi]   /'; }

# --- 1. the whole suite against an ofi IA ------------------------------------------------------------
log "1. the conformance suite against ofiA (libfabric tcp on 127.0.0.1, both IA instances in one JVM)"
DAT_CONF=$(conf ofiA 127.0.0.1) timeout 900 ./dat test ofiA --xml "$reports/ofi-one-jvm/TEST-conformance-ofiA.xml" \
    > "$work/one-jvm.log" 2>&1 || status=1
summary "$work/one-jvm.log"

# --- 2. the whole suite with every passive side in a second JVM -----------------------------------
log "2. the conformance suite against ofiA, the peer IA instance in a peer agent JVM (ofiB, 127.0.0.1:7701)"
if start_agent "" "$(conf ofiB 127.0.0.1)" ofiB "$work/agent-two-jvms.log"; then
    DAT_CONF=$(conf ofiA 127.0.0.1) timeout 600 ./dat test ofiA --peer 127.0.0.1:7701 \
        --xml "$reports/ofi-two-jvms/TEST-conformance-ofiA-peer-jvm.xml" > "$work/two-jvms.log" 2>&1 || status=1
    summary "$work/two-jvms.log"
    crossed=$(grep -a -o 'peer agent: [0-9]* peer IA instances lived in its process, [0-9]* calls crossed to them' "$work/two-jvms.log")
    log "${crossed:-no peer summary}"
    [[ "$crossed" =~ ^peer\ agent:\ [1-9] ]] || { log "no peer IA instance lived in the agent's JVM"; status=1; }
else
    status=1
fi
stop_server

# --- dat perf across two processes, beside fi_pingpong (a benchmark: printed, not counted) -----------
quick=--quick
[ "${OFI_BENCHMARKS:-}" = 1 ] && quick=
log "fi_pingpong -p tcp -e msg -S 8 (libfabric's own ping-pong, two processes, loopback)"
timeout 120 fi_pingpong -p tcp -e msg -S 8 -I 20000 -B 47599 > "$work/fi-pingpong-server.log" 2>&1 &
pp_server=$!
sleep 0.5
if timeout 120 fi_pingpong -p tcp -e msg -S 8 -I 20000 -P 47599 127.0.0.1 > "$work/fi-pingpong.log" 2>&1; then
    sed 's/^/[ofi]   /' "$work/fi-pingpong.log"
else
    log "fi_pingpong failed:"; tail -5 "$work/fi-pingpong.log"
fi
wait "$pp_server" 2>/dev/null
log "dat perf ofiA --client 127.0.0.1:7700 $quick against dat perf ofiB --server (two JVMs, loopback)"
start_server "" "$(conf ofiB 127.0.0.1)" "$work/perf-server.log" 'serving until stopped' perf ofiB --server || status=1
if DAT_CONF=$(conf ofiA 127.0.0.1) timeout 600 ./dat perf ofiA --client 127.0.0.1:7700 $quick --json "$work/perf-two-jvms.json" \
    > "$work/perf-client.log" 2>&1; then
    grep -a -v -E '^(INFO|WARNING):|^[A-Z][a-z]{2} [0-9]+, ' "$work/perf-client.log" | sed 's/^/[ofi]   /'
else
    log "dat perf --client failed:"; tail -20 "$work/perf-client.log"; status=1
fi
stop_server

# --- 3. transactions across two network namespaces -------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
    log "3. skipped: two network namespaces need root and iproute2"
    mkdir -p "$reports/ofi-two-netns"
    cat > "$reports/ofi-two-netns/TEST-transactions-ofiA-netns.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="ofi-two-netns" tests="1" skipped="1" failures="0" errors="0">
  <testcase name="transactions across two network namespaces" classname="ofi-two-netns"><skipped message="needs root and iproute2"/></testcase>
</testsuite>
XML
else
    log "3. the transaction tests across network namespaces ofiA (10.78.0.1) and ofiB (10.78.0.2), veth pair"
    cleanup_ns() { ip netns del datOfiA 2>/dev/null; ip netns del datOfiB 2>/dev/null; ip link del vofiA 2>/dev/null; }
    cleanup_ns
    ok=1
    { ip netns add datOfiA && ip netns add datOfiB \
        && ip link add vofiA type veth peer name vofiB \
        && ip link set vofiA netns datOfiA && ip link set vofiB netns datOfiB \
        && ip -n datOfiA addr add 10.78.0.1/24 dev vofiA && ip -n datOfiB addr add 10.78.0.2/24 dev vofiB \
        && ip -n datOfiA link set lo up && ip -n datOfiB link set lo up \
        && ip -n datOfiA link set vofiA up && ip -n datOfiB link set vofiB up; } || ok=0
    if [ $ok = 1 ] && start_agent datOfiB "$(conf ofiB 10.78.0.2)" ofiB "$work/agent-netns.log"; then
        for ns in datOfiA datOfiB; do
            links=$(ip -n "$ns" -o link show | wc -l); routes=$(ip -n "$ns" route show | grep -vc '^10\.78\.0\.0/24')
            if [ "$links" != 2 ] || [ "$routes" != 0 ]; then
                log "namespace $ns is not isolated: $links links, $routes routes beyond 10.78.0.0/24"; status=1
            fi
        done
        before=$(ip -n datOfiB -s link show vofiB | awk '/RX:/{getline; print $1; exit}')
        DAT_CONF=$(conf ofiA 10.78.0.1) timeout 600 ip netns exec datOfiA ./dat test ofiA --peer 10.78.0.2:7701 \
            --filter '^transactions/' --xml "$reports/ofi-two-netns/TEST-transactions-ofiA-netns.xml" > "$work/two-netns.log" 2>&1 \
            || status=1
        after=$(ip -n datOfiB -s link show vofiB | awk '/RX:/{getline; print $1; exit}')
        summary "$work/two-netns.log"
        log "bytes received on ofiB's veth during the run: $(( ${after:-0} - ${before:-0} ))"
        [ $(( ${after:-0} - ${before:-0} )) -gt 1000000 ] || { log "the test traffic did not cross the veth pair"; status=1; }
    else
        log "could not set up the namespaces or start the agent in datOfiB"; status=1
    fi
    stop_server
    cleanup_ns
fi
log "took $(( $(date +%s) - start )) s"
exit $status
