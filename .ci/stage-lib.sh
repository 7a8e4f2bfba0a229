# Helpers the TCP and ofi stages share (sourced, not run). The sourcing script sets
#   tag      its log prefix (tcp, ofi);   work  its scratch folder;   reports  its JUnit XML folder;
#   status   0, set to 1 by a failure here;
# and defines `conf NAME ADDRESS`, which writes a dat.conf with IA NAME on ADDRESS and prints its path.

log() { echo "[$tag] $*"; }

# the last TOTAL line and the FAILED lines of a `dat test` log
summary() { grep -a -E '^TOTAL' "$1" | tail -1; grep -a '^FAILED' "$1" | sed "s/^/[$tag]   /"; }

# a report with one skipped test ($3, in suite $2) at $1, so that the closing line shows a run that could not run
skipped_report() {
    mkdir -p "$(dirname "$1")"
    cat > "$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="$2" tests="1" skipped="1" failures="0" errors="0">
  <testcase name="$3" classname="$2"><skipped message="needs root and iproute2"/></testcase>
</testsuite>
XML
}

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

# a peer agent: start_agent NAMESPACE CONF IA LOG
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

# the whole suite against IA $1 (dat.conf $2) with every passive side in a peer agent JVM serving IA $3
# (dat.conf $4) on 127.0.0.1:7701; JUnit XML to $5, logs $work/$6.log and $work/agent-$6.log
peer_jvm_suite() {
    local ia=$1 conf=$2 peer=$3 peer_conf=$4 xml=$5 name=$6 crossed
    if start_agent "" "$peer_conf" "$peer" "$work/agent-$name.log"; then
        DAT_CONF=$conf timeout 600 ./dat test "$ia" --peer 127.0.0.1:7701 --xml "$xml" > "$work/$name.log" 2>&1 || status=1
        summary "$work/$name.log"
        crossed=$(grep -a -o 'peer agent: [0-9]* peer IA instances lived in its process, [0-9]* calls crossed to them' "$work/$name.log")
        log "${crossed:-no peer summary}"
        # a run whose peer instances all stayed in this JVM proves nothing about two processes
        [[ "$crossed" =~ ^peer\ agent:\ [1-9] ]] || { log "no peer IA instance lived in the agent's JVM"; status=1; }
    else
        status=1
    fi
    stop_server
}

# `dat perf IA --client` (dat.conf $2) against `dat perf PEER --server` (dat.conf $4) in two JVMs, printed;
# extra client arguments in $5, JSON to $work/perf-$6.json
perf_two_jvms() {
    local ia=$1 conf=$2 peer=$3 peer_conf=$4 extra=$5 name=$6
    start_server "" "$peer_conf" "$work/perf-$name-server.log" 'serving until stopped' perf "$peer" --server || status=1
    # shellcheck disable=SC2086 # the extra arguments are words
    if DAT_CONF=$conf timeout 600 ./dat perf "$ia" --client 127.0.0.1:7700 $extra --json "$work/perf-$name.json" \
        > "$work/perf-$name-client.log" 2>&1; then
        grep -a -v -E '^(INFO|WARNING):|^[A-Z][a-z]{2} [0-9]+, ' "$work/perf-$name-client.log" | sed "s/^/[$tag]   /"
    else
        log "dat perf --client ($name) failed:"; tail -20 "$work/perf-$name-client.log"; status=1
    fi
    stop_server
}

# the transaction tests between two network namespaces joined by a veth pair, one JVM in each:
#   netns_transactions NS_A NS_B SUBNET IA_A ADDRESS_A IA_B ADDRESS_B XML
# (NS_A at SUBNET.1, NS_B at SUBNET.2; ADDRESS_x as `conf` takes it). Checks that each namespace has no
# other interface and no route beyond SUBNET.0/24, and that the test traffic crossed the veth.
# Without root and iproute2 it writes a skipped test instead.
netns_transactions() {
    local nsA=$1 nsB=$2 subnet=$3 iaA=$4 addrA=$5 iaB=$6 addrB=$7 xml=$8
    local vethA="v$nsA" vethB="v$nsB" ok=1 ns links routes before after
    if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
        log "3. skipped: two network namespaces need root and iproute2"
        skipped_report "$xml" "$tag-two-netns" "transactions across two network namespaces"
        return
    fi
    log "3. the transaction tests across network namespaces $nsA ($subnet.1) and $nsB ($subnet.2), veth pair"
    cleanup_ns() { ip netns del "$nsA" 2>/dev/null; ip netns del "$nsB" 2>/dev/null; ip link del "$vethA" 2>/dev/null; }
    cleanup_ns
    { ip netns add "$nsA" && ip netns add "$nsB" \
        && ip link add "$vethA" type veth peer name "$vethB" \
        && ip link set "$vethA" netns "$nsA" && ip link set "$vethB" netns "$nsB" \
        && ip -n "$nsA" addr add "$subnet.1/24" dev "$vethA" && ip -n "$nsB" addr add "$subnet.2/24" dev "$vethB" \
        && ip -n "$nsA" link set lo up && ip -n "$nsB" link set lo up \
        && ip -n "$nsA" link set "$vethA" up && ip -n "$nsB" link set "$vethB" up; } || ok=0
    if [ $ok = 1 ] && start_agent "$nsB" "$(conf "$iaB" "$addrB")" "$iaB" "$work/agent-netns.log"; then
        # nothing leaves the namespaces: each has only its loopback and its end of the veth, and no route
        # beyond the subnet (a connect from the host namespace proves nothing here: a sandbox's
        # transparent proxy may accept any outgoing connection)
        for ns in "$nsA" "$nsB"; do
            links=$(ip -n "$ns" -o link show | wc -l); routes=$(ip -n "$ns" route show | grep -vc "^${subnet//./\\.}\\.0/24")
            if [ "$links" != 2 ] || [ "$routes" != 0 ]; then
                log "namespace $ns is not isolated: $links links, $routes routes beyond $subnet.0/24"; status=1
            fi
        done
        before=$(ip -n "$nsB" -s link show "$vethB" | awk '/RX:/{getline; print $1; exit}')
        DAT_CONF=$(conf "$iaA" "$addrA") timeout 600 ip netns exec "$nsA" ./dat test "$iaA" --peer "$subnet.2:7701" \
            --filter '^transactions/' --xml "$xml" > "$work/two-netns.log" 2>&1 || status=1
        after=$(ip -n "$nsB" -s link show "$vethB" | awk '/RX:/{getline; print $1; exit}')
        summary "$work/two-netns.log"
        log "bytes received on $nsB's veth during the run: $(( ${after:-0} - ${before:-0} ))"
        [ $(( ${after:-0} - ${before:-0} )) -gt 1000000 ] || { log "the test traffic did not cross the veth pair"; status=1; }
    else
        log "could not set up the namespaces or start the agent in $nsB"; status=1
    fi
    stop_server
    cleanup_ns
}
