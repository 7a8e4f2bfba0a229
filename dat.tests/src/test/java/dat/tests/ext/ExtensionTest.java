package dat.tests.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatHandle;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ProviderDTO;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.spi.DatProviderConstants;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.osgi.test.common.annotation.InjectService;
import org.osgi.test.junit5.service.ServiceExtension;

/**
 * Conformance of the vendor extensions ({@code dat.api.ext}, OFED uDAPL 2.0
 * {@code dat_ib_extensions.h}), run against every IA under test (every registered IA whose
 * provider does not set {@code dat.conformance=false}) and against the test provider: an IA whose
 * provider does not offer an extension is skipped with the reason, one that offers it must do
 * what the extension's Javadoc says. Whatever a provider offers, asking for an extension it does
 * not have answers {@code Optional.empty()}, never an exception.
 */
@ExtendWith(ServiceExtension.class)
@Timeout(60)
class ExtensionTest {

    @InjectService(timeout = 5000)
    static DatRegistry registry;

    /** An interface no provider offers. */
    interface NoSuchExtension {
    }

    /** The IAs under test, and test0 (whose provider offers only statistics). */
    static Stream<String> iaNames() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (registry.findProviders("(dat.ia.name=sim0)").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // the IAs of provider services (not entries other tests add with addProvider or dat.conf, which are aliases)
        Stream<String> underTest = registry.findProviders("(!(dat.conformance=false))").stream()
                .filter(provider -> provider.origin() == ProviderDTO.Origin.DYNAMIC && provider.id() > 0)
                .map(ProviderDTO::iaName);
        return Stream.concat(underTest, Stream.of("test0")).distinct().sorted();
    }

    /** The IAs under test that carry data (the test provider has no Endpoints). */
    static Stream<String> dataIaNames() throws InterruptedException {
        return iaNames().filter(name -> !name.equals("test0"));
    }

    private static ProviderDTO provider(String iaName) {
        return registry.findProviders("(dat.ia.name=" + DatRegistry.escapeFilterValue(iaName) + ")").getFirst();
    }

    private static List<String> advertised(String iaName) {
        Object value = provider(iaName).properties().get(DatProviderConstants.DAT_EXTENSION);
        if (value instanceof String s) {
            return List.of(s);
        } else if (value instanceof String[] array) {
            return List.of(array);
        } else if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).toList();
        }
        return List.of();
    }

    /** Skips the test, with the reason, when the IA's provider does not advertise the extension. */
    private static void assumeOffered(String iaName, Class<?> extension) {
        Assumptions.assumeTrue(advertised(iaName).contains(extension.getName()),
                () -> "unsupported: IA " + iaName + " (provider " + provider(iaName).providerName() + ") does not offer "
                        + extension.getName() + " (its dat.extension lists " + advertised(iaName) + ")");
    }

    // ---------------------------------------------------------------------------------------------
    // discovery: every provider
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "DatHandle.extension: an extension the provider does not offer is Optional.empty() [{0}]")
    @MethodSource("iaNames")
    void anExtensionNotOfferedIsEmptyNotAnException(String iaName) {
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.SOFTWARE | EvdFlags.DTO);
            List<DatHandle> handles = new java.util.ArrayList<>(List.of(ia, evd));
            if (!iaName.equals("test0")) {
                ProtectionZone pz = ia.createProtectionZone();
                LocalMemoryRegion lmr = ia.registerMemory(Arena.ofAuto().allocate(64), pz, MemPrivileges.ALL);
                Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
                handles.addAll(List.of(pz, lmr, ep));
                for (DatHandle handle : handles) {
                    assertThatCode(() -> assertThat(handle.extension(NoSuchExtension.class)).isEmpty())
                            .as("%s.extension(an unknown interface)", handle).doesNotThrowAnyException();
                    assertThat(handle.extension(String.class)).as("%s.extension(String.class)", handle).isEmpty();
                }
                // an extension of another kind of handle is not offered by this one
                assertThat(ia.extension(AtomicEndpoint.class)).as("the IA is no Endpoint").isEmpty();
                assertThat(lmr.extension(ImmediateDataEndpoint.class)).as("an LMR is no Endpoint").isEmpty();
                assertThat(ep.extension(IaStatistics.class)).as("an Endpoint is no IA").isEmpty();
            } else {
                for (DatHandle handle : handles) {
                    assertThat(handle.extension(NoSuchExtension.class)).as("%s.extension(an unknown interface)", handle).isEmpty();
                }
            }
        }
    }

    @ParameterizedTest(name = "dat.extension lists exactly the extensions the handles offer [{0}]")
    @MethodSource("iaNames")
    void theAdvertisedExtensionsAreTheOfferedOnes(String iaName) {
        List<String> advertised = advertised(iaName);
        try (InterfaceAdapter ia = registry.openIa(iaName)) {
            assertThat(ia.extension(IaStatistics.class).isPresent()).as("IaStatistics offered by %s, dat.extension %s", iaName,
                    advertised).isEqualTo(advertised.contains(IaStatistics.class.getName()));
            if (!iaName.equals("test0")) {
                ProtectionZone pz = ia.createProtectionZone();
                EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.DTO);
                Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
                for (Class<?> endpointExtension : List.of(AtomicEndpoint.class, ImmediateDataEndpoint.class)) {
                    assertThat(ep.extension(endpointExtension).isPresent())
                            .as("%s offered by an Endpoint of %s, dat.extension %s", endpointExtension.getSimpleName(), iaName,
                                    advertised)
                            .isEqualTo(advertised.contains(endpointExtension.getName()));
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // atomics
    // ---------------------------------------------------------------------------------------------

    private static final int ATOMIC_PRIVILEGES = MemPrivileges.ALL | IbExtension.MEM_PRIV_REMOTE_ATOMIC;

    private static DatEvent expectExtensionCompletion(EventDispatcher evd, int type, String what) {
        DatEvent event = Link.expect(evd, IbExtension.IB_DTO_EVENT, what);
        assertThat(IbExtension.typeName(event.extensionType())).as("the completion type of %s", what)
                .isEqualTo(IbExtension.typeName(type));
        return event;
    }

    @ParameterizedTest(name = "dat_ib_post_fetch_and_add: the old value comes back, the remote value grows [{0}]")
    @MethodSource("dataIaNames")
    void fetchAndAdd(String iaName) {
        assumeOffered(iaName, AtomicEndpoint.class);
        try (Link link = Link.open(registry, iaName, ATOMIC_PRIVILEGES)) {
            AtomicEndpoint atomic = link.active.ep.extension(AtomicEndpoint.class).orElseThrow();
            link.passive.buffer.set(ValueLayout.JAVA_LONG, 64, 40L);
            int status = atomic.postFetchAndAdd(2L, link.active.segment(0, 8), 77L, link.passive.remote(64, 8),
                    CompletionFlags.DEFAULT);
            assertThat(DatReturn.describe(status)).isEqualTo(DatReturn.describe(DatReturn.SUCCESS));
            DatEvent done = expectExtensionCompletion(link.active.requestEvd, IbExtension.FETCH_AND_ADD, "the fetch-and-add");
            assertThat(DtoCompletionStatus.name(done.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
            assertThat(done.userCookie()).isEqualTo(77L);
            assertThat(done.transferredLength()).isEqualTo(8);
            assertThat(done.endpoint()).isSameAs(link.active.ep);
            assertThat(link.active.buffer.get(ValueLayout.JAVA_LONG, 0)).as("the value before the addition").isEqualTo(40L);
            assertThat(link.passive.buffer.get(ValueLayout.JAVA_LONG, 64)).as("the remote value after it").isEqualTo(42L);
        }
    }

    @ParameterizedTest(name = "dat_ib_post_cmp_and_swap: swaps when equal, not otherwise, returns the old value [{0}]")
    @MethodSource("dataIaNames")
    void compareAndSwap(String iaName) {
        assumeOffered(iaName, AtomicEndpoint.class);
        try (Link link = Link.open(registry, iaName, ATOMIC_PRIVILEGES)) {
            AtomicEndpoint atomic = link.active.ep.extension(AtomicEndpoint.class).orElseThrow();
            link.passive.buffer.set(ValueLayout.JAVA_LONG, 0, 5L);
            assertThat(atomic.postCompareAndSwap(5L, 9L, link.active.segment(0, 8), 1L, link.passive.remote(0, 8),
                    CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            expectExtensionCompletion(link.active.requestEvd, IbExtension.CMP_AND_SWAP, "the matching compare-and-swap");
            assertThat(link.active.buffer.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(5L);
            assertThat(link.passive.buffer.get(ValueLayout.JAVA_LONG, 0)).as("swapped").isEqualTo(9L);

            assertThat(atomic.postCompareAndSwap(5L, 11L, link.active.segment(8, 8), 2L, link.passive.remote(0, 8),
                    CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            DatEvent done = expectExtensionCompletion(link.active.requestEvd, IbExtension.CMP_AND_SWAP,
                    "the compare-and-swap that does not match");
            assertThat(done.userCookie()).isEqualTo(2L);
            assertThat(link.active.buffer.get(ValueLayout.JAVA_LONG, 8)).as("the value found").isEqualTo(9L);
            assertThat(link.passive.buffer.get(ValueLayout.JAVA_LONG, 0)).as("not swapped").isEqualTo(9L);
        }
    }

    @ParameterizedTest(name = "atomics are atomic: concurrent fetch-and-adds from two Endpoints lose no increment [{0}]")
    @MethodSource("dataIaNames")
    void fetchAndAddIsAtomic(String iaName) throws Exception {
        assumeOffered(iaName, AtomicEndpoint.class);
        int perSide = 500;
        try (Link link = Link.open(registry, iaName, ATOMIC_PRIVILEGES)) {
            link.passive.buffer.set(ValueLayout.JAVA_LONG, 0, 0L);
            // the active side adds to the passive side's operand, the passive side to its own through the link
            Thread other = Thread.ofPlatform().start(() -> addRepeatedly(link.passive, link.passive.remote(0, 8), perSide));
            addRepeatedly(link.active, link.passive.remote(0, 8), perSide);
            other.join(30_000);
            assertThat(link.passive.buffer.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(2L * perSide);
        }
    }

    private static void addRepeatedly(Link.Side side, RmrTriplet operand, int times) {
        AtomicEndpoint atomic = side.ep.extension(AtomicEndpoint.class).orElseThrow();
        LmrTriplet result = side.segment(2048, 8);
        DatEvent event = new DatEvent();
        for (int i = 0; i < times; i++) {
            int status;
            while ((status = atomic.postFetchAndAdd(1L, result, i, operand, CompletionFlags.DEFAULT)) != DatReturn.SUCCESS) {
                assertThat(DatReturn.typeOf(status)).isEqualTo(DatReturn.INSUFFICIENT_RESOURCES);
                Thread.onSpinWait();
            }
            assertThat(side.requestEvd.await(Link.EVENT_TIMEOUT_MICROS, 1, event)).isEqualTo(DatReturn.SUCCESS);
            assertThat(event.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        }
    }

    @ParameterizedTest(name = "atomics check their buffers: 8 bytes, aligned, connected Endpoint [{0}]")
    @MethodSource("dataIaNames")
    void atomicsRejectBadBuffers(String iaName) {
        assumeOffered(iaName, AtomicEndpoint.class);
        try (Link link = Link.open(registry, iaName, ATOMIC_PRIVILEGES)) {
            AtomicEndpoint atomic = link.active.ep.extension(AtomicEndpoint.class).orElseThrow();
            assertThat(DatReturn.typeName(atomic.postFetchAndAdd(1, link.active.segment(0, 4), 0, link.passive.remote(0, 8), 0)))
                    .as("a 4-byte local buffer").isEqualTo(DatReturn.typeName(DatReturn.LENGTH_ERROR));
            assertThat(DatReturn.typeName(atomic.postFetchAndAdd(1, link.active.segment(0, 8), 0, link.passive.remote(0, 16), 0)))
                    .as("a 16-byte remote buffer").isEqualTo(DatReturn.typeName(DatReturn.LENGTH_ERROR));
            assertThat(DatReturn.typeName(atomic.postCompareAndSwap(1, 2, link.active.segment(0, 8), 0, link.passive.remote(4, 8), 0)))
                    .as("a remote operand not aligned to 8 bytes").isEqualTo(DatReturn.typeName(DatReturn.INVALID_PARAMETER));
            assertThat(DatReturn.typeName(atomic.postFetchAndAdd(1, null, 0, link.passive.remote(0, 8), 0)))
                    .as("no local buffer").isEqualTo(DatReturn.typeName(DatReturn.INVALID_PARAMETER));
            ProtectionZone pz = link.active.ia.createProtectionZone();
            EventDispatcher evd = link.active.ia.createEventDispatcher(8, null, EvdFlags.DTO);
            Endpoint unconnected = link.active.ia.createEndpoint(pz, evd, evd, null, null);
            AtomicEndpoint idle = unconnected.extension(AtomicEndpoint.class).orElseThrow();
            assertThat(DatReturn.typeName(idle.postFetchAndAdd(1, link.active.segment(0, 8), 0, link.passive.remote(0, 8), 0)))
                    .as("an unconnected Endpoint").isEqualTo(DatReturn.typeName(DatReturn.INVALID_STATE));
        }
    }

    @ParameterizedTest(name = "atomics need DAT_IB_MEM_PRIV_REMOTE_ATOMIC on the target: else DAT_DTO_ERR_REMOTE_ACCESS [{0}]")
    @MethodSource("dataIaNames")
    void atomicsNeedTheRemoteAtomicPrivilege(String iaName) {
        assumeOffered(iaName, AtomicEndpoint.class);
        try (Link link = Link.open(registry, iaName, MemPrivileges.ALL)) {
            AtomicEndpoint atomic = link.active.ep.extension(AtomicEndpoint.class).orElseThrow();
            link.passive.buffer.set(ValueLayout.JAVA_LONG, 0, 3L);
            assertThat(atomic.postFetchAndAdd(1, link.active.segment(0, 8), 5, link.passive.remote(0, 8), 0))
                    .isEqualTo(DatReturn.SUCCESS);
            DatEvent done = Link.expect(link.active.requestEvd, IbExtension.IB_DTO_EVENT, "the refused fetch-and-add");
            assertThat(DtoCompletionStatus.name(done.status()))
                    .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
            assertThat(link.passive.buffer.get(ValueLayout.JAVA_LONG, 0)).as("untouched").isEqualTo(3L);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // RDMA write with immediate data
    // ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "dat_ib_post_rdma_write_immed: the data lands, the peer's receive carries the immediate value [{0}]")
    @MethodSource("dataIaNames")
    void rdmaWriteWithImmediateData(String iaName) {
        assumeOffered(iaName, ImmediateDataEndpoint.class);
        try (Link link = Link.open(registry, iaName, MemPrivileges.ALL)) {
            ImmediateDataEndpoint immediate = link.active.ep.extension(ImmediateDataEndpoint.class).orElseThrow();
            for (int i = 0; i < 64; i++) {
                link.active.buffer.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            assertThat(link.passive.ep.postRecv(0, null, 31L, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            LmrTriplet[] iov = {link.active.segment(0, 64)};
            assertThat(immediate.postRdmaWriteImmediate(1, iov, 32L, link.passive.remote(256, 64), 0xCAFEBABE,
                    CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);

            DatEvent sent = expectExtensionCompletion(link.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the write");
            assertThat(sent.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(sent.userCookie()).isEqualTo(32L);
            assertThat(sent.transferredLength()).isEqualTo(64);
            DatEvent received = expectExtensionCompletion(link.passive.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA,
                    "the receive the write consumed");
            assertThat(received.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
            assertThat(received.userCookie()).as("the receive's cookie").isEqualTo(31L);
            assertThat(received.immediateData()).isEqualTo(0xCAFEBABE);
            assertThat(received.transferredLength()).as("the bytes written").isEqualTo(64);
            assertThat(received.endpoint()).isSameAs(link.passive.ep);
            for (int i = 0; i < 64; i++) {
                assertThat(link.passive.buffer.get(ValueLayout.JAVA_BYTE, 256 + i)).isEqualTo((byte) (i + 1));
            }
        }
    }

    @ParameterizedTest(name = "dat_ib_post_rdma_write_immed with no data: a notification alone [{0}]")
    @MethodSource("dataIaNames")
    void immediateDataAlone(String iaName) {
        assumeOffered(iaName, ImmediateDataEndpoint.class);
        try (Link link = Link.open(registry, iaName, MemPrivileges.ALL)) {
            ImmediateDataEndpoint immediate = link.active.ep.extension(ImmediateDataEndpoint.class).orElseThrow();
            assertThat(link.passive.ep.postRecv(0, null, 1L, CompletionFlags.DEFAULT)).isEqualTo(DatReturn.SUCCESS);
            assertThat(immediate.postRdmaWriteImmediate(0, null, 2L, link.passive.remote(0, 0), -7, CompletionFlags.DEFAULT))
                    .isEqualTo(DatReturn.SUCCESS);
            expectExtensionCompletion(link.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the empty write");
            DatEvent received = expectExtensionCompletion(link.passive.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA,
                    "the notification");
            assertThat(received.immediateData()).isEqualTo(-7);
            assertThat(received.transferredLength()).isZero();
        }
    }

    @ParameterizedTest(name = "dat_ib_post_rdma_write_immed on an unconnected Endpoint: DAT_INVALID_STATE [{0}]")
    @MethodSource("dataIaNames")
    void immediateDataNeedsAConnection(String iaName) {
        assumeOffered(iaName, ImmediateDataEndpoint.class);
        try (Arena arena = Arena.ofShared(); InterfaceAdapter ia = registry.openIa(iaName)) { // the IA closes first
            ProtectionZone pz = ia.createProtectionZone();
            EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.DTO);
            LocalMemoryRegion lmr = ia.registerMemory(arena.allocate(64), pz, MemPrivileges.ALL);
            Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
            ImmediateDataEndpoint immediate = ep.extension(ImmediateDataEndpoint.class).orElseThrow();
            int status = immediate.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 8)}, 0,
                    RmrTriplet.of(lmr, 8, 8), 1, CompletionFlags.DEFAULT);
            assertThat(DatReturn.typeName(status)).isEqualTo(DatReturn.typeName(DatReturn.INVALID_STATE));
        }
    }
}
