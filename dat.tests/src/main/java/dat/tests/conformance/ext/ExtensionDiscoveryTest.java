package dat.tests.conformance.ext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dat.api.CompletionFlags;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.IaStatisticsSnapshot;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.ext.Operation;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.util.List;
import org.junit.jupiter.api.DisplayName;

/**
 * How a consumer finds the extensions ({@code dat.api.ext}): each handle answers
 * {@code extension(type)} with what its provider offers and {@code Optional.empty()} otherwise,
 * never an exception; the IA's extension attributes and the provider's {@code dat.extension}
 * property name exactly what the handles offer; and an IA that offers {@link IaStatistics}
 * counts what is posted and completed.
 */
class ExtensionDiscoveryTest {

    /** An interface no provider offers. */
    interface NoSuchExtension {
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: an extension a handle does not offer is Optional.empty(), never an exception")
    void anExtensionNotOfferedIsEmpty(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        LocalMemoryRegion lmr = t.lmr(pz, 64, MemPrivileges.ALL);
        Endpoint ep = t.ia().createEndpoint(pz, evd, evd, null, null);
        for (DatHandle handle : List.of(t.ia(), pz, evd, lmr, ep)) {
            assertThatCode(() -> assertThat(handle.extension(NoSuchExtension.class)).isEmpty())
                    .as(t.at(handle + ".extension(an interface no provider offers)")).doesNotThrowAnyException();
            assertThat(handle.extension(String.class)).as(t.at(handle + ".extension(String.class)")).isEmpty();
        }
        assertThat(t.ia().extension(AtomicEndpoint.class)).as(t.at("the IA is no Endpoint")).isEmpty();
        assertThat(lmr.extension(ImmediateDataEndpoint.class)).as(t.at("an LMR is no Endpoint")).isEmpty();
        assertThat(ep.extension(IaStatistics.class)).as(t.at("an Endpoint is no IA")).isEmpty();
    }

    @ConformanceTest
    @DisplayName("dat_ep_free(3DAT) DAT_SUCCESS: a freed Endpoint still answers extension(type) as before; the extension's posts"
            + " answer DAT_INVALID_HANDLE before they look at their arguments")
    void aFreedEndpointKeepsItsExtensionsWhoseCallsNameTheHandle(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        Endpoint ep = t.ia().createEndpoint(pz, evd, evd, null, null);
        boolean atomics = ep.extension(AtomicEndpoint.class).isPresent();
        boolean immediate = ep.extension(ImmediateDataEndpoint.class).isPresent();
        ep.close();
        assertThatCode(() -> assertThat(ep.extension(AtomicEndpoint.class).isPresent()).as(t.at("AtomicEndpoint after the free"))
                .isEqualTo(atomics)).as(t.at("extension(AtomicEndpoint) of a freed Endpoint")).doesNotThrowAnyException();
        assertThatCode(() -> assertThat(ep.extension(ImmediateDataEndpoint.class).isPresent())
                .as(t.at("ImmediateDataEndpoint after the free")).isEqualTo(immediate))
                .as(t.at("extension(ImmediateDataEndpoint) of a freed Endpoint")).doesNotThrowAnyException();
        ep.extension(AtomicEndpoint.class).ifPresent(a -> {
            t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP,
                    a.postFetchAndAdd(1, null, 1, null, CompletionFlags.DEFAULT), "fetch-and-add on a freed Endpoint, no buffers");
            t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP,
                    a.postCompareAndSwap(0, 1, null, 2, null, CompletionFlags.DEFAULT), "compare-and-swap on a freed Endpoint, no buffers");
        });
        ep.extension(ImmediateDataEndpoint.class).ifPresent(i -> t.expectCode(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EP,
                i.postRdmaWriteImmediate(-1, null, 3, null, 7, CompletionFlags.DEFAULT),
                "RDMA write with immediate data on a freed Endpoint, -1 segments"));
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: the extension attributes and dat.extension name exactly the extensions the handles offer")
    void theDeclaredExtensionsAreTheOfferedOnes(IaUnderTest t) {
        ProtectionZone pz = t.pz();
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        Endpoint ep = t.ia().createEndpoint(pz, evd, evd, null, null);
        boolean atomics = ep.extension(AtomicEndpoint.class).isPresent();
        boolean immediate = ep.extension(ImmediateDataEndpoint.class).isPresent();
        boolean statistics = t.ia().extension(IaStatistics.class).isPresent();
        assertThat(Extensions.declared(t, IbExtension.ATTR_FETCH_AND_ADD)).as(t.at(IbExtension.ATTR_FETCH_AND_ADD + " is TRUE exactly"
                + " when the Endpoint offers AtomicEndpoint")).isEqualTo(atomics);
        assertThat(Extensions.declared(t, IbExtension.ATTR_CMP_AND_SWAP)).as(t.at(IbExtension.ATTR_CMP_AND_SWAP + " is TRUE exactly"
                + " when the Endpoint offers AtomicEndpoint")).isEqualTo(atomics);
        assertThat(Extensions.declared(t, IbExtension.ATTR_IMMED_DATA)).as(t.at(IbExtension.ATTR_IMMED_DATA + " is TRUE exactly"
                + " when the Endpoint offers ImmediateDataEndpoint")).isEqualTo(immediate);
        List<String> advertised = Extensions.advertised(t);
        assertThat(advertised.contains(AtomicEndpoint.class.getName())).as(t.at("dat.extension " + advertised + " lists"
                + " AtomicEndpoint exactly when it is offered")).isEqualTo(atomics);
        assertThat(advertised.contains(ImmediateDataEndpoint.class.getName())).as(t.at("dat.extension " + advertised + " lists"
                + " ImmediateDataEndpoint exactly when it is offered")).isEqualTo(immediate);
        assertThat(advertised.contains(IaStatistics.class.getName())).as(t.at("dat.extension " + advertised + " lists"
                + " IaStatistics exactly when it is offered")).isEqualTo(statistics);
    }

    @ConformanceTest
    @DisplayName("dat_ep_post_send(3DAT) DAT_SUCCESS: the IA's statistics count the send, its bytes, its completion and a refused post")
    void statisticsCountWhatIsPosted(IaUnderTest t) {
        Extensions.requireStatistics(t);
        Connection c = Extensions.connect(t);
        IaStatistics statistics = c.active.ia.extension(IaStatistics.class)
                .orElseThrow(() -> t.failure("dat.extension lists IaStatistics, but the IA does not offer it"));
        IaStatisticsSnapshot before = statistics.snapshot();
        t.expectSuccess(c.passive.ep.postRecv(1, c.passive.iov(0, 64), 1, CompletionFlags.DEFAULT), "dat_ep_post_recv");
        t.expectSuccess(c.active.ep.postSend(1, c.active.iov(0, 48), 2, CompletionFlags.DEFAULT), "dat_ep_post_send of 48 bytes");
        t.success(c.active.requestEvd, "the send");
        t.success(c.passive.recvEvd, "the receive");
        t.expectCode(DatReturn.INVALID_PARAMETER, c.active.ep.postSend(-1, null, 3, CompletionFlags.DEFAULT),
                "dat_ep_post_send of -1 segments");
        IaStatisticsSnapshot after = statistics.snapshot();
        assertThat(after.posted().get(Operation.SEND) - before.posted().get(Operation.SEND)).as(t.at("sends counted")).isEqualTo(1);
        assertThat(after.postedBytes().get(Operation.SEND) - before.postedBytes().get(Operation.SEND)).as(t.at("bytes sent counted"))
                .isEqualTo(48);
        assertThat(after.completions() - before.completions()).as(t.at("completions counted")).isEqualTo(1);
        assertThat(after.completedBytes() - before.completedBytes()).as(t.at("completed bytes counted")).isEqualTo(48);
        assertThat(after.totalPostErrors() - before.totalPostErrors()).as(t.at("refused posts counted")).isEqualTo(1);
        assertThat(after.postErrors().getOrDefault(DatReturn.INVALID_PARAMETER, 0L)
                - before.postErrors().getOrDefault(DatReturn.INVALID_PARAMETER, 0L)).as(t.at("the refusal counted as DAT_INVALID_PARAMETER"))
                .isEqualTo(1);
    }
}
