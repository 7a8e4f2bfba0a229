package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two threads, one per IA, drive many Endpoint pairs with a random mix of sends, receives, RDMA
 * writes and reads (every byte verified), and disconnect and reconnect them at random. At the end
 * every posted DTO must have completed exactly once, no byte may be corrupted, no message may be
 * duplicated or reordered, and neither thread may hang.
 */
@Timeout(90)
class StressTest {

    static final int PAIRS = 16;
    static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(8);
    static final int SLOT = 512;
    static final int SLOTS = 16;
    static final long PAIR_BYTES = 64 * 1024;
    static final long RECV_AREA = 0;
    static final long SEND_AREA = 8192;
    static final long WRITE_AREA = 16384;
    static final long READ_AREA = 24576;
    static final long TARGET_AREA = 32768;
    static final int QUAL = 700;

    enum Kind { RECV, SEND, WRITE, READ }

    record Op(Kind kind, int pair, int slot, long seq, int len) {}

    /** One thread's view: its IA, its Endpoints and the bookkeeping of what it posted. */
    static final class Driver implements Runnable {
        final String name;
        final boolean active;
        final Fabric fabric;
        InterfaceAdapter ia;
        ProtectionZone pz;
        EventDispatcher recvEvd;
        EventDispatcher reqEvd;
        EventDispatcher connEvd;
        EventDispatcher crEvd;
        LocalMemoryRegion lmr;
        MemorySegment mem;
        final Endpoint[] eps = new Endpoint[PAIRS];
        final Map<Endpoint, Integer> index = new HashMap<>();
        final Map<Long, Op> outstanding = new HashMap<>();
        final List<ArrayDeque<Integer>> freeRecv = new ArrayList<>();
        final List<ArrayDeque<Integer>> freeSend = new ArrayList<>();
        final List<ArrayDeque<Integer>> freeRdma = new ArrayList<>();
        final long[] sendSeq = new long[PAIRS];
        final long[] lastRecvSeq = new long[PAIRS];
        final boolean[][] writeFailed = new boolean[PAIRS][SLOTS];
        final SplittableRandom random;
        final LmrTriplet[] one = {new LmrTriplet()};
        final RmrTriplet remote = new RmrTriplet();
        final DatEvent connEvent = new DatEvent();
        Driver peer;
        long nextCookie = 1;
        long completions;
        long bytesVerified;
        long reconnects;
        final AtomicReference<Throwable> failure;
        final AtomicBoolean stop;
        final CyclicBarrier barrier;
        final DatEventHandler dtoHandler = this::onDto;

        Driver(String name, boolean active, Fabric fabric, long seed, AtomicReference<Throwable> failure, AtomicBoolean stop,
                CyclicBarrier barrier) {
            this.name = name;
            this.active = active;
            this.fabric = fabric;
            this.random = new SplittableRandom(seed);
            this.failure = failure;
            this.stop = stop;
            this.barrier = barrier;
            EpAttributes attrs = EpAttributes.builder().maxRecvDtos(SLOTS).maxRequestDtos(2 * SLOTS).maxRecvIov(2).maxRequestIov(2).build();
            ia = fabric.open(name);
            pz = ia.createProtectionZone();
            recvEvd = ia.createEventDispatcher(PAIRS * SLOTS + 64, null, EvdFlags.DTO);
            reqEvd = ia.createEventDispatcher(PAIRS * 2 * SLOTS + 64, null, EvdFlags.DTO);
            connEvd = ia.createEventDispatcher(PAIRS * 8, null, EvdFlags.CONNECTION);
            crEvd = ia.createEventDispatcher(PAIRS * 4, null, EvdFlags.CR);
            mem = fabric.memory(PAIRS * PAIR_BYTES);
            lmr = ia.registerMemory(mem, pz, MemPrivileges.ALL);
            for (int i = 0; i < PAIRS; i++) {
                eps[i] = ia.createEndpoint(pz, recvEvd, reqEvd, connEvd, attrs);
                index.put(eps[i], i);
                ArrayDeque<Integer> r = new ArrayDeque<>();
                ArrayDeque<Integer> s = new ArrayDeque<>();
                ArrayDeque<Integer> d = new ArrayDeque<>();
                for (int j = 0; j < SLOTS; j++) {
                    r.add(j);
                    s.add(j);
                    if (j < 8) {
                        d.add(j);
                    }
                }
                freeRecv.add(r);
                freeSend.add(s);
                freeRdma.add(d);
            }
            if (!active) {
                for (int i = 0; i < PAIRS; i++) {
                    ia.createPublicServicePoint(QUAL + i, crEvd, PspFlag.CONSUMER);
                }
            }
        }

        InetSocketAddress address() {
            return ia.query().iaAttributes().iaAddress();
        }

        long base(int pair) {
            return lmr.registeredAddress() + pair * PAIR_BYTES;
        }

        static byte pattern(long seq, int i) {
            return (byte) (seq * 131 + i * 7 + (seq >>> 8));
        }

        void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(name + ": " + message);
            }
        }

        long track(Op op) {
            long cookie = nextCookie++;
            outstanding.put(cookie, op);
            return cookie;
        }

        @Override
        public void run() {
            try {
                barrier.await();
                long end = System.nanoTime() + RUN_NANOS;
                while (System.nanoTime() < end && failure.get() == null) {
                    step(true);
                }
                // wind down: no new work, disconnect everything, reap every completion
                stop.set(true);
                barrier.await(30, TimeUnit.SECONDS);
                if (active) {
                    for (Endpoint ep : eps) {
                        EpState s = ep.getStatus().state();
                        if (s == EpState.CONNECTED || s == EpState.DISCONNECT_PENDING || s == EpState.ACTIVE_CONNECTION_PENDING) {
                            ep.disconnect(CloseFlag.ABRUPT);
                        }
                    }
                }
                barrier.await(30, TimeUnit.SECONDS);
                // receives preposted on UNCONNECTED Endpoints stay queued until a connection; freeing
                // the Endpoint flushes them (dat_ep_free(3DAT))
                for (Endpoint ep : eps) {
                    ep.close();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!outstanding.isEmpty() && System.nanoTime() < deadline) {
                    step(false);
                }
                check(outstanding.isEmpty(), outstanding.size() + " DTOs never completed: " + outstanding.values().stream().limit(5).toList());
                check(recvEvd.dequeue(connEvent) == DatReturn.error(DatReturn.QUEUE_EMPTY, 0), "an extra receive completion");
                check(reqEvd.dequeue(connEvent) == DatReturn.error(DatReturn.QUEUE_EMPTY, 0), "an extra request completion");
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                stop.set(true);
                barrier.reset(); // the other thread must not wait for this one
            }
        }

        void step(boolean work) {
            recvEvd.poll(dtoHandler, 64);
            reqEvd.poll(dtoHandler, 64);
            while (connEvd.dequeue(connEvent) == DatReturn.SUCCESS) {
                onConnection(connEvent);
            }
            if (!active) {
                while (crEvd.dequeue(connEvent) == DatReturn.SUCCESS) {
                    onRequest(connEvent);
                }
            }
            if (!work) {
                return;
            }
            int pair = random.nextInt(PAIRS);
            Endpoint ep = eps[pair];
            EpState state = ep.getStatus().state();
            int dice = random.nextInt(1000);
            if (state == EpState.UNCONNECTED && active && dice < 50) {
                ep.connect(peer.address(), QUAL + pair, Fabric.WAIT, new byte[] {(byte) pair}, 0, 0);
                return;
            }
            if (state == EpState.DISCONNECTED && active && dice < 50) {
                ep.reset();
                reconnects++;
                return;
            }
            if (state == EpState.CONNECTED && dice < 2) {
                ep.disconnect(random.nextBoolean() ? CloseFlag.ABRUPT : CloseFlag.GRACEFUL);
                return;
            }
            if (!freeRecv.get(pair).isEmpty() && dice < 400) {
                postRecv(pair, ep);
            } else if (state == EpState.CONNECTED && dice < 700 && !freeSend.get(pair).isEmpty()) {
                postSend(pair, ep);
            } else if (state == EpState.CONNECTED && dice < 1000 && !freeRdma.get(pair).isEmpty()) {
                postWriteThenRead(pair, ep);
            }
        }

        void postRecv(int pair, Endpoint ep) {
            int slot = freeRecv.get(pair).poll();
            // two segments, so that scatter is exercised: 100 bytes, then the rest of the slot
            long addr = base(pair) + RECV_AREA + slot * (long) SLOT;
            LmrTriplet[] two = {new LmrTriplet(lmr.lmrContext(), addr, 100), new LmrTriplet(lmr.lmrContext(), addr + 100, SLOT - 100)};
            long cookie = track(new Op(Kind.RECV, pair, slot, 0, 0));
            int rc = ep.postRecv(2, two, cookie, 0);
            if (rc != DatReturn.SUCCESS) {
                outstanding.remove(cookie);
                freeRecv.get(pair).add(slot);
                check(DatReturn.typeOf(rc) == DatReturn.INSUFFICIENT_RESOURCES, "postRecv: " + DatReturn.describe(rc));
            }
        }

        void postSend(int pair, Endpoint ep) {
            int slot = freeSend.get(pair).poll();
            long seq = ++sendSeq[pair];
            int len = 16 + random.nextInt(SLOT - 16);
            long off = pair * PAIR_BYTES + SEND_AREA + slot * (long) SLOT;
            mem.set(ValueLayout.JAVA_LONG_UNALIGNED, off, seq);
            mem.set(ValueLayout.JAVA_INT_UNALIGNED, off + 8, len);
            mem.set(ValueLayout.JAVA_INT_UNALIGNED, off + 12, pair);
            for (int i = 16; i < len; i++) {
                mem.set(ValueLayout.JAVA_BYTE, off + i, pattern(seq, i));
            }
            one[0].set(lmr.lmrContext(), lmr.registeredAddress() + off, len);
            long cookie = track(new Op(Kind.SEND, pair, slot, seq, len));
            int rc = ep.postSend(1, one, cookie, 0);
            if (rc != DatReturn.SUCCESS) {
                outstanding.remove(cookie);
                freeSend.get(pair).add(slot);
                sendSeq[pair]--;
                check(DatReturn.typeOf(rc) == DatReturn.INVALID_STATE || DatReturn.typeOf(rc) == DatReturn.INSUFFICIENT_RESOURCES,
                        "postSend: " + DatReturn.describe(rc));
            }
        }

        void postWriteThenRead(int pair, Endpoint ep) {
            int slot = freeRdma.get(pair).poll();
            long seq = random.nextLong();
            int len = 1 + random.nextInt(SLOT);
            long off = pair * PAIR_BYTES + WRITE_AREA + slot * (long) SLOT;
            for (int i = 0; i < len; i++) {
                mem.set(ValueLayout.JAVA_BYTE, off + i, pattern(seq, i));
            }
            one[0].set(lmr.lmrContext(), lmr.registeredAddress() + off, len);
            remote.set(peer.lmr.rmrContext(), peer.base(pair) + TARGET_AREA + slot * (long) SLOT, len);
            long wc = track(new Op(Kind.WRITE, pair, slot, seq, len));
            int rc = ep.postRdmaWrite(1, one, wc, remote, 0);
            if (rc != DatReturn.SUCCESS) {
                outstanding.remove(wc);
                freeRdma.get(pair).add(slot);
                check(DatReturn.typeOf(rc) == DatReturn.INVALID_STATE || DatReturn.typeOf(rc) == DatReturn.INSUFFICIENT_RESOURCES,
                        "postRdmaWrite: " + DatReturn.describe(rc));
                return;
            }
            writeFailed[pair][slot] = false;
            long roff = pair * PAIR_BYTES + READ_AREA + slot * (long) SLOT;
            mem.asSlice(roff, len).fill((byte) 0);
            one[0].set(lmr.lmrContext(), lmr.registeredAddress() + roff, len);
            long rcCookie = track(new Op(Kind.READ, pair, slot, seq, len));
            rc = ep.postRdmaRead(1, one, rcCookie, remote, 0);
            if (rc != DatReturn.SUCCESS) {
                // the write stays outstanding; the slot is freed when it completes
                outstanding.remove(rcCookie);
                outstanding.put(wc, new Op(Kind.WRITE, pair, slot, Long.MIN_VALUE, len));
                check(DatReturn.typeOf(rc) == DatReturn.INVALID_STATE || DatReturn.typeOf(rc) == DatReturn.INSUFFICIENT_RESOURCES,
                        "postRdmaRead: " + DatReturn.describe(rc));
            }
        }

        void onDto(DatEvent e) {
            check(e.eventNumber() == EventNumber.DTO_COMPLETION_EVENT, "unexpected " + e);
            Op op = outstanding.remove(e.userCookie());
            check(op != null, "a completion for a cookie not outstanding (lost or duplicated): " + e);
            check(index.get(e.endpoint()) == op.pair(), "a completion on the wrong Endpoint");
            completions++;
            boolean ok = e.status() == DtoCompletionStatus.SUCCESS;
            check(ok || e.status() == DtoCompletionStatus.ERR_FLUSHED, "unexpected status " + DtoCompletionStatus.name(e.status()) + " " + op);
            int pair = op.pair();
            switch (op.kind()) {
                case RECV -> {
                    if (ok) {
                        verifyMessage(pair, op.slot(), e.transferredLength());
                    }
                    freeRecv.get(pair).add(op.slot());
                }
                case SEND -> freeSend.get(pair).add(op.slot());
                case WRITE -> {
                    if (!ok) {
                        writeFailed[pair][op.slot()] = true;
                    }
                    if (op.seq() == Long.MIN_VALUE) {
                        freeRdma.get(pair).add(op.slot());
                    }
                }
                case READ -> {
                    if (ok) {
                        check(!writeFailed[pair][op.slot()], "a read succeeded after its write failed");
                        int len = op.len();
                        long seq = op.seq();
                        long roff = pair * PAIR_BYTES + READ_AREA + op.slot() * (long) SLOT;
                        check(e.transferredLength() == len, "read length");
                        for (int i = 0; i < len; i++) {
                            check(mem.get(ValueLayout.JAVA_BYTE, roff + i) == pattern(seq, i), "RDMA byte " + i + " corrupted");
                        }
                        bytesVerified += len;
                    }
                    freeRdma.get(pair).add(op.slot());
                }
            }
        }

        void verifyMessage(int pair, int slot, long length) {
            long off = pair * PAIR_BYTES + RECV_AREA + slot * (long) SLOT;
            long seq = mem.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            int len = mem.get(ValueLayout.JAVA_INT_UNALIGNED, off + 8);
            check(mem.get(ValueLayout.JAVA_INT_UNALIGNED, off + 12) == pair, "message of another pair");
            check(len == length, "length " + length + " but the message says " + len);
            check(seq > lastRecvSeq[pair], "message " + seq + " after " + lastRecvSeq[pair] + ": duplicated or reordered");
            lastRecvSeq[pair] = seq;
            for (int i = 16; i < len; i++) {
                check(mem.get(ValueLayout.JAVA_BYTE, off + i) == pattern(seq, i), "message byte " + i + " corrupted");
            }
            bytesVerified += len;
        }

        void onConnection(DatEvent e) {
            check(EventNumber.isConnectionEvent(e.eventNumber()), "unexpected " + e);
            int n = e.eventNumber();
            check(n == EventNumber.CONNECTION_EVENT_ESTABLISHED || n == EventNumber.CONNECTION_EVENT_DISCONNECTED
                    || n == EventNumber.CONNECTION_EVENT_PEER_REJECTED || n == EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR
                    || n == EventNumber.CONNECTION_EVENT_TIMED_OUT, "unexpected " + e);
        }

        void onRequest(DatEvent e) {
            var cr = e.connectionRequest();
            if (stop.get()) {
                cr.reject(); // winding down: the Endpoints may be freed already
                return;
            }
            int pair = cr.query().privateData()[0];
            Endpoint ep = eps[pair];
            EpState s = ep.getStatus().state();
            if (s == EpState.DISCONNECTED) {
                ep.reset();
                s = EpState.UNCONNECTED;
            }
            if (s == EpState.UNCONNECTED && !stop.get()) {
                cr.accept(ep, null);
            } else {
                cr.reject();
            }
        }
    }

    @Test
    void twoThreadsManyEndpointsMixedTrafficRandomDisconnects() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier barrier = new CyclicBarrier(2);
        try (Fabric fabric = new Fabric()) {
            Driver a = new Driver("sim0", true, fabric, 42, failure, stop, barrier);
            Driver b = new Driver("sim1", false, fabric, 4242, failure, stop, barrier);
            a.peer = b;
            b.peer = a;
            Thread ta = Thread.ofPlatform().name("stress-a").start(a);
            Thread tb = Thread.ofPlatform().name("stress-b").start(b);
            ta.join(TimeUnit.SECONDS.toMillis(70));
            tb.join(TimeUnit.SECONDS.toMillis(5));
            if (failure.get() != null && !(failure.get() instanceof java.util.concurrent.BrokenBarrierException)) {
                throw new AssertionError(failure.get());
            }
            assertThat(ta.isAlive() || tb.isAlive()).as("a thread is stuck (deadlock?)").isFalse();
            assertThat(failure.get()).isNull();
            System.out.printf("stress: %d + %d completions, %d + %d bytes verified, %d reconnects%n", a.completions, b.completions,
                    a.bytesVerified, b.bytesVerified, a.reconnects);
            assertThat(a.completions + b.completions).isGreaterThan(10_000);
            assertThat(a.bytesVerified + b.bytesVerified).isGreaterThan(1_000_000);
            assertThat(a.reconnects).isPositive();
        }
    }
}
