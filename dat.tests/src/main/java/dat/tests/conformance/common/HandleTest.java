package dat.tests.conformance.common;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.ConnectionRequest;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.InterfaceAdapter;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.PspFlag;
import dat.api.SrqAttributes;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_get_handle_type(3DAT), dat_set_consumer_context(3DAT), dat_get_consumer_context(3DAT): what
 * every handle type answers.
 */
class HandleTest {

    /** One live handle of every type the IA supports, with the type it must report. */
    static Map<DatHandle, HandleType> everyHandle(IaUnderTest t) {
        Map<DatHandle, HandleType> handles = new LinkedHashMap<>();
        InterfaceAdapter ia = t.ia();
        handles.put(ia, HandleType.IA);
        ProtectionZone pz = t.pz();
        handles.put(pz, HandleType.PZ);
        handles.put(t.evd(EvdFlags.SOFTWARE), HandleType.EVD);
        handles.put(ia.createNotificationObject(null), HandleType.CNO);
        handles.put(t.lmr(pz, 4096, MemPrivileges.ALL), HandleType.LMR);
        Endpoint ep = t.ep();
        handles.put(ep, HandleType.EP);
        handles.put(ia.createPublicServicePointAny(t.evd(EvdFlags.CR), PspFlag.CONSUMER), HandleType.PSP);
        handles.put(ia.createReservedServicePoint(t.unusedConnQual(ia), t.ep(), t.evd(EvdFlags.CR)), HandleType.RSP);
        if (t.supportsRmrs()) {
            handles.put(pz.createRemoteMemoryRegion(), HandleType.RMR);
        }
        if (t.provider().srqSupported()) {
            handles.put(ia.createSharedReceiveQueue(pz, SrqAttributes.builder().maxRecvDtos(4).maxRecvIov(1).build()), HandleType.SRQ);
        }
        Connection connection = t.connection().create();
        ConnectionRequest cr = connection.request();
        handles.put(cr, HandleType.CR);
        return handles;
    }

    @ConformanceTest
    @DisplayName("dat_get_handle_type(3DAT) DAT_SUCCESS: every handle reports its own type")
    void handleTypes(IaUnderTest t) {
        everyHandle(t).forEach((handle, type) ->
                assertThat(handle.handleType()).as(t.at("dat_get_handle_type of a " + type + " handle")).isEqualTo(type));
    }

    @ConformanceTest
    @DisplayName("dat_get_handle_type(3DAT) DAT_INVALID_HANDLE: a freed handle")
    void handleTypeFreed(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_get_handle_type of a freed PZ", () -> pz.handleType());
        Endpoint ep = t.ep();
        ep.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_get_handle_type of a freed Endpoint", () -> ep.handleType());
    }

    @ConformanceTest
    @DisplayName("dat_get_consumer_context(3DAT) DAT_SUCCESS: a new handle has no consumer context")
    void noContextAtFirst(IaUnderTest t) {
        everyHandle(t).forEach((handle, type) ->
                assertThat(handle.consumerContext()).as(t.at("the context of a new " + type + " handle")).isNull());
    }

    @ConformanceTest
    @DisplayName("dat_set_consumer_context(3DAT) DAT_SUCCESS: every handle keeps the context it was given, unlooked-at, until replaced or removed")
    void setAndGet(IaUnderTest t) {
        Map<DatHandle, HandleType> handles = everyHandle(t);
        for (Map.Entry<DatHandle, HandleType> entry : handles.entrySet()) {
            Object first = new Object();
            Object second = "replacement for " + entry.getValue();
            entry.getKey().setConsumerContext(first);
            assertThat(entry.getKey().consumerContext()).as(t.at("the context set on a " + entry.getValue() + " handle"))
                    .isSameAs(first);
            entry.getKey().setConsumerContext(second);
            assertThat(entry.getKey().consumerContext()).as(t.at("the new context replaces the old one on a "
                    + entry.getValue() + " handle")).isSameAs(second);
            entry.getKey().setConsumerContext(null);
            assertThat(entry.getKey().consumerContext()).as(t.at("NULL disassociates the context of a " + entry.getValue()
                    + " handle")).isNull();
        }
    }

    @ConformanceTest
    @DisplayName("dat_get_consumer_context(3DAT) DAT_SUCCESS: contexts of different handles are independent")
    void independentContexts(IaUnderTest t) {
        ProtectionZone a = t.pz();
        ProtectionZone b = t.pz();
        a.setConsumerContext("a");
        b.setConsumerContext("b");
        assertThat(a.consumerContext()).as(t.at("the context of the first PZ")).isEqualTo("a");
        assertThat(b.consumerContext()).as(t.at("the context of the second PZ")).isEqualTo("b");
    }

    @ConformanceTest
    @DisplayName("dat_get_consumer_context(3DAT) DAT_INVALID_HANDLE: a freed handle")
    void getContextFreed(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        pz.setConsumerContext("context");
        pz.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_get_consumer_context of a freed PZ", () -> pz.consumerContext());
    }

    @ConformanceTest
    @DisplayName("dat_set_consumer_context(3DAT) DAT_INVALID_HANDLE: a freed handle")
    void setContextFreed(IaUnderTest t) {
        var evd = t.evd(EvdFlags.SOFTWARE);
        evd.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_set_consumer_context of a freed EVD", () -> evd.setConsumerContext("x"));
    }

    @ConformanceTest
    @DisplayName("dat_set_consumer_context(3DAT) DAT_INVALID_HANDLE: a handle of a closed IA")
    void setContextClosedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ProtectionZone pz = ia.createProtectionZone();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_set_consumer_context of a PZ of a closed IA", () -> pz.setConsumerContext("x"));
    }
}
