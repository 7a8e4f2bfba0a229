package dat.provider.sim.internal.core;

import static dat.provider.sim.internal.Codes.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventNumber;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RmrTriplet;
import dat.api.ext.AtomicEndpoint;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.provider.sim.internal.Fabric;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The InfiniBand extensions in one JVM, beyond the conformance suite's ext area: a write with
 * immediate data that waits for a receive, the requests queued behind it, the privileges an RMR
 * must have to carry the remote-atomic one, and the IA attributes that declare the extensions.
 */
@Timeout(30)
class ExtensionsTest {

    private final Fabric fabric = new Fabric();
    private final Fabric.Pair p = fabric.new Pair();

    @AfterEach
    void close() {
        fabric.close();
    }

    @Test
    void aWriteWithImmediateDataWaitsForAReceive_andTheRequestsBehindItWaitToo() {
        p.a.mem.set(ValueLayout.JAVA_LONG, 0, 11L);
        ImmediateDataEndpoint im = p.a.ep.extension(ImmediateDataEndpoint.class).orElseThrow();
        ok(im.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 8)}, 1, RmrTriplet.of(p.b.lmr, 32, 8), 99,
                CompletionFlags.DEFAULT));
        ok(p.a.ep.postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(p.a.lmr, 0, 8)}, 2, RmrTriplet.of(p.b.lmr, 40, 8),
                CompletionFlags.DEFAULT));
        DatEvent none = new DatEvent();
        assertThat(p.a.reqEvd.dequeue(none)).as("nothing completes without a receive").isNotEqualTo(DatReturn.SUCCESS);
        assertThat(p.b.mem.get(ValueLayout.JAVA_LONG, 40)).as("the write behind it waits").isZero();

        ok(p.b.ep.postRecv(0, null, 7, 0));
        DatEvent r = p.b.expect(p.b.recvEvd, IbExtension.IB_DTO_EVENT);
        assertThat(r.extensionType()).isEqualTo(IbExtension.RDMA_WRITE_IMMED_DATA);
        assertThat(r.immediateData()).isEqualTo(99);
        assertThat(r.transferredLength()).isEqualTo(8);
        assertThat(p.a.expect(p.a.reqEvd, IbExtension.IB_DTO_EVENT).extensionType()).isEqualTo(IbExtension.RDMA_WRITE_IMMED);
        assertThat(p.a.expect(p.a.reqEvd, EventNumber.DTO_COMPLETION_EVENT).userCookie()).isEqualTo(2);
        assertThat(p.b.mem.get(ValueLayout.JAVA_LONG, 32)).isEqualTo(11L);
        assertThat(p.b.mem.get(ValueLayout.JAVA_LONG, 40)).isEqualTo(11L);
    }

    /** An RMR granting remote atomics reaches its LMR's memory for atomics; one that does not is refused. */
    @Test
    void anRmrCarriesTheRemoteAtomicPrivilege() {
        LocalMemoryRegion target = p.b.ia.registerMemory(fabric.memory(64), p.b.pz,
                MemPrivileges.ALL | IbExtension.MEM_PRIV_REMOTE_ATOMIC);
        var rmr = p.b.pz.createRemoteMemoryRegion();
        int context = rmr.bind(LmrTriplet.of(target, 0, 64), MemPrivileges.REMOTE_READ | IbExtension.MEM_PRIV_REMOTE_ATOMIC, p.b.ep,
                1, CompletionFlags.DEFAULT);
        DatEvent bound = p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
        assertThat(bound.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        target.memory().set(ValueLayout.JAVA_LONG, 8, 5L);
        AtomicEndpoint at = p.a.ep.extension(AtomicEndpoint.class).orElseThrow();
        ok(at.postFetchAndAdd(3, LmrTriplet.of(p.a.lmr, 0, 8), 1, new RmrTriplet(context, target.registeredAddress() + 8, 8),
                CompletionFlags.DEFAULT));
        DatEvent e = p.a.expect(p.a.reqEvd, IbExtension.IB_DTO_EVENT);
        assertThat(DtoCompletionStatus.name(e.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(p.a.mem.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(5L);
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(8L);

        // bound again without the atomic privilege: the same fetch-and-add is refused
        var plain = p.b.pz.createRemoteMemoryRegion();
        int readOnly = plain.bind(LmrTriplet.of(target, 0, 64), MemPrivileges.REMOTE_READ, p.b.ep, 2, CompletionFlags.DEFAULT);
        p.b.expect(p.b.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
        ok(at.postFetchAndAdd(3, LmrTriplet.of(p.a.lmr, 0, 8), 2, new RmrTriplet(readOnly, target.registeredAddress() + 8, 8),
                CompletionFlags.DEFAULT));
        DatEvent refused = p.a.expect(p.a.reqEvd, IbExtension.IB_DTO_EVENT);
        assertThat(DtoCompletionStatus.name(refused.status())).isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_REMOTE_ACCESS));
        assertThat(target.memory().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(8L);
    }

    @Test
    void theIaDeclaresTheExtensions() {
        Map<String, String> specific = p.a.ia.query().providerAttributes().providerSpecificAttributes();
        assertThat(specific).containsEntry("DAT_IB_FETCH_AND_ADD", "TRUE").containsEntry("DAT_IB_CMP_AND_SWAP", "TRUE")
                .containsEntry("DAT_IB_IMMED_DATA", "TRUE");
    }
}
