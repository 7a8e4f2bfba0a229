package dat.provider.ofi.internal;

import dat.api.DatReturn;
import dat.api.EpAttributes;
import dat.api.EpParamMask;
import dat.api.EpParams;
import dat.api.EpState;
import dat.api.EvdFlags;
import dat.provider.support.UseCounts;
import java.util.Map;

/**
 * {@code dat_ep_modify(3DAT)} of an {@link OfiEp}: the arguments and the state are checked first,
 * as the page orders them; then the PZ, EVDs and attributes are replaced. The Endpoint has no
 * libfabric endpoint before it connects, so everything the page lets change in the states before a
 * connection is Java state; queue depths and IOV sizes change only while no DTO is posted (the
 * receives posted before a connection live in the slot tables), {@code DAT_MODEL_NOT_SUPPORTED}
 * otherwise.
 */
final class EpModify {

    private EpModify() {
    }

    /** The parameters dat_ep_modify(3DAT) says cannot be modified, and the SRQ, fixed at creation. */
    private static final long UNMODIFIABLE = EpParamMask.IA_HANDLE | EpParamMask.EP_STATE | EpParamMask.LOCAL_IA_ADDRESS_PTR
            | EpParamMask.LOCAL_PORT_QUAL | EpParamMask.REMOTE_IA_ADDRESS_PTR | EpParamMask.REMOTE_PORT_QUAL
            | EpParamMask.SRQ_HANDLE;
    /** The transport- and provider-specific attributes: the ofi provider has none. */
    private static final long SPECIFIC = EpParamMask.EP_ATTR_NUM_TRANSPORT_ATTR | EpParamMask.EP_ATTR_TRANSPORT_SPECIFIC_ATTR
            | EpParamMask.EP_ATTR_NUM_PROVIDER_ATTR | EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR;

    static void modify(OfiEp ep, long epParamMask, EpParams params) {
        ep.checkOpen();
        if (!EpParamMask.isValid(epParamMask) || (epParamMask & UNMODIFIABLE) != 0) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG2, "epParamMask",
                    "undefined bits or parameters that cannot be modified (dat_ep_modify(3DAT)): 0x" + Long.toHexString(epParamMask));
        }
        if (params == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params", "null parameters");
        }
        if ((epParamMask & EpParamMask.EP_ATTR_ALL) != 0 && params.attributes() == null) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params.attributes", "null attributes");
        }
        if (epParamMask == 0) {
            return;
        }
        OfiIa ia = ep.ia;
        ia.cmLock.lock();
        try {
            ep.checkOpen();
            EpState s = ep.connection.state();
            boolean early = s == EpState.UNCONNECTED || s == EpState.RESERVED || s == EpState.PASSIVE_CONNECTION_PENDING
                    || s == EpState.TENTATIVE_CONNECTION_PENDING;
            if ((epParamMask & EpParamMask.PZ_HANDLE) != 0 && s != EpState.UNCONNECTED && s != EpState.TENTATIVE_CONNECTION_PENDING) {
                throw Codes.epStateException(s,
                        "the PZ can change only when UNCONNECTED or TENTATIVE_CONNECTION_PENDING");
            }
            if (!early) {
                throw Codes.epStateException(s,
                        "dat_ep_modify changes these parameters only before connecting or accepting");
            }
            OfiPz newPz = (epParamMask & EpParamMask.PZ_HANDLE) != 0 ? OfiPz.check(ia, params.pz(), "params.pz") : ep.pz();
            OfiEvd newRecv = (epParamMask & EpParamMask.RECV_EVD_HANDLE) == 0 ? ep.recvEvd : params.recvEvd() == null ? null
                    : OfiEvd.check(ia, params.recvEvd(), EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_RECV, "params.recvEvd");
            OfiEvd newRequest = (epParamMask & EpParamMask.REQUEST_EVD_HANDLE) == 0 ? ep.requestEvd
                    : params.requestEvd() == null ? null
                    : OfiEvd.check(ia, params.requestEvd(), EvdFlags.DTO, DatReturn.INVALID_HANDLE_EVD_REQUEST, "params.requestEvd");
            OfiEvd newConnect = (epParamMask & EpParamMask.CONNECT_EVD_HANDLE) == 0 ? ep.connectEvd
                    : params.connectEvd() == null ? null
                    : OfiEvd.check(ia, params.connectEvd(), EvdFlags.CONNECTION, DatReturn.INVALID_HANDLE_EVD_CONN, "params.connectEvd");
            if (ep.srq != null && ep.srq.pz != newPz) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG3, "params.pz",
                        "the SRQ is in another PZ (srq_ep_pz_difference_supported is false)");
            }
            EpAttributes current = ep.attributes();
            EpAttributes next = current;
            if ((epParamMask & EpParamMask.EP_ATTR_ALL) != 0) {
                if ((epParamMask & SPECIFIC) != 0 && (!isEmpty(params.attributes().transportSpecific())
                        || !isEmpty(params.attributes().providerSpecific()))) {
                    throw Codes.notSupported("params.attributes", "the ofi provider has no transport- or provider-specific"
                            + " Endpoint attributes");
                }
                next = EpLimits.effective(ia, current.withMasked(params.attributes(), epParamMask), DatReturn.INVALID_ARG3);
            }
            boolean newQueues = next.maxRecvDtos() != current.maxRecvDtos() || next.maxRequestDtos() != current.maxRequestDtos()
                    || next.maxRecvIov() != current.maxRecvIov();
            apply(ep, newPz, newRecv, newRequest, newConnect, next, newQueues);
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Applies what {@link #modify} checked (ia.cmLock held): new PZ, EVDs and attributes, new queues if they change. */
    private static void apply(OfiEp ep, OfiPz newPz, OfiEvd newRecv, OfiEvd newRequest, OfiEvd newConnect, EpAttributes newAttributes,
            boolean newQueues) {
        ep.postLock.lock();
        try {
            ep.checkOpen();
            EpAttributes current = ep.attributes;
            boolean posted = ep.recvSlots.outstanding() > 0 || ep.sendSlots.outstanding() > 0;
            if (newAttributes.recvCompletionFlags() != current.recvCompletionFlags() && ep.recvSlots.outstanding() > 0) {
                throw Codes.epStateException(ep.connection.state(),
                        "Recv Completion Flags cannot change after receives were posted");
            }
            if ((newQueues || newPz != ep.pz) && posted) {
                throw Codes.notSupported("epParamMask", "the ofi provider changes the PZ, queue depths and IOV sizes only"
                        + " while no DTO is posted to the Endpoint");
            }
            if (newQueues) {
                ep.sendSlots.countIn(null);
                ep.sendSlots = new WorkSlots(newAttributes.maxRequestDtos(), ep.ownerId, false, 0);
                CompletionQueue requestCq = ep.connection.requestCq();
                if (requestCq != null) {
                    ep.sendSlots.countIn(requestCq.posted);
                }
                ep.recvSlots = new WorkSlots(ep.srq == null ? newAttributes.maxRecvDtos() : 1, ep.ownerId, true,
                        newAttributes.maxRecvIov());
                ep.posting.resizeStaging(ep.recvSlots.capacity());
            }
            if (newPz != ep.pz) {
                newPz.users.incrementAndGet();
                if (ep.pz != null) {
                    ep.pz.users.decrementAndGet(); // a Provider-created Endpoint starts without one
                }
                ep.pz = newPz;
            }
            OfiEvd.countConsumerNotified(ep.recvEvd, ep.requestEvd, ep.attributes, -1);
            ep.recvEvd = UseCounts.swap(ep.recvEvd, newRecv, evd -> evd.users);
            ep.requestEvd = UseCounts.swap(ep.requestEvd, newRequest, evd -> evd.users);
            ep.connectEvd = UseCounts.swap(ep.connectEvd, newConnect, evd -> evd.users);
            ep.attributes = newAttributes;
            OfiEvd.countConsumerNotified(ep.recvEvd, ep.requestEvd, ep.attributes, 1);
        } finally {
            ep.postLock.unlock();
        }
    }

    private static boolean isEmpty(Map<String, String> attributes) {
        return attributes == null || attributes.isEmpty();
    }
}
