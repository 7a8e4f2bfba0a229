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
tag=ofi
work=dat.provider.ofi/target/ofi-stage
reports=dat.provider.ofi/target/test-reports
# shellcheck source=stage-lib.sh
. .ci/stage-lib.sh
start=$(date +%s)
[ -f dat.app/target/app.jar ] || { log "dat.app/target/app.jar missing: run mvn verify first"; exit 1; }
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

# --- 1. the whole suite against an ofi IA ------------------------------------------------------------
log "1. the conformance suite against ofiA (libfabric tcp on 127.0.0.1, both IA instances in one JVM)"
DAT_CONF=$(conf ofiA 127.0.0.1) timeout 900 ./dat test ofiA --xml "$reports/ofi-one-jvm/TEST-conformance-ofiA.xml" \
    > "$work/one-jvm.log" 2>&1 || status=1
summary "$work/one-jvm.log"

# --- 2. the whole suite with every passive side in a second JVM -----------------------------------
log "2. the conformance suite against ofiA, the peer IA instance in a peer agent JVM (ofiB, 127.0.0.1:7701)"
peer_jvm_suite ofiA "$(conf ofiA 127.0.0.1)" ofiB "$(conf ofiB 127.0.0.1)" \
    "$reports/ofi-two-jvms/TEST-conformance-ofiA-peer-jvm.xml" two-jvms

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
perf_two_jvms ofiA "$(conf ofiA 127.0.0.1)" ofiB "$(conf ofiB 127.0.0.1)" "$quick" two-jvms

# --- 3. transactions across two network namespaces -------------------------------------------------
netns_transactions datOfiA datOfiB 10.78.0 ofiA 10.78.0.1 ofiB 10.78.0.2 "$reports/ofi-two-netns/TEST-transactions-ofiA-netns.xml"
log "took $(( $(date +%s) - start )) s"
exit $status
