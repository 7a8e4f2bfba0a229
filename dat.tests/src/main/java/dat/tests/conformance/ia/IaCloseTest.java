package dat.tests.conformance.ia;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.ConsumerNotificationObject;
import dat.api.DatEvent;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.SrqAttributes;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.Waiters;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;

/** dat_ia_close(3DAT): abrupt and graceful closes. */
class IaCloseTest {

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: a graceful close of an IA whose consumer freed every object (the async EVD excepted)")
    void graceful(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher evd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.SOFTWARE);
        evd.close();
        pz.close();
        ia.close(CloseFlag.GRACEFUL);
        assertThat(ia.isOpen()).as(t.at("the IA after a graceful close")).isFalse();
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: an abrupt close destroys every object created through the IA")
    void abruptCascade(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        List<DatHandle> handles = new ArrayList<>();
        ProtectionZone pz = ia.createProtectionZone();
        handles.add(pz);
        EventDispatcher evd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.DTO);
        handles.add(evd);
        EventDispatcher connEvd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.CONNECTION | EvdFlags.CR);
        handles.add(connEvd);
        handles.add(ia.createNotificationObject(null));
        handles.add(t.lmr(ia, pz, 4096, MemPrivileges.ALL));
        Endpoint ep = ia.createEndpoint(pz, evd, evd, connEvd, t.epAttributes());
        handles.add(ep);
        handles.add(ia.createPublicServicePointAny(connEvd, PspFlag.CONSUMER));
        Endpoint reserved = ia.createEndpoint(pz, evd, evd, connEvd, t.epAttributes());
        handles.add(reserved);
        handles.add(ia.createReservedServicePoint(t.unusedConnQual(ia), reserved, connEvd));
        if (t.supportsRmrs()) {
            handles.add(pz.createRemoteMemoryRegion());
        }
        if (t.provider().srqSupported()) {
            handles.add(ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(4).maxRecvIov(1).build()));
        }
        ia.close(CloseFlag.ABRUPT);
        for (DatHandle handle : handles) {
            assertThat(handle.isOpen()).as(t.at(handle + " after the abrupt close of its IA")).isFalse();
            t.expectError(DatReturn.INVALID_HANDLE, "dat_get_handle_type of " + handle + " after the abrupt close of its IA",
                    () -> handle.handleType());
        }
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: an abrupt close unblocks a waiter on an EVD with DAT_ABORT")
    void abruptUnblocksEvdWaiter(IaUnderTest t) throws Exception {
        InterfaceAdapter ia = t.open();
        EventDispatcher evd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.SOFTWARE);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> evd.await(30_000_000L, 1, new DatEvent()));
        Waiters.sleepMillis(100);
        ia.close(CloseFlag.ABRUPT);
        int code = waiter.get(10, TimeUnit.SECONDS);
        t.expectCode(DatReturn.ABORT, code, "dat_evd_wait blocked while its IA is closed abruptly");
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_SUCCESS: an abrupt close unblocks a waiter on a CNO with DAT_HANDLE_NULL")
    void abruptUnblocksCnoWaiter(IaUnderTest t) throws Exception {
        InterfaceAdapter ia = t.open();
        ConsumerNotificationObject cno = ia.createNotificationObject(null);
        ia.createEventDispatcher(t.qlen(), cno, EvdFlags.SOFTWARE);
        CompletableFuture<EventDispatcher> waiter = CompletableFuture.supplyAsync(() -> cno.await(30_000_000L));
        Waiters.sleepMillis(100);
        ia.close(CloseFlag.ABRUPT);
        EventDispatcher woken = waiter.get(10, TimeUnit.SECONDS);
        assertThat(woken).as(t.at("the EVD dat_cno_wait returns when the IA is destroyed")).isNull();
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_INVALID_STATE: a graceful close while the consumer still has a PZ, which leaves the IA open")
    void gracefulWithObjects(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        t.expectError(DatReturn.INVALID_STATE, "graceful dat_ia_close of an IA with a PZ", () -> ia.close(CloseFlag.GRACEFUL));
        assertThat(ia.isOpen()).as(t.at("the IA after the refused graceful close")).isTrue();
        ia.query();
        pz.close();
        ia.close(CloseFlag.GRACEFUL);
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_INVALID_STATE: a graceful close while the consumer still has an EVD")
    void gracefulWithEvd(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        EventDispatcher evd = ia.createEventDispatcher(t.qlen(), null, EvdFlags.SOFTWARE);
        t.expectError(DatReturn.INVALID_STATE, "graceful dat_ia_close of an IA with an EVD", () -> ia.close(CloseFlag.GRACEFUL));
        evd.close();
        ia.close(CloseFlag.GRACEFUL);
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_INVALID_PARAMETER: no close flag")
    void nullFlag(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ia_close with a null ia_flags", () -> ia.close(null));
        assertThat(ia.isOpen()).as(t.at("the IA after the refused close")).isTrue();
    }

    @ConformanceTest
    @DisplayName("dat_ia_close(3DAT) DAT_INVALID_HANDLE: closing a closed IA is the Java binding's no-op and the handle stays invalid")
    void closeTwice(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        ia.close();
        ia.close(CloseFlag.GRACEFUL);
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ia_query of a closed IA", () -> ia.query());
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ia_close of a closed IA with no flag: the handle is named first", () -> ia.close(null));
    }
}
