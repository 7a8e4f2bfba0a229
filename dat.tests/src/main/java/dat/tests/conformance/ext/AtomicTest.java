package dat.tests.conformance.ext;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IbExtension;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;

/**
 * The atomics of OFED uDAPL's InfiniBand extensions ({@code dat_ib_post_fetch_and_add},
 * {@code dat_ib_post_cmp_and_swap} of {@code dat_ib_extensions.h}, {@link AtomicEndpoint}), run
 * where the provider declares them ({@code DAT_IB_FETCH_AND_ADD}, {@code DAT_IB_CMP_AND_SWAP}).
 * The operand lies in an LMR of the passive side with {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC}; the
 * active side's LMR receives the value from before the operation.
 */
class AtomicTest {

    private static final int ATOMIC = MemPrivileges.ALL | IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    /** An LMR of the passive side whose first bytes remote atomics may reach. */
    private static LocalMemoryRegion operand(IaUnderTest t, Connection c, int privileges) {
        return t.lmr(c.passive.ia, c.passive.pz, 4096, privileges);
    }

    private static DatEvent completion(IaUnderTest t, EventDispatcher evd, int type, String what) {
        DatEvent event = t.event(evd, IbExtension.IB_DTO_EVENT, what);
        assertThat(IbExtension.typeName(event.extensionType())).as(t.at("the completion type of " + what))
                .isEqualTo(IbExtension.typeName(type));
        return event;
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_fetch_and_add(dat_ib_extensions.h) DAT_SUCCESS: the value before the addition comes back, the remote value grows")
    void fetchAndAdd(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, ATOMIC);
        target.memory().set(ValueLayout.JAVA_LONG, 64, 40L);
        t.expectSuccess(atomic.postFetchAndAdd(2L, LmrTriplet.of(c.active.lmr, 0, 8), 77L, RmrTriplet.of(target, 64, 8),
                CompletionFlags.DEFAULT), "dat_ib_post_fetch_and_add");
        DatEvent done = completion(t, c.active.requestEvd, IbExtension.FETCH_AND_ADD, "the fetch-and-add");
        assertThat(DtoCompletionStatus.name(done.status())).as(t.at("status")).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(done.userCookie()).as(t.at("user_cookie")).isEqualTo(77L);
        assertThat(done.transferredLength()).as(t.at("transferred_length")).isEqualTo(8);
        assertThat(done.endpoint()).as(t.at("ep_handle")).isSameAs(c.active.ep);
        assertThat(c.active.buffer().get(ValueLayout.JAVA_LONG, 0)).as(t.at("the value before the addition")).isEqualTo(40L);
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 64)).as(t.at("the remote value after it")).isEqualTo(42L);
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_cmp_and_swap(dat_ib_extensions.h) DAT_SUCCESS: swaps when equal, not otherwise, and returns the value found")
    void compareAndSwap(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, ATOMIC);
        target.memory().set(ValueLayout.JAVA_LONG, 0, 5L);
        t.expectSuccess(atomic.postCompareAndSwap(5L, 9L, LmrTriplet.of(c.active.lmr, 0, 8), 1L, RmrTriplet.of(target, 0, 8),
                CompletionFlags.DEFAULT), "the matching dat_ib_post_cmp_and_swap");
        completion(t, c.active.requestEvd, IbExtension.CMP_AND_SWAP, "the matching compare-and-swap");
        assertThat(c.active.buffer().get(ValueLayout.JAVA_LONG, 0)).as(t.at("the value found")).isEqualTo(5L);
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 0)).as(t.at("swapped")).isEqualTo(9L);

        t.expectSuccess(atomic.postCompareAndSwap(5L, 11L, LmrTriplet.of(c.active.lmr, 8, 8), 2L, RmrTriplet.of(target, 0, 8),
                CompletionFlags.DEFAULT), "the dat_ib_post_cmp_and_swap that does not match");
        DatEvent done = completion(t, c.active.requestEvd, IbExtension.CMP_AND_SWAP, "the compare-and-swap that does not match");
        assertThat(done.userCookie()).as(t.at("user_cookie")).isEqualTo(2L);
        assertThat(c.active.buffer().get(ValueLayout.JAVA_LONG, 8)).as(t.at("the value found")).isEqualTo(9L);
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 0)).as(t.at("not swapped")).isEqualTo(9L);
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_fetch_and_add(dat_ib_extensions.h) DAT_SUCCESS: concurrent fetch-and-adds from two Endpoints lose no increment")
    void fetchAndAddIsAtomic(IaUnderTest t) throws InterruptedException {
        Extensions.requireAtomics(t);
        // two connections from two Endpoints of one IA to one passive IA; the operand is registered in both passive PZs
        var passiveIa = t.open();
        Connection first = t.connection().ias(t.ia(), passiveIa).connect();
        Connection second = t.connection().ias(t.ia(), passiveIa).connect();
        LocalMemoryRegion target = operand(t, first, ATOMIC);
        LocalMemoryRegion again = passiveIa.registerMemory(target.memory(), second.passive.pz, ATOMIC);
        target.memory().set(ValueLayout.JAVA_LONG, 0, 0L);
        int perSide = 200;
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread other = Thread.ofPlatform().start(() -> {
            try {
                addRepeatedly(t, second.active, RmrTriplet.of(again, 0, 8), perSide);
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        addRepeatedly(t, first.active, RmrTriplet.of(target, 0, 8), perSide);
        other.join(60_000);
        if (failed.get() != null) {
            throw new AssertionError(t.at("the second Endpoint's additions"), failed.get());
        }
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 0)).as(t.at("the sum of every addition")).isEqualTo(2L * perSide);
    }

    private static void addRepeatedly(IaUnderTest t, Connection.Side side, RmrTriplet operand, int times) {
        AtomicEndpoint atomic = Extensions.atomic(t, side);
        LmrTriplet result = LmrTriplet.of(side.lmr, 2048, 8);
        DatEvent event = new DatEvent();
        for (int i = 0; i < times; i++) {
            int status;
            while ((status = atomic.postFetchAndAdd(1L, result, i, operand, CompletionFlags.DEFAULT)) != DatReturn.SUCCESS) {
                t.expectCode(DatReturn.INSUFFICIENT_RESOURCES, status, "dat_ib_post_fetch_and_add while the queue is full");
                Thread.onSpinWait();
            }
            t.expectSuccess(side.requestEvd.await(IaUnderTest.EVENT_TIMEOUT_MICROS, 1, event), "the fetch-and-add's completion");
            t.check(event.status() == DtoCompletionStatus.SUCCESS, "a fetch-and-add completed with " + DtoCompletionStatus.name(event.status()));
        }
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_fetch_and_add(dat_ib_extensions.h) DAT_LENGTH_ERROR: buffers other than 8 bytes; DAT_INVALID_PARAMETER: an unaligned operand or no buffer")
    void badBuffers(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, ATOMIC);
        t.expectCode(DatReturn.LENGTH_ERROR, atomic.postFetchAndAdd(1, LmrTriplet.of(c.active.lmr, 0, 4), 0, RmrTriplet.of(target, 0, 8), 0),
                "a 4-byte local buffer");
        t.expectCode(DatReturn.LENGTH_ERROR, atomic.postFetchAndAdd(1, LmrTriplet.of(c.active.lmr, 0, 8), 0, RmrTriplet.of(target, 0, 16), 0),
                "a 16-byte remote buffer");
        t.expectCode(DatReturn.INVALID_PARAMETER, atomic.postCompareAndSwap(1, 2, LmrTriplet.of(c.active.lmr, 0, 8), 0,
                RmrTriplet.of(target, 4, 8), 0), "a remote operand not aligned to 8 bytes");
        t.expectCode(DatReturn.INVALID_PARAMETER, atomic.postFetchAndAdd(1, null, 0, RmrTriplet.of(target, 0, 8), 0), "no local buffer");
        t.expectCode(DatReturn.INVALID_PARAMETER, atomic.postFetchAndAdd(1, LmrTriplet.of(c.active.lmr, 0, 8), 0, null, 0),
                "no remote buffer");
        LocalMemoryRegion readOnly = t.lmr(c.active.ia, c.active.pz, 64, MemPrivileges.LOCAL_READ);
        t.expectCode(DatReturn.PRIVILEGES_VIOLATION, atomic.postFetchAndAdd(1, LmrTriplet.of(readOnly, 0, 8), 0,
                RmrTriplet.of(target, 0, 8), 0), "a local buffer without local write");
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_cmp_and_swap(dat_ib_extensions.h) DAT_SUCCESS: on a disconnected Endpoint a compare-and-swap and a fetch-and-add are flushed at once, each as a completion of its type")
    void disconnected(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, ATOMIC);
        Extensions.disconnectActive(t, c);
        t.expectSuccess(atomic.postCompareAndSwap(0, 1, LmrTriplet.of(c.active.lmr, 0, 8), 13L, RmrTriplet.of(target, 0, 8),
                CompletionFlags.DEFAULT), "dat_ib_post_cmp_and_swap when disconnected");
        DatEvent flushed = completion(t, c.active.requestEvd, IbExtension.CMP_AND_SWAP, "the compare-and-swap posted when disconnected");
        assertThat(DtoCompletionStatus.name(flushed.status())).as(t.at("status"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_FLUSHED));
        assertThat(flushed.userCookie()).as(t.at("user_cookie")).isEqualTo(13L);
        t.expectSuccess(atomic.postFetchAndAdd(1, LmrTriplet.of(c.active.lmr, 0, 8), 14L, RmrTriplet.of(target, 0, 8),
                CompletionFlags.DEFAULT), "dat_ib_post_fetch_and_add when disconnected");
        flushed = completion(t, c.active.requestEvd, IbExtension.FETCH_AND_ADD, "the fetch-and-add posted when disconnected");
        assertThat(DtoCompletionStatus.name(flushed.status())).as(t.at("status"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_FLUSHED));
        assertThat(flushed.userCookie()).as(t.at("user_cookie")).isEqualTo(14L);
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_fetch_and_add(dat_ib_extensions.h) DAT_INVALID_STATE: an unconnected Endpoint")
    void unconnected(IaUnderTest t) {
        Extensions.requireAtomics(t);
        ProtectionZone pz = t.pz();
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        LocalMemoryRegion lmr = t.lmr(pz, 64, ATOMIC);
        Endpoint ep = t.ia().createEndpoint(pz, evd, evd, null, null);
        AtomicEndpoint atomic = ep.extension(AtomicEndpoint.class)
                .orElseThrow(() -> t.failure("the provider declares the atomics, but its Endpoint offers no AtomicEndpoint"));
        t.expectCode(DatReturn.INVALID_STATE, atomic.postFetchAndAdd(1, LmrTriplet.of(lmr, 0, 8), 0, RmrTriplet.of(lmr, 8, 8), 0),
                "dat_ib_post_fetch_and_add on an unconnected Endpoint");
    }

    /**
     * A provider whose transport grants remote atomics with remote write (libfabric has no access
     * flag of their own) declares the status an atomic on memory with remote write but without
     * {@code DAT_IB_MEM_PRIV_REMOTE_ATOMIC} completes with, as {@code "DAT_DTO_SUCCESS: <why>"}
     * under this deviation name.
     */
    static final String REMOTE_ATOMIC_PRIVILEGE = "remote_atomic_privilege";

    @ConformanceTest
    @DisplayName("dat_ib_post_fetch_and_add(dat_ib_extensions.h) DAT_SUCCESS: a target with remote write but without DAT_IB_MEM_PRIV_REMOTE_ATOMIC completes with DAT_DTO_ERR_REMOTE_ACCESS")
    void needsTheRemoteAtomicPrivilege(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, MemPrivileges.ALL);
        MemorySegment memory = target.memory();
        memory.set(ValueLayout.JAVA_LONG, 0, 3L);
        t.expectSuccess(atomic.postFetchAndAdd(1, LmrTriplet.of(c.active.lmr, 0, 8), 5, RmrTriplet.of(target, 0, 8), 0),
                "dat_ib_post_fetch_and_add to a target without the atomic privilege");
        DatEvent done = t.event(c.active.requestEvd, IbExtension.IB_DTO_EVENT, "the refused fetch-and-add");
        if (done.status() == DtoCompletionStatus.SUCCESS && t.declaresStatus(REMOTE_ATOMIC_PRIVILEGE, done.status())) {
            assertThat(memory.get(ValueLayout.JAVA_LONG, 0)).as(t.at("the operand after the addition the provider declares")).isEqualTo(4L);
            t.skipAsDeclared(REMOTE_ATOMIC_PRIVILEGE, "the fetch-and-add completed with DAT_DTO_SUCCESS");
        }
        assertThat(DtoCompletionStatus.name(done.status())).as(t.at("status"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        assertThat(memory.get(ValueLayout.JAVA_LONG, 0)).as(t.at("the operand is untouched")).isEqualTo(3L);
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_cmp_and_swap(dat_ib_extensions.h) DAT_SUCCESS: a target with remote read only completes with DAT_DTO_ERR_REMOTE_ACCESS")
    void readOnlyTargetRefusesAtomics(IaUnderTest t) {
        Extensions.requireAtomics(t);
        Connection c = Extensions.connect(t);
        AtomicEndpoint atomic = Extensions.atomic(t, c.active);
        LocalMemoryRegion target = operand(t, c, MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE | MemPrivileges.REMOTE_READ);
        MemorySegment memory = target.memory();
        memory.set(ValueLayout.JAVA_LONG, 0, 3L);
        t.expectSuccess(atomic.postCompareAndSwap(3, 8, LmrTriplet.of(c.active.lmr, 0, 8), 6, RmrTriplet.of(target, 0, 8), 0),
                "dat_ib_post_cmp_and_swap to a target with remote read only");
        DatEvent done = t.event(c.active.requestEvd, IbExtension.IB_DTO_EVENT, "the refused compare-and-swap");
        assertThat(DtoCompletionStatus.name(done.status())).as(t.at("status"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        assertThat(memory.get(ValueLayout.JAVA_LONG, 0)).as(t.at("the operand is untouched")).isEqualTo(3L);
    }
}
