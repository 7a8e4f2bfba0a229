package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dat.api.AsyncErrorReason;
import dat.api.EventNumber;
import dat.provider.verbs.internal.ffi.Libc;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The IA's event thread ({@code dat-verbs-<ia>}): it blocks in {@code poll(2)} on the IA's
 * completion channel, its rdma_cm event channel, the device's async-event descriptor and an
 * eventfd that wakes it, and runs the DAT connect timeouts ({@link IaTimers}). It reads and
 * acknowledges each native event before it dispatches it, so that no
 * {@code rdma_destroy_id}/{@code ibv_destroy_qp}/{@code ibv_destroy_cq} of another thread can wait
 * on an event it holds: a CQ's event wakes its EVD, an rdma_cm event goes to its Service Point or
 * Endpoint with the IA's CM lock held, and device events become DAT async events.
 */
@SuppressWarnings("restricted") // native pointers returned by the libraries are given their C sizes
final class EventLoop {

    private static final System.Logger LOG = System.getLogger(EventLoop.class.getName());

    private final VerbsIa ia;
    private final Verbs verbs;
    private final int wakeFd;
    private final Thread thread;
    /** The DAT timeouts of pending connects, earliest first; guarded by the IA's CM lock. */
    private final IaTimers timers = new IaTimers();

    // what the events are dispatched to
    private final Map<Long, VerbsEvd> evdsByToken = new ConcurrentHashMap<>();
    private final Map<Long, VerbsIa.CmTarget> cmTargets = new ConcurrentHashMap<>();
    private final Map<Long, VerbsSrq> srqsByAddress = new ConcurrentHashMap<>();

    /** The loop of {@code ia}, woken through {@code wakeFd} (an eventfd the IA closes); not yet started. */
    EventLoop(VerbsIa ia, int wakeFd) {
        this.ia = ia;
        this.verbs = ia.verbs;
        this.wakeFd = wakeFd;
        // made on the consumer's thread of dat_ia_open, it lives as long as the IA: none of that
        // thread's inheritable thread locals, priority or context class loader (in OSGi, often the
        // consumer bundle's) stays with it
        this.thread = Thread.ofPlatform().daemon().priority(Thread.NORM_PRIORITY).name("dat-verbs-" + ia.name())
                .inheritInheritableThreadLocals(false).unstarted(this::run);
        thread.setContextClassLoader(EventLoop.class.getClassLoader());
    }

    void start() {
        thread.start();
    }

    // ---- what the events are dispatched to ----------------------------------------------------------

    void addEvd(long token, VerbsEvd evd) {
        evdsByToken.put(token, evd);
    }

    void removeEvd(long token) {
        evdsByToken.remove(token);
    }

    void addCmTarget(long token, VerbsIa.CmTarget target) {
        cmTargets.put(token, target);
    }

    void removeCmTarget(long token) {
        cmTargets.remove(token);
    }

    void addSrq(VerbsSrq srq) {
        srqsByAddress.put(srq.srq.address(), srq);
    }

    void removeSrq(VerbsSrq srq) {
        srqsByAddress.remove(srq.srq.address());
    }

    // ---- timers (the IA's CM lock held) ---------------------------------------------------------------

    /**
     * Runs {@code action} on the event thread, the IA's CM lock held, {@code delayNanos} from now,
     * unless {@linkplain #cancel cancelled} first.
     */
    IaTimers.Timer schedule(long delayNanos, Runnable action) {
        IaTimers.Timer timer = timers.schedule(delayNanos, action);
        if (timers.isFirst(timer) && Thread.currentThread() != thread) {
            wake(); // poll(2) again, sooner
        }
        return timer;
    }

    /** Cancels a timer that has not run. */
    void cancel(IaTimers.Timer timer) {
        timers.cancel(timer);
    }

    /** Drops every timer: the IA closes. */
    void clearTimers() {
        timers.clear();
    }

    /** The poll(2) timeout until the earliest timer: -1 (none), else milliseconds, rounded up. */
    private int timeoutMs() {
        ia.cmLock.lock();
        try {
            return timers.timeoutMs(System.nanoTime());
        } finally {
            ia.cmLock.unlock();
        }
    }

    /** Runs the timers whose deadline passed. */
    private void runDueTimers() {
        ia.cmLock.lock();
        try {
            timers.runDue(System.nanoTime(), e -> LOG.log(System.Logger.Level.WARNING, "a connection timeout on " + ia.name() + " failed", e));
        } finally {
            ia.cmLock.unlock();
        }
    }

    // ---- stopping ---------------------------------------------------------------------------------------

    /** Wakes the thread, which leaves once the IA is no longer usable, and waits (10 s at most) for it to end. */
    void stop() {
        if (thread == Thread.currentThread() || !thread.isAlive()) {
            return;
        }
        wake();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.log(System.Logger.Level.ERROR, "verbs event thread of " + ia.name() + " did not stop");
        }
    }

    private void wake() {
        try (Arena local = Arena.ofConfined()) {
            Libc.signal(wakeFd, local.allocate(8, 8), Libc.allocateCapture(local));
        }
    }

    // ---- the loop ---------------------------------------------------------------------------------------

    private void run() {
        try (Arena loop = Arena.ofConfined()) {
            MemorySegment fds = loop.allocate(Structs.POLLFD, 4);
            int[] fd = {wakeFd, ia.compChannel.get(JAVA_INT, Structs.COMP_CHANNEL_FD),
                ia.cmChannel.get(JAVA_INT, Structs.EVENT_CHANNEL_FD), ia.context.get(JAVA_INT, Structs.CONTEXT_ASYNC_FD)};
            long size = Structs.POLLFD.byteSize();
            for (int i = 0; i < 4; i++) {
                fds.set(JAVA_INT, i * size + Structs.POLLFD_FD, fd[i]);
                fds.set(JAVA_SHORT, i * size + Structs.POLLFD_EVENTS, (short) 1); // POLLIN
            }
            MemorySegment capture = Libc.allocateCapture(loop);
            MemorySegment scratch = loop.allocate(64, 8);
            MemorySegment asyncEvent = loop.allocate(Structs.IBV_ASYNC_EVENT);
            while (ia.isUsable()) {
                for (int i = 0; i < 4; i++) {
                    fds.set(JAVA_SHORT, i * size + Structs.POLLFD_REVENTS, (short) 0);
                }
                Libc.poll(fds, 4, timeoutMs(), capture);
                if (fds.get(JAVA_SHORT, Structs.POLLFD_REVENTS) != 0) {
                    Libc.drain(wakeFd, scratch, capture);
                }
                if (!ia.isUsable()) {
                    break;
                }
                if (fds.get(JAVA_SHORT, size + Structs.POLLFD_REVENTS) != 0) {
                    drainCompletionEvents(scratch, capture);
                }
                if (fds.get(JAVA_SHORT, 2 * size + Structs.POLLFD_REVENTS) != 0) {
                    drainCmEvents(scratch, capture);
                }
                if (fds.get(JAVA_SHORT, 3 * size + Structs.POLLFD_REVENTS) != 0) {
                    drainAsyncEvents(asyncEvent, capture);
                }
                runDueTimers();
            }
        } catch (RuntimeException | Error e) {
            if (ia.isUsable()) {
                LOG.log(System.Logger.Level.ERROR, "verbs event thread of " + ia.name() + " failed", e);
                ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, ia, AsyncErrorReason.IA_OTHER_ERROR);
            }
        }
    }

    private void drainCompletionEvents(MemorySegment scratch, MemorySegment capture) {
        while (verbs.getCqEvent(ia.compChannel, scratch, capture)) {
            MemorySegment cq = scratch.get(ADDRESS, 0);
            long token = scratch.get(ADDRESS, 8).address();
            verbs.ackCqEvents(cq, 1);
            VerbsEvd evd = evdsByToken.get(token);
            if (evd != null) {
                evd.onCompletionEvent();
            }
        }
    }

    private void drainCmEvents(MemorySegment scratch, MemorySegment capture) {
        for (;;) {
            MemorySegment event = verbs.getCmEvent(ia.cmChannel, scratch, capture);
            if (event.equals(MemorySegment.NULL)) {
                return;
            }
            int type = event.get(JAVA_INT, Structs.CM_EVENT_EVENT);
            int status = type == CmEvents.REJECTED && !CmEvents.isConsumerReject(event)
                    ? CmEvents.REJECT_PROVIDER : event.get(JAVA_INT, Structs.CM_EVENT_STATUS);
            MemorySegment id = event.get(ADDRESS, Structs.CM_EVENT_ID).reinterpret(Structs.RDMA_CM_ID.byteSize());
            MemorySegment listenId = event.get(ADDRESS, Structs.CM_EVENT_LISTEN_ID);
            long token = type == CmEvents.CONNECT_REQUEST && !listenId.equals(MemorySegment.NULL)
                    ? listenId.reinterpret(Structs.RDMA_CM_ID.byteSize()).get(ADDRESS, Structs.CM_ID_CONTEXT).address()
                    : id.get(ADDRESS, Structs.CM_ID_CONTEXT).address();
            byte[] privateData = CmEvents.privateData(event, type);
            verbs.ackCmEvent(event);
            ia.cmLock.lock();
            try {
                VerbsIa.CmTarget target = cmTargets.get(token);
                if (target != null) {
                    target.onCmEvent(type, status, id, privateData);
                } else if (type == CmEvents.CONNECT_REQUEST) {
                    // the Service Point went away: nobody will accept, so refuse now and free the id
                    CmEvents.rejectByProvider(verbs, id);
                    verbs.destroyId(id);
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma_cm event " + verbs.eventString(type) + " on " + ia.name() + " failed", e);
            } finally {
                ia.cmLock.unlock();
            }
        }
    }

    private void drainAsyncEvents(MemorySegment event, MemorySegment capture) {
        while (verbs.getAsyncEvent(ia.context, event, capture)) {
            int type = event.get(JAVA_INT, Structs.ASYNC_EVENT_TYPE);
            MemorySegment element = event.get(ADDRESS, Structs.ASYNC_EVENT_ELEMENT);
            long address = element.address();
            int qpNum = -1;
            long cqToken = 0;
            if (CmEvents.isQpEvent(type) && !element.equals(MemorySegment.NULL)) {
                qpNum = element.reinterpret(Structs.IBV_QP.byteSize()).get(JAVA_INT, Structs.QP_QP_NUM);
            } else if (type == CmEvents.IBV_EVENT_CQ_ERR && !element.equals(MemorySegment.NULL)) {
                // read before the ack, which lets a racing ibv_destroy_cq free the CQ
                cqToken = element.reinterpret(Structs.IBV_CQ.byteSize()).get(ADDRESS, Structs.CQ_CQ_CONTEXT).address();
            }
            verbs.ackAsyncEvent(event);
            switch (type) {
                // the CQ overran: completions were lost, as a full EVD loses them (dat_evd_wait(3DAT))
                case CmEvents.IBV_EVENT_CQ_ERR -> {
                    VerbsEvd evd = evdsByToken.get(cqToken);
                    if (evd != null) {
                        ia.postAsync(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, evd, AsyncErrorReason.EVD_OVERFLOW_ERROR);
                    }
                }
                case CmEvents.IBV_EVENT_SRQ_LIMIT_REACHED -> {
                    VerbsSrq srq = srqsByAddress.get(address);
                    if (srq != null) {
                        srq.onLimitReached();
                    }
                }
                case CmEvents.IBV_EVENT_DEVICE_FATAL -> {
                    ia.postAsync(EventNumber.ASYNC_ERROR_IA_CATASTROPHIC, ia, AsyncErrorReason.IA_CATASTROPHIC_ERROR);
                }
                case CmEvents.IBV_EVENT_QP_FATAL, CmEvents.IBV_EVENT_QP_REQ_ERR, CmEvents.IBV_EVENT_QP_ACCESS_ERR -> {
                    VerbsEp ep = qpNum >= 0 ? ia.epsByQpNum.get(qpNum) : null;
                    if (ep != null) {
                        ia.postAsync(EventNumber.ASYNC_ERROR_EP_BROKEN, ep, AsyncErrorReason.EP_OTHER_ERROR);
                    }
                }
                case CmEvents.IBV_EVENT_SRQ_ERR -> {
                    VerbsSrq srq = srqsByAddress.get(address);
                    if (srq != null) {
                        ia.postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, srq, AsyncErrorReason.SRQ_OTHER_ERROR);
                    }
                }
                default -> {
                    // port and path events do not map to DAT events
                }
            }
        }
    }
}
