package dat.provider.ofi.internal.ffi;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The C structures of libfabric's public headers ({@code <rdma/fabric.h>}, {@code fi_domain.h},
 * {@code fi_endpoint.h}, {@code fi_cm.h}, {@code fi_eq.h}, {@code fi_rma.h}, {@code fi_atomic.h})
 * and libc that the binding touches, written by hand for x86-64 and libfabric 1.17 (jextract cannot
 * be had here). {@code StructLayoutTest} compiles a C probe against the installed headers and
 * checks the offset and size of every named member, so a wrong layout fails the build instead of
 * corrupting memory.
 *
 * <p>The ops tables ({@code struct fi_ops_*}) are here too: libfabric's data path and most of its
 * control path are {@code static inline} functions of the headers that call through them (for
 * example {@code fi_send(ep, ...)} is {@code ep->msg->send(ep, ...)}), and the offset of each
 * function pointer is what {@link Ops} reads. The offsets the binding uses are the
 * {@code static final long} constants below, derived from the layouts, so the layouts are the
 * single source of truth.
 */
public final class Structs {

    private Structs() {
    }

    private static StructLayout struct(String name, MemoryLayout... members) {
        return MemoryLayout.structLayout(members).withName(name);
    }

    private static MemoryLayout pad(long bytes) {
        return MemoryLayout.paddingLayout(bytes);
    }

    /** A function pointer of an ops table, named as the C member. */
    private static MemoryLayout fn(String name) {
        return ADDRESS.withName(name);
    }

    /** The byte offset of a member path in a layout. */
    static long offset(MemoryLayout layout, String... path) {
        PathElement[] elements = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }

    // ---- libc --------------------------------------------------------------------------------------

    /** {@code struct pollfd} (poll.h). */
    public static final StructLayout POLLFD = struct("pollfd",
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));

    /** {@code struct sockaddr_in} (netinet/in.h); port and address in network byte order. */
    public static final StructLayout SOCKADDR_IN = struct("sockaddr_in",
            JAVA_SHORT.withName("sin_family"), JAVA_SHORT.withName("sin_port"), JAVA_INT.withName("sin_addr"),
            pad(8));

    /** {@code struct sockaddr_in6} (netinet/in.h). */
    public static final StructLayout SOCKADDR_IN6 = struct("sockaddr_in6",
            JAVA_SHORT.withName("sin6_family"), JAVA_SHORT.withName("sin6_port"), JAVA_INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, java.lang.foreign.ValueLayout.JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id"));

    /**
     * {@code struct sigaction} (signal.h, glibc): saved and restored as a whole around the loading
     * of libfabric and its provider libraries ({@link Fabric}).
     */
    public static final StructLayout SIGACTION = struct("sigaction",
            ADDRESS.withName("__sigaction_handler"), MemoryLayout.sequenceLayout(16, JAVA_LONG).withName("sa_mask"),
            JAVA_INT.withName("sa_flags"), pad(4), ADDRESS.withName("sa_restorer"));

    /** {@code struct iovec} (sys/uio.h). */
    public static final StructLayout IOVEC = struct("iovec", ADDRESS.withName("iov_base"), JAVA_LONG.withName("iov_len"));

    // ---- fabric.h: fi_info and its attributes ------------------------------------------------------

    /** {@code struct fi_tx_attr}. */
    public static final StructLayout FI_TX_ATTR = struct("fi_tx_attr",
            JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("op_flags"),
            JAVA_LONG.withName("msg_order"), JAVA_LONG.withName("comp_order"), JAVA_LONG.withName("inject_size"),
            JAVA_LONG.withName("size"), JAVA_LONG.withName("iov_limit"), JAVA_LONG.withName("rma_iov_limit"),
            JAVA_INT.withName("tclass"), pad(4));

    /** {@code struct fi_rx_attr}. */
    public static final StructLayout FI_RX_ATTR = struct("fi_rx_attr",
            JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("op_flags"),
            JAVA_LONG.withName("msg_order"), JAVA_LONG.withName("comp_order"), JAVA_LONG.withName("total_buffered_recv"),
            JAVA_LONG.withName("size"), JAVA_LONG.withName("iov_limit"));

    /** {@code struct fi_ep_attr}. */
    public static final StructLayout FI_EP_ATTR = struct("fi_ep_attr",
            JAVA_INT.withName("type"), JAVA_INT.withName("protocol"), JAVA_INT.withName("protocol_version"), pad(4),
            JAVA_LONG.withName("max_msg_size"), JAVA_LONG.withName("msg_prefix_size"),
            JAVA_LONG.withName("max_order_raw_size"), JAVA_LONG.withName("max_order_war_size"),
            JAVA_LONG.withName("max_order_waw_size"), JAVA_LONG.withName("mem_tag_format"),
            JAVA_LONG.withName("tx_ctx_cnt"), JAVA_LONG.withName("rx_ctx_cnt"), JAVA_LONG.withName("auth_key_size"),
            ADDRESS.withName("auth_key"));

    /** {@code struct fi_domain_attr}. */
    public static final StructLayout FI_DOMAIN_ATTR = struct("fi_domain_attr",
            ADDRESS.withName("domain"), ADDRESS.withName("name"), JAVA_INT.withName("threading"),
            JAVA_INT.withName("control_progress"), JAVA_INT.withName("data_progress"), JAVA_INT.withName("resource_mgmt"),
            JAVA_INT.withName("av_type"), JAVA_INT.withName("mr_mode"), JAVA_LONG.withName("mr_key_size"),
            JAVA_LONG.withName("cq_data_size"), JAVA_LONG.withName("cq_cnt"), JAVA_LONG.withName("ep_cnt"),
            JAVA_LONG.withName("tx_ctx_cnt"), JAVA_LONG.withName("rx_ctx_cnt"), JAVA_LONG.withName("max_ep_tx_ctx"),
            JAVA_LONG.withName("max_ep_rx_ctx"), JAVA_LONG.withName("max_ep_stx_ctx"), JAVA_LONG.withName("max_ep_srx_ctx"),
            JAVA_LONG.withName("cntr_cnt"), JAVA_LONG.withName("mr_iov_limit"), JAVA_LONG.withName("caps"),
            JAVA_LONG.withName("mode"), ADDRESS.withName("auth_key"), JAVA_LONG.withName("auth_key_size"),
            JAVA_LONG.withName("max_err_data"), JAVA_LONG.withName("mr_cnt"), JAVA_INT.withName("tclass"), pad(4));

    /** {@code struct fi_fabric_attr}. */
    public static final StructLayout FI_FABRIC_ATTR = struct("fi_fabric_attr",
            ADDRESS.withName("fabric"), ADDRESS.withName("name"), ADDRESS.withName("prov_name"),
            JAVA_INT.withName("prov_version"), JAVA_INT.withName("api_version"));

    /** {@code struct fi_info}. */
    public static final StructLayout FI_INFO = struct("fi_info",
            ADDRESS.withName("next"), JAVA_LONG.withName("caps"), JAVA_LONG.withName("mode"),
            JAVA_INT.withName("addr_format"), pad(4), JAVA_LONG.withName("src_addrlen"), JAVA_LONG.withName("dest_addrlen"),
            ADDRESS.withName("src_addr"), ADDRESS.withName("dest_addr"), ADDRESS.withName("handle"),
            ADDRESS.withName("tx_attr"), ADDRESS.withName("rx_attr"), ADDRESS.withName("ep_attr"),
            ADDRESS.withName("domain_attr"), ADDRESS.withName("fabric_attr"), ADDRESS.withName("nic"));

    public static final long INFO_NEXT = offset(FI_INFO, "next");
    public static final long INFO_CAPS = offset(FI_INFO, "caps");
    public static final long INFO_MODE = offset(FI_INFO, "mode");
    public static final long INFO_ADDR_FORMAT = offset(FI_INFO, "addr_format");
    public static final long INFO_SRC_ADDRLEN = offset(FI_INFO, "src_addrlen");
    public static final long INFO_DEST_ADDRLEN = offset(FI_INFO, "dest_addrlen");
    public static final long INFO_SRC_ADDR = offset(FI_INFO, "src_addr");
    public static final long INFO_DEST_ADDR = offset(FI_INFO, "dest_addr");
    public static final long INFO_HANDLE = offset(FI_INFO, "handle");
    public static final long INFO_TX_ATTR = offset(FI_INFO, "tx_attr");
    public static final long INFO_RX_ATTR = offset(FI_INFO, "rx_attr");
    public static final long INFO_EP_ATTR = offset(FI_INFO, "ep_attr");
    public static final long INFO_DOMAIN_ATTR = offset(FI_INFO, "domain_attr");
    public static final long INFO_FABRIC_ATTR = offset(FI_INFO, "fabric_attr");

    public static final long TX_CAPS = offset(FI_TX_ATTR, "caps");
    public static final long TX_MODE = offset(FI_TX_ATTR, "mode");
    public static final long TX_OP_FLAGS = offset(FI_TX_ATTR, "op_flags");
    public static final long TX_MSG_ORDER = offset(FI_TX_ATTR, "msg_order");
    public static final long TX_COMP_ORDER = offset(FI_TX_ATTR, "comp_order");
    public static final long TX_INJECT_SIZE = offset(FI_TX_ATTR, "inject_size");
    public static final long TX_SIZE = offset(FI_TX_ATTR, "size");
    public static final long TX_IOV_LIMIT = offset(FI_TX_ATTR, "iov_limit");
    public static final long TX_RMA_IOV_LIMIT = offset(FI_TX_ATTR, "rma_iov_limit");

    public static final long RX_CAPS = offset(FI_RX_ATTR, "caps");
    public static final long RX_MODE = offset(FI_RX_ATTR, "mode");
    public static final long RX_MSG_ORDER = offset(FI_RX_ATTR, "msg_order");
    public static final long RX_SIZE = offset(FI_RX_ATTR, "size");
    public static final long RX_IOV_LIMIT = offset(FI_RX_ATTR, "iov_limit");

    public static final long EP_ATTR_TYPE = offset(FI_EP_ATTR, "type");
    public static final long EP_ATTR_PROTOCOL = offset(FI_EP_ATTR, "protocol");
    public static final long EP_ATTR_MAX_MSG_SIZE = offset(FI_EP_ATTR, "max_msg_size");
    public static final long EP_ATTR_MAX_ORDER_RAW_SIZE = offset(FI_EP_ATTR, "max_order_raw_size");

    public static final long DOMAIN_ATTR_NAME = offset(FI_DOMAIN_ATTR, "name");
    public static final long DOMAIN_ATTR_THREADING = offset(FI_DOMAIN_ATTR, "threading");
    public static final long DOMAIN_ATTR_CONTROL_PROGRESS = offset(FI_DOMAIN_ATTR, "control_progress");
    public static final long DOMAIN_ATTR_DATA_PROGRESS = offset(FI_DOMAIN_ATTR, "data_progress");
    public static final long DOMAIN_ATTR_MR_MODE = offset(FI_DOMAIN_ATTR, "mr_mode");
    public static final long DOMAIN_ATTR_MR_KEY_SIZE = offset(FI_DOMAIN_ATTR, "mr_key_size");
    public static final long DOMAIN_ATTR_CQ_DATA_SIZE = offset(FI_DOMAIN_ATTR, "cq_data_size");
    public static final long DOMAIN_ATTR_CQ_CNT = offset(FI_DOMAIN_ATTR, "cq_cnt");
    public static final long DOMAIN_ATTR_EP_CNT = offset(FI_DOMAIN_ATTR, "ep_cnt");
    public static final long DOMAIN_ATTR_MAX_EP_SRX_CTX = offset(FI_DOMAIN_ATTR, "max_ep_srx_ctx");
    public static final long DOMAIN_ATTR_MR_IOV_LIMIT = offset(FI_DOMAIN_ATTR, "mr_iov_limit");
    public static final long DOMAIN_ATTR_MR_CNT = offset(FI_DOMAIN_ATTR, "mr_cnt");

    public static final long FABRIC_ATTR_NAME = offset(FI_FABRIC_ATTR, "name");
    public static final long FABRIC_ATTR_PROV_NAME = offset(FI_FABRIC_ATTR, "prov_name");
    public static final long FABRIC_ATTR_PROV_VERSION = offset(FI_FABRIC_ATTR, "prov_version");
    public static final long FABRIC_ATTR_API_VERSION = offset(FI_FABRIC_ATTR, "api_version");

    // ---- the fid objects and their ops tables ------------------------------------------------------

    /** {@code struct fid}: what every libfabric object starts with. */
    public static final StructLayout FID = struct("fid",
            JAVA_LONG.withName("fclass"), ADDRESS.withName("context"), ADDRESS.withName("ops"));

    /** {@code struct fi_ops}: close, bind, control (fi_close, fi_*_bind, fi_control, fi_enable). */
    public static final StructLayout FI_OPS = struct("fi_ops",
            JAVA_LONG.withName("size"), fn("close"), fn("bind"), fn("control"), fn("ops_open"), fn("tostr"), fn("ops_set"));

    /** {@code struct fid_fabric}. */
    public static final StructLayout FID_FABRIC = struct("fid_fabric",
            FID.withName("fid"), ADDRESS.withName("ops"), JAVA_INT.withName("api_version"), pad(4));

    /** {@code struct fi_ops_fabric}. */
    public static final StructLayout FI_OPS_FABRIC = struct("fi_ops_fabric",
            JAVA_LONG.withName("size"), fn("domain"), fn("passive_ep"), fn("eq_open"), fn("wait_open"), fn("trywait"),
            fn("domain2"));

    /** {@code struct fid_domain}. */
    public static final StructLayout FID_DOMAIN = struct("fid_domain",
            FID.withName("fid"), ADDRESS.withName("ops"), ADDRESS.withName("mr"));

    /** {@code struct fi_ops_domain}. */
    public static final StructLayout FI_OPS_DOMAIN = struct("fi_ops_domain",
            JAVA_LONG.withName("size"), fn("av_open"), fn("cq_open"), fn("endpoint"), fn("scalable_ep"), fn("cntr_open"),
            fn("poll_open"), fn("stx_ctx"), fn("srx_ctx"), fn("query_atomic"), fn("query_collective"), fn("endpoint2"));

    /** {@code struct fi_ops_mr}. */
    public static final StructLayout FI_OPS_MR = struct("fi_ops_mr",
            JAVA_LONG.withName("size"), fn("reg"), fn("regv"), fn("regattr"));

    /** {@code struct fid_mr}: {@code fi_mr_desc} is {@code mem_desc}, {@code fi_mr_key} is {@code key}. */
    public static final StructLayout FID_MR = struct("fid_mr",
            FID.withName("fid"), ADDRESS.withName("mem_desc"), JAVA_LONG.withName("key"));

    /** {@code struct fid_ep}. */
    public static final StructLayout FID_EP = struct("fid_ep",
            FID.withName("fid"), ADDRESS.withName("ops"), ADDRESS.withName("cm"), ADDRESS.withName("msg"),
            ADDRESS.withName("rma"), ADDRESS.withName("tagged"), ADDRESS.withName("atomic"), ADDRESS.withName("collective"));

    /** {@code struct fid_pep}. */
    public static final StructLayout FID_PEP = struct("fid_pep",
            FID.withName("fid"), ADDRESS.withName("ops"), ADDRESS.withName("cm"));

    /** {@code struct fi_ops_ep}. */
    public static final StructLayout FI_OPS_EP = struct("fi_ops_ep",
            JAVA_LONG.withName("size"), fn("cancel"), fn("getopt"), fn("setopt"), fn("tx_ctx"), fn("rx_ctx"),
            fn("rx_size_left"), fn("tx_size_left"));

    /** {@code struct fi_ops_cm}. */
    public static final StructLayout FI_OPS_CM = struct("fi_ops_cm",
            JAVA_LONG.withName("size"), fn("setname"), fn("getname"), fn("getpeer"), fn("connect"), fn("listen"),
            fn("accept"), fn("reject"), fn("shutdown"), fn("join"));

    /** {@code struct fi_ops_msg}. */
    public static final StructLayout FI_OPS_MSG = struct("fi_ops_msg",
            JAVA_LONG.withName("size"), fn("recv"), fn("recvv"), fn("recvmsg"), fn("send"), fn("sendv"), fn("sendmsg"),
            fn("inject"), fn("senddata"), fn("injectdata"));

    /** {@code struct fi_ops_rma}. */
    public static final StructLayout FI_OPS_RMA = struct("fi_ops_rma",
            JAVA_LONG.withName("size"), fn("read"), fn("readv"), fn("readmsg"), fn("write"), fn("writev"), fn("writemsg"),
            fn("inject"), fn("writedata"), fn("injectdata"));

    /** {@code struct fi_ops_atomic}. */
    public static final StructLayout FI_OPS_ATOMIC = struct("fi_ops_atomic",
            JAVA_LONG.withName("size"), fn("write"), fn("writev"), fn("writemsg"), fn("inject"), fn("readwrite"),
            fn("readwritev"), fn("readwritemsg"), fn("compwrite"), fn("compwritev"), fn("compwritemsg"), fn("writevalid"),
            fn("readwritevalid"), fn("compwritevalid"));

    /** {@code struct fid_eq}. */
    public static final StructLayout FID_EQ = struct("fid_eq", FID.withName("fid"), ADDRESS.withName("ops"));

    /** {@code struct fi_ops_eq}. */
    public static final StructLayout FI_OPS_EQ = struct("fi_ops_eq",
            JAVA_LONG.withName("size"), fn("read"), fn("readerr"), fn("write"), fn("sread"), fn("strerror"));

    /** {@code struct fid_cq}. */
    public static final StructLayout FID_CQ = struct("fid_cq", FID.withName("fid"), ADDRESS.withName("ops"));

    /** {@code struct fi_ops_cq}. */
    public static final StructLayout FI_OPS_CQ = struct("fi_ops_cq",
            JAVA_LONG.withName("size"), fn("read"), fn("readfrom"), fn("readerr"), fn("sread"), fn("sreadfrom"),
            fn("signal"), fn("strerror"));

    public static final long FID_FCLASS = offset(FID, "fclass");
    public static final long FID_CONTEXT = offset(FID, "context");
    public static final long FID_OPS = offset(FID, "ops");
    /** Every object's own ops table follows its {@code struct fid}: {@code fabric->ops}, {@code ep->ops}, ... */
    public static final long OBJ_OPS = offset(FID_EP, "ops");
    public static final long DOMAIN_MR = offset(FID_DOMAIN, "mr");
    public static final long EP_CM = offset(FID_EP, "cm");
    public static final long EP_MSG = offset(FID_EP, "msg");
    public static final long EP_RMA = offset(FID_EP, "rma");
    public static final long EP_ATOMIC = offset(FID_EP, "atomic");
    public static final long PEP_CM = offset(FID_PEP, "cm");
    public static final long MR_MEM_DESC = offset(FID_MR, "mem_desc");
    public static final long MR_KEY = offset(FID_MR, "key");

    public static final long OPS_SIZE = offset(FI_OPS, "size");
    public static final long OPS_CLOSE = offset(FI_OPS, "close");
    public static final long OPS_BIND = offset(FI_OPS, "bind");
    public static final long OPS_CONTROL = offset(FI_OPS, "control");
    public static final long FABRIC_OPS_DOMAIN = offset(FI_OPS_FABRIC, "domain");
    public static final long FABRIC_OPS_PASSIVE_EP = offset(FI_OPS_FABRIC, "passive_ep");
    public static final long FABRIC_OPS_EQ_OPEN = offset(FI_OPS_FABRIC, "eq_open");
    public static final long FABRIC_OPS_TRYWAIT = offset(FI_OPS_FABRIC, "trywait");
    public static final long DOMAIN_OPS_CQ_OPEN = offset(FI_OPS_DOMAIN, "cq_open");
    public static final long DOMAIN_OPS_ENDPOINT = offset(FI_OPS_DOMAIN, "endpoint");
    public static final long DOMAIN_OPS_SRX_CTX = offset(FI_OPS_DOMAIN, "srx_ctx");
    public static final long DOMAIN_OPS_QUERY_ATOMIC = offset(FI_OPS_DOMAIN, "query_atomic");
    public static final long MR_OPS_REG = offset(FI_OPS_MR, "reg");
    public static final long EP_OPS_GETOPT = offset(FI_OPS_EP, "getopt");
    public static final long CM_OPS_GETNAME = offset(FI_OPS_CM, "getname");
    public static final long CM_OPS_GETPEER = offset(FI_OPS_CM, "getpeer");
    public static final long CM_OPS_CONNECT = offset(FI_OPS_CM, "connect");
    public static final long CM_OPS_LISTEN = offset(FI_OPS_CM, "listen");
    public static final long CM_OPS_ACCEPT = offset(FI_OPS_CM, "accept");
    public static final long CM_OPS_REJECT = offset(FI_OPS_CM, "reject");
    public static final long CM_OPS_SHUTDOWN = offset(FI_OPS_CM, "shutdown");
    public static final long MSG_OPS_RECVMSG = offset(FI_OPS_MSG, "recvmsg");
    public static final long MSG_OPS_SENDMSG = offset(FI_OPS_MSG, "sendmsg");
    public static final long MSG_OPS_INJECT = offset(FI_OPS_MSG, "inject");
    public static final long RMA_OPS_READMSG = offset(FI_OPS_RMA, "readmsg");
    public static final long RMA_OPS_WRITEMSG = offset(FI_OPS_RMA, "writemsg");
    public static final long ATOMIC_OPS_READWRITEMSG = offset(FI_OPS_ATOMIC, "readwritemsg");
    public static final long ATOMIC_OPS_COMPWRITEMSG = offset(FI_OPS_ATOMIC, "compwritemsg");
    public static final long EQ_OPS_READ = offset(FI_OPS_EQ, "read");
    public static final long EQ_OPS_READERR = offset(FI_OPS_EQ, "readerr");
    public static final long CQ_OPS_READ = offset(FI_OPS_CQ, "read");
    public static final long CQ_OPS_READERR = offset(FI_OPS_CQ, "readerr");

    // ---- attributes, entries and messages ----------------------------------------------------------

    /** {@code struct fi_eq_attr}. */
    public static final StructLayout FI_EQ_ATTR = struct("fi_eq_attr",
            JAVA_LONG.withName("size"), JAVA_LONG.withName("flags"), JAVA_INT.withName("wait_obj"),
            JAVA_INT.withName("signaling_vector"), ADDRESS.withName("wait_set"));

    /** {@code struct fi_cq_attr}. */
    public static final StructLayout FI_CQ_ATTR = struct("fi_cq_attr",
            JAVA_LONG.withName("size"), JAVA_LONG.withName("flags"), JAVA_INT.withName("format"),
            JAVA_INT.withName("wait_obj"), JAVA_INT.withName("signaling_vector"), JAVA_INT.withName("wait_cond"),
            ADDRESS.withName("wait_set"));

    /** {@code struct fi_eq_cm_entry}: its flexible {@code data[]} starts at its size. */
    public static final StructLayout FI_EQ_CM_ENTRY = struct("fi_eq_cm_entry", ADDRESS.withName("fid"), ADDRESS.withName("info"));

    /** {@code struct fi_eq_err_entry}. */
    public static final StructLayout FI_EQ_ERR_ENTRY = struct("fi_eq_err_entry",
            ADDRESS.withName("fid"), ADDRESS.withName("context"), JAVA_LONG.withName("data"), JAVA_INT.withName("err"),
            JAVA_INT.withName("prov_errno"), ADDRESS.withName("err_data"), JAVA_LONG.withName("err_data_size"));

    /** {@code struct fi_cq_data_entry}: the format of every CQ of the provider ({@code FI_CQ_FORMAT_DATA}). */
    public static final StructLayout FI_CQ_DATA_ENTRY = struct("fi_cq_data_entry",
            ADDRESS.withName("op_context"), JAVA_LONG.withName("flags"), JAVA_LONG.withName("len"), ADDRESS.withName("buf"),
            JAVA_LONG.withName("data"));

    /** {@code struct fi_cq_err_entry}. */
    public static final StructLayout FI_CQ_ERR_ENTRY = struct("fi_cq_err_entry",
            ADDRESS.withName("op_context"), JAVA_LONG.withName("flags"), JAVA_LONG.withName("len"), ADDRESS.withName("buf"),
            JAVA_LONG.withName("data"), JAVA_LONG.withName("tag"), JAVA_LONG.withName("olen"), JAVA_INT.withName("err"),
            JAVA_INT.withName("prov_errno"), ADDRESS.withName("err_data"), JAVA_LONG.withName("err_data_size"));

    /** {@code struct fi_msg}. */
    public static final StructLayout FI_MSG = struct("fi_msg",
            ADDRESS.withName("msg_iov"), ADDRESS.withName("desc"), JAVA_LONG.withName("iov_count"), JAVA_LONG.withName("addr"),
            ADDRESS.withName("context"), JAVA_LONG.withName("data"));

    /** {@code struct fi_rma_iov}. */
    public static final StructLayout FI_RMA_IOV = struct("fi_rma_iov",
            JAVA_LONG.withName("addr"), JAVA_LONG.withName("len"), JAVA_LONG.withName("key"));

    /** {@code struct fi_msg_rma}. */
    public static final StructLayout FI_MSG_RMA = struct("fi_msg_rma",
            ADDRESS.withName("msg_iov"), ADDRESS.withName("desc"), JAVA_LONG.withName("iov_count"), JAVA_LONG.withName("addr"),
            ADDRESS.withName("rma_iov"), JAVA_LONG.withName("rma_iov_count"), ADDRESS.withName("context"),
            JAVA_LONG.withName("data"));

    /** {@code struct fi_ioc}. */
    public static final StructLayout FI_IOC = struct("fi_ioc", ADDRESS.withName("addr"), JAVA_LONG.withName("count"));

    /** {@code struct fi_rma_ioc}. */
    public static final StructLayout FI_RMA_IOC = struct("fi_rma_ioc",
            JAVA_LONG.withName("addr"), JAVA_LONG.withName("count"), JAVA_LONG.withName("key"));

    /** {@code struct fi_msg_atomic}. */
    public static final StructLayout FI_MSG_ATOMIC = struct("fi_msg_atomic",
            ADDRESS.withName("msg_iov"), ADDRESS.withName("desc"), JAVA_LONG.withName("iov_count"), JAVA_LONG.withName("addr"),
            ADDRESS.withName("rma_iov"), JAVA_LONG.withName("rma_iov_count"), JAVA_INT.withName("datatype"),
            JAVA_INT.withName("op"), ADDRESS.withName("context"), JAVA_LONG.withName("data"));

    /** {@code struct fi_atomic_attr}. */
    public static final StructLayout FI_ATOMIC_ATTR = struct("fi_atomic_attr", JAVA_LONG.withName("count"), JAVA_LONG.withName("size"));

    public static final long EQ_ATTR_SIZE = offset(FI_EQ_ATTR, "size");
    public static final long EQ_ATTR_WAIT_OBJ = offset(FI_EQ_ATTR, "wait_obj");
    public static final long CQ_ATTR_SIZE = offset(FI_CQ_ATTR, "size");
    public static final long CQ_ATTR_FORMAT = offset(FI_CQ_ATTR, "format");
    public static final long CQ_ATTR_WAIT_OBJ = offset(FI_CQ_ATTR, "wait_obj");
    public static final long CM_ENTRY_FID = offset(FI_EQ_CM_ENTRY, "fid");
    public static final long CM_ENTRY_INFO = offset(FI_EQ_CM_ENTRY, "info");
    public static final long CM_ENTRY_DATA = FI_EQ_CM_ENTRY.byteSize();
    public static final long EQ_ERR_FID = offset(FI_EQ_ERR_ENTRY, "fid");
    public static final long EQ_ERR_ERR = offset(FI_EQ_ERR_ENTRY, "err");
    public static final long EQ_ERR_PROV_ERRNO = offset(FI_EQ_ERR_ENTRY, "prov_errno");
    public static final long EQ_ERR_ERR_DATA = offset(FI_EQ_ERR_ENTRY, "err_data");
    public static final long EQ_ERR_ERR_DATA_SIZE = offset(FI_EQ_ERR_ENTRY, "err_data_size");
    public static final long CQ_ENTRY_OP_CONTEXT = offset(FI_CQ_DATA_ENTRY, "op_context");
    public static final long CQ_ENTRY_FLAGS = offset(FI_CQ_DATA_ENTRY, "flags");
    public static final long CQ_ENTRY_LEN = offset(FI_CQ_DATA_ENTRY, "len");
    public static final long CQ_ENTRY_DATA = offset(FI_CQ_DATA_ENTRY, "data");
    public static final long CQ_ERR_OP_CONTEXT = offset(FI_CQ_ERR_ENTRY, "op_context");
    public static final long CQ_ERR_FLAGS = offset(FI_CQ_ERR_ENTRY, "flags");
    public static final long CQ_ERR_LEN = offset(FI_CQ_ERR_ENTRY, "len");
    public static final long CQ_ERR_DATA = offset(FI_CQ_ERR_ENTRY, "data");
    public static final long CQ_ERR_ERR = offset(FI_CQ_ERR_ENTRY, "err");
    public static final long CQ_ERR_PROV_ERRNO = offset(FI_CQ_ERR_ENTRY, "prov_errno");
    public static final long MSG_IOV = offset(FI_MSG, "msg_iov");
    public static final long MSG_DESC = offset(FI_MSG, "desc");
    public static final long MSG_IOV_COUNT = offset(FI_MSG, "iov_count");
    public static final long MSG_ADDR = offset(FI_MSG, "addr");
    public static final long MSG_CONTEXT = offset(FI_MSG, "context");
    public static final long MSG_DATA = offset(FI_MSG, "data");
    public static final long MSG_RMA_IOV = offset(FI_MSG_RMA, "msg_iov");
    public static final long MSG_RMA_DESC = offset(FI_MSG_RMA, "desc");
    public static final long MSG_RMA_IOV_COUNT = offset(FI_MSG_RMA, "iov_count");
    public static final long MSG_RMA_ADDR = offset(FI_MSG_RMA, "addr");
    public static final long MSG_RMA_RMA_IOV = offset(FI_MSG_RMA, "rma_iov");
    public static final long MSG_RMA_RMA_IOV_COUNT = offset(FI_MSG_RMA, "rma_iov_count");
    public static final long MSG_RMA_CONTEXT = offset(FI_MSG_RMA, "context");
    public static final long MSG_RMA_DATA = offset(FI_MSG_RMA, "data");
    public static final long RMA_IOV_ADDR = offset(FI_RMA_IOV, "addr");
    public static final long RMA_IOV_LEN = offset(FI_RMA_IOV, "len");
    public static final long RMA_IOV_KEY = offset(FI_RMA_IOV, "key");
    public static final long IOV_BASE = offset(IOVEC, "iov_base");
    public static final long IOV_LEN = offset(IOVEC, "iov_len");
    public static final long MSG_ATOMIC_IOV = offset(FI_MSG_ATOMIC, "msg_iov");
    public static final long MSG_ATOMIC_DESC = offset(FI_MSG_ATOMIC, "desc");
    public static final long MSG_ATOMIC_IOV_COUNT = offset(FI_MSG_ATOMIC, "iov_count");
    public static final long MSG_ATOMIC_ADDR = offset(FI_MSG_ATOMIC, "addr");
    public static final long MSG_ATOMIC_RMA_IOV = offset(FI_MSG_ATOMIC, "rma_iov");
    public static final long MSG_ATOMIC_RMA_IOV_COUNT = offset(FI_MSG_ATOMIC, "rma_iov_count");
    public static final long MSG_ATOMIC_DATATYPE = offset(FI_MSG_ATOMIC, "datatype");
    public static final long MSG_ATOMIC_OP = offset(FI_MSG_ATOMIC, "op");
    public static final long MSG_ATOMIC_CONTEXT = offset(FI_MSG_ATOMIC, "context");
    public static final long IOC_ADDR = offset(FI_IOC, "addr");
    public static final long IOC_COUNT = offset(FI_IOC, "count");
    public static final long RMA_IOC_ADDR = offset(FI_RMA_IOC, "addr");
    public static final long RMA_IOC_COUNT = offset(FI_RMA_IOC, "count");
    public static final long RMA_IOC_KEY = offset(FI_RMA_IOC, "key");

    public static final long SIGACTION_MASK = offset(SIGACTION, "sa_mask");
    public static final long SIGACTION_FLAGS = offset(SIGACTION, "sa_flags");
    public static final long SIGACTION_RESTORER = offset(SIGACTION, "sa_restorer");
    public static final long SIN_FAMILY = offset(SOCKADDR_IN, "sin_family");
    public static final long SIN_PORT = offset(SOCKADDR_IN, "sin_port");
    public static final long SIN_ADDR = offset(SOCKADDR_IN, "sin_addr");
    public static final long SIN6_PORT = offset(SOCKADDR_IN6, "sin6_port");
    public static final long SIN6_ADDR = offset(SOCKADDR_IN6, "sin6_addr");
    public static final long SIN6_SCOPE_ID = offset(SOCKADDR_IN6, "sin6_scope_id");

    public static final long POLLFD_FD = offset(POLLFD, "fd");
    public static final long POLLFD_EVENTS = offset(POLLFD, "events");
    public static final long POLLFD_REVENTS = offset(POLLFD, "revents");

    /** Every layout, for the layout test. */
    public static final List<StructLayout> ALL = List.of(POLLFD, SIGACTION, SOCKADDR_IN, SOCKADDR_IN6, IOVEC, FI_TX_ATTR, FI_RX_ATTR,
            FI_EP_ATTR, FI_DOMAIN_ATTR, FI_FABRIC_ATTR, FI_INFO, FID, FI_OPS, FID_FABRIC, FI_OPS_FABRIC, FID_DOMAIN,
            FI_OPS_DOMAIN, FI_OPS_MR, FID_MR, FID_EP, FID_PEP, FI_OPS_EP, FI_OPS_CM, FI_OPS_MSG, FI_OPS_RMA, FI_OPS_ATOMIC,
            FID_EQ, FI_OPS_EQ, FID_CQ, FI_OPS_CQ, FI_EQ_ATTR, FI_CQ_ATTR, FI_EQ_CM_ENTRY, FI_EQ_ERR_ENTRY, FI_CQ_DATA_ENTRY,
            FI_CQ_ERR_ENTRY, FI_MSG, FI_RMA_IOV, FI_MSG_RMA, FI_IOC, FI_RMA_IOC, FI_MSG_ATOMIC, FI_ATOMIC_ATTR);
}
