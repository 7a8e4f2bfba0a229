package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An open instance of an Interface Adapter (IA, {@code DAT_IA_HANDLE}): the root of every other
 * DAT object. Obtain one from {@link DatRegistry#openIa}; {@link #close()} closes it abruptly,
 * destroying every object created through it.
 *
 * <p>Thread safety is the provider's: see {@link ProviderAttributes#threadSafe()}.
 *
 * <p>See dat_ia_open(3DAT), dat_ia_query(3DAT), dat_ia_close(3DAT).
 */
@ProviderType
public interface InterfaceAdapter extends DatHandle {

    /**
     * The name this IA was opened with ({@code adapter_name}).
     *
     * @return the IA name
     */
    String name();

    /**
     * The IA parameters and attributes: {@code dat_ia_query(3DAT)}. The provider returns at least
     * the requested fields and may return all of them.
     *
     * @param iaAttrMask the {@link IaAttrMask} bits the consumer asks for
     * @param providerAttrMask the {@link ProviderAttrMask} bits the consumer asks for
     * @return the async EVD and both attribute sets
     * @throws DatException {@link DatReturn#INVALID_HANDLE} for a closed IA;
     *     {@link DatReturn#INVALID_PARAMETER} for a mask with undefined bits
     */
    IaQuery query(long iaAttrMask, long providerAttrMask);

    /**
     * All IA parameters and attributes: {@code dat_ia_query} with both masks {@code ALL}.
     *
     * @return the async EVD and both attribute sets
     * @throws DatException {@link DatReturn#INVALID_HANDLE} for a closed IA
     */
    default IaQuery query() {
        return query(IaAttrMask.ALL, ProviderAttrMask.ALL);
    }

    /**
     * Closes the IA: {@code dat_ia_close(3DAT)}. An abrupt close destroys every object created
     * through the IA (Service Points, Endpoints, Connection Requests, LMRs, RMRs, EVDs, CNOs, PZs),
     * unblocks every waiter ({@link DatReturn#ABORT} on EVDs, {@code null} from CNO waits), and
     * always succeeds. A graceful close succeeds only when the consumer freed every object it
     * created (the async EVD excepted), and otherwise fails with {@link DatReturn#INVALID_STATE}
     * and leaves the IA open. Closing a closed IA does nothing.
     *
     * @param flag abrupt or graceful
     * @throws DatException {@link DatReturn#INVALID_STATE} for a graceful close of an IA that
     *     still has objects; {@link DatReturn#INVALID_PARAMETER} for a {@code null} flag
     */
    void close(CloseFlag flag);

    /**
     * Closes the IA abruptly: {@code dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)}.
     */
    @Override
    default void close() {
        close(CloseFlag.ABRUPT);
    }

    /**
     * Creates a Protection Zone: {@code dat_pz_create(3DAT)}.
     *
     * @return the new PZ
     * @throws DatException {@link DatReturn#INSUFFICIENT_RESOURCES} past
     *     {@link IaAttributes#maxPzs()}; {@link DatReturn#INVALID_HANDLE} for a closed IA
     */
    ProtectionZone createProtectionZone();

    /**
     * Creates an Event Dispatcher: {@code dat_evd_create} (udat.h). The queue holds at least
     * {@code minQlen} events.
     *
     * @param minQlen the smallest queue length wanted; at least 1 and at most
     *     {@link IaAttributes#maxEvdQlen()}
     * @param cno the CNO to notify, or {@code null}
     * @param evdFlags the event streams the EVD takes ({@link EvdFlags}, or-ed)
     * @return the new EVD
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad length or flags;
     *     {@link DatReturn#INSUFFICIENT_RESOURCES} past {@link IaAttributes#maxEvds()};
     *     {@link DatReturn#INVALID_HANDLE} for a foreign or freed CNO
     */
    EventDispatcher createEventDispatcher(int minQlen, ConsumerNotificationObject cno, int evdFlags);

    /**
     * Creates a Consumer Notification Object: {@code dat_cno_create(3DAT)}.
     *
     * @param agent the OS wait proxy agent to call when the CNO triggers, or {@code null}
     * @return the new CNO
     * @throws DatException {@link DatReturn#INSUFFICIENT_RESOURCES} when no more CNOs can be made
     */
    ConsumerNotificationObject createNotificationObject(WaitProxyAgent agent);

    /**
     * Registers memory with the IA, creating a Local Memory Region: {@code dat_lmr_create(3DAT)}.
     *
     * @param memType the memory type; it must match the kind of {@code region}, and be one of
     *     {@link ProviderAttributes#lmrMemTypesSupported()}
     * @param region the memory: a native {@link java.lang.foreign.MemorySegment}, an existing
     *     LMR, or shared memory with its 40-byte cookie. Registered memory is accessed from other
     *     threads than the caller's (the peer's, the provider's): allocate it from a shared,
     *     automatic or global arena; a provider that touches it from its own threads refuses
     *     a confined segment with {@link DatReturn#INVALID_PARAMETER}
     * @param length the number of bytes to register, from the start of the region
     * @param pz the Protection Zone of the new LMR
     * @param memPrivileges the {@link MemPrivileges} granted, or-ed
     * @return the new LMR, with its contexts and registered range
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} for an unsupported memory type;
     *     {@link DatReturn#INVALID_PARAMETER} for a bad length, region or privileges;
     *     {@link DatReturn#INSUFFICIENT_RESOURCES} past {@link IaAttributes#maxLmrs()};
     *     {@link DatReturn#INVALID_HANDLE} for a foreign or freed PZ
     */
    LocalMemoryRegion registerMemory(MemoryType memType, RegionDescription region, long length, ProtectionZone pz,
            int memPrivileges);

    /**
     * Registers a whole native segment as {@link MemoryType#VIRTUAL} memory: a shorthand for
     * {@link #registerMemory(MemoryType, RegionDescription, long, ProtectionZone, int)}.
     *
     * @param memory a native memory segment
     * @param pz the Protection Zone of the new LMR
     * @param memPrivileges the {@link MemPrivileges} granted, or-ed
     * @return the new LMR
     * @throws DatException as {@code registerMemory} does
     */
    default LocalMemoryRegion registerMemory(java.lang.foreign.MemorySegment memory, ProtectionZone pz, int memPrivileges) {
        if (memory == null) {
            // the provider names what is wrong, its handle first, and the missing region (DAT_INVALID_ARG3)
            return registerMemory(MemoryType.VIRTUAL, null, 0, pz, memPrivileges);
        }
        return registerMemory(MemoryType.VIRTUAL, RegionDescription.virtual(memory), memory.byteSize(), pz, memPrivileges);
    }

    /**
     * Makes memory written by RDMA reads visible to the local CPU on non-coherent platforms:
     * {@code dat_lmr_sync_rdma_read(3DAT)}. A no-op where {@link ProviderAttributes#lmrSyncRequired()}
     * is false, but the segments are still checked.
     *
     * @param localSegments the segments to synchronize
     * @param numSegments how many entries of {@code localSegments} to use
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a segment outside its LMR or a
     *     bad count
     */
    void syncRdmaRead(LmrTriplet[] localSegments, int numSegments);

    /**
     * Makes local CPU writes visible to RDMA writes of remote peers on non-coherent platforms:
     * {@code dat_lmr_sync_rdma_write(3DAT)}.
     *
     * @param localSegments the segments to synchronize
     * @param numSegments how many entries of {@code localSegments} to use
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a segment outside its LMR or a
     *     bad count
     */
    void syncRdmaWrite(LmrTriplet[] localSegments, int numSegments);

    /**
     * Creates an Endpoint in the {@link EpState#UNCONNECTED} state: {@code dat_ep_create(3DAT)}.
     *
     * @param pz the Protection Zone of the Endpoint
     * @param recvEvd the EVD of receive completions, or {@code null}
     * @param requestEvd the EVD of send, RDMA and RMR-bind completions, or {@code null}
     * @param connectEvd the EVD of connection events, or {@code null}
     * @param attributes the requested attributes, or {@code null} for the provider's defaults
     * @return the new Endpoint
     * @throws DatException {@link DatReturn#INVALID_HANDLE} for a foreign or freed handle;
     *     {@link DatReturn#INVALID_PARAMETER} for invalid attributes;
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} for an unsupported model (e.g. QoS);
     *     {@link DatReturn#INSUFFICIENT_RESOURCES} past {@link IaAttributes#maxEps()}
     */
    Endpoint createEndpoint(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, EpAttributes attributes);

    /**
     * Creates an Endpoint whose receives come from a Shared Receive Queue:
     * {@code dat_ep_create_with_srq(3DAT)}.
     *
     * @param pz the Protection Zone of the Endpoint
     * @param recvEvd the EVD of receive completions, or {@code null}
     * @param requestEvd the EVD of send, RDMA and RMR-bind completions, or {@code null}
     * @param connectEvd the EVD of connection events, or {@code null}
     * @param srq the Shared Receive Queue
     * @param attributes the requested attributes, or {@code null} for the provider's defaults
     * @return the new Endpoint
     * @throws DatException as {@link #createEndpoint} does; {@link DatReturn#MODEL_NOT_SUPPORTED}
     *     when SRQs are not supported
     */
    Endpoint createEndpointWithSrq(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttributes attributes);

    /**
     * Creates a persistent Public Service Point that listens on a connection qualifier:
     * {@code dat_psp_create(3DAT)}.
     *
     * @param connQual the connection qualifier to listen on
     * @param crEvd the EVD that receives {@link EventNumber#CONNECTION_REQUEST_EVENT}s
     * @param flag whether the consumer or the provider creates the Endpoint of a request
     * @return the new PSP
     * @throws DatException {@link DatReturn#CONN_QUAL_IN_USE} when the qualifier is taken;
     *     {@link DatReturn#INVALID_HANDLE} for a bad EVD; {@link DatReturn#INVALID_PARAMETER}
     */
    PublicServicePoint createPublicServicePoint(long connQual, EventDispatcher crEvd, PspFlag flag);

    /**
     * Creates a Public Service Point on a free connection qualifier the provider picks:
     * {@code dat_psp_create_any(3DAT)}. The qualifier is {@link PublicServicePoint#connQual()}.
     *
     * @param crEvd the EVD that receives {@link EventNumber#CONNECTION_REQUEST_EVENT}s
     * @param flag whether the consumer or the provider creates the Endpoint of a request
     * @return the new PSP
     * @throws DatException {@link DatReturn#CONN_QUAL_UNAVAILABLE} when no qualifier is free
     */
    PublicServicePoint createPublicServicePointAny(EventDispatcher crEvd, PspFlag flag);

    /**
     * Creates a Reserved Service Point for one connection request to one Endpoint:
     * {@code dat_rsp_create(3DAT)}. The Endpoint moves to {@link EpState#RESERVED}.
     *
     * @param connQual the connection qualifier to listen on
     * @param ep the Endpoint reserved for the connection; it must be {@link EpState#UNCONNECTED}.
     *     The page lets {@code null} (DAT_HANDLE_NULL) ask for a Provider-created Endpoint; the
     *     providers of this library answer it {@link DatReturn#INVALID_HANDLE}, as Solaris' libdat
     *     and OFED dapl do, since such an Endpoint reaches
     *     {@link EpState#PASSIVE_CONNECTION_PENDING} without a Protection Zone, which
     *     {@code dat_ep_modify(3DAT)} cannot give it there
     * @param crEvd the EVD that receives the {@link EventNumber#CONNECTION_REQUEST_EVENT}
     * @return the new RSP
     * @throws DatException {@link DatReturn#CONN_QUAL_IN_USE}; {@link DatReturn#INVALID_STATE}
     *     for an Endpoint that is not unconnected; {@link DatReturn#INVALID_HANDLE} for an Endpoint
     *     or EVD that is not an open one of this IA, or {@code null};
     *     {@link DatReturn#INVALID_PARAMETER} for a qualifier the provider cannot listen on
     */
    ReservedServicePoint createReservedServicePoint(long connQual, Endpoint ep, EventDispatcher crEvd);

    /**
     * Creates a Shared Receive Queue: {@code dat_srq_create(3DAT)}.
     *
     * @param pz the Protection Zone of the SRQ
     * @param attributes the requested size, IOV length and low watermark
     * @return the new SRQ
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when SRQs are not supported;
     *     {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INSUFFICIENT_RESOURCES}
     */
    SharedReceiveQueue createSharedReceiveQueue(ProtectionZone pz, SrqAttributes attributes);
}
