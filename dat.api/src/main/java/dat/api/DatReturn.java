package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The {@code DAT_RETURN} encoding of DAT 1.2: every DAT operation reports its outcome as one 32-bit
 * code, and this class holds the exact 1.2 values, helpers to build and take apart such codes, and
 * {@link #strerror(int)}, the Java form of {@code dat_strerror(3DAT)}.
 *
 * <p>A code is a three-part tuple:
 * <pre>
 *  bits 31-30  class    {@link #CLASS_ERROR}, {@link #CLASS_WARNING} or {@link #CLASS_SUCCESS}
 *  bits 29-16  type     {@link #TYPE_MASK}: {@link #INVALID_PARAMETER}, {@link #QUEUE_EMPTY}, ...
 *  bits 15-0   subtype  {@link #SUBTYPE_MASK}: {@link #INVALID_ARG1}, {@link #RESOURCE_MEMORY}, ...
 * </pre>
 * The type constants carry no class bit, exactly as in the C header; an error code as returned by a
 * DAT operation is {@link #error(int, int) error(type, subtype)}, for example
 * {@code error(INVALID_PARAMETER, INVALID_ARG1) == 0x80060024}. {@link #SUCCESS} is {@code 0}.
 *
 * <p>The subtypes are numbered as in DAT 1.2 (uDAPL 1.2, illumos {@code libdat}); DAT 2.0 (OFED
 * {@code dat2}) renumbers them, so these values are not interchangeable with a 2.0 library.
 * {@link #NOT_IMPLEMENTED} is {@code 0x0FFF0000} as in the 1.2 header, not the 2.0 value
 * {@code 0x3FFF0000}.
 *
 * <p>Every method of this class is allocation-free except {@link #strerror(int)}, which returns
 * a new record, and {@link #describe(int)}, which builds a new string; both are meant for
 * diagnostics, not for the data path.
 *
 * <p>Source: DAT 1.2 {@code <dat/dat_error.h>} (the {@code DAT_RETURN_TYPE} and
 * {@code DAT_RETURN_SUBTYPE} enums); see dat_strerror(3DAT) and libdat(3LIB).
 */
@ProviderType
public final class DatReturn {

    /** Class bit of an error: {@code DAT_CLASS_ERROR}. */
    public static final int CLASS_ERROR = 0x8000_0000;

    /** Class bit of a warning: {@code DAT_CLASS_WARNING}. */
    public static final int CLASS_WARNING = 0x4000_0000;

    /** Class of a success, no class bit set: {@code DAT_CLASS_SUCCESS}. */
    public static final int CLASS_SUCCESS = 0;

    /**
     * Mask of the two class bits, {@code CLASS_ERROR | CLASS_WARNING}. Not in the C header, which
     * only tests the bits one at a time.
     */
    public static final int CLASS_MASK = 0xC000_0000;

    /** Mask of the type bits 29-16: {@code DAT_TYPE_MASK}. */
    public static final int TYPE_MASK = 0x3FFF_0000;

    /** Mask of the subtype bits 15-0: {@code DAT_SUBTYPE_MASK}. */
    public static final int SUBTYPE_MASK = 0x0000_FFFF;

    // ------------------------------------------------------------------------------------------
    // DAT_RETURN_TYPE
    // ------------------------------------------------------------------------------------------

    /** The operation was successful: {@code DAT_SUCCESS}. */
    public static final int SUCCESS = 0x0000_0000;

    /**
     * The operation was aborted because the IA was closed or the EVD was destroyed:
     * {@code DAT_ABORT}.
     */
    public static final int ABORT = 0x0001_0000;

    /** The specified Connection Qualifier is in use: {@code DAT_CONN_QUAL_IN_USE}. */
    public static final int CONN_QUAL_IN_USE = 0x0002_0000;

    /** The operation failed for lack of resources: {@code DAT_INSUFFICIENT_RESOURCES}. */
    public static final int INSUFFICIENT_RESOURCES = 0x0003_0000;

    /**
     * The Provider detected an internal error; it never masks an error caused by the Consumer:
     * {@code DAT_INTERNAL_ERROR}.
     */
    public static final int INTERNAL_ERROR = 0x0004_0000;

    /** One of the DAT handles was invalid: {@code DAT_INVALID_HANDLE}. */
    public static final int INVALID_HANDLE = 0x0005_0000;

    /** One of the parameters was invalid: {@code DAT_INVALID_PARAMETER}. */
    public static final int INVALID_PARAMETER = 0x0006_0000;

    /** An object was in a state that does not allow the operation: {@code DAT_INVALID_STATE}. */
    public static final int INVALID_STATE = 0x0007_0000;

    /**
     * A receiving buffer was too small for the data sent to it, or a local buffer too small for the
     * remote data: {@code DAT_LENGTH_ERROR}.
     */
    public static final int LENGTH_ERROR = 0x0008_0000;

    /** The requested model is not supported by the Provider: {@code DAT_MODEL_NOT_SUPPORTED}. */
    public static final int MODEL_NOT_SUPPORTED = 0x0009_0000;

    /**
     * The provider name or the requested attributes were not found in the registry:
     * {@code DAT_PROVIDER_NOT_FOUND}, the name the manual pages use ({@link #strerror} gives it;
     * illumos libdat prints the DAT 1.0 alias {@code "DAT_NAME_NOT_FOUND"} instead).
     */
    public static final int PROVIDER_NOT_FOUND = 0x000A_0000;

    /**
     * DAT 1.0 name of {@link #PROVIDER_NOT_FOUND}, kept by the 1.2 header:
     * {@code DAT_NAME_NOT_FOUND}.
     */
    public static final int NAME_NOT_FOUND = PROVIDER_NOT_FOUND;

    /**
     * Local or remote memory access without the needed privileges:
     * {@code DAT_PRIVILEGES_VIOLATION}.
     */
    public static final int PRIVILEGES_VIOLATION = 0x000B_0000;

    /**
     * Protection Zone mismatch, for example between an LMR of a local IOV segment and the local
     * Endpoint: {@code DAT_PROTECTION_VIOLATION}.
     */
    public static final int PROTECTION_VIOLATION = 0x000C_0000;

    /** The queue was empty, for example on {@code dat_evd_dequeue}: {@code DAT_QUEUE_EMPTY}. */
    public static final int QUEUE_EMPTY = 0x000D_0000;

    /** The Event Dispatcher queue is full: {@code DAT_QUEUE_FULL}. */
    public static final int QUEUE_FULL = 0x000E_0000;

    /** The operation timed out (uDAPL only): {@code DAT_TIMEOUT_EXPIRED}. */
    public static final int TIMEOUT_EXPIRED = 0x000F_0000;

    /** The provider name was already registered: {@code DAT_PROVIDER_ALREADY_REGISTERED}. */
    public static final int PROVIDER_ALREADY_REGISTERED = 0x0010_0000;

    /** The provider is in use and cannot be removed now: {@code DAT_PROVIDER_IN_USE}. */
    public static final int PROVIDER_IN_USE = 0x0011_0000;

    /** The requested remote address is not valid or not reachable: {@code DAT_INVALID_ADDRESS}. */
    public static final int INVALID_ADDRESS = 0x0012_0000;

    /**
     * {@code dat_evd_wait} or {@code dat_cno_wait} was interrupted (Unix only):
     * {@code DAT_INTERRUPTED_CALL}.
     */
    public static final int INTERRUPTED_CALL = 0x0013_0000;

    /** No Connection Qualifier is available: {@code DAT_CONN_QUAL_UNAVAILABLE}. */
    public static final int CONN_QUAL_UNAVAILABLE = 0x0014_0000;

    /**
     * The Provider does not support the operation (yet): {@code DAT_NOT_IMPLEMENTED}. The DAT 1.2
     * value {@code 0x0FFF0000}; DAT 2.0 moved it to {@code 0x3FFF0000}.
     */
    public static final int NOT_IMPLEMENTED = 0x0FFF_0000;

    // ------------------------------------------------------------------------------------------
    // DAT_RETURN_SUBTYPE, DAT 1.2 numbering
    // ------------------------------------------------------------------------------------------

    /**
     * No subtype: the type alone describes the return; {@code dat_strerror} gives the empty minor
     * string. C: {@code DAT_NO_SUBTYPE}.
     */
    public static final int NO_SUBTYPE = 0;

    /**
     * {@link #ABORT} subtype: the call was interrupted by a signal or otherwise. C:
     * {@code DAT_SUB_INTERRUPTED}.
     */
    public static final int SUB_INTERRUPTED = 1;

    /** {@link #INSUFFICIENT_RESOURCES} subtype: out of memory. C: {@code DAT_RESOURCE_MEMORY}. */
    public static final int RESOURCE_MEMORY = 2;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of device resources. C:
     * {@code DAT_RESOURCE_DEVICE}.
     */
    public static final int RESOURCE_DEVICE = 3;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of transport endpoints (for example queue
     * pairs). C: {@code DAT_RESOURCE_TEP}.
     */
    public static final int RESOURCE_TEP = 4;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of transport event dispatchers (for example
     * completion queues). C: {@code DAT_RESOURCE_TEVD}.
     */
    public static final int RESOURCE_TEVD = 5;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of protection domains. C:
     * {@code DAT_RESOURCE_PROTECTION_DOMAIN}.
     */
    public static final int RESOURCE_PROTECTION_DOMAIN = 6;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of adapter memory for an LMR or RMR. C:
     * {@code DAT_RESOURCE_MEMORY_REGION}.
     */
    public static final int RESOURCE_MEMORY_REGION = 7;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of error handlers. C:
     * {@code DAT_RESOURCE_ERROR_HANDLER}.
     */
    public static final int RESOURCE_ERROR_HANDLER = 8;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of credits, for example outstanding RDMA Read
     * credits as target. C: {@code DAT_RESOURCE_CREDITS}.
     */
    public static final int RESOURCE_CREDITS = 9;

    /**
     * {@link #INSUFFICIENT_RESOURCES} subtype: out of shared receive queues. C:
     * {@code DAT_RESOURCE_SRQ}.
     */
    public static final int RESOURCE_SRQ = 10;

    /**
     * {@link #INVALID_HANDLE} subtype: the Interface Adapter handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_IA}.
     */
    public static final int INVALID_HANDLE_IA = 11;

    /**
     * {@link #INVALID_HANDLE} subtype: the Endpoint handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EP}.
     */
    public static final int INVALID_HANDLE_EP = 12;

    /**
     * {@link #INVALID_HANDLE} subtype: the Local Memory Region handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_LMR}.
     */
    public static final int INVALID_HANDLE_LMR = 13;

    /**
     * {@link #INVALID_HANDLE} subtype: the Remote Memory Region handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_RMR}.
     */
    public static final int INVALID_HANDLE_RMR = 14;

    /**
     * {@link #INVALID_HANDLE} subtype: the Protection Zone handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_PZ}.
     */
    public static final int INVALID_HANDLE_PZ = 15;

    /**
     * {@link #INVALID_HANDLE} subtype: the Public Service Point handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_PSP}.
     */
    public static final int INVALID_HANDLE_PSP = 16;

    /**
     * {@link #INVALID_HANDLE} subtype: the Reserved Service Point handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_RSP}.
     */
    public static final int INVALID_HANDLE_RSP = 17;

    /**
     * {@link #INVALID_HANDLE} subtype: the Connection Request handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_CR}.
     */
    public static final int INVALID_HANDLE_CR = 18;

    /**
     * {@link #INVALID_HANDLE} subtype: the Consumer Notification Object handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_CNO}.
     */
    public static final int INVALID_HANDLE_CNO = 19;

    /**
     * {@link #INVALID_HANDLE} subtype: the connection-request EVD handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EVD_CR}.
     */
    public static final int INVALID_HANDLE_EVD_CR = 20;

    /**
     * {@link #INVALID_HANDLE} subtype: the request (send-side) completion EVD handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EVD_REQUEST}.
     */
    public static final int INVALID_HANDLE_EVD_REQUEST = 21;

    /**
     * {@link #INVALID_HANDLE} subtype: the receive completion EVD handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EVD_RECV}.
     */
    public static final int INVALID_HANDLE_EVD_RECV = 22;

    /**
     * {@link #INVALID_HANDLE} subtype: the connection EVD handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EVD_CONN}.
     */
    public static final int INVALID_HANDLE_EVD_CONN = 23;

    /**
     * {@link #INVALID_HANDLE} subtype: the asynchronous error EVD handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_EVD_ASYNC}.
     */
    public static final int INVALID_HANDLE_EVD_ASYNC = 24;

    /**
     * {@link #INVALID_HANDLE} subtype: the Shared Receive Queue handle is invalid. C:
     * {@code DAT_INVALID_HANDLE_SRQ}.
     */
    public static final int INVALID_HANDLE_SRQ = 25;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 1 is invalid. C:
     * {@code DAT_INVALID_HANDLE1}.
     */
    public static final int INVALID_HANDLE1 = 26;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 2 is invalid. C:
     * {@code DAT_INVALID_HANDLE2}.
     */
    public static final int INVALID_HANDLE2 = 27;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 3 is invalid. C:
     * {@code DAT_INVALID_HANDLE3}.
     */
    public static final int INVALID_HANDLE3 = 28;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 4 is invalid. C:
     * {@code DAT_INVALID_HANDLE4}.
     */
    public static final int INVALID_HANDLE4 = 29;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 5 is invalid. C:
     * {@code DAT_INVALID_HANDLE5}.
     */
    public static final int INVALID_HANDLE5 = 30;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 6 is invalid. C:
     * {@code DAT_INVALID_HANDLE6}.
     */
    public static final int INVALID_HANDLE6 = 31;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 7 is invalid. C:
     * {@code DAT_INVALID_HANDLE7}.
     */
    public static final int INVALID_HANDLE7 = 32;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 8 is invalid. C:
     * {@code DAT_INVALID_HANDLE8}.
     */
    public static final int INVALID_HANDLE8 = 33;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 9 is invalid. C:
     * {@code DAT_INVALID_HANDLE9}.
     */
    public static final int INVALID_HANDLE9 = 34;

    /**
     * {@link #INVALID_HANDLE} subtype: the handle passed as argument 10 is invalid. C:
     * {@code DAT_INVALID_HANDLE10}.
     */
    public static final int INVALID_HANDLE10 = 35;

    /** {@link #INVALID_PARAMETER} subtype: argument 1 is invalid. C: {@code DAT_INVALID_ARG1}. */
    public static final int INVALID_ARG1 = 36;

    /** {@link #INVALID_PARAMETER} subtype: argument 2 is invalid. C: {@code DAT_INVALID_ARG2}. */
    public static final int INVALID_ARG2 = 37;

    /** {@link #INVALID_PARAMETER} subtype: argument 3 is invalid. C: {@code DAT_INVALID_ARG3}. */
    public static final int INVALID_ARG3 = 38;

    /** {@link #INVALID_PARAMETER} subtype: argument 4 is invalid. C: {@code DAT_INVALID_ARG4}. */
    public static final int INVALID_ARG4 = 39;

    /** {@link #INVALID_PARAMETER} subtype: argument 5 is invalid. C: {@code DAT_INVALID_ARG5}. */
    public static final int INVALID_ARG5 = 40;

    /** {@link #INVALID_PARAMETER} subtype: argument 6 is invalid. C: {@code DAT_INVALID_ARG6}. */
    public static final int INVALID_ARG6 = 41;

    /** {@link #INVALID_PARAMETER} subtype: argument 7 is invalid. C: {@code DAT_INVALID_ARG7}. */
    public static final int INVALID_ARG7 = 42;

    /** {@link #INVALID_PARAMETER} subtype: argument 8 is invalid. C: {@code DAT_INVALID_ARG8}. */
    public static final int INVALID_ARG8 = 43;

    /** {@link #INVALID_PARAMETER} subtype: argument 9 is invalid. C: {@code DAT_INVALID_ARG9}. */
    public static final int INVALID_ARG9 = 44;

    /** {@link #INVALID_PARAMETER} subtype: argument 10 is invalid. C: {@code DAT_INVALID_ARG10}. */
    public static final int INVALID_ARG10 = 45;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Unconnected. C:
     * {@code DAT_INVALID_STATE_EP_UNCONNECTED}.
     */
    public static final int INVALID_STATE_EP_UNCONNECTED = 46;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Active Connection Pending. C:
     * {@code DAT_INVALID_STATE_EP_ACTCONNPENDING}.
     */
    public static final int INVALID_STATE_EP_ACTCONNPENDING = 47;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Passive Connection Pending. C:
     * {@code DAT_INVALID_STATE_EP_PASSCONNPENDING}.
     */
    public static final int INVALID_STATE_EP_PASSCONNPENDING = 48;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Tentative Connection Pending. C:
     * {@code DAT_INVALID_STATE_EP_TENTCONNPENDING}.
     */
    public static final int INVALID_STATE_EP_TENTCONNPENDING = 49;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Connected. C:
     * {@code DAT_INVALID_STATE_EP_CONNECTED}.
     */
    public static final int INVALID_STATE_EP_CONNECTED = 50;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Disconnected. C:
     * {@code DAT_INVALID_STATE_EP_DISCONNECTED}.
     */
    public static final int INVALID_STATE_EP_DISCONNECTED = 51;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Reserved. C:
     * {@code DAT_INVALID_STATE_EP_RESERVED}.
     */
    public static final int INVALID_STATE_EP_RESERVED = 52;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Completion Pending. C:
     * {@code DAT_INVALID_STATE_EP_COMPLPENDING}.
     */
    public static final int INVALID_STATE_EP_COMPLPENDING = 53;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Disconnect Pending. C:
     * {@code DAT_INVALID_STATE_EP_DISCPENDING}.
     */
    public static final int INVALID_STATE_EP_DISCPENDING = 54;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is under Provider control. C:
     * {@code DAT_INVALID_STATE_EP_PROVIDERCONTROL}.
     */
    public static final int INVALID_STATE_EP_PROVIDERCONTROL = 55;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is not ready. C:
     * {@code DAT_INVALID_STATE_EP_NOTREADY}.
     */
    public static final int INVALID_STATE_EP_NOTREADY = 56;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint's receive watermark forbids the operation. C:
     * {@code DAT_INVALID_STATE_EP_RECV_WATERMARK}.
     */
    public static final int INVALID_STATE_EP_RECV_WATERMARK = 57;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint's Protection Zone does not allow the operation.
     * C: {@code DAT_INVALID_STATE_EP_PZ}.
     */
    public static final int INVALID_STATE_EP_PZ = 58;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint has no usable request completion EVD. C:
     * {@code DAT_INVALID_STATE_EP_EVD_REQUEST}.
     */
    public static final int INVALID_STATE_EP_EVD_REQUEST = 59;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint has no usable receive completion EVD. C:
     * {@code DAT_INVALID_STATE_EP_EVD_RECV}.
     */
    public static final int INVALID_STATE_EP_EVD_RECV = 60;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint has no usable connection EVD. C:
     * {@code DAT_INVALID_STATE_EP_EVD_CONNECT}.
     */
    public static final int INVALID_STATE_EP_EVD_CONNECT = 61;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Unconfigured Unconnected. C:
     * {@code DAT_INVALID_STATE_EP_UNCONFIGURED}.
     */
    public static final int INVALID_STATE_EP_UNCONFIGURED = 62;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Unconfigured Reserved. C:
     * {@code DAT_INVALID_STATE_EP_UNCONFRESERVED}.
     */
    public static final int INVALID_STATE_EP_UNCONFRESERVED = 63;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Unconfigured Passive. C:
     * {@code DAT_INVALID_STATE_EP_UNCONFPASSIVE}.
     */
    public static final int INVALID_STATE_EP_UNCONFPASSIVE = 64;

    /**
     * {@link #INVALID_STATE} subtype: the Endpoint is Unconfigured Tentative. C:
     * {@code DAT_INVALID_STATE_EP_UNCONFTENTATIVE}.
     */
    public static final int INVALID_STATE_EP_UNCONFTENTATIVE = 65;

    /**
     * {@link #INVALID_STATE} subtype: the CNO is in use (for example an EVD feeds it). C:
     * {@code DAT_INVALID_STATE_CNO_IN_USE}.
     */
    public static final int INVALID_STATE_CNO_IN_USE = 66;

    /** {@link #INVALID_STATE} subtype: the CNO is dead. C: {@code DAT_INVALID_STATE_CNO_DEAD}. */
    public static final int INVALID_STATE_CNO_DEAD = 67;

    /** {@link #INVALID_STATE} subtype: the EVD is open. C: {@code DAT_INVALID_STATE_EVD_OPEN}. */
    public static final int INVALID_STATE_EVD_OPEN = 68;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is enabled. C: {@code DAT_INVALID_STATE_EVD_ENABLED}.
     */
    public static final int INVALID_STATE_EVD_ENABLED = 69;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is disabled. C:
     * {@code DAT_INVALID_STATE_EVD_DISABLED}.
     */
    public static final int INVALID_STATE_EVD_DISABLED = 70;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is waitable. C:
     * {@code DAT_INVALID_STATE_EVD_WAITABLE}.
     */
    public static final int INVALID_STATE_EVD_WAITABLE = 71;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is unwaitable. C:
     * {@code DAT_INVALID_STATE_EVD_UNWAITABLE}.
     */
    public static final int INVALID_STATE_EVD_UNWAITABLE = 72;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is in use and cannot be released. C:
     * {@code DAT_INVALID_STATE_EVD_IN_USE}.
     */
    public static final int INVALID_STATE_EVD_IN_USE = 73;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is configured for notification. C:
     * {@code DAT_INVALID_STATE_EVD_CONFIG_NOTIFY}.
     */
    public static final int INVALID_STATE_EVD_CONFIG_NOTIFY = 74;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is configured for solicited events. C:
     * {@code DAT_INVALID_STATE_EVD_CONFIG_SOLICITED}.
     */
    public static final int INVALID_STATE_EVD_CONFIG_SOLICITED = 75;

    /**
     * {@link #INVALID_STATE} subtype: the EVD is configured for threshold wake-up (uDAPL only). C:
     * {@code DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD}.
     */
    public static final int INVALID_STATE_EVD_CONFIG_THRESHOLD = 76;

    /**
     * {@link #INVALID_STATE} subtype: a waiter is already blocked on the EVD. C:
     * {@code DAT_INVALID_STATE_EVD_WAITER}.
     */
    public static final int INVALID_STATE_EVD_WAITER = 77;

    /**
     * {@link #INVALID_STATE} subtype: an asynchronous error EVD is required. C:
     * {@code DAT_INVALID_STATE_EVD_ASYNC}.
     */
    public static final int INVALID_STATE_EVD_ASYNC = 78;

    /** {@link #INVALID_STATE} subtype: the IA is in use. C: {@code DAT_INVALID_STATE_IA_IN_USE}. */
    public static final int INVALID_STATE_IA_IN_USE = 79;

    /**
     * {@link #INVALID_STATE} subtype: the LMR is in use. C: {@code DAT_INVALID_STATE_LMR_IN_USE}.
     */
    public static final int INVALID_STATE_LMR_IN_USE = 80;

    /** {@link #INVALID_STATE} subtype: the LMR is free. C: {@code DAT_INVALID_STATE_LMR_FREE}. */
    public static final int INVALID_STATE_LMR_FREE = 81;

    /** {@link #INVALID_STATE} subtype: the PZ is in use. C: {@code DAT_INVALID_STATE_PZ_IN_USE}. */
    public static final int INVALID_STATE_PZ_IN_USE = 82;

    /** {@link #INVALID_STATE} subtype: the PZ is free. C: {@code DAT_INVALID_STATE_PZ_FREE}. */
    public static final int INVALID_STATE_PZ_FREE = 83;

    /**
     * {@link #INVALID_STATE} subtype: the SRQ is operational. C:
     * {@code DAT_INVALID_STATE_SRQ_OPERATIONAL}.
     */
    public static final int INVALID_STATE_SRQ_OPERATIONAL = 84;

    /**
     * {@link #INVALID_STATE} subtype: the SRQ is in the error state. C:
     * {@code DAT_INVALID_STATE_SRQ_ERROR}.
     */
    public static final int INVALID_STATE_SRQ_ERROR = 85;

    /**
     * {@link #INVALID_STATE} subtype: the SRQ is in use. C: {@code DAT_INVALID_STATE_SRQ_IN_USE}.
     */
    public static final int INVALID_STATE_SRQ_IN_USE = 86;

    /**
     * {@link #PRIVILEGES_VIOLATION} subtype: no local read privilege. C:
     * {@code DAT_PRIVILEGES_READ}.
     */
    public static final int PRIVILEGES_READ = 87;

    /**
     * {@link #PRIVILEGES_VIOLATION} subtype: no local write privilege. C:
     * {@code DAT_PRIVILEGES_WRITE}.
     */
    public static final int PRIVILEGES_WRITE = 88;

    /**
     * {@link #PRIVILEGES_VIOLATION} subtype: no RDMA Read privilege. C:
     * {@code DAT_PRIVILEGES_RDMA_READ}.
     */
    public static final int PRIVILEGES_RDMA_READ = 89;

    /**
     * {@link #PRIVILEGES_VIOLATION} subtype: no RDMA Write privilege. C:
     * {@code DAT_PRIVILEGES_RDMA_WRITE}.
     */
    public static final int PRIVILEGES_RDMA_WRITE = 90;

    /**
     * {@link #PROTECTION_VIOLATION} subtype: Protection Zone mismatch on a read. C:
     * {@code DAT_PROTECTION_READ}.
     */
    public static final int PROTECTION_READ = 91;

    /**
     * {@link #PROTECTION_VIOLATION} subtype: Protection Zone mismatch on a write. C:
     * {@code DAT_PROTECTION_WRITE}.
     */
    public static final int PROTECTION_WRITE = 92;

    /**
     * {@link #PROTECTION_VIOLATION} subtype: Protection Zone mismatch on an RDMA Read. C:
     * {@code DAT_PROTECTION_RDMA_READ}.
     */
    public static final int PROTECTION_RDMA_READ = 93;

    /**
     * {@link #PROTECTION_VIOLATION} subtype: Protection Zone mismatch on an RDMA Write. C:
     * {@code DAT_PROTECTION_RDMA_WRITE}.
     */
    public static final int PROTECTION_RDMA_WRITE = 94;

    /**
     * {@link #INVALID_ADDRESS} subtype: a well-formed address that DAT cannot use, such as an IPv4
     * broadcast or multicast address or an IPv6 multicast address. C:
     * {@code DAT_INVALID_ADDRESS_UNSUPPORTED}.
     */
    public static final int INVALID_ADDRESS_UNSUPPORTED = 95;

    /**
     * {@link #INVALID_ADDRESS} subtype: the Provider knows the address is unreachable, for example
     * an IPv6 address on an IPv4-only system. C: {@code DAT_INVALID_ADDRESS_UNREACHABLE}.
     */
    public static final int INVALID_ADDRESS_UNREACHABLE = 96;

    /**
     * {@link #INVALID_ADDRESS} subtype: the address cannot be valid in any context (RFC 1884
     * reserved or unassigned). C: {@code DAT_INVALID_ADDRESS_MALFORMED}.
     */
    public static final int INVALID_ADDRESS_MALFORMED = 97;

    /**
     * {@link #PROVIDER_NOT_FOUND} subtype: no provider is registered under the IA name (errata to
     * DAT 1.1). C: {@code DAT_NAME_NOT_REGISTERED}.
     */
    public static final int NAME_NOT_REGISTERED = 98;

    /**
     * {@link #PROVIDER_NOT_FOUND} subtype: no provider with the requested major version (errata to
     * DAT 1.1). C: {@code DAT_MAJOR_NOT_FOUND}.
     */
    public static final int MAJOR_NOT_FOUND = 99;

    /**
     * {@link #PROVIDER_NOT_FOUND} subtype: no provider with the requested minor version (errata to
     * DAT 1.1). C: {@code DAT_MINOR_NOT_FOUND}.
     */
    public static final int MINOR_NOT_FOUND = 100;

    /**
     * {@link #PROVIDER_NOT_FOUND} subtype: no provider with the requested thread safety (errata to
     * DAT 1.1). C: {@code DAT_THREAD_SAFETY_NOT_FOUND}.
     */
    public static final int THREAD_SAFETY_NOT_FOUND = 101;

    /**
     * {@link #INVALID_PARAMETER} subtype, Sun specific: the IA name lacks the {@code RO_AWARE_}
     * prefix on a platform that uses relaxed ordering; see dat_ia_open(3DAT). C:
     * {@code DAT_INVALID_RO_COOKIE}.
     */
    public static final int INVALID_RO_COOKIE = 102;
    // ------------------------------------------------------------------------------------------
    // Name tables, built once; lookups index them and allocate nothing.
    // ------------------------------------------------------------------------------------------

    /** Bit position of the type inside a code: {@code type >>> TYPE_SHIFT} is the type's index. */
    private static final int TYPE_SHIFT = 16;

    /** Major names of the consecutive types {@code 0x0000..0x0014}, indexed by type index. */
    private static final String[] TYPE_NAMES = typeNames();

    /** Major name of {@link #NOT_IMPLEMENTED}, the one type outside {@link #TYPE_NAMES}. */
    private static final String NOT_IMPLEMENTED_NAME = "DAT_NOT_IMPLEMENTED";

    /** Minor names of the subtypes, indexed by subtype; {@link #NO_SUBTYPE} has {@code ""}. */
    private static final String[] SUBTYPE_NAMES = subtypeNames();

    /** Not instantiable: constants and static helpers only. */
    private DatReturn() {}

    /**
     * Builds the table of type names.
     *
     * @return the names of the types {@code 0x0000..0x0014}, indexed by {@code type >>> 16}
     */
    private static String[] typeNames() {
        String[] names = new String[(CONN_QUAL_UNAVAILABLE >>> TYPE_SHIFT) + 1];
        names[SUCCESS >>> TYPE_SHIFT] = "DAT_SUCCESS";
        names[ABORT >>> TYPE_SHIFT] = "DAT_ABORT";
        names[CONN_QUAL_IN_USE >>> TYPE_SHIFT] = "DAT_CONN_QUAL_IN_USE";
        names[INSUFFICIENT_RESOURCES >>> TYPE_SHIFT] = "DAT_INSUFFICIENT_RESOURCES";
        names[INTERNAL_ERROR >>> TYPE_SHIFT] = "DAT_INTERNAL_ERROR";
        names[INVALID_HANDLE >>> TYPE_SHIFT] = "DAT_INVALID_HANDLE";
        names[INVALID_PARAMETER >>> TYPE_SHIFT] = "DAT_INVALID_PARAMETER";
        names[INVALID_STATE >>> TYPE_SHIFT] = "DAT_INVALID_STATE";
        names[LENGTH_ERROR >>> TYPE_SHIFT] = "DAT_LENGTH_ERROR";
        names[MODEL_NOT_SUPPORTED >>> TYPE_SHIFT] = "DAT_MODEL_NOT_SUPPORTED";
        // libdat's dat_strerror names this type by the DAT 1.0 alias, not DAT_PROVIDER_NOT_FOUND.
        names[PROVIDER_NOT_FOUND >>> TYPE_SHIFT] = "DAT_PROVIDER_NOT_FOUND";
        names[PRIVILEGES_VIOLATION >>> TYPE_SHIFT] = "DAT_PRIVILEGES_VIOLATION";
        names[PROTECTION_VIOLATION >>> TYPE_SHIFT] = "DAT_PROTECTION_VIOLATION";
        names[QUEUE_EMPTY >>> TYPE_SHIFT] = "DAT_QUEUE_EMPTY";
        names[QUEUE_FULL >>> TYPE_SHIFT] = "DAT_QUEUE_FULL";
        names[TIMEOUT_EXPIRED >>> TYPE_SHIFT] = "DAT_TIMEOUT_EXPIRED";
        names[PROVIDER_ALREADY_REGISTERED >>> TYPE_SHIFT] = "DAT_PROVIDER_ALREADY_REGISTERED";
        names[PROVIDER_IN_USE >>> TYPE_SHIFT] = "DAT_PROVIDER_IN_USE";
        names[INVALID_ADDRESS >>> TYPE_SHIFT] = "DAT_INVALID_ADDRESS";
        names[INTERRUPTED_CALL >>> TYPE_SHIFT] = "DAT_INTERRUPTED_CALL";
        names[CONN_QUAL_UNAVAILABLE >>> TYPE_SHIFT] = "DAT_CONN_QUAL_UNAVAILABLE";
        return names;
    }

    /**
     * Builds the table of subtype names.
     *
     * @return the names of the subtypes {@code 0..102}, indexed by subtype
     */
    private static String[] subtypeNames() {
        String[] names = new String[INVALID_RO_COOKIE + 1];
        names[NO_SUBTYPE] = "";
        names[SUB_INTERRUPTED] = "DAT_SUB_INTERRUPTED";
        names[RESOURCE_MEMORY] = "DAT_RESOURCE_MEMORY";
        names[RESOURCE_DEVICE] = "DAT_RESOURCE_DEVICE";
        names[RESOURCE_TEP] = "DAT_RESOURCE_TEP";
        names[RESOURCE_TEVD] = "DAT_RESOURCE_TEVD";
        names[RESOURCE_PROTECTION_DOMAIN] = "DAT_RESOURCE_PROTECTION_DOMAIN";
        names[RESOURCE_MEMORY_REGION] = "DAT_RESOURCE_MEMORY_REGION";
        names[RESOURCE_ERROR_HANDLER] = "DAT_RESOURCE_ERROR_HANDLER";
        names[RESOURCE_CREDITS] = "DAT_RESOURCE_CREDITS";
        names[RESOURCE_SRQ] = "DAT_RESOURCE_SRQ";
        names[INVALID_HANDLE_IA] = "DAT_INVALID_HANDLE_IA";
        names[INVALID_HANDLE_EP] = "DAT_INVALID_HANDLE_EP";
        names[INVALID_HANDLE_LMR] = "DAT_INVALID_HANDLE_LMR";
        names[INVALID_HANDLE_RMR] = "DAT_INVALID_HANDLE_RMR";
        names[INVALID_HANDLE_PZ] = "DAT_INVALID_HANDLE_PZ";
        names[INVALID_HANDLE_PSP] = "DAT_INVALID_HANDLE_PSP";
        names[INVALID_HANDLE_RSP] = "DAT_INVALID_HANDLE_RSP";
        names[INVALID_HANDLE_CR] = "DAT_INVALID_HANDLE_CR";
        names[INVALID_HANDLE_CNO] = "DAT_INVALID_HANDLE_CNO";
        names[INVALID_HANDLE_EVD_CR] = "DAT_INVALID_HANDLE_EVD_CR";
        names[INVALID_HANDLE_EVD_REQUEST] = "DAT_INVALID_HANDLE_EVD_REQUEST";
        names[INVALID_HANDLE_EVD_RECV] = "DAT_INVALID_HANDLE_EVD_RECV";
        names[INVALID_HANDLE_EVD_CONN] = "DAT_INVALID_HANDLE_EVD_CONN";
        names[INVALID_HANDLE_EVD_ASYNC] = "DAT_INVALID_HANDLE_EVD_ASYNC";
        names[INVALID_HANDLE_SRQ] = "DAT_INVALID_HANDLE_SRQ";
        names[INVALID_HANDLE1] = "DAT_INVALID_HANDLE1";
        names[INVALID_HANDLE2] = "DAT_INVALID_HANDLE2";
        names[INVALID_HANDLE3] = "DAT_INVALID_HANDLE3";
        names[INVALID_HANDLE4] = "DAT_INVALID_HANDLE4";
        names[INVALID_HANDLE5] = "DAT_INVALID_HANDLE5";
        names[INVALID_HANDLE6] = "DAT_INVALID_HANDLE6";
        names[INVALID_HANDLE7] = "DAT_INVALID_HANDLE7";
        names[INVALID_HANDLE8] = "DAT_INVALID_HANDLE8";
        names[INVALID_HANDLE9] = "DAT_INVALID_HANDLE9";
        names[INVALID_HANDLE10] = "DAT_INVALID_HANDLE10";
        names[INVALID_ARG1] = "DAT_INVALID_ARG1";
        names[INVALID_ARG2] = "DAT_INVALID_ARG2";
        names[INVALID_ARG3] = "DAT_INVALID_ARG3";
        names[INVALID_ARG4] = "DAT_INVALID_ARG4";
        names[INVALID_ARG5] = "DAT_INVALID_ARG5";
        names[INVALID_ARG6] = "DAT_INVALID_ARG6";
        names[INVALID_ARG7] = "DAT_INVALID_ARG7";
        names[INVALID_ARG8] = "DAT_INVALID_ARG8";
        names[INVALID_ARG9] = "DAT_INVALID_ARG9";
        names[INVALID_ARG10] = "DAT_INVALID_ARG10";
        names[INVALID_STATE_EP_UNCONNECTED] = "DAT_INVALID_STATE_EP_UNCONNECTED";
        names[INVALID_STATE_EP_ACTCONNPENDING] = "DAT_INVALID_STATE_EP_ACTCONNPENDING";
        names[INVALID_STATE_EP_PASSCONNPENDING] = "DAT_INVALID_STATE_EP_PASSCONNPENDING";
        names[INVALID_STATE_EP_TENTCONNPENDING] = "DAT_INVALID_STATE_EP_TENTCONNPENDING";
        names[INVALID_STATE_EP_CONNECTED] = "DAT_INVALID_STATE_EP_CONNECTED";
        names[INVALID_STATE_EP_DISCONNECTED] = "DAT_INVALID_STATE_EP_DISCONNECTED";
        names[INVALID_STATE_EP_RESERVED] = "DAT_INVALID_STATE_EP_RESERVED";
        names[INVALID_STATE_EP_COMPLPENDING] = "DAT_INVALID_STATE_EP_COMPLPENDING";
        names[INVALID_STATE_EP_DISCPENDING] = "DAT_INVALID_STATE_EP_DISCPENDING";
        names[INVALID_STATE_EP_PROVIDERCONTROL] = "DAT_INVALID_STATE_EP_PROVIDERCONTROL";
        names[INVALID_STATE_EP_NOTREADY] = "DAT_INVALID_STATE_EP_NOTREADY";
        names[INVALID_STATE_EP_RECV_WATERMARK] = "DAT_INVALID_STATE_EP_RECV_WATERMARK";
        names[INVALID_STATE_EP_PZ] = "DAT_INVALID_STATE_EP_PZ";
        names[INVALID_STATE_EP_EVD_REQUEST] = "DAT_INVALID_STATE_EP_EVD_REQUEST";
        names[INVALID_STATE_EP_EVD_RECV] = "DAT_INVALID_STATE_EP_EVD_RECV";
        names[INVALID_STATE_EP_EVD_CONNECT] = "DAT_INVALID_STATE_EP_EVD_CONNECT";
        names[INVALID_STATE_EP_UNCONFIGURED] = "DAT_INVALID_STATE_EP_UNCONFIGURED";
        names[INVALID_STATE_EP_UNCONFRESERVED] = "DAT_INVALID_STATE_EP_UNCONFRESERVED";
        names[INVALID_STATE_EP_UNCONFPASSIVE] = "DAT_INVALID_STATE_EP_UNCONFPASSIVE";
        names[INVALID_STATE_EP_UNCONFTENTATIVE] = "DAT_INVALID_STATE_EP_UNCONFTENTATIVE";
        names[INVALID_STATE_CNO_IN_USE] = "DAT_INVALID_STATE_CNO_IN_USE";
        names[INVALID_STATE_CNO_DEAD] = "DAT_INVALID_STATE_CNO_DEAD";
        names[INVALID_STATE_EVD_OPEN] = "DAT_INVALID_STATE_EVD_OPEN";
        names[INVALID_STATE_EVD_ENABLED] = "DAT_INVALID_STATE_EVD_ENABLED";
        names[INVALID_STATE_EVD_DISABLED] = "DAT_INVALID_STATE_EVD_DISABLED";
        names[INVALID_STATE_EVD_WAITABLE] = "DAT_INVALID_STATE_EVD_WAITABLE";
        names[INVALID_STATE_EVD_UNWAITABLE] = "DAT_INVALID_STATE_EVD_UNWAITABLE";
        names[INVALID_STATE_EVD_IN_USE] = "DAT_INVALID_STATE_EVD_IN_USE";
        names[INVALID_STATE_EVD_CONFIG_NOTIFY] = "DAT_INVALID_STATE_EVD_CONFIG_NOTIFY";
        names[INVALID_STATE_EVD_CONFIG_SOLICITED] = "DAT_INVALID_STATE_EVD_CONFIG_SOLICITED";
        names[INVALID_STATE_EVD_CONFIG_THRESHOLD] = "DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD";
        names[INVALID_STATE_EVD_WAITER] = "DAT_INVALID_STATE_EVD_WAITER";
        names[INVALID_STATE_EVD_ASYNC] = "DAT_INVALID_STATE_EVD_ASYNC";
        names[INVALID_STATE_IA_IN_USE] = "DAT_INVALID_STATE_IA_IN_USE";
        names[INVALID_STATE_LMR_IN_USE] = "DAT_INVALID_STATE_LMR_IN_USE";
        names[INVALID_STATE_LMR_FREE] = "DAT_INVALID_STATE_LMR_FREE";
        names[INVALID_STATE_PZ_IN_USE] = "DAT_INVALID_STATE_PZ_IN_USE";
        names[INVALID_STATE_PZ_FREE] = "DAT_INVALID_STATE_PZ_FREE";
        names[INVALID_STATE_SRQ_OPERATIONAL] = "DAT_INVALID_STATE_SRQ_OPERATIONAL";
        names[INVALID_STATE_SRQ_ERROR] = "DAT_INVALID_STATE_SRQ_ERROR";
        names[INVALID_STATE_SRQ_IN_USE] = "DAT_INVALID_STATE_SRQ_IN_USE";
        names[PRIVILEGES_READ] = "DAT_PRIVILEGES_READ";
        names[PRIVILEGES_WRITE] = "DAT_PRIVILEGES_WRITE";
        names[PRIVILEGES_RDMA_READ] = "DAT_PRIVILEGES_RDMA_READ";
        names[PRIVILEGES_RDMA_WRITE] = "DAT_PRIVILEGES_RDMA_WRITE";
        names[PROTECTION_READ] = "DAT_PROTECTION_READ";
        names[PROTECTION_WRITE] = "DAT_PROTECTION_WRITE";
        names[PROTECTION_RDMA_READ] = "DAT_PROTECTION_RDMA_READ";
        names[PROTECTION_RDMA_WRITE] = "DAT_PROTECTION_RDMA_WRITE";
        names[INVALID_ADDRESS_UNSUPPORTED] = "DAT_INVALID_ADDRESS_UNSUPPORTED";
        names[INVALID_ADDRESS_UNREACHABLE] = "DAT_INVALID_ADDRESS_UNREACHABLE";
        names[INVALID_ADDRESS_MALFORMED] = "DAT_INVALID_ADDRESS_MALFORMED";
        names[NAME_NOT_REGISTERED] = "DAT_NAME_NOT_REGISTERED";
        names[MAJOR_NOT_FOUND] = "DAT_MAJOR_NOT_FOUND";
        names[MINOR_NOT_FOUND] = "DAT_MINOR_NOT_FOUND";
        names[THREAD_SAFETY_NOT_FOUND] = "DAT_THREAD_SAFETY_NOT_FOUND";
        names[INVALID_RO_COOKIE] = "DAT_INVALID_RO_COOKIE";
        return names;
    }

    // ------------------------------------------------------------------------------------------
    // Building and taking codes apart
    // ------------------------------------------------------------------------------------------

    /**
     * Builds an error code, the {@code DAT_ERROR(type, subtype)} of the reference implementation:
     * {@code CLASS_ERROR | type | subtype}. A plain bitwise OR, so it is as cheap as a constant.
     *
     * @param type a type constant such as {@link #INVALID_PARAMETER}
     * @param subtype a subtype constant such as {@link #INVALID_ARG1}, or {@link #NO_SUBTYPE}
     * @return the error code
     */
    public static int error(int type, int subtype) {
        return CLASS_ERROR | type | subtype;
    }

    /**
     * Builds a warning code: {@code CLASS_WARNING | type | subtype}. DAT 1.2 defines no warning of
     * its own; the class exists for Providers.
     *
     * @param type a type constant
     * @param subtype a subtype constant, or {@link #NO_SUBTYPE}
     * @return the warning code
     */
    public static int warning(int type, int subtype) {
        return CLASS_WARNING | type | subtype;
    }

    /**
     * The type of a code, {@code DAT_GET_TYPE(code)}: {@code code & TYPE_MASK}, comparable with the
     * type constants.
     *
     * @param code a DAT return code
     * @return its type bits
     */
    public static int typeOf(int code) {
        return code & TYPE_MASK;
    }

    /**
     * The subtype of a code, {@code DAT_GET_SUBTYPE(code)}: {@code code & SUBTYPE_MASK}.
     *
     * @param code a DAT return code
     * @return its subtype bits
     */
    public static int subtypeOf(int code) {
        return code & SUBTYPE_MASK;
    }

    /**
     * Whether a code is {@link #SUCCESS} exactly. For every {@code int} exactly one of
     * {@code isSuccess}, {@link #isWarning(int)} and {@link #isError(int)} is true.
     *
     * @param code a DAT return code
     * @return {@code code == SUCCESS}
     */
    public static boolean isSuccess(int code) {
        return code == SUCCESS;
    }

    /**
     * Whether a code is an error: it has the {@link #CLASS_ERROR} bit, or it is not
     * {@link #SUCCESS} and has no class bit at all. The second case covers reference-code paths
     * that return a type without the class bit (for example {@code dapl_cno_wait} returns
     * {@code DAT_INVALID_HANDLE | DAT_INVALID_HANDLE_CNO}); C consumers, who test
     * {@code ret != DAT_SUCCESS}, treat those as failures too.
     *
     * @param code a DAT return code
     * @return whether the code reports a failure
     */
    public static boolean isError(int code) {
        return (code & CLASS_ERROR) != 0 || ((code & CLASS_MASK) == 0 && code != SUCCESS);
    }

    /**
     * Whether a code is a warning: its class is {@link #CLASS_WARNING} alone. Unlike the C macro
     * {@code DAT_IS_WARNING}, a code with both class bits counts as an error, not a warning.
     *
     * @param code a DAT return code
     * @return whether the operation succeeded with a warning
     */
    public static boolean isWarning(int code) {
        return (code & CLASS_MASK) == CLASS_WARNING;
    }

    // ------------------------------------------------------------------------------------------
    // Names
    // ------------------------------------------------------------------------------------------

    /**
     * The symbolic major name of a code's type, as {@code dat_strerror} gives it, for example
     * {@code "DAT_INVALID_PARAMETER"}. The class and subtype bits are ignored. Allocation-free.
     *
     * @param code a DAT return code
     * @return the name of its type, or {@code null} if DAT 1.2 defines no such type
     */
    public static String typeName(int code) {
        int index = (code & TYPE_MASK) >>> TYPE_SHIFT;
        if (index < TYPE_NAMES.length) {
            return TYPE_NAMES[index];
        }
        return (code & TYPE_MASK) == NOT_IMPLEMENTED ? NOT_IMPLEMENTED_NAME : null;
    }

    /**
     * The symbolic minor name of a code's subtype, as {@code dat_strerror} gives it, for example
     * {@code "DAT_INVALID_ARG1"}; {@code ""} for {@link #NO_SUBTYPE}. The class and type bits are
     * ignored. Allocation-free.
     *
     * @param code a DAT return code
     * @return the name of its subtype, or {@code null} if DAT 1.2 defines no such subtype
     */
    public static String subtypeName(int code) {
        int subtype = code & SUBTYPE_MASK;
        return subtype < SUBTYPE_NAMES.length ? SUBTYPE_NAMES[subtype] : null;
    }

    /**
     * Whether {@link #strerror(int)} knows a code: both its type and its subtype are defined by
     * DAT 1.2. The class bits and the pairing of type and subtype are not checked, as in
     * {@code dat_strerror}. Allocation-free.
     *
     * @param code a DAT return code
     * @return whether the code's type and subtype both have names
     */
    public static boolean isDefined(int code) {
        return typeName(code) != null && subtypeName(code) != null;
    }

    /**
     * The major and minor message of {@link #strerror(int)}, the two strings that
     * {@code dat_strerror} returns through its {@code major_message} and {@code minor_message}
     * parameters.
     *
     * @param major the symbolic type name, for example {@code "DAT_INVALID_PARAMETER"}
     * @param minor the symbolic subtype name, for example {@code "DAT_INVALID_ARG1"}, or {@code ""}
     *     when the code has no subtype
     */
    public record Strerror(String major, String minor) {}

    /**
     * Converts a code to its symbolic major and minor names, as {@code dat_strerror(3DAT)} does.
     *
     * <p>As in libdat, the type and the subtype are looked up independently and the class bits are
     * ignored, so a warning gets the names of the same type and subtype as an error, and
     * {@link #SUCCESS} gives {@code ("DAT_SUCCESS", "")}. The major name of
     * {@link #PROVIDER_NOT_FOUND} is {@code "DAT_PROVIDER_NOT_FOUND"}, as the manual pages and OFED
     * libdat name it (illumos libdat prints the 1.0 alias {@code "DAT_NAME_NOT_FOUND"}). Every type
     * and subtype of the 1.2 header has a name here, including those that illumos libdat leaves
     * out of its switch ({@link #CONN_QUAL_UNAVAILABLE}, {@link #INVALID_HANDLE1}, the SRQ and
     * unconfigured-EP states, the provider-not-found subtypes); their names are the C enum names.
     *
     * @param code a DAT return code
     * @return the symbolic names of its type and subtype
     * @throws DatException with type {@link #INVALID_PARAMETER} and subtype {@link #INVALID_ARG1}
     *     if the type or the subtype is undefined, as {@code dat_strerror} then returns
     *     {@code DAT_INVALID_PARAMETER}
     */
    public static Strerror strerror(int code) {
        String major = typeName(code);
        String minor = subtypeName(code);
        if (major == null || minor == null) {
            throw DatException.of(INVALID_PARAMETER, INVALID_ARG1, "code",
                    "undefined DAT_RETURN value " + hex(code));
        }
        return new Strerror(major, minor);
    }

    /**
     * A one-line description of a code for logs and messages: {@code "MAJOR(MINOR)"}, for example
     * {@code "DAT_INVALID_PARAMETER(DAT_INVALID_ARG3)"}; only {@code "MAJOR"} when the code has no
     * subtype, for example {@code "DAT_QUEUE_EMPTY"}; the code in hexadecimal, for example
     * {@code "0x80150000"}, when {@link #strerror(int)} would reject it. Class bits are not shown,
     * as in {@code dat_strerror}. Never throws.
     *
     * @param code a DAT return code
     * @return the description
     */
    public static String describe(int code) {
        String major = typeName(code);
        String minor = subtypeName(code);
        if (major == null || minor == null) {
            return hex(code);
        }
        return minor.isEmpty() ? major : major + "(" + minor + ")";
    }

    /**
     * Formats a code as eight upper-case hexadecimal digits.
     *
     * @param code a DAT return code
     * @return for example {@code "0x80060024"}
     */
    static String hex(int code) {
        return String.format("0x%08X", code);
    }
}
