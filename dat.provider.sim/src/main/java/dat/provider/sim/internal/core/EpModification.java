package dat.provider.sim.internal.core;

import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EvdFlags;

/**
 * dat_ep_query(3DAT) and dat_ep_modify(3DAT) of a {@link SimEndpoint}: which parameters may change
 * in which state, and the work queues rebuilt for new sizes with the receives already posted
 * carried over.
 */
final class EpModification {

    private static final long UNMODIFIABLE = EpParamMask.IA_HANDLE | EpParamMask.EP_STATE | EpParamMask.LOCAL_IA_ADDRESS_PTR
            | EpParamMask.LOCAL_PORT_QUAL | EpParamMask.REMOTE_IA_ADDRESS_PTR | EpParamMask.REMOTE_PORT_QUAL
            | EpParamMask.SRQ_HANDLE;
    private static final long QUIESCENT_ONLY = EpParamMask.EP_ATTR_NUM_TRANSPORT_ATTR | EpParamMask.EP_ATTR_TRANSPORT_SPECIFIC_ATTR
            | EpParamMask.EP_ATTR_NUM_PROVIDER_ATTR | EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR;

    private EpModification() {
    }

    static EpParams query(SimEndpoint ep, long epParamMask) {
        ep.checkOpen();
        if (!EpParamMask.isValid(epParamMask)) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "epParamMask", "undefined bits 0x" + Long.toHexString(epParamMask));
        }
        SimIa ia = ep.ia();
        ia.provider.cmLock.lock();
        try {
            EpConnection c = ep.connection;
            return new EpParams(ia, ep.state, ia.adapter.address, c.localPortQual(), c.remoteAddress(), c.remotePortQual(), ep.pz,
                    ep.recvEvd, ep.requestEvd, ep.connectEvd, ep.srq, ep.attrs);
        } finally {
            ia.provider.cmLock.unlock();
        }
    }

    static void modify(SimEndpoint ep, long mask, EpParams params) {
        ep.checkOpen();
        if (!EpParamMask.isValid(mask) || (mask & UNMODIFIABLE) != 0) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "epParamMask",
                    "undefined bits or parameters that cannot be modified (dat_ep_modify(3DAT)): 0x" + Long.toHexString(mask));
        }
        if (params == null) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG3, "params", "null parameters");
        }
        SimIa ia = ep.ia();
        boolean softEvent;
        ia.provider.cmLock.lock();
        try {
            ep.checkOpen();
            EpState s = ep.state;
            checkState(mask, s);
            SimPz newPz = (mask & EpParamMask.PZ_HANDLE) != 0 ? ia.pz(params.pz(), "params.pz", true) : ep.pz;
            SimEvd newRecv = (mask & EpParamMask.RECV_EVD_HANDLE) != 0
                    ? ia.evd(params.recvEvd(), DatReturn.INVALID_HANDLE_EVD_RECV, EvdFlags.DTO, "params.recvEvd") : ep.recvEvd;
            SimEvd newRequest = (mask & EpParamMask.REQUEST_EVD_HANDLE) != 0
                    ? ia.evd(params.requestEvd(), DatReturn.INVALID_HANDLE_EVD_REQUEST, EvdFlags.DTO, "params.requestEvd") : ep.requestEvd;
            SimEvd newConnect = (mask & EpParamMask.CONNECT_EVD_HANDLE) != 0
                    ? ia.evd(params.connectEvd(), DatReturn.INVALID_HANDLE_EVD_CONN, EvdFlags.CONNECTION, "params.connectEvd")
                    : ep.connectEvd;
            EpAttributes newAttrs = ep.attrs;
            if ((mask & EpParamMask.EP_ATTR_ALL) != 0) {
                if (params.attributes() == null) {
                    throw SimHandle.invalidParameter(DatReturn.INVALID_ARG3, "params.attributes", "null attributes");
                }
                newAttrs = EpConfiguration.resolveAttributes(ia.limits(), ep.attrs.withMasked(params.attributes(), mask),
                        DatReturn.INVALID_ARG3);
            }
            EpConfiguration.checkCompletionFlagsAgainstEvds(newAttrs, newRecv, newRequest, newConnect, ep, DatReturn.INVALID_ARG3,
                    DatReturn.INVALID_ARG3);
            softEvent = apply(ep, mask, s, newPz, newRecv, newRequest, newConnect, newAttrs);
        } finally {
            ia.provider.cmLock.unlock();
        }
        if (softEvent) {
            ep.watermarks.postSoftEvent();
        }
    }

    private static void checkState(long mask, EpState s) {
        boolean early = s == EpState.UNCONNECTED || s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING
                || s == EpState.TENTATIVE_CONNECTION_PENDING;
        if ((mask & EpParamMask.PZ_HANDLE) != 0 && s != EpState.UNCONNECTED && s != EpState.TENTATIVE_CONNECTION_PENDING) {
            throw SimHandle.invalidState(SimEndpoint.stateSubtype(s), "the PZ can change only when UNCONNECTED or TENTATIVE_CONNECTION_PENDING");
        }
        if ((mask & QUIESCENT_ONLY) != 0 && s != EpState.UNCONNECTED) {
            throw SimHandle.invalidState(SimEndpoint.stateSubtype(s), "specific attributes can change only when UNCONNECTED");
        }
        if ((mask & ~EpParamMask.PZ_HANDLE) != 0 && !early) {
            throw SimHandle.invalidState(SimEndpoint.stateSubtype(s), "these parameters can change only before connecting or accepting");
        }
    }

    /** The checked change, under the Endpoint's lock; whether the soft watermark's event is due. */
    private static boolean apply(SimEndpoint ep, long mask, EpState s, SimPz newPz, SimEvd newRecv, SimEvd newRequest,
            SimEvd newConnect, EpAttributes newAttrs) {
        SpinLock l = ep.acquire();
        ep.receives.ringLock.lock(); // the receive ring stands still
        try {
            EpAttributes old = ep.attrs;
            int posted = ep.receives.postedCount();
            if (newAttrs.recvCompletionFlags() != old.recvCompletionFlags() && posted > 0) {
                throw SimHandle.invalidState(SimEndpoint.stateSubtype(s), "Recv Completion Flags cannot change after receives were posted");
            }
            if (posted > newAttrs.maxRecvDtos() || ep.requests.reqCount > newAttrs.maxRequestDtos()) {
                throw SimHandle.invalidParameter(DatReturn.INVALID_ARG3, "params.attributes", "fewer DTOs than are posted");
            }
            if (ep.srq == null && newAttrs.maxRecvIov() < old.maxRecvIov()) {
                // a preposted receive must fit the new ring's slots (checked before anything changes);
                // requests need no such check: none is queued in the states that allow the change
                int segments = ep.receives.maxSegmentsPosted();
                if (segments > newAttrs.maxRecvIov()) {
                    throw SimHandle.invalidParameter(DatReturn.INVALID_ARG3, "params.attributes",
                            "maxRecvIov " + newAttrs.maxRecvIov() + " is below the " + segments + " segments of a posted receive");
                }
            }
            if (newAttrs.maxRequestDtos() != old.maxRequestDtos() || EpRequests.requestIov(newAttrs) != EpRequests.requestIov(old)) {
                ep.requests.requests = EpRequests.newRequests(newAttrs.maxRequestDtos(), EpRequests.requestIov(newAttrs));
                ep.requests.reqHead = 0;
            }
            if (ep.srq == null && (newAttrs.maxRecvDtos() != old.maxRecvDtos() || newAttrs.maxRecvIov() != old.maxRecvIov())) {
                ep.receives.resize(newAttrs.maxRecvDtos(), newAttrs.maxRecvIov());
            }
            if (newPz != ep.pz) {
                if (newPz != null) {
                    newPz.users.incrementAndGet();
                }
                if (ep.pz != null) {
                    ep.pz.users.decrementAndGet();
                }
                ep.pz = newPz;
            }
            ep.unsetEvds();
            ep.attrs = newAttrs;
            ep.setEvds(newRecv, newRequest, newConnect, newAttrs);
            // srq_soft_hw is the soft watermark dat_ep_set_watermark sets: setting it arms it
            return (mask & EpParamMask.EP_ATTR_SRQ_SOFT_HW) != 0 && ep.watermarks.arm(newAttrs.srqSoftHighWatermark());
        } finally {
            ep.receives.ringLock.unlock();
            l.unlock();
        }
    }
}
