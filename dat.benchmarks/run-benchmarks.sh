#!/usr/bin/env bash
# Runs the five sim-provider figures with JMH and prints each beside its same-run baseline.
#   dat.benchmarks/run-benchmarks.sh              (builds the jar first if it is missing)
#   JMH_ARGS="-f 3" dat.benchmarks/run-benchmarks.sh   (more forks, for medians over forks)
#   CPUS=2,3 dat.benchmarks/run-benchmarks.sh     (run the JVM under taskset -c 2,3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
java="${JAVA:-}"
if [ -z "$java" ]; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/java /usr/lib/jvm/*25*/bin/java; do
    if [ -x "$j" ]; then java="$j"; break; fi
  done
fi
java="${java:-java}"
jar="$here/target/benchmarks.jar"
if [ ! -f "$jar" ]; then
  (cd "$root" && mvn -B -q package -pl dat.benchmarks -am -DskipTests)
fi
out="$here/target/jmh"
mkdir -p "$out"
run=("$java" -jar "$jar")
if [ -n "${CPUS:-}" ] && command -v taskset >/dev/null; then
  run=(taskset -c "$CPUS" "${run[@]}")
fi
# ${JMH_ARGS} is split on purpose: it holds JMH options
# shellcheck disable=SC2086
# 'PingPongBenchmark' matches OneThreadPingPongBenchmark too: the ping-pong's work on one thread
"${run[@]}" 'RdmaWriteBenchmark|PingPongBenchmark|MessageRateBenchmark|ConnectionChurnBenchmark' -rf json -rff "$out/figures.json" ${JMH_ARGS:-}
# shellcheck disable=SC2086
"${run[@]}" PostDequeueBenchmark -prof gc -rf json -rff "$out/alloc.json" ${JMH_ARGS:-}
python3 - "$out/figures.json" "$out/alloc.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1])) + json.load(open(sys.argv[2]))
def find(name, param=None, wire=None, qlen=None):
    for r in runs:
        params = r.get("params", {})
        if r["benchmark"].endswith(name) and (param is None or params.get("receiverEvents") == param) \
                and (wire is None or params.get("wire") == wire) and (qlen is None or params.get("qlen") == qlen):
            return r
    raise SystemExit("missing result " + name + ("" if wire is None else " over " + wire))
import statistics
# medians over the measurement iterations of all forks: this machine is shared and noisy
def median(metric):
    values = [v for fork in metric.get("rawData", []) for v in fork]
    return (statistics.median(values) if values else metric["score"]), (min(values) if values else 0.0), (max(values) if values else 0.0)
def primary(r):
    m, lo, hi = median(r["primaryMetric"])
    return m, (lo, hi)
def secondary(r, key):
    m, lo, hi = median(r["secondaryMetrics"][key])
    return m, (lo, hi)
MiB = 1 << 20
write, write_err = primary(find("rdmaWrite1MiB"))
copy, copy_err = primary(find("memorySegmentCopy1MiB"))
ping, ping_err = secondary(find("PingPongBenchmark.sim"), "ping")
raw, raw_err = secondary(find("PingPongBenchmark.raw"), "rawPing")
one = {w: primary(find("OneThreadPingPongBenchmark.roundTrip", wire=w))[0] for w in ("JVM", "SHM")}
rate, rate_err = primary(find("send64B", "false"))
rate_rx, _ = primary(find("send64B", "true"))
churn_small, _ = primary(find("connectSendFree", qlen="528"))
churn_large, _ = primary(find("connectSendFree", qlen="16384"))
WIRES = [("JVM", "in-JVM"), ("TCP", "TCP"), ("SHM", "shm")]
alloc = {(w, op): secondary(find(name, wire=w), "gc.alloc.rate.norm")[0]
         for w, _ in WIRES for op, name in (("send", "sendRecvPostAndDequeue"), ("rdma", "rdmaWritePostAndDequeue"))}
# what the posting and polling thread itself allocated, summed over an iteration (the profiler's
# figure counts every thread, JMH's own and the last iteration's teardown of the rig among them)
own = {(w, op): secondary(find(name, wire=w), "benchmarkThreadBytes")
       for w, _ in WIRES for op, name in (("send", "sendRecvPostAndDequeue"), ("rdma", "rdmaWritePostAndDequeue"))}
print()
print("medians over the measurement iterations; ranges are min..max")
print("%-46s %16s   %-30s %8s  %s" % ("figure", "value", "baseline (same run)", "ratio", "goal"))
print("%-46s %10.2f GB/s   %-30s %8.2f  %s" % ("1 RDMA write 1 MiB (post + completion)", write * MiB / 1e9,
      "MemorySegment.copy %.2f GB/s" % (copy * MiB / 1e9), write / copy, ">= 0.85"))
print("%-46s %13.0f ns   %-30s %8.2f  %s" % ("2 send/recv ping-pong 8 B, round trip", ping,
      "raw spin ping-pong %.0f ns" % raw, ping / raw, "<= 2.0"))
print("%-46s %16s   %-30s" % ("  (ranges)", "%.0f..%.0f ns" % ping_err, "%.0f..%.0f ns" % raw_err))
print("%-46s %13.0f ns   %-30s" % ("  the same on one thread (its work), in-JVM", one["JVM"], "over shm: %.0f ns" % one["SHM"]))
for i, (w, label) in enumerate(WIRES):
    print("%-46s %11.1f B/op   %-30s %8s  %s" % (("3 " if i == 0 else "  ") + "post + dequeue allocation, send/recv, " + label,
          alloc[(w, "send")], "-", "-", "0 B/op"))
    print("%-46s %11.1f B/op   %-30s %8s  %s" % ("  post + dequeue allocation, RDMA write, " + label, alloc[(w, "rdma")],
          "-", "-", "0 B/op"))
    for op, what in (("send", "send/recv"), ("rdma", "RDMA write")):
        m, (lo, hi) = own[(w, op)]
        print("%-46s %10.0f B/iter   %-30s %8s  %s" % ("    its own thread, " + what + " (" + label + ")", m,
              "range %.0f..%.0f" % (lo, hi), "-", "0"))
print("%-46s %9.2f Mmsg/s   %-30s %8s  %s" % ("4 64 B sends, 1 completion per 16", rate / 1e6, "-", "-", ">= 5"))
print("%-46s %9.2f Mmsg/s   %-30s %8s  %s" % ("  same, receiver reaps its 16 completions", rate_rx / 1e6, "-", "-", ""))
print("%-46s %13.1f us   %-30s %8.2f  %s" % ("5 connection, 10 sends, free; shared EVDs of 16384", churn_large,
      "the same on EVDs of 528 %.1f us" % churn_small, churn_large / churn_small, "about 1"))
PY
