package dat.tests.conformance.ext;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EvdFlags;
import dat.api.EventDispatcher;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.ProtectionZone;
import dat.api.RmrTriplet;
import dat.api.ext.IbExtension;
import dat.api.ext.ImmediateDataEndpoint;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.DataPattern;
import dat.tests.conformance.internal.IaUnderTest;
import dat.tests.conformance.internal.NotificationWaits;
import dat.tests.conformance.internal.SrqSetup;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;

/**
 * RDMA write with immediate data of OFED uDAPL's InfiniBand extensions
 * ({@code dat_ib_post_rdma_write_immed} of {@code dat_ib_extensions.h},
 * {@link ImmediateDataEndpoint}), run where the provider declares it ({@code DAT_IB_IMMED_DATA}):
 * the bytes land in the remote buffer, a receive posted at the peer completes with the immediate
 * value, the requester's operation completes with its own type.
 */
class ImmediateDataTest {

    private static DatEvent completion(IaUnderTest t, EventDispatcher evd, int type, String what) {
        DatEvent event = t.event(evd, IbExtension.IB_DTO_EVENT, what);
        assertThat(IbExtension.typeName(event.extensionType())).as(t.at("the completion type of " + what))
                .isEqualTo(IbExtension.typeName(type));
        return event;
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_SUCCESS: the bytes land, the peer's receive carries the immediate value")
    void writeWithImmediateData(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        Connection c = Extensions.connect(t);
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        DataPattern.fill(c.active.buffer().asSlice(0, 64), 17);
        t.expectSuccess(c.passive.ep.postRecv(0, null, 31L, CompletionFlags.DEFAULT), "dat_ep_post_recv of a receive without buffers");
        t.expectSuccess(immediate.postRdmaWriteImmediate(1, c.active.iov(0, 64), 32L, c.passive.remote(256, 64), 0xCAFEBABE,
                CompletionFlags.DEFAULT), "dat_ib_post_rdma_write_immed");

        DatEvent sent = completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the write");
        assertThat(DtoCompletionStatus.name(sent.status())).as(t.at("status of the write"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(sent.userCookie()).as(t.at("user_cookie of the write")).isEqualTo(32L);
        assertThat(sent.transferredLength()).as(t.at("transferred_length of the write")).isEqualTo(64);
        DatEvent received = completion(t, c.passive.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA, "the receive the write consumed");
        assertThat(DtoCompletionStatus.name(received.status())).as(t.at("status of the receive"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(received.userCookie()).as(t.at("the receive's cookie")).isEqualTo(31L);
        assertThat(received.immediateData()).as(t.at("the immediate value")).isEqualTo(0xCAFEBABE);
        assertThat(received.transferredLength()).as(t.at("the bytes written")).isEqualTo(64);
        assertThat(received.endpoint()).as(t.at("ep_handle of the receive")).isSameAs(c.passive.ep);
        t.verify(c.passive.buffer().asSlice(256, 64), 17, 0, "the bytes the write placed");
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_SUCCESS: into an Endpoint on an SRQ, a receive of the SRQ carries the value and the length")
    void writeWithImmediateDataIntoAnSrqEndpoint(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        SrqSetup s = new SrqSetup(t, t.connection().ias(t.ia(), t.open()).create(), 4).connect(t);
        Connection c = s.connection;
        s.post(t, 0); // cookie 1000
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        DataPattern.fill(c.active.buffer().asSlice(0, 100), 23);
        t.expectSuccess(immediate.postRdmaWriteImmediate(1, c.active.iov(0, 100), 52L, c.passive.remote(512, 100), 0x5EED1234,
                CompletionFlags.DEFAULT), "dat_ib_post_rdma_write_immed");

        DatEvent sent = completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the write");
        assertThat(DtoCompletionStatus.name(sent.status())).as(t.at("status of the write"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        DatEvent received = completion(t, s.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA, "the SRQ receive the write consumed");
        assertThat(DtoCompletionStatus.name(received.status())).as(t.at("status of the receive"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.SUCCESS));
        assertThat(received.userCookie()).as(t.at("the SRQ receive's cookie")).isEqualTo(1000L);
        assertThat(received.immediateData()).as(t.at("the immediate value")).isEqualTo(0x5EED1234);
        assertThat(received.transferredLength()).as(t.at("the bytes written")).isEqualTo(100);
        assertThat(received.endpoint()).as(t.at("ep_handle of the receive")).isSameAs(s.ep);
        t.verify(c.passive.buffer().asSlice(512, 100), 23, 0, "the bytes the write placed");
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_SUCCESS: with no data, a notification alone")
    void immediateDataAlone(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        Connection c = Extensions.connect(t);
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        t.expectSuccess(c.passive.ep.postRecv(0, null, 1L, CompletionFlags.DEFAULT), "dat_ep_post_recv of a receive without buffers");
        t.expectSuccess(immediate.postRdmaWriteImmediate(0, null, 2L, c.passive.remote(0, 0), -7, CompletionFlags.DEFAULT),
                "dat_ib_post_rdma_write_immed of no bytes");
        completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the empty write");
        DatEvent received = completion(t, c.passive.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA, "the notification");
        assertThat(received.immediateData()).as(t.at("the immediate value")).isEqualTo(-7);
        assertThat(received.transferredLength()).as(t.at("the bytes written")).isZero();
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_SUCCESS: on a receive stream configured"
            + " DAT_COMPLETION_SOLICITED_WAIT_FLAG, an unsolicited write's receive does not unblock a waiter; a write posted"
            + " DAT_COMPLETION_SOLICITED_WAIT_FLAG does, as a solicited send's, and the waiter takes the events in order")
    void solicitedWriteWithImmediateDataUnblocks(IaUnderTest t) throws Exception {
        Extensions.requireImmediateData(t);
        t.requireSupported(t.supportsCompletionFlag(CompletionFlags.SOLICITED_WAIT), "DAT_COMPLETION_SOLICITED_WAIT_FLAG (completion_flags_supported)");
        EpAttributes attributes = t.epAttributesBuilder().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT).build();
        Connection c = t.connection().ias(t.ia(), t.open()).attributes(attributes).connect();
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        for (int i = 0; i < 2; i++) {
            t.expectSuccess(c.passive.ep.postRecv(0, null, i, CompletionFlags.DEFAULT), "dat_ep_post_recv " + i + " without buffers");
        }
        DataPattern.fill(c.active.buffer().asSlice(0, 128), 41);
        DatEvent first = NotificationWaits.expectOnlyTheNotificationEnds(t, c.passive.recvEvd, NotificationWaits.SOLICITED_WAIT_NOTIFICATION,
                "the receive of an unsolicited write with immediate data", 0, () -> {
                    t.expectSuccess(immediate.postRdmaWriteImmediate(1, c.active.iov(0, 64), 10L, c.passive.remote(0, 64), 100,
                            CompletionFlags.DEFAULT), "an unsolicited dat_ib_post_rdma_write_immed");
                    completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the unsolicited write");
                }, () -> t.expectSuccess(immediate.postRdmaWriteImmediate(1, c.active.iov(64, 64), 11L, c.passive.remote(64, 64), 101,
                        CompletionFlags.SOLICITED_WAIT), "a dat_ib_post_rdma_write_immed posted DAT_COMPLETION_SOLICITED_WAIT_FLAG"));
        assertThat(first.immediateData()).as(t.at("the immediate value of the first receive")).isEqualTo(100);
        DatEvent second = completion(t, c.passive.recvEvd, IbExtension.RDMA_WRITE_IMMED_DATA, "the solicited write's receive");
        assertThat(second.userCookie()).as(t.at("the second receive's cookie")).isEqualTo(1L);
        assertThat(second.immediateData()).as(t.at("the immediate value of the second receive")).isEqualTo(101);
        assertThat(second.transferredLength()).as(t.at("the bytes the solicited write wrote")).isEqualTo(64);
        completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the solicited write");
        t.verify(c.passive.buffer().asSlice(0, 128), 41, 0, "the bytes both writes placed");
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_LENGTH_ERROR: a remote buffer smaller than the local one")
    void remoteBufferTooSmall(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        Connection c = Extensions.connect(t);
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        t.expectCode(DatReturn.LENGTH_ERROR, immediate.postRdmaWriteImmediate(1, c.active.iov(0, 64), 1L, c.passive.remote(0, 32), 1,
                CompletionFlags.DEFAULT), "a 64-byte write into 32 bytes");
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_SUCCESS: on a disconnected Endpoint the write is flushed at once, as a completion of its type")
    void disconnected(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        Connection c = Extensions.connect(t);
        ImmediateDataEndpoint immediate = Extensions.immediate(t, c.active);
        Extensions.disconnectActive(t, c);
        t.expectSuccess(immediate.postRdmaWriteImmediate(1, c.active.iov(0, 64), 12L, c.passive.remote(0, 64), 5,
                CompletionFlags.DEFAULT), "dat_ib_post_rdma_write_immed when disconnected");
        DatEvent flushed = completion(t, c.active.requestEvd, IbExtension.RDMA_WRITE_IMMED, "the write posted when disconnected");
        assertThat(DtoCompletionStatus.name(flushed.status())).as(t.at("status"))
                .isEqualTo(DtoCompletionStatus.name(DtoCompletionStatus.ERR_FLUSHED));
        assertThat(flushed.userCookie()).as(t.at("user_cookie")).isEqualTo(12L);
    }

    @ConformanceTest
    @DisplayName("dat_ib_post_rdma_write_immed(dat_ib_extensions.h) DAT_INVALID_STATE: an unconnected Endpoint")
    void unconnected(IaUnderTest t) {
        Extensions.requireImmediateData(t);
        ProtectionZone pz = t.pz();
        EventDispatcher evd = t.evd(EvdFlags.DTO);
        LocalMemoryRegion lmr = t.lmr(pz, 64, MemPrivileges.ALL);
        Endpoint ep = t.ia().createEndpoint(pz, evd, evd, null, null);
        ImmediateDataEndpoint immediate = ep.extension(ImmediateDataEndpoint.class)
                .orElseThrow(() -> t.failure("the provider declares DAT_IB_IMMED_DATA, but its Endpoint offers no ImmediateDataEndpoint"));
        t.expectCode(DatReturn.INVALID_STATE, immediate.postRdmaWriteImmediate(1, new LmrTriplet[] {LmrTriplet.of(lmr, 0, 8)}, 0,
                RmrTriplet.of(lmr, 8, 8), 1, CompletionFlags.DEFAULT), "dat_ib_post_rdma_write_immed on an unconnected Endpoint");
    }
}
