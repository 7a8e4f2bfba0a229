package dat.provider.verbs.internal.ffi;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The C structures of {@code <infiniband/verbs.h>}, {@code <rdma/rdma_cma.h>} and libc that the
 * binding touches, written by hand for x86-64 and rdma-core 44 (jextract cannot be had here).
 * {@code StructLayoutTest} compiles a C probe against the real headers and checks the offset and
 * size of every named member, so a wrong layout fails the build instead of corrupting memory.
 *
 * <p>Members the binding never reads are padding ({@code MemoryLayout.paddingLayout}) or named but
 * unused; anonymous C unions are members whose name starts with {@code anon$}, left out of the
 * member paths the test compares. The offsets the binding uses are the {@code static final long}
 * constants below, derived from the layouts, so the layouts are the single source of truth.
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
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"), JAVA_INT.withName("sin6_scope_id"));

    // ---- libibverbs: data path ---------------------------------------------------------------------

    /** {@code struct ibv_sge}. */
    public static final StructLayout IBV_SGE = struct("ibv_sge",
            JAVA_LONG.withName("addr"), JAVA_INT.withName("length"), JAVA_INT.withName("lkey"));

    private static final StructLayout SEND_WR_RDMA = struct("rdma",
            JAVA_LONG.withName("remote_addr"), JAVA_INT.withName("rkey"), pad(4));
    private static final StructLayout SEND_WR_ATOMIC = struct("atomic",
            JAVA_LONG.withName("remote_addr"), JAVA_LONG.withName("compare_add"), JAVA_LONG.withName("swap"),
            JAVA_INT.withName("rkey"), pad(4));
    private static final StructLayout SEND_WR_UD = struct("ud",
            ADDRESS.withName("ah"), JAVA_INT.withName("remote_qpn"), JAVA_INT.withName("remote_qkey"));
    private static final StructLayout MW_BIND_INFO = struct("bind_info",
            ADDRESS.withName("mr"), JAVA_LONG.withName("addr"), JAVA_LONG.withName("length"),
            JAVA_INT.withName("mw_access_flags"), pad(4));

    /** {@code struct ibv_send_wr}; {@code imm_data} is big-endian. */
    public static final StructLayout IBV_SEND_WR = struct("ibv_send_wr",
            JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"), ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"), JAVA_INT.withName("opcode"), JAVA_INT.withName("send_flags"),
            JAVA_INT.withName("imm_data"),
            MemoryLayout.unionLayout(SEND_WR_RDMA, SEND_WR_ATOMIC, SEND_WR_UD).withName("wr"),
            pad(8), // qp_type.xrc.remote_srqn and the padding before the 8-aligned union
            MemoryLayout.unionLayout(
                    struct("bind_mw", ADDRESS.withName("mw"), JAVA_INT.withName("rkey"), pad(4), MW_BIND_INFO),
                    struct("tso", ADDRESS.withName("hdr"), JAVA_SHORT.withName("hdr_sz"), JAVA_SHORT.withName("mss"), pad(4)))
                    .withName("anon$1"));

    /** {@code struct ibv_recv_wr}. */
    public static final StructLayout IBV_RECV_WR = struct("ibv_recv_wr",
            JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"), ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"), pad(4));

    /** {@code struct ibv_wc}. */
    public static final StructLayout IBV_WC = struct("ibv_wc",
            JAVA_LONG.withName("wr_id"), JAVA_INT.withName("status"), JAVA_INT.withName("opcode"),
            JAVA_INT.withName("vendor_err"), JAVA_INT.withName("byte_len"), JAVA_INT.withName("imm_data"),
            JAVA_INT.withName("qp_num"), JAVA_INT.withName("src_qp"), JAVA_INT.withName("wc_flags"),
            JAVA_SHORT.withName("pkey_index"), JAVA_SHORT.withName("slid"), JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("dlid_path_bits"), pad(2));

    // ---- libibverbs: objects -----------------------------------------------------------------------

    /** {@code struct ibv_context_ops}: 32 function pointers; the ones the binding calls are named. */
    private static final StructLayout IBV_CONTEXT_OPS = struct("ops",
            pad(8 * 7), ADDRESS.withName("alloc_mw"), ADDRESS.withName("bind_mw"), ADDRESS.withName("dealloc_mw"),
            pad(8 * 1), ADDRESS.withName("poll_cq"), ADDRESS.withName("req_notify_cq"), pad(8 * 7),
            ADDRESS.withName("post_srq_recv"), pad(8 * 4), ADDRESS.withName("post_send"), ADDRESS.withName("post_recv"),
            pad(8 * 5));

    /** {@code struct ibv_context}. */
    public static final StructLayout IBV_CONTEXT = struct("ibv_context",
            ADDRESS.withName("device"), IBV_CONTEXT_OPS, JAVA_INT.withName("cmd_fd"), JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"), pad(4), pad(40).withName("mutex"), ADDRESS.withName("abi_compat"));

    /** {@code struct ibv_pd}. */
    public static final StructLayout IBV_PD = struct("ibv_pd",
            ADDRESS.withName("context"), JAVA_INT.withName("handle"), pad(4));

    /** {@code struct ibv_mr}. */
    public static final StructLayout IBV_MR = struct("ibv_mr",
            ADDRESS.withName("context"), ADDRESS.withName("pd"), ADDRESS.withName("addr"), JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("lkey"), JAVA_INT.withName("rkey"), pad(4));

    /** {@code struct ibv_mw}. */
    public static final StructLayout IBV_MW = struct("ibv_mw",
            ADDRESS.withName("context"), ADDRESS.withName("pd"), JAVA_INT.withName("rkey"), JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"), pad(4));

    /** {@code struct ibv_mw_bind}. */
    public static final StructLayout IBV_MW_BIND = struct("ibv_mw_bind",
            JAVA_LONG.withName("wr_id"), JAVA_INT.withName("send_flags"), pad(4), MW_BIND_INFO);

    /** {@code struct ibv_comp_channel}. */
    public static final StructLayout IBV_COMP_CHANNEL = struct("ibv_comp_channel",
            ADDRESS.withName("context"), JAVA_INT.withName("fd"), JAVA_INT.withName("refcnt"));

    /** {@code struct ibv_cq}. */
    public static final StructLayout IBV_CQ = struct("ibv_cq",
            ADDRESS.withName("context"), ADDRESS.withName("channel"), ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("cqe"), pad(40).withName("mutex"), pad(48).withName("cond"),
            JAVA_INT.withName("comp_events_completed"), JAVA_INT.withName("async_events_completed"));

    /** {@code struct ibv_srq}. */
    public static final StructLayout IBV_SRQ = struct("ibv_srq",
            ADDRESS.withName("context"), ADDRESS.withName("srq_context"), ADDRESS.withName("pd"),
            JAVA_INT.withName("handle"), pad(4), pad(40).withName("mutex"), pad(48).withName("cond"),
            JAVA_INT.withName("events_completed"), pad(4));

    /** {@code struct ibv_srq_attr}. */
    public static final StructLayout IBV_SRQ_ATTR = struct("ibv_srq_attr",
            JAVA_INT.withName("max_wr"), JAVA_INT.withName("max_sge"), JAVA_INT.withName("srq_limit"));

    /** {@code struct ibv_srq_init_attr}. */
    public static final StructLayout IBV_SRQ_INIT_ATTR = struct("ibv_srq_init_attr",
            ADDRESS.withName("srq_context"), IBV_SRQ_ATTR.withName("attr"), pad(4));

    /** {@code struct ibv_qp}. */
    public static final StructLayout IBV_QP = struct("ibv_qp",
            ADDRESS.withName("context"), ADDRESS.withName("qp_context"), ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"), JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"), JAVA_INT.withName("state"), JAVA_INT.withName("qp_type"),
            pad(40).withName("mutex"), pad(48).withName("cond"), JAVA_INT.withName("events_completed"), pad(4));

    /** {@code struct ibv_qp_cap}. */
    public static final StructLayout IBV_QP_CAP = struct("ibv_qp_cap",
            JAVA_INT.withName("max_send_wr"), JAVA_INT.withName("max_recv_wr"), JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"), JAVA_INT.withName("max_inline_data"));

    /** {@code struct ibv_qp_init_attr}. */
    public static final StructLayout IBV_QP_INIT_ATTR = struct("ibv_qp_init_attr",
            ADDRESS.withName("qp_context"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"), IBV_QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"), pad(4));

    /** {@code struct ibv_ah_attr} (global route header included). */
    private static final StructLayout IBV_AH_ATTR = struct("ibv_ah_attr",
            struct("grh", MemoryLayout.structLayout(JAVA_LONG, JAVA_LONG).withName("dgid"), JAVA_INT.withName("flow_label"),
                    JAVA_BYTE.withName("sgid_index"), JAVA_BYTE.withName("hop_limit"), JAVA_BYTE.withName("traffic_class"),
                    pad(1)),
            JAVA_SHORT.withName("dlid"), JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"), JAVA_BYTE.withName("static_rate"), JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"), pad(1));

    /** {@code struct ibv_qp_attr}: filled by {@code rdma_init_qp_attr}, read by {@code ibv_modify_qp}. */
    public static final StructLayout IBV_QP_ATTR = struct("ibv_qp_attr",
            JAVA_INT.withName("qp_state"), JAVA_INT.withName("cur_qp_state"), JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"), JAVA_INT.withName("qkey"), JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"), JAVA_INT.withName("dest_qp_num"), JAVA_INT.withName("qp_access_flags"),
            IBV_QP_CAP.withName("cap"), IBV_AH_ATTR.withName("ah_attr"), IBV_AH_ATTR.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"), JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"), JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"), JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"), JAVA_BYTE.withName("port_num"), JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"), JAVA_BYTE.withName("rnr_retry"), JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"), pad(1), JAVA_INT.withName("rate_limit"), pad(4));

    /** {@code struct ibv_port_attr} (the 52-byte form with {@code port_cap_flags2}). */
    public static final StructLayout IBV_PORT_ATTR = struct("ibv_port_attr",
            JAVA_INT.withName("state"), JAVA_INT.withName("max_mtu"), JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"), JAVA_INT.withName("port_cap_flags"), JAVA_INT.withName("max_msg_sz"),
            pad(8), JAVA_SHORT.withName("pkey_tbl_len"), JAVA_SHORT.withName("lid"), pad(10),
            JAVA_BYTE.withName("link_layer"), JAVA_BYTE.withName("flags"), JAVA_SHORT.withName("port_cap_flags2"),
            pad(2));

    /** {@code struct ibv_device_attr}. */
    public static final StructLayout IBV_DEVICE_ATTR = struct("ibv_device_attr",
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"), JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"), JAVA_LONG.withName("max_mr_size"), JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"), JAVA_INT.withName("vendor_part_id"), JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"), JAVA_INT.withName("max_qp_wr"), JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"), JAVA_INT.withName("max_sge_rd"), JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"), JAVA_INT.withName("max_mr"), JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"), JAVA_INT.withName("max_ee_rd_atom"), JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"), pad(4), JAVA_INT.withName("atomic_cap"), pad(8),
            JAVA_INT.withName("max_mw"), pad(32),
            JAVA_INT.withName("max_srq"), JAVA_INT.withName("max_srq_wr"), JAVA_INT.withName("max_srq_sge"),
            pad(3), JAVA_BYTE.withName("phys_port_cnt"), pad(4));

    /** {@code struct ibv_async_event}. */
    public static final StructLayout IBV_ASYNC_EVENT = struct("ibv_async_event",
            ADDRESS.withName("element"), JAVA_INT.withName("event_type"), pad(4));

    // ---- librdmacm ---------------------------------------------------------------------------------

    /** {@code struct rdma_event_channel}. */
    public static final StructLayout RDMA_EVENT_CHANNEL = struct("rdma_event_channel", JAVA_INT.withName("fd"));

    /** {@code struct rdma_conn_param}. */
    public static final StructLayout RDMA_CONN_PARAM = struct("rdma_conn_param",
            ADDRESS.withName("private_data"), JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"), JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"), JAVA_BYTE.withName("retry_count"), JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"), pad(1), JAVA_INT.withName("qp_num"), pad(4));

    /** {@code struct rdma_cm_event}; only the connected-mode {@code param.conn} member is named. */
    public static final StructLayout RDMA_CM_EVENT = struct("rdma_cm_event",
            ADDRESS.withName("id"), ADDRESS.withName("listen_id"), JAVA_INT.withName("event"), JAVA_INT.withName("status"),
            MemoryLayout.unionLayout(RDMA_CONN_PARAM.withName("conn"), pad(56).withName("ud")).withName("param"));

    /** {@code struct rdma_cm_id}: the route's addresses are {@code struct sockaddr_storage}. */
    public static final StructLayout RDMA_CM_ID = struct("rdma_cm_id",
            ADDRESS.withName("verbs"), ADDRESS.withName("channel"), ADDRESS.withName("context"), ADDRESS.withName("qp"),
            struct("route",
                    struct("addr", pad(128).withName("src_storage"), pad(128).withName("dst_storage"), pad(40).withName("addr")),
                    ADDRESS.withName("path_rec"), JAVA_INT.withName("num_paths"), pad(4)),
            JAVA_INT.withName("ps"), JAVA_BYTE.withName("port_num"), pad(3), ADDRESS.withName("event"),
            ADDRESS.withName("send_cq_channel"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq_channel"),
            ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"), ADDRESS.withName("pd"), JAVA_INT.withName("qp_type"),
            pad(4));

    /** Every layout the layout test compares with the C headers. */
    public static final List<StructLayout> ALL = List.of(POLLFD, SOCKADDR_IN, SOCKADDR_IN6, IBV_SGE, IBV_SEND_WR,
            IBV_RECV_WR, IBV_WC, IBV_CONTEXT, IBV_PD, IBV_MR, IBV_MW, IBV_MW_BIND, IBV_COMP_CHANNEL, IBV_CQ, IBV_SRQ,
            IBV_SRQ_ATTR, IBV_SRQ_INIT_ATTR, IBV_QP, IBV_QP_CAP, IBV_QP_INIT_ATTR, IBV_QP_ATTR, IBV_PORT_ATTR,
            IBV_DEVICE_ATTR, IBV_ASYNC_EVENT, RDMA_EVENT_CHANNEL, RDMA_CONN_PARAM, RDMA_CM_EVENT, RDMA_CM_ID);

    // ---- offsets the binding uses ------------------------------------------------------------------

    public static final long POLLFD_FD = offset(POLLFD, "fd");
    public static final long POLLFD_EVENTS = offset(POLLFD, "events");
    public static final long POLLFD_REVENTS = offset(POLLFD, "revents");

    public static final long SIN_FAMILY = offset(SOCKADDR_IN, "sin_family");
    public static final long SIN_PORT = offset(SOCKADDR_IN, "sin_port");
    public static final long SIN_ADDR = offset(SOCKADDR_IN, "sin_addr");
    public static final long SIN6_PORT = offset(SOCKADDR_IN6, "sin6_port");
    public static final long SIN6_ADDR = offset(SOCKADDR_IN6, "sin6_addr");
    public static final long SIN6_SCOPE_ID = offset(SOCKADDR_IN6, "sin6_scope_id");

    public static final long SGE_ADDR = offset(IBV_SGE, "addr");
    public static final long SGE_LENGTH = offset(IBV_SGE, "length");
    public static final long SGE_LKEY = offset(IBV_SGE, "lkey");

    public static final long SEND_WR_WR_ID = offset(IBV_SEND_WR, "wr_id");
    public static final long SEND_WR_NEXT = offset(IBV_SEND_WR, "next");
    public static final long SEND_WR_SG_LIST = offset(IBV_SEND_WR, "sg_list");
    public static final long SEND_WR_NUM_SGE = offset(IBV_SEND_WR, "num_sge");
    public static final long SEND_WR_OPCODE = offset(IBV_SEND_WR, "opcode");
    public static final long SEND_WR_SEND_FLAGS = offset(IBV_SEND_WR, "send_flags");
    public static final long SEND_WR_REMOTE_ADDR = offset(IBV_SEND_WR, "wr", "rdma", "remote_addr");
    public static final long SEND_WR_RKEY = offset(IBV_SEND_WR, "wr", "rdma", "rkey");
    /** {@code imm_data}, big-endian; {@code invalidate_rkey} shares the union. */
    public static final long SEND_WR_IMM_DATA = offset(IBV_SEND_WR, "imm_data");
    public static final long SEND_WR_ATOMIC_REMOTE_ADDR = offset(IBV_SEND_WR, "wr", "atomic", "remote_addr");
    public static final long SEND_WR_ATOMIC_COMPARE_ADD = offset(IBV_SEND_WR, "wr", "atomic", "compare_add");
    public static final long SEND_WR_ATOMIC_SWAP = offset(IBV_SEND_WR, "wr", "atomic", "swap");
    public static final long SEND_WR_ATOMIC_RKEY = offset(IBV_SEND_WR, "wr", "atomic", "rkey");
    public static final long SEND_WR_BIND_MW_MW = offset(IBV_SEND_WR, "anon$1", "bind_mw", "mw");
    public static final long SEND_WR_BIND_MW_RKEY = offset(IBV_SEND_WR, "anon$1", "bind_mw", "rkey");
    public static final long SEND_WR_BIND_MW_MR = offset(IBV_SEND_WR, "anon$1", "bind_mw", "bind_info", "mr");
    public static final long SEND_WR_BIND_MW_ADDR = offset(IBV_SEND_WR, "anon$1", "bind_mw", "bind_info", "addr");
    public static final long SEND_WR_BIND_MW_LENGTH = offset(IBV_SEND_WR, "anon$1", "bind_mw", "bind_info", "length");
    public static final long SEND_WR_BIND_MW_ACCESS = offset(IBV_SEND_WR, "anon$1", "bind_mw", "bind_info", "mw_access_flags");

    public static final long RECV_WR_WR_ID = offset(IBV_RECV_WR, "wr_id");
    public static final long RECV_WR_NEXT = offset(IBV_RECV_WR, "next");
    public static final long RECV_WR_SG_LIST = offset(IBV_RECV_WR, "sg_list");
    public static final long RECV_WR_NUM_SGE = offset(IBV_RECV_WR, "num_sge");

    public static final long WC_WR_ID = offset(IBV_WC, "wr_id");
    public static final long WC_STATUS = offset(IBV_WC, "status");
    public static final long WC_OPCODE = offset(IBV_WC, "opcode");
    public static final long WC_VENDOR_ERR = offset(IBV_WC, "vendor_err");
    public static final long WC_BYTE_LEN = offset(IBV_WC, "byte_len");
    public static final long WC_QP_NUM = offset(IBV_WC, "qp_num");
    /** {@code imm_data}, big-endian; valid when {@code wc_flags} has {@code IBV_WC_WITH_IMM}. */
    public static final long WC_IMM_DATA = offset(IBV_WC, "imm_data");
    public static final long WC_WC_FLAGS = offset(IBV_WC, "wc_flags");

    public static final long CONTEXT_DEVICE = offset(IBV_CONTEXT, "device");
    public static final long CONTEXT_OPS_ALLOC_MW = offset(IBV_CONTEXT, "ops", "alloc_mw");
    public static final long CONTEXT_OPS_BIND_MW = offset(IBV_CONTEXT, "ops", "bind_mw");
    public static final long CONTEXT_OPS_DEALLOC_MW = offset(IBV_CONTEXT, "ops", "dealloc_mw");
    public static final long CONTEXT_OPS_POLL_CQ = offset(IBV_CONTEXT, "ops", "poll_cq");
    public static final long CONTEXT_OPS_REQ_NOTIFY_CQ = offset(IBV_CONTEXT, "ops", "req_notify_cq");
    public static final long CONTEXT_OPS_POST_SRQ_RECV = offset(IBV_CONTEXT, "ops", "post_srq_recv");
    public static final long CONTEXT_OPS_POST_SEND = offset(IBV_CONTEXT, "ops", "post_send");
    public static final long CONTEXT_OPS_POST_RECV = offset(IBV_CONTEXT, "ops", "post_recv");
    public static final long CONTEXT_ASYNC_FD = offset(IBV_CONTEXT, "async_fd");

    public static final long MR_LKEY = offset(IBV_MR, "lkey");
    public static final long MR_RKEY = offset(IBV_MR, "rkey");
    public static final long MR_ADDR = offset(IBV_MR, "addr");
    public static final long MR_LENGTH = offset(IBV_MR, "length");

    public static final long MW_RKEY = offset(IBV_MW, "rkey");
    public static final long MW_TYPE = offset(IBV_MW, "type");
    public static final long MW_PD = offset(IBV_MW, "pd");
    public static final long MW_CONTEXT = offset(IBV_MW, "context");

    public static final long MW_BIND_WR_ID = offset(IBV_MW_BIND, "wr_id");
    public static final long MW_BIND_SEND_FLAGS = offset(IBV_MW_BIND, "send_flags");
    public static final long MW_BIND_MR = offset(IBV_MW_BIND, "bind_info", "mr");
    public static final long MW_BIND_ADDR = offset(IBV_MW_BIND, "bind_info", "addr");
    public static final long MW_BIND_LENGTH = offset(IBV_MW_BIND, "bind_info", "length");
    public static final long MW_BIND_ACCESS = offset(IBV_MW_BIND, "bind_info", "mw_access_flags");

    public static final long COMP_CHANNEL_FD = offset(IBV_COMP_CHANNEL, "fd");
    public static final long CQ_CONTEXT = offset(IBV_CQ, "context");
    public static final long CQ_CQ_CONTEXT = offset(IBV_CQ, "cq_context");
    public static final long CQ_CQE = offset(IBV_CQ, "cqe");

    public static final long SRQ_CONTEXT = offset(IBV_SRQ, "context");
    public static final long SRQ_ATTR_MAX_WR = offset(IBV_SRQ_ATTR, "max_wr");
    public static final long SRQ_ATTR_MAX_SGE = offset(IBV_SRQ_ATTR, "max_sge");
    public static final long SRQ_ATTR_SRQ_LIMIT = offset(IBV_SRQ_ATTR, "srq_limit");
    public static final long SRQ_INIT_ATTR_MAX_WR = offset(IBV_SRQ_INIT_ATTR, "attr", "max_wr");
    public static final long SRQ_INIT_ATTR_MAX_SGE = offset(IBV_SRQ_INIT_ATTR, "attr", "max_sge");
    public static final long SRQ_INIT_ATTR_SRQ_LIMIT = offset(IBV_SRQ_INIT_ATTR, "attr", "srq_limit");

    public static final long QP_CONTEXT = offset(IBV_QP, "context");
    public static final long QP_QP_NUM = offset(IBV_QP, "qp_num");
    public static final long QP_STATE = offset(IBV_QP, "state");

    public static final long QP_INIT_SEND_CQ = offset(IBV_QP_INIT_ATTR, "send_cq");
    public static final long QP_INIT_RECV_CQ = offset(IBV_QP_INIT_ATTR, "recv_cq");
    public static final long QP_INIT_SRQ = offset(IBV_QP_INIT_ATTR, "srq");
    public static final long QP_INIT_MAX_SEND_WR = offset(IBV_QP_INIT_ATTR, "cap", "max_send_wr");
    public static final long QP_INIT_MAX_RECV_WR = offset(IBV_QP_INIT_ATTR, "cap", "max_recv_wr");
    public static final long QP_INIT_MAX_SEND_SGE = offset(IBV_QP_INIT_ATTR, "cap", "max_send_sge");
    public static final long QP_INIT_MAX_RECV_SGE = offset(IBV_QP_INIT_ATTR, "cap", "max_recv_sge");
    public static final long QP_INIT_MAX_INLINE = offset(IBV_QP_INIT_ATTR, "cap", "max_inline_data");
    public static final long QP_INIT_QP_TYPE = offset(IBV_QP_INIT_ATTR, "qp_type");
    public static final long QP_INIT_SQ_SIG_ALL = offset(IBV_QP_INIT_ATTR, "sq_sig_all");

    public static final long QP_ATTR_QP_STATE = offset(IBV_QP_ATTR, "qp_state");
    public static final long QP_ATTR_ACCESS_FLAGS = offset(IBV_QP_ATTR, "qp_access_flags");
    public static final long QP_ATTR_PKEY_INDEX = offset(IBV_QP_ATTR, "pkey_index");
    public static final long QP_ATTR_PORT_NUM = offset(IBV_QP_ATTR, "port_num");
    public static final long QP_ATTR_MAX_RD_ATOMIC = offset(IBV_QP_ATTR, "max_rd_atomic");
    public static final long QP_ATTR_MAX_DEST_RD_ATOMIC = offset(IBV_QP_ATTR, "max_dest_rd_atomic");
    public static final long QP_ATTR_PATH_MTU = offset(IBV_QP_ATTR, "path_mtu");
    public static final long QP_ATTR_DEST_QP_NUM = offset(IBV_QP_ATTR, "dest_qp_num");
    public static final long QP_ATTR_MIN_RNR_TIMER = offset(IBV_QP_ATTR, "min_rnr_timer");
    public static final long QP_ATTR_TIMEOUT = offset(IBV_QP_ATTR, "timeout");
    public static final long QP_ATTR_RETRY_CNT = offset(IBV_QP_ATTR, "retry_cnt");
    public static final long QP_ATTR_RNR_RETRY = offset(IBV_QP_ATTR, "rnr_retry");
    public static final long QP_ATTR_AH_DLID = offset(IBV_QP_ATTR, "ah_attr", "dlid");
    public static final long QP_ATTR_AH_IS_GLOBAL = offset(IBV_QP_ATTR, "ah_attr", "is_global");
    public static final long QP_ATTR_AH_PORT_NUM = offset(IBV_QP_ATTR, "ah_attr", "port_num");
    public static final long QP_ATTR_AH_DGID = offset(IBV_QP_ATTR, "ah_attr", "grh", "dgid");
    public static final long QP_ATTR_AH_SGID_INDEX = offset(IBV_QP_ATTR, "ah_attr", "grh", "sgid_index");
    public static final long QP_ATTR_AH_HOP_LIMIT = offset(IBV_QP_ATTR, "ah_attr", "grh", "hop_limit");

    public static final long PORT_ATTR_STATE = offset(IBV_PORT_ATTR, "state");
    public static final long PORT_ATTR_ACTIVE_MTU = offset(IBV_PORT_ATTR, "active_mtu");
    public static final long PORT_ATTR_MAX_MSG_SZ = offset(IBV_PORT_ATTR, "max_msg_sz");
    public static final long PORT_ATTR_LINK_LAYER = offset(IBV_PORT_ATTR, "link_layer");
    public static final long PORT_ATTR_LID = offset(IBV_PORT_ATTR, "lid");

    public static final long DEVICE_ATTR_FW_VER = offset(IBV_DEVICE_ATTR, "fw_ver");
    public static final long DEVICE_ATTR_MAX_MR_SIZE = offset(IBV_DEVICE_ATTR, "max_mr_size");
    public static final long DEVICE_ATTR_VENDOR_ID = offset(IBV_DEVICE_ATTR, "vendor_id");
    public static final long DEVICE_ATTR_HW_VER = offset(IBV_DEVICE_ATTR, "hw_ver");
    public static final long DEVICE_ATTR_MAX_QP = offset(IBV_DEVICE_ATTR, "max_qp");
    public static final long DEVICE_ATTR_MAX_QP_WR = offset(IBV_DEVICE_ATTR, "max_qp_wr");
    public static final long DEVICE_ATTR_CAP_FLAGS = offset(IBV_DEVICE_ATTR, "device_cap_flags");
    public static final long DEVICE_ATTR_MAX_SGE = offset(IBV_DEVICE_ATTR, "max_sge");
    public static final long DEVICE_ATTR_MAX_SGE_RD = offset(IBV_DEVICE_ATTR, "max_sge_rd");
    public static final long DEVICE_ATTR_MAX_CQ = offset(IBV_DEVICE_ATTR, "max_cq");
    public static final long DEVICE_ATTR_MAX_CQE = offset(IBV_DEVICE_ATTR, "max_cqe");
    public static final long DEVICE_ATTR_MAX_MR = offset(IBV_DEVICE_ATTR, "max_mr");
    public static final long DEVICE_ATTR_MAX_PD = offset(IBV_DEVICE_ATTR, "max_pd");
    public static final long DEVICE_ATTR_MAX_QP_RD_ATOM = offset(IBV_DEVICE_ATTR, "max_qp_rd_atom");
    public static final long DEVICE_ATTR_MAX_QP_INIT_RD_ATOM = offset(IBV_DEVICE_ATTR, "max_qp_init_rd_atom");
    public static final long DEVICE_ATTR_MAX_MW = offset(IBV_DEVICE_ATTR, "max_mw");
    public static final long DEVICE_ATTR_ATOMIC_CAP = offset(IBV_DEVICE_ATTR, "atomic_cap");
    public static final long DEVICE_ATTR_MAX_SRQ = offset(IBV_DEVICE_ATTR, "max_srq");
    public static final long DEVICE_ATTR_MAX_SRQ_WR = offset(IBV_DEVICE_ATTR, "max_srq_wr");
    public static final long DEVICE_ATTR_MAX_SRQ_SGE = offset(IBV_DEVICE_ATTR, "max_srq_sge");
    public static final long DEVICE_ATTR_PHYS_PORT_CNT = offset(IBV_DEVICE_ATTR, "phys_port_cnt");

    public static final long ASYNC_EVENT_ELEMENT = offset(IBV_ASYNC_EVENT, "element");
    public static final long ASYNC_EVENT_TYPE = offset(IBV_ASYNC_EVENT, "event_type");

    public static final long EVENT_CHANNEL_FD = offset(RDMA_EVENT_CHANNEL, "fd");

    public static final long CONN_PRIVATE_DATA = offset(RDMA_CONN_PARAM, "private_data");
    public static final long CONN_PRIVATE_DATA_LEN = offset(RDMA_CONN_PARAM, "private_data_len");
    public static final long CONN_RESPONDER_RESOURCES = offset(RDMA_CONN_PARAM, "responder_resources");
    public static final long CONN_INITIATOR_DEPTH = offset(RDMA_CONN_PARAM, "initiator_depth");
    public static final long CONN_RETRY_COUNT = offset(RDMA_CONN_PARAM, "retry_count");
    public static final long CONN_RNR_RETRY_COUNT = offset(RDMA_CONN_PARAM, "rnr_retry_count");
    public static final long CONN_SRQ = offset(RDMA_CONN_PARAM, "srq");
    public static final long CONN_QP_NUM = offset(RDMA_CONN_PARAM, "qp_num");

    public static final long CM_EVENT_ID = offset(RDMA_CM_EVENT, "id");
    public static final long CM_EVENT_LISTEN_ID = offset(RDMA_CM_EVENT, "listen_id");
    public static final long CM_EVENT_EVENT = offset(RDMA_CM_EVENT, "event");
    public static final long CM_EVENT_STATUS = offset(RDMA_CM_EVENT, "status");
    public static final long CM_EVENT_PRIVATE_DATA = offset(RDMA_CM_EVENT, "param", "conn", "private_data");
    public static final long CM_EVENT_PRIVATE_DATA_LEN = offset(RDMA_CM_EVENT, "param", "conn", "private_data_len");

    public static final long CM_ID_VERBS = offset(RDMA_CM_ID, "verbs");
    public static final long CM_ID_CONTEXT = offset(RDMA_CM_ID, "context");
    public static final long CM_ID_SRC_ADDR = offset(RDMA_CM_ID, "route", "addr", "src_storage");
    public static final long CM_ID_DST_ADDR = offset(RDMA_CM_ID, "route", "addr", "dst_storage");
    public static final long CM_ID_PORT_NUM = offset(RDMA_CM_ID, "port_num");
}
