package dat.api;

import java.net.InetSocketAddress;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A DAT event, {@code DAT_EVENT}: an event number, the EVD it came from, and the data of its kind
 * (the C {@code DAT_EVENT_DATA} union). The consumer owns the object and reuses it:
 * {@link EventDispatcher#dequeue} and {@link EventDispatcher#await} overwrite it, so that
 * reaping a completion allocates nothing.
 *
 * <p>Which accessors mean something depends on {@link #eventNumber()}:
 * <ul>
 * <li>{@link EventNumber#DTO_COMPLETION_EVENT}: {@link #endpoint()}, {@link #userCookie()},
 *     {@link #status()} (a {@link DtoCompletionStatus}), {@link #transferredLength()} (defined
 *     only when the status is {@link DtoCompletionStatus#SUCCESS});</li>
 * <li>{@link EventNumber#RMR_BIND_COMPLETION_EVENT}: {@link #rmr()}, {@link #userCookie()},
 *     {@link #status()};</li>
 * <li>{@link EventNumber#CONNECTION_REQUEST_EVENT}: {@link #servicePoint()} (the PSP, or
 *     {@code null} for an RSP, which is destroyed by the request), {@link #localIaAddress()},
 *     {@link #connQual()}, {@link #connectionRequest()};</li>
 * <li>the connection events ({@link EventNumber#CONNECTION_EVENT_ESTABLISHED} and the others):
 *     {@link #endpoint()}, {@link #privateData()};</li>
 * <li>the asynchronous errors ({@link EventNumber#ASYNC_ERROR_IA_CATASTROPHIC} and the others):
 *     {@link #asyncHandle()} (the IA, EP, EVD, SRQ, LMR, RMR or PZ concerned),
 *     {@link #asyncReason()} (an {@link AsyncErrorReason});</li>
 * <li>{@link EventNumber#SOFTWARE_EVENT}: {@link #softwarePointer()};</li>
 * <li>an extension DTO completion in the DAT 2.0 extension range, such as
 *     {@link dat.api.ext.IbExtension#IB_DTO_EVENT}: the DTO accessors above, and
 *     {@link #extensionType()} and {@link #immediateData()} (the C {@code extension_data}).</li>
 * </ul>
 * Accessors of other kinds return unspecified values.
 *
 * <p>Providers fill events with the {@code set...} methods; consumers only read. Not thread safe:
 * one object per thread.
 *
 * <p>See dat_evd_dequeue(3DAT), dat_evd_wait(3DAT), and the event types of {@code <dat/dat.h>}.
 */
@ProviderType
public final class DatEvent {

    private int eventNumber;
    private EventDispatcher evd;
    private Endpoint endpoint;
    private long userCookie;
    private int status;
    private long transferredLength;
    private RemoteMemoryRegion rmr;
    private DatHandle servicePoint;
    private InetSocketAddress localIaAddress;
    private long connQual;
    private ConnectionRequest connectionRequest;
    private byte[] privateData;
    private DatHandle asyncHandle;
    private int asyncReason;
    private Object softwarePointer;
    private int moreEvents;
    private int extensionType;
    private int immediateData;

    /** Creates an empty event (event number 0). */
    public DatEvent() {
    }

    /**
     * The event number ({@code event_number}): one of {@link EventNumber}.
     *
     * @return the event number, 0 for an empty event
     */
    public int eventNumber() {
        return eventNumber;
    }

    /**
     * The EVD the event was dequeued from ({@code evd_handle}).
     *
     * @return the EVD
     */
    public EventDispatcher evd() {
        return evd;
    }

    /**
     * The Endpoint of a DTO completion or connection event ({@code ep_handle}).
     *
     * @return the Endpoint
     */
    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * The consumer's cookie of the completed DTO or RMR bind ({@code user_cookie}).
     *
     * @return the cookie given to the post or bind
     */
    public long userCookie() {
        return userCookie;
    }

    /**
     * The completion status of a DTO or RMR bind: a {@link DtoCompletionStatus}.
     *
     * @return the status
     */
    public int status() {
        return status;
    }

    /**
     * The bytes transferred by a successful DTO ({@code transfered_length}).
     *
     * @return the length; undefined unless {@link #status()} is {@link DtoCompletionStatus#SUCCESS}
     */
    public long transferredLength() {
        return transferredLength;
    }

    /**
     * The RMR of an RMR-bind completion ({@code rmr_handle}).
     *
     * @return the RMR
     */
    public RemoteMemoryRegion rmr() {
        return rmr;
    }

    /**
     * The Service Point that received a connection request ({@code sp_handle}).
     *
     * @return the {@link PublicServicePoint}, or {@code null} when the request came through a
     *     {@link ReservedServicePoint} (which the request destroyed)
     */
    public DatHandle servicePoint() {
        return servicePoint;
    }

    /**
     * The address of the IA on which a connection request arrived ({@code local_ia_address_ptr}).
     *
     * @return the local IA address
     */
    public InetSocketAddress localIaAddress() {
        return localIaAddress;
    }

    /**
     * The connection qualifier on which a connection request arrived ({@code conn_qual}).
     *
     * @return the connection qualifier
     */
    public long connQual() {
        return connQual;
    }

    /**
     * The Connection Request to accept or reject ({@code cr_handle}).
     *
     * @return the Connection Request
     */
    public ConnectionRequest connectionRequest() {
        return connectionRequest;
    }

    /**
     * The private data of a connection event ({@code private_data}, {@code private_data_size}):
     * the peer's accept or reject data. The array belongs to this event; do not modify it.
     *
     * @return the private data, empty when there is none
     */
    public byte[] privateData() {
        return privateData;
    }

    /**
     * The object an asynchronous error concerns ({@code dat_handle}).
     *
     * @return the IA, Endpoint, EVD, SRQ, LMR, RMR or PZ
     */
    public DatHandle asyncHandle() {
        return asyncHandle;
    }

    /**
     * The reason of an asynchronous error, specific to the object type: an
     * {@link AsyncErrorReason}.
     *
     * @return the reason
     */
    public int asyncReason() {
        return asyncReason;
    }

    /**
     * The pointer of a software event ({@code pointer}).
     *
     * @return the object given to {@link EventDispatcher#postSoftwareEvent}
     */
    public Object softwarePointer() {
        return softwarePointer;
    }

    /**
     * How many events were still queued when {@link EventDispatcher#await} returned
     * ({@code nmore}); 0 after {@link EventDispatcher#dequeue}.
     *
     * @return the number of further events
     */
    public int moreEvents() {
        return moreEvents;
    }

    /**
     * The completion type of an extension DTO completion: the {@code type} of OFED's
     * {@code DAT_IB_EXTENSION_EVENT_DATA}, one of the completion types of
     * {@link dat.api.ext.IbExtension} (for example {@link dat.api.ext.IbExtension#FETCH_AND_ADD}).
     *
     * @return the completion type; 0 for events that are not extension completions
     */
    public int extensionType() {
        return extensionType;
    }

    /**
     * The 32-bit immediate data of an extension completion that carries it ({@code val.immed.data}
     * of {@code DAT_IB_EXTENSION_EVENT_DATA}), for example the receive an RDMA write with immediate
     * data consumed ({@link dat.api.ext.IbExtension#RDMA_WRITE_IMMED_DATA}).
     *
     * @return the immediate data; 0 when the event carries none
     */
    public int immediateData() {
        return immediateData;
    }

    /**
     * Fills a DTO completion: {@link EventNumber#DTO_COMPLETION_EVENT}. For providers.
     *
     * @param evd the EVD
     * @param endpoint the Endpoint the DTO was posted to
     * @param userCookie the consumer's cookie
     * @param status the {@link DtoCompletionStatus}
     * @param transferredLength the bytes transferred
     * @return this event
     */
    public DatEvent setDtoCompletion(EventDispatcher evd, Endpoint endpoint, long userCookie, int status, long transferredLength) {
        reset(EventNumber.DTO_COMPLETION_EVENT, evd);
        this.endpoint = endpoint;
        this.userCookie = userCookie;
        this.status = status;
        this.transferredLength = transferredLength;
        return this;
    }

    /**
     * Fills the completion of an extended DTO, in the DAT 2.0 extension range of event numbers
     * (for example {@link dat.api.ext.IbExtension#IB_DTO_EVENT}): the data of a DTO completion plus
     * the extension's completion type and immediate data. For providers.
     *
     * @param eventNumber the extension event number, at least
     *     {@link dat.api.ext.IbExtension#EXTENSION_EVENT}
     * @param evd the EVD
     * @param endpoint the Endpoint the DTO was posted to (or, for a receive, whose receive it consumed)
     * @param userCookie the consumer's cookie
     * @param status the {@link DtoCompletionStatus}
     * @param transferredLength the bytes transferred
     * @param extensionType the completion type, for example {@link dat.api.ext.IbExtension#CMP_AND_SWAP}
     * @param immediateData the immediate data, or 0
     * @return this event
     * @throws IllegalArgumentException for an event number below the extension range
     */
    public DatEvent setExtensionDtoCompletion(int eventNumber, EventDispatcher evd, Endpoint endpoint, long userCookie,
            int status, long transferredLength, int extensionType, int immediateData) {
        if (eventNumber < EXTENSION_EVENT) {
            throw new IllegalArgumentException(EventNumber.name(eventNumber) + " is not an extension event number");
        }
        reset(eventNumber, evd);
        this.endpoint = endpoint;
        this.userCookie = userCookie;
        this.status = status;
        this.transferredLength = transferredLength;
        this.extensionType = extensionType;
        this.immediateData = immediateData;
        return this;
    }

    /**
     * Fills an RMR-bind completion: {@link EventNumber#RMR_BIND_COMPLETION_EVENT}. For providers.
     *
     * @param evd the EVD
     * @param rmr the RMR that was bound
     * @param userCookie the consumer's cookie
     * @param status the {@link DtoCompletionStatus}
     * @return this event
     */
    public DatEvent setRmrBindCompletion(EventDispatcher evd, RemoteMemoryRegion rmr, long userCookie, int status) {
        reset(EventNumber.RMR_BIND_COMPLETION_EVENT, evd);
        this.rmr = rmr;
        this.userCookie = userCookie;
        this.status = status;
        return this;
    }

    /**
     * Fills a connection request arrival: {@link EventNumber#CONNECTION_REQUEST_EVENT}. For
     * providers.
     *
     * @param evd the EVD
     * @param servicePoint the PSP, or {@code null} for an RSP
     * @param localIaAddress the local IA address
     * @param connQual the connection qualifier
     * @param connectionRequest the new Connection Request
     * @return this event
     */
    public DatEvent setConnectionRequest(EventDispatcher evd, DatHandle servicePoint, InetSocketAddress localIaAddress,
            long connQual, ConnectionRequest connectionRequest) {
        reset(EventNumber.CONNECTION_REQUEST_EVENT, evd);
        this.servicePoint = servicePoint;
        this.localIaAddress = localIaAddress;
        this.connQual = connQual;
        this.connectionRequest = connectionRequest;
        return this;
    }

    /**
     * Fills a connection event (established, rejected, disconnected, broken, timed out,
     * unreachable, accept completion error). For providers.
     *
     * @param eventNumber one of the {@code CONNECTION_EVENT_*} numbers of {@link EventNumber}
     * @param evd the EVD
     * @param endpoint the Endpoint
     * @param privateData the peer's private data, or {@code null} for none
     * @return this event
     */
    public DatEvent setConnectionEvent(int eventNumber, EventDispatcher evd, Endpoint endpoint, byte[] privateData) {
        reset(eventNumber, evd);
        this.endpoint = endpoint;
        this.privateData = privateData == null ? NO_DATA : privateData;
        return this;
    }

    /**
     * Fills an asynchronous error. For providers.
     *
     * @param eventNumber one of the {@code ASYNC_ERROR_*} numbers of {@link EventNumber}
     * @param evd the EVD
     * @param handle the object concerned
     * @param reason the {@link AsyncErrorReason}
     * @return this event
     */
    public DatEvent setAsyncError(int eventNumber, EventDispatcher evd, DatHandle handle, int reason) {
        reset(eventNumber, evd);
        this.asyncHandle = handle;
        this.asyncReason = reason;
        return this;
    }

    /**
     * Fills a software event: {@link EventNumber#SOFTWARE_EVENT}. For providers.
     *
     * @param evd the EVD
     * @param pointer the consumer's object
     * @return this event
     */
    public DatEvent setSoftwareEvent(EventDispatcher evd, Object pointer) {
        reset(EventNumber.SOFTWARE_EVENT, evd);
        this.softwarePointer = pointer;
        return this;
    }

    /**
     * Sets the count of {@link #moreEvents()}. For providers.
     *
     * @param moreEvents the number of events still queued
     * @return this event
     */
    public DatEvent setMoreEvents(int moreEvents) {
        this.moreEvents = moreEvents;
        return this;
    }

    /**
     * Copies every field of another event into this one.
     *
     * @param other the event to copy
     * @return this event
     */
    public DatEvent copyFrom(DatEvent other) {
        eventNumber = other.eventNumber;
        evd = other.evd;
        endpoint = other.endpoint;
        userCookie = other.userCookie;
        status = other.status;
        transferredLength = other.transferredLength;
        rmr = other.rmr;
        servicePoint = other.servicePoint;
        localIaAddress = other.localIaAddress;
        connQual = other.connQual;
        connectionRequest = other.connectionRequest;
        privateData = other.privateData;
        asyncHandle = other.asyncHandle;
        asyncReason = other.asyncReason;
        softwarePointer = other.softwarePointer;
        moreEvents = other.moreEvents;
        extensionType = other.extensionType;
        immediateData = other.immediateData;
        return this;
    }

    /**
     * Empties the event (event number 0), dropping every reference it holds.
     *
     * @return this event
     */
    public DatEvent clear() {
        reset(0, null);
        return this;
    }

    private static final byte[] NO_DATA = new byte[0];

    /** {@code DAT_EXTENSION_EVENT}, the first extension event number (dat.api.ext.IbExtension#EXTENSION_EVENT). */
    private static final int EXTENSION_EVENT = 0x2_0000;

    /** Sets the header and drops references of other event kinds, so no object outlives its use. */
    private void reset(int number, EventDispatcher dispatcher) {
        eventNumber = number;
        evd = dispatcher;
        endpoint = null;
        rmr = null;
        servicePoint = null;
        localIaAddress = null;
        connectionRequest = null;
        privateData = null;
        asyncHandle = null;
        softwarePointer = null;
        moreEvents = 0;
        extensionType = 0;
        immediateData = 0;
    }

    @Override
    public String toString() {
        String name = EventNumber.name(eventNumber);
        return switch (eventNumber) {
            case EventNumber.DTO_COMPLETION_EVENT -> name + "{ep=" + endpoint + ", cookie=" + userCookie + ", status="
                    + DtoCompletionStatus.name(status) + ", length=" + transferredLength + "}";
            case EventNumber.RMR_BIND_COMPLETION_EVENT -> name + "{rmr=" + rmr + ", cookie=" + userCookie + ", status="
                    + DtoCompletionStatus.name(status) + "}";
            case EventNumber.CONNECTION_REQUEST_EVENT -> name + "{sp=" + servicePoint + ", connQual=" + connQual + ", cr="
                    + connectionRequest + "}";
            case EventNumber.SOFTWARE_EVENT -> name + "{pointer=" + softwarePointer + "}";
            default -> eventNumber >= EXTENSION_EVENT
                    ? name + "{ep=" + endpoint + ", cookie=" + userCookie + ", status=" + DtoCompletionStatus.name(status)
                            + ", length=" + transferredLength + ", type=" + extensionType + ", immediate=" + immediateData + "}"
                    : EventNumber.isConnectionEvent(eventNumber)
                    ? name + "{ep=" + endpoint + ", privateData=" + (privateData == null ? 0 : privateData.length) + " bytes}"
                    : name + "{handle=" + asyncHandle + ", reason=" + asyncReason + "}";
        };
    }
}
