package dat.provider.ofi.internal.ffi;

/**
 * The constants of libfabric 1.17's headers the provider uses: capability and operation flags,
 * modes, enumerations, control commands, event numbers and the {@code FI_E*} error numbers (those
 * below 256 are the Linux errno values, {@code <rdma/fi_errno.h>}). {@code StructLayoutTest}'s
 * probe checks every value against the installed headers.
 */
public final class Fi {

    private Fi() {
    }

    /** {@code FI_VERSION(1, 17)}: the API version the provider asks {@code fi_getinfo} for. */
    public static final int VERSION_1_17 = (1 << 16) | 17;
    /** {@code FI_VERSION(2, 2)}: the first libfabric whose verbs provider reads atomic operands through their pointers. */
    public static final int VERSION_2_2 = (2 << 16) | 2;

    // capabilities and operation flags (fabric.h)
    public static final long MSG = 1L << 1;
    public static final long RMA = 1L << 2;
    public static final long ATOMIC = 1L << 4;
    public static final long READ = 1L << 8;
    public static final long WRITE = 1L << 9;
    public static final long RECV = 1L << 10;
    public static final long SEND = 1L << 11;
    public static final long TRANSMIT = SEND;
    public static final long REMOTE_READ = 1L << 12;
    public static final long REMOTE_WRITE = 1L << 13;
    public static final long REMOTE_CQ_DATA = 1L << 17;
    public static final long FENCE = 1L << 21;
    public static final long COMPLETION = 1L << 24;
    public static final long INJECT = 1L << 25;
    public static final long TRANSMIT_COMPLETE = 1L << 27;
    public static final long DELIVERY_COMPLETE = 1L << 28;
    public static final long SOURCE = 1L << 57;
    /** {@code fi_query_atomic} flag (fi_atomic.h): the fetching form of the operation. */
    public static final long FETCH_ATOMIC = 1L << 58;
    /** {@code fi_query_atomic} flag (fi_atomic.h): the compare form of the operation. */
    public static final long COMPARE_ATOMIC = 1L << 59;
    public static final long SELECTIVE_COMPLETION = 1L << 59;

    // modes
    public static final long CONTEXT = 1L << 59;
    public static final long CONTEXT2 = 1L << 52;
    public static final long RX_CQ_DATA = 1L << 56;
    public static final long LOCAL_MR = 1L << 55;
    public static final long MSG_PREFIX = 1L << 58;

    // memory registration modes and access flags
    public static final int MR_LOCAL = 1 << 2;
    public static final int MR_VIRT_ADDR = 1 << 4;
    public static final int MR_ALLOCATED = 1 << 5;
    public static final int MR_PROV_KEY = 1 << 6;
    public static final int MR_ENDPOINT = 1 << 9;

    // enum fi_ep_type
    public static final int EP_MSG = 1;

    // address formats
    public static final int SOCKADDR = 1;
    public static final int SOCKADDR_IN = 2;
    public static final int SOCKADDR_IN6 = 3;

    // enum fi_threading, enum fi_progress
    public static final int THREAD_SAFE = 1;
    public static final int PROGRESS_AUTO = 1;
    public static final int PROGRESS_MANUAL = 2;

    // enum fi_wait_obj, enum fi_cq_format
    public static final int WAIT_NONE = 0;
    public static final int WAIT_FD = 3;
    public static final int CQ_FORMAT_DATA = 3;

    // control commands, option levels and names
    public static final int GETWAIT = 5;
    public static final int ENABLE = 6;
    public static final int OPT_ENDPOINT = 0;
    public static final int OPT_CM_DATA_SIZE = 1;

    // EQ events (fi_eq.h)
    public static final int CONNREQ = 1;
    public static final int CONNECTED = 2;
    public static final int SHUTDOWN = 3;

    /** {@code FI_PROTO_IWARP} of {@code ep_attr->protocol}: iWARP has no remote atomics. */
    public static final int PROTO_IWARP = 2;

    // enum fi_datatype, enum fi_op (fi_atomic.h)
    public static final int UINT64 = 7;
    public static final int SUM = 2;
    public static final int CSWAP = 12;

    // error numbers (fi_errno.h): negated in return values
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int ENODATA = 61;
    public static final int EOVERFLOW = 75;
    public static final int EMSGSIZE = 90;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETDOWN = 100;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ESHUTDOWN = 108;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTDOWN = 112;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ECANCELED = 125;
    public static final int EKEYREJECTED = 129;
    public static final int EOTHER = 256;
    public static final int ETOOSMALL = 257;
    public static final int EOPBADSTATE = 258;
    public static final int EAVAIL = 259;
    public static final int EBADFLAGS = 260;
    public static final int ENOEQ = 261;
    public static final int EDOMAIN = 262;
    public static final int ENOCQ = 263;
    public static final int ECRC = 264;
    public static final int ETRUNC = 265;
    public static final int ENOKEY = 266;
    public static final int ENOAV = 267;
    public static final int EOVERRUN = 268;
    public static final int ENORX = 269;

    /**
     * @param error a positive {@code FI_E*} number
     * @return its symbolic name and number, for example {@code "FI_ECONNREFUSED (111)"}
     */
    public static String describe(int error) {
        String name = switch (error) {
            case EPERM -> "FI_EPERM";
            case ENOENT -> "FI_ENOENT";
            case EINTR -> "FI_EINTR";
            case EIO -> "FI_EIO";
            case EAGAIN -> "FI_EAGAIN";
            case ENOMEM -> "FI_ENOMEM";
            case EACCES -> "FI_EACCES";
            case EFAULT -> "FI_EFAULT";
            case EBUSY -> "FI_EBUSY";
            case ENODEV -> "FI_ENODEV";
            case EINVAL -> "FI_EINVAL";
            case EMFILE -> "FI_EMFILE";
            case ENOSPC -> "FI_ENOSPC";
            case ENOSYS -> "FI_ENOSYS";
            case ENODATA -> "FI_ENODATA";
            case EOVERFLOW -> "FI_EOVERFLOW";
            case EMSGSIZE -> "FI_EMSGSIZE";
            case EOPNOTSUPP -> "FI_EOPNOTSUPP";
            case EADDRINUSE -> "FI_EADDRINUSE";
            case EADDRNOTAVAIL -> "FI_EADDRNOTAVAIL";
            case ENETDOWN -> "FI_ENETDOWN";
            case ENETUNREACH -> "FI_ENETUNREACH";
            case ECONNABORTED -> "FI_ECONNABORTED";
            case ECONNRESET -> "FI_ECONNRESET";
            case ENOBUFS -> "FI_ENOBUFS";
            case EISCONN -> "FI_EISCONN";
            case ENOTCONN -> "FI_ENOTCONN";
            case ESHUTDOWN -> "FI_ESHUTDOWN";
            case ETIMEDOUT -> "FI_ETIMEDOUT";
            case ECONNREFUSED -> "FI_ECONNREFUSED";
            case EHOSTDOWN -> "FI_EHOSTDOWN";
            case EHOSTUNREACH -> "FI_EHOSTUNREACH";
            case EALREADY -> "FI_EALREADY";
            case EINPROGRESS -> "FI_EINPROGRESS";
            case ECANCELED -> "FI_ECANCELED";
            case EKEYREJECTED -> "FI_EKEYREJECTED";
            case EOTHER -> "FI_EOTHER";
            case ETOOSMALL -> "FI_ETOOSMALL";
            case EOPBADSTATE -> "FI_EOPBADSTATE";
            case EAVAIL -> "FI_EAVAIL";
            case EBADFLAGS -> "FI_EBADFLAGS";
            case ENOEQ -> "FI_ENOEQ";
            case EDOMAIN -> "FI_EDOMAIN";
            case ENOCQ -> "FI_ENOCQ";
            case ECRC -> "FI_ECRC";
            case ETRUNC -> "FI_ETRUNC";
            case ENOKEY -> "FI_ENOKEY";
            case ENOAV -> "FI_ENOAV";
            case EOVERRUN -> "FI_EOVERRUN";
            case ENORX -> "FI_ENORX";
            default -> "FI_E?";
        };
        return name + " (" + error + ")";
    }
}
