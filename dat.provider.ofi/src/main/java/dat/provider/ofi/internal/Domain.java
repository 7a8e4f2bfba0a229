package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffi.Fabric;
import dat.provider.ofi.internal.ffi.Fi;
import dat.provider.ofi.internal.ffi.NativeException;
import dat.provider.ofi.internal.ffi.Ops;
import dat.provider.ofi.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The libfabric objects one IA lives in: the {@code struct fi_info} of its provider, domain and
 * address ({@code fi_getinfo} with {@code FI_SOURCE}), the fabric ({@code fi_fabric}), the domain
 * ({@code fi_domain}) and one event queue ({@code fi_eq_open}, {@code FI_WAIT_FD}) that every
 * passive and active endpoint of the IA reports connection events to; and the limits the info
 * states.
 *
 * <p><b>Memory registration.</b> The domain is opened with {@code FI_MR_VIRT_ADDR} added to the
 * info's {@code mr_mode} (libfabric's utility providers, tcp among them, honour a mode the
 * application asks for beyond what they require): RDMA addresses are the target's virtual
 * addresses, as in DAT. Where the provider lets the application choose keys (no
 * {@code FI_MR_PROV_KEY}, 64-bit keys), the DAT provider chooses them: the registration's PZ in the
 * high half and its LMR context in the low half ({@link #pzKeys}), so that a peer's RDMA through an
 * Endpoint of another PZ names a key that does not exist and libfabric refuses it.
 */
final class Domain implements AutoCloseable {

    private static final long EMPTY_SEGMENT_BYTES = 64;

    private final Fabric fabric;
    /** The IA's {@code fi_info}: source address with port 0, the template of active endpoints and PSPs. */
    final MemorySegment info;
    final MemorySegment fabricFid;
    final MemorySegment domain;
    final MemorySegment eq;
    final MemorySegment eqReadFn;
    final MemorySegment eqReadErrFn;
    final int eqFd;
    final Limits limits;
    final InetSocketAddress address;
    final String providerName;
    final String domainName;
    final String fabricName;
    final int providerVersion;
    /** Whether MR keys are the provider's choice: PZ in the high half, LMR context in the low half. */
    final boolean pzKeys;
    /**
     * Where the provider needs a descriptor for every buffer ({@code FI_MR_LOCAL}), a small
     * registration of the domain's own: a message or RDMA write of no bytes names it as its one,
     * empty segment, since libfabric's verbs provider reads the first descriptor of every send or
     * write, even of one without segments. 0 where the provider needs none.
     */
    final long emptySegmentAddress;
    /**
     * Whether the IA offers remote atomics ({@code AtomicEndpoint}): its info lists them
     * ({@link Discovery#atomicsListed}) and {@code fi_query_atomic} grants a 64-bit unsigned
     * fetching {@code FI_SUM} and an {@code FI_CSWAP} on the domain.
     */
    final boolean atomics;
    /**
     * How the atomic operands reach libfabric ({@link AtomicPosting}): {@code true} where the
     * verbs provider puts the operand fields themselves into the work request, as every release
     * before 2.2 does ({@code compare_add = (uintptr_t) msg->addr} in {@code fi_fetch_atomicmsg};
     * {@code compare_add = (uintptr_t) comparev->addr}, {@code swap = (uintptr_t) msg->addr} in
     * {@code fi_compare_atomicmsg}); {@code false} where the operands are read through their
     * pointers, as fi_atomic(3) says.
     */
    final boolean operandsByValue;
    final long emptySegmentDescriptor;
    private final MemorySegment emptySegmentMr;
    private final Arena emptySegmentArena;

    Domain(Fabric fabric, IaConfig config) {
        this.fabric = fabric;
        MemorySegment found = Discovery.find(fabric, config);
        MemorySegment fab = MemorySegment.NULL;
        MemorySegment dom = MemorySegment.NULL;
        MemorySegment queue = MemorySegment.NULL;
        MemorySegment emptyMr = MemorySegment.NULL;
        Arena emptyArena = null;
        long emptyAddress = 0;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment domainAttr = Discovery.attr(found, Structs.INFO_DOMAIN_ATTR, Structs.FI_DOMAIN_ATTR);
            MemorySegment fabricAttr = Discovery.attr(found, Structs.INFO_FABRIC_ATTR, Structs.FI_FABRIC_ATTR);
            MemorySegment sourceAddress = Fabric.sized(found.get(ADDRESS, Structs.INFO_SRC_ADDR),
                    found.get(JAVA_LONG, Structs.INFO_SRC_ADDRLEN));
            Sockaddr.setPort(sourceAddress, 0);
            this.address = Sockaddr.read(sourceAddress);
            this.providerName = Fabric.string(fabricAttr.get(ADDRESS, Structs.FABRIC_ATTR_PROV_NAME));
            this.fabricName = Fabric.string(fabricAttr.get(ADDRESS, Structs.FABRIC_ATTR_NAME));
            this.domainName = Fabric.string(domainAttr.get(ADDRESS, Structs.DOMAIN_ATTR_NAME));
            this.providerVersion = fabricAttr.get(JAVA_INT, Structs.FABRIC_ATTR_PROV_VERSION);
            int mrMode = domainAttr.get(JAVA_INT, Structs.DOMAIN_ATTR_MR_MODE);
            domainAttr.set(JAVA_INT, Structs.DOMAIN_ATTR_MR_MODE, mrMode | Fi.MR_VIRT_ADDR);
            this.pzKeys = (mrMode & Fi.MR_PROV_KEY) == 0 && domainAttr.get(JAVA_LONG, Structs.DOMAIN_ATTR_MR_KEY_SIZE) >= 8;
            fab = fabric.openFabric(fabricAttr);
            MemorySegment eqAttr = local.allocate(Structs.FI_EQ_ATTR);
            eqAttr.set(JAVA_LONG, Structs.EQ_ATTR_SIZE, 1024);
            eqAttr.set(JAVA_INT, Structs.EQ_ATTR_WAIT_OBJ, Fi.WAIT_FD);
            queue = Ops.eqOpen(fab, eqAttr);
            dom = Ops.domain(fab, found);
            this.limits = Limits.of(found, cmDataSize(fab, found));
            this.atomics = Discovery.atomicsListed(found) && Ops.queryAtomic(dom, Fi.UINT64, Fi.SUM, Fi.FETCH_ATOMIC)
                    && Ops.queryAtomic(dom, Fi.UINT64, Fi.CSWAP, Fi.COMPARE_ATOMIC);
            this.operandsByValue = operandsByValue(providerName, fabric.version());
            if ((mrMode & Fi.MR_LOCAL) != 0) {
                emptyArena = Arena.ofShared();
                MemorySegment empty = emptyArena.allocate(EMPTY_SEGMENT_BYTES, EMPTY_SEGMENT_BYTES);
                emptyMr = Ops.mrReg(dom, empty, EMPTY_SEGMENT_BYTES, Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE, 0);
                emptyAddress = empty.address();
            }
        } catch (RuntimeException e) {
            closeQuietly(emptyMr);
            if (emptyArena != null) {
                emptyArena.close();
            }
            closeQuietly(queue);
            closeQuietly(dom);
            closeQuietly(fab);
            fabric.freeInfo(found);
            throw e;
        }
        this.info = found;
        this.emptySegmentArena = emptyArena;
        this.emptySegmentMr = emptyMr;
        this.emptySegmentAddress = emptyAddress;
        this.emptySegmentDescriptor = emptyArena == null ? 0 : emptyMr.get(ADDRESS, Structs.MR_MEM_DESC).address();
        this.fabricFid = fab;
        this.domain = dom;
        this.eq = queue;
        this.eqReadFn = Ops.fn(queue, Structs.OBJ_OPS, Structs.FI_OPS_EQ, Structs.EQ_OPS_READ, "fi_eq_read");
        this.eqReadErrFn = Ops.fn(queue, Structs.OBJ_OPS, Structs.FI_OPS_EQ, Structs.EQ_OPS_READERR, "fi_eq_readerr");
        this.eqFd = Ops.waitFd(queue);
    }

    /** Whether libfabric {@code version} of {@code provider} takes atomic operands by value ({@link #operandsByValue}). */
    static boolean operandsByValue(String provider, int version) {
        return provider.equals("verbs") && version < Fi.VERSION_2_2;
    }

    /** The CM private data the provider carries ({@code FI_OPT_CM_DATA_SIZE} of a passive endpoint). */
    private static long cmDataSize(MemorySegment fab, MemorySegment info) {
        MemorySegment pep = Ops.passiveEp(fab, info);
        try {
            return Ops.cmDataSize(pep);
        } catch (NativeException e) {
            return 0;
        } finally {
            Ops.close(pep);
        }
    }

    private static void closeQuietly(MemorySegment fid) {
        if (!fid.equals(MemorySegment.NULL)) {
            try {
                Ops.close(fid);
            } catch (NativeException ignored) {
                // released with the process
            }
        }
    }

    /** A copy of the IA's info whose source port is {@code port}: for a PSP's passive endpoint. Free it with {@link #freeInfo}. */
    MemorySegment infoWithPort(int port) {
        MemorySegment copy = fabric.dupInfo(info);
        MemorySegment source = Fabric.sized(copy.get(ADDRESS, Structs.INFO_SRC_ADDR), copy.get(JAVA_LONG, Structs.INFO_SRC_ADDRLEN));
        Sockaddr.setPort(source, port);
        return copy;
    }

    /**
     * A copy of the IA's info whose destination is {@code destination}: the template of an active
     * endpoint. libfabric's verbs provider resolves the route when the endpoint is made
     * ({@code rdma_resolve_addr} in {@code fi_endpoint}, which fails without a destination), tcp
     * when it connects; both take it here. The copy points at {@code destination}, memory of the
     * caller's: free it with {@link #freeActiveInfo}, before that memory goes.
     */
    MemorySegment activeInfo(MemorySegment destination) {
        MemorySegment copy = fabric.dupInfo(info);
        copy.set(ADDRESS, Structs.INFO_DEST_ADDR, destination);
        copy.set(JAVA_LONG, Structs.INFO_DEST_ADDRLEN, destination.byteSize());
        return copy;
    }

    /** Frees an {@link #activeInfo}: its destination is the caller's memory, not libfabric's to free. */
    void freeActiveInfo(MemorySegment copy) {
        copy.set(ADDRESS, Structs.INFO_DEST_ADDR, MemorySegment.NULL);
        copy.set(JAVA_LONG, Structs.INFO_DEST_ADDRLEN, 0L);
        fabric.freeInfo(copy);
    }

    void freeInfo(MemorySegment someInfo) {
        fabric.freeInfo(someInfo);
    }

    /** Closes the event queue, the domain and the fabric (every endpoint, MR and CQ of the IA is closed first). */
    @Override
    public void close() {
        closeQuietly(emptySegmentMr);
        if (emptySegmentArena != null) {
            emptySegmentArena.close();
        }
        closeQuietly(eq);
        closeQuietly(domain);
        closeQuietly(fabricFid);
        fabric.freeInfo(info);
    }
}
