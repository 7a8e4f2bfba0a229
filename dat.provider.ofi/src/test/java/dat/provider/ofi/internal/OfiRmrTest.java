package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.CompletionFlags;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EventDispatcher;
import dat.api.EventNumber;
import dat.api.EvdFlags;
import dat.api.LmrTriplet;
import dat.api.LocalMemoryRegion;
import dat.api.MemPrivileges;
import dat.api.RemoteMemoryRegion;
import dat.api.RmrParams;
import dat.api.RmrTriplet;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RMRs on libfabric's tcp provider over loopback: a bind is a registration of exactly the bound
 * range, completed on the binding Endpoint's request EVD; the server binds, the client writes
 * through the RMR's context.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OfiRmrTest extends LoopbackIaTest {

    private static final long WAIT = TimeUnit.SECONDS.toMicros(10);
    private static final int LMR_SIZE = 16 * 1024;
    private static final int OFFSET = 1024;
    private static final int LENGTH = 4096;

    private LoopbackPair pair;
    private LocalMemoryRegion source;
    private LocalMemoryRegion target;
    private final DatEvent event = new DatEvent();

    @BeforeEach
    void connect() {
        pair = LoopbackPair.connect(ia, 64, EvdFlags.DTO | EvdFlags.RMR_BIND);
        source = ia.registerMemory(arena.allocate(LMR_SIZE, 4096), pair.pz(), MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        target = ia.registerMemory(arena.allocate(LMR_SIZE, 4096), pair.pz(), MemPrivileges.LOCAL_READ | MemPrivileges.LOCAL_WRITE);
        for (int i = 0; i < LMR_SIZE; i++) {
            source.memory().set(ValueLayout.JAVA_BYTE, i, (byte) (i % 251 + 1));
        }
    }

    private DatEvent await(EventDispatcher evd) {
        int rc = evd.await(WAIT, 1, event);
        assertThat(rc).as("await: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        return event;
    }

    /** Binds the range of {@code target} at {@code offset} through the server Endpoint and takes the bind's completion. */
    private int bind(RemoteMemoryRegion rmr, int offset, int length, long cookie) {
        int context = rmr.bind(LmrTriplet.of(target, offset, length), MemPrivileges.REMOTE_WRITE, pair.server(), cookie,
                CompletionFlags.DEFAULT);
        DatEvent bound = await(pair.serverEvd());
        assertThat(bound.eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
        assertThat(bound.status()).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(bound.rmr()).isSameAs(rmr);
        assertThat(bound.userCookie()).isEqualTo(cookie);
        return context;
    }

    /** The client's write of {@code length} bytes of the source to {@code address} through {@code context}; its status. */
    private int write(int context, long address, int length) {
        int rc = pair.client().postRdmaWrite(1, new LmrTriplet[] {LmrTriplet.of(source, 0, length)}, 9,
                new RmrTriplet(context, address, length), CompletionFlags.DEFAULT);
        assertThat(rc).as("post: %s", DatReturn.describe(rc)).isEqualTo(DatReturn.SUCCESS);
        DatEvent written = await(pair.clientEvd());
        assertThat(written.eventNumber()).isEqualTo(EventNumber.DTO_COMPLETION_EVENT);
        return written.status();
    }

    @Test
    void aWriteThroughTheBoundRangeLandsThereAlone() {
        RemoteMemoryRegion rmr = pair.pz().createRemoteMemoryRegion();
        int context = bind(rmr, OFFSET, LENGTH, 42);
        assertThat(context).isNotZero().isNotEqualTo(target.rmrContext());
        long address = target.registeredAddress() + OFFSET;
        RmrParams params = rmr.query();
        assertThat(params.rmrContext()).isEqualTo(context);
        assertThat(params.lmrTriplet().virtualAddress()).isEqualTo(address);
        assertThat(params.lmrTriplet().segmentLength()).isEqualTo(LENGTH);
        assertThat(params.memPrivileges()).isEqualTo(MemPrivileges.REMOTE_WRITE);

        assertThat(write(context, address, LENGTH)).isEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(target.memory().asSlice(OFFSET, LENGTH).mismatch(source.memory().asSlice(0, LENGTH))).isEqualTo(-1);
        assertThat(target.memory().get(ValueLayout.JAVA_BYTE, OFFSET - 1)).isZero();
        assertThat(target.memory().get(ValueLayout.JAVA_BYTE, OFFSET + LENGTH)).isZero();
        rmr.close();
    }

    @Test
    void theLmrOfABoundRmrRefusesItsFreeUntilTheUnbind() {
        RemoteMemoryRegion rmr = pair.pz().createRemoteMemoryRegion();
        bind(rmr, OFFSET, LENGTH, 1);
        assertThatThrownBy(target::close).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(e.code()).isEqualTo(DatReturn.error(DatReturn.INVALID_STATE, DatReturn.INVALID_STATE_LMR_IN_USE)));

        assertThat(rmr.bind(new LmrTriplet(0, 0, 0), 0, pair.server(), 2, CompletionFlags.DEFAULT)).isZero();
        DatEvent unbound = await(pair.serverEvd());
        assertThat(unbound.eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
        assertThat(unbound.userCookie()).isEqualTo(2);
        assertThat(rmr.query().rmrContext()).isZero();
        target.close();
        rmr.close();
    }

    @Test
    void aBindNotYetTakenFromTheEvdHoldsTheRmrsFree() {
        RemoteMemoryRegion rmr = pair.pz().createRemoteMemoryRegion();
        rmr.bind(LmrTriplet.of(target, 0, LENGTH), MemPrivileges.REMOTE_WRITE, pair.server(), 5, CompletionFlags.DEFAULT);
        assertThatThrownBy(rmr::close).isInstanceOfSatisfying(DatException.class,
                e -> assertThat(e.type()).isEqualTo(DatReturn.INVALID_STATE));
        assertThat(await(pair.serverEvd()).eventNumber()).isEqualTo(EventNumber.RMR_BIND_COMPLETION_EVENT);
        rmr.close();
    }

    @Test
    void aRebindGivesANewContextAndTheOldOneNoLongerWrites() {
        RemoteMemoryRegion rmr = pair.pz().createRemoteMemoryRegion();
        int first = bind(rmr, OFFSET, LENGTH, 1);
        int second = bind(rmr, 2 * OFFSET + LENGTH, LENGTH, 2);
        assertThat(second).isNotEqualTo(first);
        assertThat(write(first, target.registeredAddress() + OFFSET, LENGTH)).isNotEqualTo(DtoCompletionStatus.SUCCESS);
        assertThat(target.memory().asSlice(OFFSET, LENGTH).mismatch(source.memory().asSlice(0, LENGTH))).isZero();
        rmr.close();
    }
}
