package dat.provider.sim.internal.core;

import static dat.provider.sim.internal.Codes.throwsCode;
import static org.assertj.core.api.Assertions.assertThat;

import dat.api.CompletionFlags;
import dat.api.DatReturn;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.ProtectionZone;
import dat.provider.sim.internal.Fabric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * dat_ep_create(3DAT), USAGE: the completion flags of an Endpoint's request and receive streams
 * must match those of the other DTO streams of the same EVD, and a stream whose flags make events
 * non-notifying (UNSIGNALLED, SOLICITED_WAIT) cannot share its EVD with other kinds of streams.
 */
class CompletionFlagsClashTest {

    private final Fabric f = new Fabric();
    private final InterfaceAdapter ia = f.open("sim0");
    private final ProtectionZone pz = ia.createProtectionZone();
    private final EventDispatcher dto = ia.createEventDispatcher(64, null, EvdFlags.DTO);
    private final EventDispatcher conn = ia.createEventDispatcher(16, null, EvdFlags.CONNECTION);

    @AfterEach
    void close() {
        f.close();
    }

    private static EpAttributes recv(int flags) {
        return EpAttributes.builder().recvCompletionFlags(flags).build();
    }

    private static EpAttributes request(int flags) {
        return EpAttributes.builder().requestCompletionFlags(flags).build();
    }

    @Test
    void receiveStreamsOfOneEvd_mustHaveTheSameFlags() {
        ia.createEndpoint(pz, dto, null, conn, recv(CompletionFlags.SOLICITED_WAIT));
        throwsCode(() -> ia.createEndpoint(pz, dto, null, conn, recv(CompletionFlags.DEFAULT)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG3);
        Endpoint same = ia.createEndpoint(pz, dto, null, conn, recv(CompletionFlags.SOLICITED_WAIT));
        assertThat(same.isOpen()).isTrue();
    }

    @Test
    void requestStreamsOfOneEvd_mustHaveTheSameFlags_andNameTheRequestEvd() {
        ia.createEndpoint(pz, null, dto, conn, request(CompletionFlags.UNSIGNALLED));
        throwsCode(() -> ia.createEndpoint(pz, null, dto, conn, request(CompletionFlags.EVD_THRESHOLD)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG4);
    }

    @Test
    void anEndpointsOwnTwoStreamsOnOneEvd_mustMatch() {
        throwsCode(() -> ia.createEndpoint(pz, dto, dto, conn,
                EpAttributes.builder().recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.UNSIGNALLED)
                        .build()), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        Endpoint both = ia.createEndpoint(pz, dto, dto, conn, EpAttributes.builder().recvCompletionFlags(CompletionFlags.UNSIGNALLED)
                .requestCompletionFlags(CompletionFlags.UNSIGNALLED).build());
        assertThat(both.isOpen()).isTrue();
    }

    @Test
    void anUnsignalledStream_refusesAnEvdFedByConnectionEvents() {
        EventDispatcher mixed = ia.createEventDispatcher(64, null, EvdFlags.DTO | EvdFlags.CONNECTION);
        throwsCode(() -> ia.createEndpoint(pz, mixed, null, mixed, recv(CompletionFlags.UNSIGNALLED)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG3);
        // another Endpoint's connection stream on it counts as well
        ia.createEndpoint(pz, null, null, mixed, null);
        throwsCode(() -> ia.createEndpoint(pz, null, mixed, conn, request(CompletionFlags.UNSIGNALLED)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG4);
        // default flags notify always: they may share it
        Endpoint fine = ia.createEndpoint(pz, mixed, mixed, mixed, null);
        assertThat(fine.isOpen()).isTrue();
    }

    @Test
    void dat_ep_modify_checksTheStreamsItChanges_notCountingTheEndpointsOwn() {
        Endpoint a = ia.createEndpoint(pz, dto, null, conn, recv(CompletionFlags.SOLICITED_WAIT));
        // the only stream on the EVD is a's own: it may change its flags
        a.modify(EpParamMask.EP_ATTR_RECV_COMPLETION_FLAGS, new EpParams(null, null, null, 0, null, 0, null, null, null, null, null,
                recv(CompletionFlags.DEFAULT)));
        ia.createEndpoint(pz, dto, null, conn, recv(CompletionFlags.DEFAULT));
        throwsCode(() -> a.modify(EpParamMask.EP_ATTR_RECV_COMPLETION_FLAGS, new EpParams(null, null, null, 0, null, 0, null, null,
                null, null, null, recv(CompletionFlags.SOLICITED_WAIT))), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        EventDispatcher other = ia.createEventDispatcher(64, null, EvdFlags.DTO);
        a.modify(EpParamMask.EP_ATTR_RECV_COMPLETION_FLAGS | EpParamMask.RECV_EVD_HANDLE, new EpParams(null, null, null, 0, null, 0,
                null, other, null, null, null, recv(CompletionFlags.SOLICITED_WAIT)));
    }
}
