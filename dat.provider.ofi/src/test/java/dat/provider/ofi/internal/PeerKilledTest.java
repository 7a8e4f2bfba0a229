package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer process is SIGKILLed in the middle of a stream of RDMA writes: every DTO this side
 * posted completes exactly once (successfully before the kill, flushed or failed after it), the
 * Endpoint ends disconnected, a post afterwards is flushed at once, and nothing hangs. The peer is
 * {@link OfiPeer} in a JVM of its own.
 */
class PeerKilledTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(10);
    private static final int WRITE = 64 * 1024;
    private static final int WINDOW = 32;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyPostedWriteIsAccountedForWhenThePeerDies() throws Exception {
        OfiRuntime runtime = TcpLoopback.start();
        try {
            DatIaFactory factory = TcpLoopback.factory(runtime);
            Process peer = startPeer();
            try (Arena arena = Arena.ofShared()) {
                long qualifier = readyQualifier(peer);
                InterfaceAdapter ia = factory.openIa(new IaOpenRequest(TcpLoopback.IA, 16, null, ""));
                ProtectionZone pz = ia.createProtectionZone();
                EventDispatcher dto = ia.createEventDispatcher(4 * WINDOW, null, EvdFlags.DTO);
                EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);
                LocalMemoryRegion source = ia.registerMemory(arena.allocate(WRITE, 4096), pz, MemPrivileges.LOCAL_READ);
                Endpoint ep = ia.createEndpoint(pz, dto, dto, conn, null);
                ep.connect(new InetSocketAddress("127.0.0.1", 0), qualifier, WAIT, null, 0, 0);
                DatEvent event = new DatEvent();
                assertThat(conn.await(WAIT, 1, event)).isEqualTo(DatReturn.SUCCESS);
                assertThat(event.eventNumber()).isEqualTo(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                OfiPeer.Target target = OfiPeer.Target.of(event.privateData());
                LmrTriplet[] iov = {LmrTriplet.of(source, 0, WRITE)};
                RmrTriplet remote = new RmrTriplet(target.rmrContext(), target.address(), WRITE);

                Set<Long> outstanding = new HashSet<>();
                int succeeded = 0;
                int failed = 0;
                long cookie = 0;
                boolean killed = false;
                boolean disconnected = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while ((!disconnected || !outstanding.isEmpty()) && System.nanoTime() < deadline) {
                    while (outstanding.size() < WINDOW && !disconnected) {
                        int rc = ep.postRdmaWrite(1, iov, cookie, remote, CompletionFlags.DEFAULT);
                        if (rc != DatReturn.SUCCESS) {
                            // a full queue, or, once the peer is dead, an Endpoint on its way out of CONNECTED
                            assertThat(DatReturn.typeOf(rc)).as(DatReturn.describe(rc))
                                    .isIn(killed ? new Object[] {DatReturn.INSUFFICIENT_RESOURCES, DatReturn.INVALID_STATE}
                                            : new Object[] {DatReturn.INSUFFICIENT_RESOURCES});
                            break;
                        }
                        outstanding.add(cookie++);
                    }
                    if (dto.await(100_000, 1, event) == DatReturn.SUCCESS) {
                        assertThat(outstanding.remove(event.userCookie())).as("completion of cookie %d, once", event.userCookie()).isTrue();
                        if (event.status() == DtoCompletionStatus.SUCCESS) {
                            succeeded++;
                        } else {
                            failed++;
                        }
                    }
                    if (!killed && succeeded >= 200) {
                        peer.destroyForcibly(); // SIGKILL
                        killed = true;
                    }
                    if (killed && !disconnected && conn.dequeue(event) == DatReturn.SUCCESS) {
                        assertThat(event.eventNumber()).isIn(EventNumber.CONNECTION_EVENT_BROKEN, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                        disconnected = true;
                    }
                }
                assertThat(killed).isTrue();
                assertThat(disconnected).as("the Endpoint learned of the peer's death").isTrue();
                assertThat(outstanding).as("DTOs never completed").isEmpty();
                assertThat(succeeded + failed).isEqualTo(cookie);
                assertThat(ep.query().state()).isEqualTo(EpState.DISCONNECTED);
                assertThat(ep.postRdmaWrite(1, iov, 999, remote, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
                assertThat(dto.await(WAIT, 1, event)).isEqualTo(DatReturn.SUCCESS);
                assertThat(event.status()).isEqualTo(DtoCompletionStatus.ERR_FLUSHED);
                assertThat(event.userCookie()).isEqualTo(999);
                System.out.println("PeerKilledTest: " + cookie + " RDMA writes of 64 KiB posted, " + succeeded + " succeeded, "
                        + failed + " flushed or failed after the peer's SIGKILL, none lost");
                ia.close();
            } finally {
                peer.destroyForcibly();
                peer.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            runtime.close();
        }
    }

    private static Process startPeer() throws Exception {
        return new ProcessBuilder(TcpLoopback.javaCommand(OfiPeer.class)).redirectErrorStream(true).start();
    }

    private static long readyQualifier(Process peer) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith("READY ")) {
                Thread.ofPlatform().daemon().start(() -> drain(out)); // the peer must never block on a full pipe
                return Long.parseLong(line.substring(6).trim());
            }
        }
        throw new AssertionError("the peer ended before it was ready (exit " + peer.waitFor() + ")");
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // discarded
            }
        } catch (java.io.IOException ended) {
            // the peer is gone
        }
    }
}
