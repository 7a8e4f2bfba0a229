package dat.tests.conformance.internal;

import dat.api.CloseFlag;
import dat.api.CompletionFlags;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.Endpoint;
import dat.api.EpAttributes;
import dat.api.EpState;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.IaAttributes;
import dat.api.IaQuery;
import dat.api.InterfaceAdapter;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.ProtectionZone;
import dat.api.ProviderAttributes;
import dat.api.ProviderDTO;
import dat.api.PspFlag;
import dat.api.PublicServicePoint;
import dat.api.Qos;
import dat.tests.conformance.ConformanceSuite;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.opentest4j.AssertionFailedError;

/**
 * The IA under test, as one conformance test run sees it: the IA name, lazily opened instances of
 * it (always through the {@link DatRegistry}), the factory methods a test needs for its objects,
 * and assertions whose messages cite the test (its display name names the man page and the
 * expectation).
 *
 * <p>Every IA opened through the fixture is closed abruptly when the run ends, which destroys
 * every object created through it; then the native memory of the run is freed. An abrupt close
 * must always succeed (dat_ia_close(3DAT)), so a failing one fails the test.
 */
public final class IaUnderTest implements AutoCloseable {

    /** How long a test waits for an event it expects: 5 s, in microseconds. */
    public static final long EVENT_TIMEOUT_MICROS = 5_000_000L;

    /** The EVD queue length the fixture's EVDs ask for, bounded by the IA's limit. */
    public static final int DEFAULT_QLEN = 64;

    /** The size of the buffers of {@link Connection} sides. */
    public static final long BUFFER_SIZE = 64 * 1024;

    private final TestEnvironment environment;
    private final String iaName;
    private final String spec;
    private final Arena arena = Arena.ofShared();
    private final List<InterfaceAdapter> opened = new ArrayList<>();
    private InterfaceAdapter ia;
    private InterfaceAdapter peer;
    private IaQuery query;
    /** With a peer agent: the connection that carries {@link #peer()}, and the memory both processes see. */
    private RemoteIa remote;
    private SharedFiles shared;

    IaUnderTest(TestEnvironment environment, String iaName, String spec) {
        this.environment = environment;
        this.iaName = iaName;
        this.spec = spec;
    }

    // ------------------------------------------------------------------------------------------
    // The IA and its attributes
    // ------------------------------------------------------------------------------------------

    /** @return the name of the IA under test */
    public String iaName() {
        return iaName;
    }

    /** @return the test's display name: the man page, the expectation and the IA */
    public String spec() {
        return spec;
    }

    /**
     * The peer agent of a cross-process run ({@code dat test IA --peer HOST:PORT}, configuration
     * parameter {@value dat.tests.conformance.ConformanceSuite#PEER_PARAMETER}): tests that support
     * it put their passive sides there ({@link RemotePeer}).
     *
     * @return the agent's control address, or empty for a run within this process
     */
    public java.util.Optional<InetSocketAddress> remotePeer() {
        return environment.peer();
    }

    /** @return the registry every IA is opened through */
    public DatRegistry registry() {
        return environment.registry();
    }

    /**
     * A service property of the IA's registry entry that lists names, such as
     * {@code dat.capability} or {@code dat.extension} ({@code String}, {@code String[]} or
     * {@code Collection<String>}, as {@code DatProviderConstants} allows).
     *
     * @return the names, or empty when the registry has no entry for the IA or the entry has no
     *     such property
     */
    public Optional<List<String>> registeredNames(String property) {
        List<ProviderDTO> entries = registry().findProviders("(dat.ia.name=" + DatRegistry.escapeFilterValue(iaName) + ")");
        return entries.isEmpty() ? Optional.empty() : Optional.ofNullable(names(entries.getFirst().properties().get(property)));
    }

    /** The names a multi-valued service property holds, or {@code null} for a value of another type. */
    static List<String> names(Object value) {
        if (value instanceof String one) {
            return List.of(one);
        } else if (value instanceof String[] array) {
            return List.of(array);
        } else if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).toList();
        }
        return null;
    }

    /** @return the primary open instance of the IA under test, opened on first use */
    public InterfaceAdapter ia() {
        if (ia == null) {
            ia = open();
        }
        return ia;
    }

    /**
     * A second open instance of the IA under test, the passive side of {@link #connect()}:
     * dat_ia_open(3DAT) lets several instances of an IA exist. With a peer agent
     * ({@link #remotePeer()}), it is an instance of the agent's IA in the agent's process, used
     * through proxies ({@link RemoteIa}): every connection between the two is then a connection
     * between two processes, and every buffer {@link #memory(long)} allocates lies in memory both
     * processes map.
     *
     * @return the peer instance, opened on first use
     */
    public InterfaceAdapter peer() {
        if (peer == null) {
            var agent = remotePeer();
            if (agent.isPresent()) {
                try {
                    remote = RemoteIa.open(agent.get(), sharedFiles());
                } catch (java.io.IOException e) {
                    throw failure("the peer agent at " + agent.get() + " did not open its IA: " + e);
                }
                peer = track(remote.adapter());
            } else {
                peer = open();
            }
        }
        return peer;
    }

    private SharedFiles sharedFiles() {
        if (shared == null) {
            shared = new SharedFiles(true);
        }
        return shared;
    }

    /**
     * Opens a further instance of the IA under test (dat_ia_open as the C macro does), closed when
     * the run ends.
     *
     * @return the new instance
     */
    public InterfaceAdapter open() {
        return track(registry().openIa(iaName));
    }

    /**
     * Makes the fixture close an IA that the test opened itself.
     *
     * @param adapter the open IA
     * @return {@code adapter}
     */
    public InterfaceAdapter track(InterfaceAdapter adapter) {
        opened.add(adapter);
        return adapter;
    }

    private IaQuery query() {
        if (query == null) {
            query = ia().query();
        }
        return query;
    }

    /** @return the IA attributes of the primary instance (dat_ia_query) */
    public IaAttributes attributes() {
        return query().iaAttributes();
    }

    /** @return the provider attributes of the primary instance (dat_ia_query) */
    public ProviderAttributes provider() {
        return query().providerAttributes();
    }

    /**
     * The address to connect to an IA instance: its {@code ia_address_ptr}.
     *
     * @param adapter an open IA
     * @return its address
     */
    public InetSocketAddress address(InterfaceAdapter adapter) {
        InetSocketAddress address = adapter.query().iaAttributes().iaAddress();
        if (address == null) {
            throw failure("dat_ia_query(3DAT) returned no IA address, so no Endpoint can connect to this IA");
        }
        return address;
    }

    // ------------------------------------------------------------------------------------------
    // Features and skips
    // ------------------------------------------------------------------------------------------

    /**
     * Skips the test, reported as skipped-unsupported, when the provider declares a feature
     * unsupported. A feature declared supported must then work: the test goes on.
     *
     * @param supported what the provider's attributes say
     * @param feature the feature and the attribute that declares it, for the report
     */
    public void requireSupported(boolean supported, String feature) {
        Assumptions.assumeTrue(supported, () -> ConformanceSuite.UNSUPPORTED + feature);
    }

    /**
     * Skips the test for a reason other than an unsupported feature, for example a limit too
     * large to exhaust in bounded time.
     *
     * @param feasible whether the test can run
     * @param reason why it cannot, for the report
     */
    public void requireFeasible(boolean feasible, String reason) {
        Assumptions.assumeTrue(feasible, () -> "not feasible: " + reason);
    }

    /**
     * What the provider declares it does instead of what a page requires: its provider-specific
     * attribute {@link ProviderAttributes#DEVIATION_PREFIX}{@code + name}.
     *
     * @param name the deviation's name, for example {@code "max_private_data_size"}
     * @return the declaration, or empty when the provider declares no such deviation
     */
    public Optional<String> declaredDeviation(String name) {
        return Optional.ofNullable(provider().providerSpecificAttributes().get(ProviderAttributes.DEVIATION_PREFIX + name));
    }

    /**
     * Whether the provider declares, under the deviation {@code name}, that it reports the DTO status
     * {@code status} instead of the page's: a declaration {@code "<DAT_DTO_* status name>: <why>"}.
     */
    public boolean declaresStatus(String name, int status) {
        String statusName = DtoCompletionStatus.name(status);
        return declaredDeviation(name).filter(declared -> declared.startsWith(statusName + ":")).isPresent();
    }

    /**
     * Ends the test as skipped-unsupported, with the provider's own reason, for a departure from
     * the page that the provider declares. Call it only once the test has checked that the
     * provider behaves as it declares; without a declaration the test fails instead.
     *
     * @param name the deviation's name
     * @param observed what the test saw, which the declaration must account for
     */
    public void skipAsDeclared(String name, String observed) {
        String declared = declaredDeviation(name).orElseThrow(() -> failure(observed + ", and the provider declares no deviation "
                + ProviderAttributes.DEVIATION_PREFIX + name));
        Assumptions.abort(ConformanceSuite.UNSUPPORTED + observed + ", as the provider declares (" + ProviderAttributes.DEVIATION_PREFIX
                + name + "): " + declared);
    }

    /**
     * @param completionFlag one {@code DAT_COMPLETION_*} flag
     * @return whether {@code completion_flags_supported} includes it
     */
    public boolean supportsCompletionFlag(int completionFlag) {
        return (provider().completionFlagsSupported() & completionFlag) == completionFlag;
    }

    /**
     * A QoS bit outside {@code dat_qos_supported}; skips the test when the provider supports them all.
     *
     * @return the unsupported QoS
     */
    public int unsupportedQos() {
        int supported = provider().qosSupported();
        for (int qos : new int[] {Qos.PREMIUM, Qos.ECONOMY, Qos.LOW_LATENCY, Qos.HIGH_THROUGHPUT}) {
            if ((supported & qos) == 0) {
                return qos;
            }
        }
        requireFeasible(false, "the provider supports every QoS (dat_qos_supported 0x" + Integer.toHexString(supported) + ")");
        return Qos.BEST_EFFORT;
    }

    /** @return whether the IA supports RMRs ({@code max_rmrs} &gt; 0) */
    public boolean supportsRmrs() {
        return attributes().maxRmrs() > 0;
    }

    /** Skips unless the IA supports RMRs. */
    public void requireRmrs() {
        requireSupported(supportsRmrs(), "RMRs (IA attribute max_rmrs is 0)");
    }

    /** Skips unless the provider supports SRQs. */
    public void requireSrq() {
        requireSupported(provider().srqSupported(), "SRQs (provider attribute srq_supported is false)");
    }

    /** Skips unless the IA supports outgoing and incoming RDMA reads. */
    public void requireRdmaRead() {
        requireSupported(attributes().maxRdmaReadPerEpOut() > 0 && attributes().maxRdmaReadPerEpIn() > 0,
                "RDMA Read (IA attributes max_rdma_read_per_ep_in/out are 0)");
    }

    // ------------------------------------------------------------------------------------------
    // Objects
    // ------------------------------------------------------------------------------------------

    /** @return the arena of the run's native memory, freed after the IAs are closed */
    public Arena arena() {
        return arena;
    }

    /**
     * @param size bytes
     * @return zeroed native memory aligned to {@link DatConstants#OPTIMAL_ALIGNMENT} (in a file
     *     shared with the peer agent's process when there is one)
     */
    public MemorySegment memory(long size) {
        if (remotePeer().isPresent()) {
            return sharedFiles().allocate(size); // the peer agent's IA may register it
        }
        return arena.allocate(size, DatConstants.OPTIMAL_ALIGNMENT);
    }

    /** @return a new PZ of the primary IA */
    public ProtectionZone pz() {
        return ia().createProtectionZone();
    }

    /**
     * @param evdFlags the {@link EvdFlags} streams
     * @return a new EVD of the primary IA with {@link #qlen()} entries
     */
    public EventDispatcher evd(int evdFlags) {
        return ia().createEventDispatcher(qlen(), null, evdFlags);
    }

    /**
     * @param adapter the IA
     * @param evdFlags the {@link EvdFlags} streams
     * @return a new EVD with {@link #qlen()} entries
     */
    public EventDispatcher evd(InterfaceAdapter adapter, int evdFlags) {
        return adapter.createEventDispatcher(qlen(), null, evdFlags);
    }

    /** @return {@link #DEFAULT_QLEN} bounded by {@code max_evd_qlen} */
    public int qlen() {
        return Math.max(1, Math.min(DEFAULT_QLEN, attributes().maxEvdQlen()));
    }

    /** @return the flags of a request EVD: DTO completions, and RMR binds where RMRs exist */
    public int requestEvdFlags() {
        boolean binds = supportsRmrs() && provider().isStreamMergingSupported(EvdFlags.DTO, EvdFlags.RMR_BIND);
        return EvdFlags.DTO | (binds ? EvdFlags.RMR_BIND : 0);
    }

    /**
     * Registers fresh memory of the primary IA.
     *
     * @param pz the PZ
     * @param size bytes
     * @param privileges {@code MemPrivileges}
     * @return the LMR; its memory is {@link LocalMemoryRegion#memory()}
     */
    public LocalMemoryRegion lmr(ProtectionZone pz, long size, int privileges) {
        return lmr(ia(), pz, size, privileges);
    }

    /**
     * Registers fresh memory.
     *
     * @param adapter the IA
     * @param pz the PZ
     * @param size bytes
     * @param privileges {@code MemPrivileges}
     * @return the LMR
     */
    public LocalMemoryRegion lmr(InterfaceAdapter adapter, ProtectionZone pz, long size, int privileges) {
        return adapter.registerMemory(memory(size), pz, privileges);
    }

    /**
     * Endpoint attributes the suite uses unless a test needs others: small queues and sizes
     * within the IA's limits, signalled completions.
     *
     * @return a builder holding them
     */
    public EpAttributes.Builder epAttributesBuilder() {
        IaAttributes limits = attributes();
        return EpAttributes.builder()
                .maxMessageSize(Math.min(BUFFER_SIZE, limits.maxMessageSize()))
                .maxRdmaSize(Math.min(BUFFER_SIZE, limits.maxRdmaSize()))
                .maxRecvDtos(Math.min(16, limits.maxDtoPerEp()))
                .maxRequestDtos(Math.min(16, limits.maxDtoPerEp()))
                .maxRecvIov(Math.min(4, limits.maxIovSegmentsPerDto()))
                .maxRequestIov(Math.min(4, limits.maxIovSegmentsPerDto()))
                .maxRdmaReadIn(Math.min(4, limits.maxRdmaReadPerEpIn()))
                .maxRdmaReadOut(Math.min(4, limits.maxRdmaReadPerEpOut()))
                .maxRdmaReadIov(Math.min(4, limits.maxIovSegmentsPerRdmaRead()))
                .maxRdmaWriteIov(Math.min(4, limits.maxIovSegmentsPerRdmaWrite()));
    }

    /** @return the suite's Endpoint attributes ({@link #epAttributesBuilder()}) */
    public EpAttributes epAttributes() {
        return epAttributesBuilder().build();
    }

    /**
     * @param pz the PZ
     * @param recvEvd the receive EVD or {@code null}
     * @param requestEvd the request EVD or {@code null}
     * @param connectEvd the connection EVD or {@code null}
     * @return a new Endpoint of the primary IA with the suite's attributes
     */
    public Endpoint ep(ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd, EventDispatcher connectEvd) {
        return ia().createEndpoint(pz, recvEvd, requestEvd, connectEvd, epAttributes());
    }

    /**
     * @param adapter the IA
     * @param pz the PZ
     * @param recvEvd the receive EVD or {@code null}
     * @param requestEvd the request EVD or {@code null}
     * @param connectEvd the connection EVD or {@code null}
     * @return a new Endpoint with the suite's attributes
     */
    public Endpoint ep(InterfaceAdapter adapter, ProtectionZone pz, EventDispatcher recvEvd, EventDispatcher requestEvd,
            EventDispatcher connectEvd) {
        return adapter.createEndpoint(pz, recvEvd, requestEvd, connectEvd, epAttributes());
    }

    /** @return a new unconnected Endpoint of the primary IA, with its own PZ and EVDs */
    public Endpoint ep() {
        return ep(pz(), evd(EvdFlags.DTO), evd(EvdFlags.DTO), evd(EvdFlags.CONNECTION));
    }

    /**
     * Connects two Endpoints of two instances of the IA under test, each with its own PZ, EVDs
     * and a {@link #BUFFER_SIZE} buffer with every privilege.
     *
     * @return the connection
     */
    public Connection connect() {
        return connection().connect();
    }

    /**
     * Connects two Endpoints as {@link #connect()} does, with request completion flags that allow
     * {@code DAT_COMPLETION_UNSIGNALLED_FLAG}; skips the test where the provider has no such flag.
     *
     * @return the connection
     */
    public Connection unsignalledConnection() {
        requireSupported(supportsCompletionFlag(CompletionFlags.UNSIGNALLED), "DAT_COMPLETION_UNSIGNALLED_FLAG (completion_flags_supported)");
        return connection().attributes(epAttributesBuilder().requestCompletionFlags(CompletionFlags.UNSIGNALLED).build()).connect();
    }

    /** @return options for a connection, to change before {@link Connection.Options#connect()} */
    public Connection.Options connection() {
        return new Connection.Options(this);
    }

    /**
     * A connection qualifier that no Service Point of an IA uses now: one the provider picked for
     * a PSP (dat_psp_create_any), which is then freed.
     *
     * @param adapter the IA
     * @return the free qualifier
     */
    public long unusedConnQual(InterfaceAdapter adapter) {
        try (EventDispatcher crEvd = adapter.createEventDispatcher(qlen(), null, EvdFlags.CR);
                PublicServicePoint psp = adapter.createPublicServicePointAny(crEvd, PspFlag.CONSUMER)) {
            return psp.connQual();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Events and states
    // ------------------------------------------------------------------------------------------

    /**
     * Waits (at most {@link #EVENT_TIMEOUT_MICROS}) for the next event of an EVD.
     *
     * @param evd the EVD
     * @param what what the event is, for the failure message
     * @return a copy of the event
     */
    public DatEvent event(EventDispatcher evd, String what) {
        DatEvent event = new DatEvent();
        int code = evd.await(EVENT_TIMEOUT_MICROS, 1, event);
        if (code != DatReturn.SUCCESS) {
            throw failure("waiting for " + what + ": dat_evd_wait returned " + DatReturn.describe(code)
                    + " (no event within " + EVENT_TIMEOUT_MICROS / 1_000_000 + " s)");
        }
        return event;
    }

    /**
     * Waits for the next event of an EVD and checks its number.
     *
     * @param evd the EVD
     * @param eventNumber the expected {@link EventNumber}
     * @param what what the event is, for the failure message
     * @return a copy of the event
     */
    public DatEvent event(EventDispatcher evd, int eventNumber, String what) {
        DatEvent event = event(evd, what);
        if (event.eventNumber() != eventNumber) {
            throw failure(what + ": expected " + EventNumber.name(eventNumber) + ", got " + event);
        }
        return event;
    }

    /**
     * Waits for the next DTO completion of an EVD.
     *
     * @param evd the EVD
     * @param what which DTO, for the failure message
     * @return the completion
     */
    public DatEvent completion(EventDispatcher evd, String what) {
        return event(evd, EventNumber.DTO_COMPLETION_EVENT, what);
    }

    /**
     * Waits for the next DTO completion of an EVD and checks that it succeeded.
     *
     * @param evd the EVD
     * @param what which DTO, for the failure message
     * @return the completion
     */
    public DatEvent success(EventDispatcher evd, String what) {
        DatEvent event = completion(evd, what);
        if (event.status() != DtoCompletionStatus.SUCCESS) {
            throw failure(what + ": expected DAT_DTO_SUCCESS, got " + DtoCompletionStatus.name(event.status()) + " in " + event);
        }
        return event;
    }

    /**
     * Checks that an EVD holds no event now.
     *
     * @param evd the EVD
     * @param what what must not have happened
     */
    public void noEvent(EventDispatcher evd, String what) {
        DatEvent event = new DatEvent();
        int code = evd.dequeue(event);
        if (code == DatReturn.SUCCESS) {
            throw failure(what + ": expected no event, got " + event);
        }
        if (DatReturn.typeOf(code) != DatReturn.QUEUE_EMPTY) {
            throw failure(what + ": dat_evd_dequeue returned " + DatReturn.describe(code) + " instead of DAT_QUEUE_EMPTY");
        }
    }

    /**
     * Waits (at most {@link #EVENT_TIMEOUT_MICROS}) until an Endpoint is in a state.
     *
     * @param ep the Endpoint
     * @param state the state
     * @param what why, for the failure message
     */
    public void awaitState(Endpoint ep, EpState state, String what) {
        long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(EVENT_TIMEOUT_MICROS);
        EpState current = ep.getStatus().state();
        while (current != state && System.nanoTime() < deadline) {
            Waiters.sleepMillis(1);
            current = ep.getStatus().state();
        }
        if (current != state) {
            throw failure(what + ": expected the Endpoint in " + state + ", it is in " + current);
        }
    }

    /**
     * Checks an Endpoint's state now (dat_ep_get_status).
     *
     * @param ep the Endpoint
     * @param state the expected state
     * @param what why, for the failure message
     */
    public void expectState(Endpoint ep, EpState state, String what) {
        EpState current = ep.getStatus().state();
        if (current != state) {
            throw failure(what + ": expected the Endpoint in " + state + ", it is in " + current);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Assertions citing the test
    // ------------------------------------------------------------------------------------------

    /**
     * @param what a detail
     * @return the test's citation followed by the detail, for AssertJ's {@code as(...)}
     */
    public String at(String what) {
        return spec + ": " + what;
    }

    /**
     * @param detail what went wrong
     * @return a failure whose message starts with the test's citation
     */
    public AssertionFailedError failure(String detail) {
        return new AssertionFailedError(at(detail));
    }

    /**
     * Fails unless the condition holds.
     *
     * @param condition the expectation
     * @param what the expectation in words
     */
    public void check(boolean condition, String what) {
        if (!condition) {
            throw failure(what);
        }
    }

    /**
     * Runs a control-path call that must fail with a DAT error of a type.
     *
     * @param type the expected {@link DatReturn} type, for example {@link DatReturn#INVALID_STATE}
     * @param what the call in words
     * @param call the call
     * @return the exception, for checks of its subtype
     */
    public DatException expectError(int type, String what, Runnable call) {
        try {
            call.run();
        } catch (DatException e) {
            if (e.type() != type || !DatReturn.isError(e.code())) {
                throw failure(what + ": expected " + DatReturn.typeName(type) + ", got " + DatReturn.describe(e.code())
                        + " (" + e.getMessage() + ")");
            }
            return e;
        } catch (RuntimeException e) {
            throw new AssertionFailedError(at(what + ": expected " + DatReturn.typeName(type) + ", got " + e), e);
        }
        throw failure(what + ": expected " + DatReturn.typeName(type) + ", but the call succeeded");
    }

    /**
     * Checks a data-path return code against an expected error type.
     *
     * @param type the expected {@link DatReturn} type
     * @param code the returned code
     * @param what the call in words
     */
    public void expectCode(int type, int code, String what) {
        if (code == DatReturn.SUCCESS) {
            throw failure(what + ": expected " + DatReturn.typeName(type) + ", got DAT_SUCCESS");
        }
        if (DatReturn.typeOf(code) != type || !DatReturn.isError(code)) {
            throw failure(what + ": expected " + DatReturn.typeName(type) + ", got " + DatReturn.describe(code)
                    + String.format(" (0x%08X)", code));
        }
    }

    /**
     * Checks a data-path return code against an expected error type and the argument it names.
     *
     * @param type the expected {@link DatReturn} type
     * @param subtype the expected subtype, such as {@link DatReturn#INVALID_ARG2}
     * @param code the returned code
     * @param what the call in words
     */
    public void expectCode(int type, int subtype, int code, String what) {
        expectCode(type, code, what);
        if (DatReturn.subtypeOf(code) != subtype) {
            throw failure(what + ": expected " + DatReturn.describe(DatReturn.error(type, subtype)) + ", got "
                    + DatReturn.describe(code) + String.format(" (0x%08X)", code));
        }
    }

    /**
     * Checks that a data-path call succeeded.
     *
     * @param code the returned code
     * @param what the call in words
     */
    public void expectSuccess(int code, String what) {
        if (code != DatReturn.SUCCESS) {
            throw failure(what + ": expected DAT_SUCCESS, got " + DatReturn.describe(code) + String.format(" (0x%08X)", code));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Data
    // ------------------------------------------------------------------------------------------

    /**
     * Checks every byte of memory against the pattern of {@link DataPattern#fill}.
     *
     * @param memory the memory to check
     * @param seed the seed it was filled with
     * @param firstIndex the pattern position of the memory's first byte
     * @param what which data, for the failure message
     */
    public void verify(MemorySegment memory, int seed, long firstIndex, String what) {
        String wrong = DataPattern.mismatch(memory, seed, firstIndex);
        if (wrong != null) {
            throw failure(what + ": " + wrong);
        }
    }

    /**
     * @param lmr the LMR
     * @param offset from its registered address
     * @param length bytes
     * @return a one-segment IOV
     */
    public static LmrTriplet[] iov(LocalMemoryRegion lmr, long offset, long length) {
        return new LmrTriplet[] {LmrTriplet.of(lmr, offset, length)};
    }

    // ------------------------------------------------------------------------------------------

    /** Closes every IA the run opened, abruptly, then frees the run's memory. */
    @Override
    public void close() {
        AssertionFailedError failure = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close(CloseFlag.ABRUPT);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = new AssertionFailedError(at("dat_ia_close(3DAT): an abrupt close must always succeed, but it threw "
                            + e), e);
                }
            }
        }
        opened.clear();
        if (remote != null) {
            remote.close();
        }
        if (shared != null) {
            shared.close();
        }
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }
}
