package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IaStatistics;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.provider.ofi.internal.ffi.Fi;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which IAs offer atomics, and how their operands reach libfabric. libfabric's tcp provider has
 * none: its IA declares none, its Endpoints offer no {@link AtomicEndpoint}, and the atomic
 * privilege is an undefined bit there. The atomics themselves run where libfabric's verbs provider
 * has them: the conformance suite on {@code ofi-verbs-rxe0} in the soft-RoCE VM.
 */
class AtomicsTest extends LoopbackIaTest {

    @Test
    void tcpOffersNoAtomics() {
        Map<String, String> specific = ia.query().providerAttributes().providerSpecificAttributes();
        assertThat(specific).doesNotContainKeys(IbExtension.ATTR_FETCH_AND_ADD, IbExtension.ATTR_CMP_AND_SWAP,
                dat.api.ProviderAttributes.DEVIATION_PREFIX + Attributes.REMOTE_ATOMIC_PRIVILEGE);
        ProtectionZone pz = ia.createProtectionZone();
        EventDispatcher evd = ia.createEventDispatcher(8, null, EvdFlags.DTO);
        Endpoint ep = ia.createEndpoint(pz, evd, evd, null, null);
        assertThat(ep.extension(AtomicEndpoint.class)).isEmpty();
        DatException refused = catchThrowableOfType(DatException.class, () -> ia.registerMemory(arena.allocate(64, 8), pz,
                MemPrivileges.ALL | IbExtension.MEM_PRIV_REMOTE_ATOMIC));
        assertThat(DatReturn.describe(refused.code())).isEqualTo(DatReturn.describe(
                DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6)));
    }

    @Test
    void theFactoryListsWhatTheEndpointsOffer() {
        IaConfig config = new IaConfig("verbs", "rxe0", InetAddress.getLoopbackAddress());
        assertThat(OfiIaFactory.extensions(new Discovery.Offer(config, true, new RemoteCqData(4, false), true)))
                .containsExactly(IaStatistics.class.getName(), AtomicEndpoint.class.getName());
        assertThat(OfiIaFactory.extensions(new Discovery.Offer(config, true, new RemoteCqData(4, true), true)))
                .containsExactly(IaStatistics.class.getName(), ImmediateDataEndpoint.class.getName(), AtomicEndpoint.class.getName());
        assertThat(OfiIaFactory.extensions(new Discovery.Offer(config, true, new RemoteCqData(8, false), false)))
                .containsExactly(IaStatistics.class.getName(), ImmediateDataEndpoint.class.getName());
        assertThat(OfiIaFactory.extensions(new Discovery.Offer(config, true, RemoteCqData.NONE, false)))
                .containsExactly(IaStatistics.class.getName());
    }

    @Test
    void verbsBefore22TakesTheOperandsByValue() {
        assertThat(Domain.operandsByValue("verbs", Fi.VERSION_1_17)).isTrue();
        assertThat(Domain.operandsByValue("verbs", (2 << 16) | 1)).isTrue();
        assertThat(Domain.operandsByValue("verbs", Fi.VERSION_2_2)).isFalse();
        assertThat(Domain.operandsByValue("verbs", (3 << 16))).isFalse();
        assertThat(Domain.operandsByValue("tcp", Fi.VERSION_1_17)).isFalse();
    }

    @Test
    void theAtomicPrivilegeComesOnlyWithRemoteWrite() {
        OfiLmr.checkAtomicPrivilege(MemPrivileges.REMOTE_WRITE | IbExtension.MEM_PRIV_REMOTE_ATOMIC, "memPrivileges");
        OfiLmr.checkAtomicPrivilege(MemPrivileges.REMOTE_READ, "memPrivileges");
        DatException refused = catchThrowableOfType(DatException.class, () -> OfiLmr.checkAtomicPrivilege(
                MemPrivileges.REMOTE_READ | IbExtension.MEM_PRIV_REMOTE_ATOMIC, "memPrivileges"));
        assertThat(DatReturn.typeName(refused.code())).isEqualTo("DAT_MODEL_NOT_SUPPORTED");
        assertThat(OfiLmr.access(MemPrivileges.REMOTE_WRITE | IbExtension.MEM_PRIV_REMOTE_ATOMIC))
                .isEqualTo(OfiLmr.access(MemPrivileges.REMOTE_WRITE));
    }
}
