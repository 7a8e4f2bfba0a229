package dat.tests.conformance.ext;

import dat.api.CloseFlag;
import dat.api.EpState;
import dat.api.EventNumber;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.api.spi.DatProviderConstants;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.IaUnderTest;
import java.util.List;

/**
 * What the extension tests share: whether the IA under test offers an extension, as its
 * provider declares it. The InfiniBand extensions are declared, as in OFED uDAPL, by the
 * provider-specific attributes of {@code dat_ia_query} ({@link IbExtension#ATTR_FETCH_AND_ADD},
 * {@link IbExtension#ATTR_CMP_AND_SWAP}, {@link IbExtension#ATTR_IMMED_DATA} set to
 * {@code "TRUE"}); the counters by the provider's {@code dat.extension} service property. A test of
 * an extension the provider does not declare is skipped as unsupported, naming the attribute; one
 * it declares must work.
 */
final class Extensions {

    private Extensions() {
    }

    /** Whether a provider-specific attribute is {@code "TRUE"}, as OFED's extension attributes are. */
    static boolean declared(IaUnderTest t, String attribute) {
        return "TRUE".equalsIgnoreCase(t.provider().providerSpecificAttributes().get(attribute));
    }

    private static String describe(IaUnderTest t, String attribute) {
        String value = t.provider().providerSpecificAttributes().get(attribute);
        return attribute + " (provider-specific attribute " + (value == null ? "absent" : "'" + value + "'") + ")";
    }

    /** Skips unless the provider declares fetch-and-add and compare-and-swap. */
    static void requireAtomics(IaUnderTest t) {
        t.requireSupported(declared(t, IbExtension.ATTR_FETCH_AND_ADD), describe(t, IbExtension.ATTR_FETCH_AND_ADD));
        t.requireSupported(declared(t, IbExtension.ATTR_CMP_AND_SWAP), describe(t, IbExtension.ATTR_CMP_AND_SWAP));
    }

    /** Skips unless the provider declares RDMA write with immediate data. */
    static void requireImmediateData(IaUnderTest t) {
        t.requireSupported(declared(t, IbExtension.ATTR_IMMED_DATA), describe(t, IbExtension.ATTR_IMMED_DATA));
    }

    /** The extension interfaces the IA's provider lists in {@code dat.extension}, as the registry has them. */
    static List<String> advertised(IaUnderTest t) {
        return t.registeredNames(DatProviderConstants.DAT_EXTENSION).orElse(List.of());
    }

    /** Skips unless the provider lists {@link IaStatistics} in {@code dat.extension}. */
    static void requireStatistics(IaUnderTest t) {
        t.requireSupported(advertised(t).contains(IaStatistics.class.getName()), IaStatistics.class.getName()
                + " (the provider's dat.extension lists " + advertised(t) + ")");
    }

    /** The atomics of the active side, which a provider that declares them must offer. */
    static AtomicEndpoint atomic(IaUnderTest t, Connection.Side side) {
        return side.ep.extension(AtomicEndpoint.class).orElseThrow(() -> t.failure(
                "the provider declares DAT_IB_FETCH_AND_ADD and DAT_IB_CMP_AND_SWAP, but its Endpoint offers no AtomicEndpoint"));
    }

    /** The immediate-data writes of a side, which a provider that declares them must offer. */
    static ImmediateDataEndpoint immediate(IaUnderTest t, Connection.Side side) {
        return side.ep.extension(ImmediateDataEndpoint.class).orElseThrow(() -> t.failure(
                "the provider declares DAT_IB_IMMED_DATA, but its Endpoint offers no ImmediateDataEndpoint"));
    }

    /** Disconnects the active side abruptly and waits until its Endpoint is {@code DISCONNECTED}. */
    static void disconnectActive(IaUnderTest t, Connection c) {
        c.active.ep.disconnect(CloseFlag.ABRUPT);
        t.event(c.active.connectEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED");
        t.awaitState(c.active.ep, EpState.DISCONNECTED, "after the disconnect");
    }

    /** Two connected sides on two instances of the IA under test in this process (extension events do not cross a peer agent). */
    static Connection connect(IaUnderTest t) {
        return t.connection().ias(t.ia(), t.open()).connect();
    }
}
