package dat.provider.sim.internal.core;

import dat.provider.sim.internal.Codes;
import dat.provider.sim.internal.Fabric;
import dat.provider.sim.internal.SimIaFactory;
import dat.provider.sim.internal.ThreadLimit;

import static dat.provider.sim.internal.Codes.throwsCode;
import static dat.provider.sim.internal.Codes.throwsType;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CloseFlag;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.HandleType;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.MemoryType;
import dat.api.ProtectionZone;
import dat.api.PzParamMask;
import dat.api.spi.IaOpenRequest;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** dat_ia_open/query/close, dat_pz_*, dat_get_handle_type, dat_set/get_consumer_context. */
@Timeout(30)
class IaPzHandleTest {

    private final Fabric f = new Fabric();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void dat_ia_open_SUCCESS_createsAnAsyncEvdOfAtLeastTheQueueLength() {
        InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("sim0", 9, null, ""));
        IaQuery q = ia.query();
        assertThat(q.asyncEvd().query().qlen()).isGreaterThanOrEqualTo(9);
        assertThat(q.asyncEvd().query().flags() & EvdFlags.ASYNC).isNotZero();
        assertThat(q.asyncEvd().query().cno()).isNull();
        assertThat(q.iaAttributes().adapterName()).isEqualTo("sim0");
        assertThat(q.providerAttributes().threadSafe()).isTrue();
    }

    @Test
    void dat_ia_open_PROVIDER_NOT_FOUND_forANameNotServed() {
        throwsCode(() -> f.factory.openIa(new IaOpenRequest("nosuch", 8, null, "")), DatReturn.PROVIDER_NOT_FOUND,
                DatReturn.NAME_NOT_REGISTERED);
    }

    @Test
    void dat_ia_open_INVALID_HANDLE_forAnAsyncEvdThatIsNotAnAsyncEvdOfTheProvider() {
        InterfaceAdapter ia = f.open("sim0");
        EventDispatcher dto = ia.createEventDispatcher(8, null, EvdFlags.DTO);
        throwsCode(() -> f.factory.openIa(new IaOpenRequest("sim0", 8, dto, "")), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_ASYNC);
        try (Fabric other = new Fabric()) {
            EventDispatcher foreign = other.open("sim0").query().asyncEvd();
            throwsType(() -> f.factory.openIa(new IaOpenRequest("sim0", 8, foreign, "")), DatReturn.INVALID_HANDLE);
        }
    }

    @Test
    void dat_ia_open_INVALID_PARAMETER_forABadQueueLength() {
        throwsType(() -> f.factory.openIa(new IaOpenRequest("sim0", 0, null, "")), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_ia_open_INVALID_PARAMETER_forBadIaParams() {
        throwsType(() -> f.factory.openIa(new IaOpenRequest("simX", 8, null, "max_eps=zero")), DatReturn.INVALID_PARAMETER);
        throwsType(() -> f.factory.openIa(new IaOpenRequest("simY", 8, null, "colour=blue")), DatReturn.INVALID_PARAMETER);
    }

    /** max_private_data is 64 (the pages' least) to SimLimits.MAX_PRIVATE_DATA, what TCP frames carry. */
    @Test
    void dat_ia_open_INVALID_PARAMETER_forMaxPrivateDataOutOfRange() {
        throwsType(() -> f.factory.openIa(new IaOpenRequest("simP", 8, null, "max_private_data=63")), DatReturn.INVALID_PARAMETER);
        throwsType(() -> f.factory.openIa(new IaOpenRequest("simQ", 8, null, "max_private_data=" + (SimLimits.MAX_PRIVATE_DATA + 1))),
                DatReturn.INVALID_PARAMETER);
        try (InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("simR", 8, null, "max_private_data=" + SimLimits.MAX_PRIVATE_DATA))) {
            assertThat(ia.query().providerAttributes().maxPrivateDataSize()).isEqualTo(SimLimits.MAX_PRIVATE_DATA);
        }
    }

    @Test
    void dat_ia_open_sharesAPassedInAsyncEvd_andAsyncExistsGivesOutOfScope() {
        InterfaceAdapter first = f.open("sim0");
        EventDispatcher async = first.query().asyncEvd();
        InterfaceAdapter second = f.factory.openIa(new IaOpenRequest("sim0", 8, async, ""));
        assertThat(second.query().asyncEvd()).isSameAs(async);
        InterfaceAdapter third = f.factory.openIa(new IaOpenRequest("sim0", 8, EventDispatcher.ASYNC_EXISTS, ""));
        assertThat(third.query().asyncEvd()).isSameAs(EventDispatcher.OUT_OF_SCOPE);
        second.close(CloseFlag.GRACEFUL);
        assertThat(async.isOpen()).as("a passed-in async EVD is not destroyed by dat_ia_close(3DAT)").isTrue();
        third.close(CloseFlag.GRACEFUL);
    }

    @Test
    void dat_ia_open_staticRegistryParamsCreateAnIaWithItsAddressAndLimits() {
        InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("simStatic", 8, null, "addr=127.77.9.9:7000 max_pzs=2"));
        assertThat(ia.query().iaAttributes().iaAddress().toString()).isEqualTo("/127.77.9.9:7000");
        assertThat(ia.query().iaAttributes().maxPzs()).isEqualTo(2);
        ia.createProtectionZone();
        ia.createProtectionZone();
        throwsCode(ia::createProtectionZone, DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_PROTECTION_DOMAIN);
    }

    @Test
    void dat_ia_open_roAwarePrefixIsRemoved() {
        assertThat(f.factory.openIa(new IaOpenRequest("RO_AWARE_sim0", 8, null, "")).name()).isEqualTo("sim0");
    }

    @Test
    void dat_ia_query_INVALID_PARAMETER_forUndefinedMaskBits() {
        InterfaceAdapter ia = f.open("sim0");
        throwsType(() -> ia.query(1L << 40, 0), DatReturn.INVALID_PARAMETER);
        throwsType(() -> ia.query(0, 1L << 40), DatReturn.INVALID_PARAMETER);
    }

    @Test
    void dat_ia_query_attributesTellTheTruth() {
        IaQuery q = f.open("sim0").query();
        assertThat(q.providerAttributes().lmrMemTypesSupported()).contains(MemoryType.VIRTUAL, MemoryType.LMR,
                MemoryType.SHARED_VIRTUAL);
        assertThat(q.providerAttributes().maxPrivateDataSize()).isGreaterThanOrEqualTo(64);
        assertThat(q.providerAttributes().srqSupported()).isTrue();
        assertThat(q.providerAttributes().lmrSyncRequired()).isFalse();
        assertThat(q.iaAttributes().iaAddress().getAddress().getHostAddress()).startsWith("127.77.");
    }

    @Test
    void dat_ia_close_INVALID_STATE_gracefulWithObjects_thenAbruptSucceeds() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        throwsCode(() -> ia.close(CloseFlag.GRACEFUL), DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_IA_IN_USE);
        assertThat(ia.isOpen()).isTrue();
        ia.close(CloseFlag.ABRUPT);
        assertThat(pz.isOpen()).isFalse();
        throwsType(pz::query, DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_ia_close_gracefulSucceedsWithOnlyTheAsyncEvd() {
        InterfaceAdapter ia = f.open("sim0");
        EventDispatcher async = ia.query().asyncEvd();
        ia.createProtectionZone().close();
        ia.close(CloseFlag.GRACEFUL);
        assertThat(ia.isOpen()).isFalse();
        assertThat(async.isOpen()).as("the async EVD created by dat_ia_open is destroyed").isFalse();
    }

    @Test
    void dat_ia_close_INVALID_PARAMETER_forANullFlag() {
        InterfaceAdapter ia = f.open("sim0");
        throwsCode(() -> ia.close(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
    }

    @Test
    void dat_ia_close_abruptUnblocksEvdWaitersWithAbort() throws Exception {
        InterfaceAdapter ia = f.open("sim0");
        EventDispatcher evd = ia.createEventDispatcher(4, null, EvdFlags.SOFTWARE);
        int[] rc = new int[1];
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = evd.await(dat.api.DatConstants.TIMEOUT_INFINITE, 1, new DatEvent()));
        Thread.sleep(100);
        ia.close();
        waiter.join(5000);
        assertThat(waiter.isAlive()).isFalse();
        Codes.isType(rc[0], DatReturn.ABORT);
    }

    @Test
    void dat_ia_close_closingAClosedIaDoesNothing() {
        InterfaceAdapter ia = f.open("sim0");
        ia.close();
        ia.close();
        ia.close(CloseFlag.GRACEFUL);
    }

    @Test
    void dat_pz_create_INSUFFICIENT_RESOURCES_pastMaxPzs_thenRecovers() {
        InterfaceAdapter ia = f.factory.openIa(new IaOpenRequest("simPz", 8, null, "max_pzs=3"));
        ProtectionZone a = ia.createProtectionZone();
        ia.createProtectionZone();
        ia.createProtectionZone();
        throwsCode(ia::createProtectionZone, DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_PROTECTION_DOMAIN);
        a.close();
        ia.createProtectionZone();
    }

    @Test
    void dat_ia_query_and_dat_pz_create_INVALID_HANDLE_onAClosedIa() {
        InterfaceAdapter ia = f.open("sim0");
        ia.close();
        throwsCode(ia::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
        throwsCode(ia::createProtectionZone, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_IA);
    }

    @Test
    void dat_pz_query_SUCCESS_and_INVALID_PARAMETER_and_INVALID_HANDLE() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        assertThat(pz.query(PzParamMask.ALL).ia()).isSameAs(ia);
        throwsCode(() -> pz.query(0x80), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        pz.close();
        throwsCode(pz::query, DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_PZ);
    }

    @Test
    void dat_pz_free_INVALID_STATE_whileAnLmrUsesIt() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        var lmr = ia.registerMemory(f.memory(64), pz, 0x11);
        throwsCode(pz::close, DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_PZ_IN_USE);
        lmr.close();
        pz.close();
        pz.close(); // a second free is a no-op
    }

    @Test
    void dat_get_handle_type_everyType_and_INVALID_HANDLE() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        assertThat(ia.handleType()).isEqualTo(HandleType.IA);
        assertThat(pz.handleType()).isEqualTo(HandleType.PZ);
        assertThat(ia.createEventDispatcher(4, null, EvdFlags.DTO).handleType()).isEqualTo(HandleType.EVD);
        assertThat(ia.createNotificationObject(null).handleType()).isEqualTo(HandleType.CNO);
        assertThat(pz.createRemoteMemoryRegion().handleType()).isEqualTo(HandleType.RMR);
        assertThat(ia.registerMemory(f.memory(8), pz, 0x11).handleType()).isEqualTo(HandleType.LMR);
        assertThat(ia.createEndpoint(pz, null, null, null, null).handleType()).isEqualTo(HandleType.EP);
        pz.createRemoteMemoryRegion().close();
        ia.close();
        throwsType(pz::handleType, DatReturn.INVALID_HANDLE);
    }

    @Test
    void dat_set_consumer_context_and_dat_get_consumer_context() {
        InterfaceAdapter ia = f.open("sim0");
        ProtectionZone pz = ia.createProtectionZone();
        assertThat(pz.consumerContext()).isNull();
        Object ctx = new Object();
        pz.setConsumerContext(ctx);
        assertThat(pz.consumerContext()).isSameAs(ctx);
        pz.setConsumerContext(null);
        assertThat(pz.consumerContext()).isNull();
        pz.close();
        throwsType(() -> pz.setConsumerContext(ctx), DatReturn.INVALID_HANDLE);
        throwsType(pz::consumerContext, DatReturn.INVALID_HANDLE);
    }

    @Test
    void serviceLoaderFindsTheFactoryWithItsProperties() {
        var factories = ServiceLoader.load(dat.api.spi.DatIaFactory.class).stream().map(ServiceLoader.Provider::get).toList();
        assertThat(factories).anySatisfy(factory -> {
            assertThat(factory).isInstanceOf(SimIaFactory.class);
            assertThat(factory.properties()).containsEntry("dat.provider.name", "sim").containsEntry("dat.thread.safe", true)
                    .containsEntry("dat.api.version", "1.2");
            InterfaceAdapter ia = factory.openIa(new IaOpenRequest("sim0", 8, null, ""));
            assertThat(ia.name()).isEqualTo("sim0");
            assertThat(((SimIaFactory) factory).shutdown()).isTrue();
        });
    }
}
