package dat.example.provider.internal;

import dat.api.ConsumerNotificationObject;
import dat.api.DatConstants;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EvdParams;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A metered EVD: events are reaped from the underlying EVD into the consumer's {@link DatEvent}
 * and rewritten to name decorating handles ({@link Handles#translate}), which also counts
 * completions and asynchronous errors.
 *
 * <p>The async EVD of a metered IA can also hold events the decorator injects itself: the
 * catastrophic error of {@link MeteredIa#fail}. They come out before the underlying queue's, and
 * a wait on that EVD waits in slices of {@value #ASYNC_SLICE_MICROS} µs so that an injected event
 * wakes it.
 *
 * <p>Reaping keeps working after the metered provider left, so that the consumer collects the
 * flushed completions, until the underlying IA is closed.
 */
final class MeteredEvd extends MeteredHandle<EventDispatcher> implements EventDispatcher {

    /** How long one slice of a wait on an async EVD lasts, in microseconds. */
    static final long ASYNC_SLICE_MICROS = 50_000;

    private static final ThreadLocal<DatEvent> POLL_EVENT = ThreadLocal.withInitial(DatEvent::new);

    private final boolean asyncEvdOfIa;
    private final ConcurrentLinkedQueue<DatEvent> injected = new ConcurrentLinkedQueue<>();

    MeteredEvd(EventDispatcher underlying, MeteredIa ia, boolean asyncEvdOfIa) {
        super(underlying, ia);
        this.asyncEvdOfIa = asyncEvdOfIa;
    }

    /** Queues an event of the decorator's own, ahead of the underlying queue. */
    void inject(DatEvent event) {
        injected.add(event);
    }

    @Override
    public int dequeue(DatEvent event) {
        if (event != null && !injected.isEmpty()) {
            DatEvent own = injected.poll();
            if (own != null) {
                event.copyFrom(own).setMoreEvents(0);
                return DatReturn.SUCCESS;
            }
        }
        int status;
        do {
            status = u.dequeue(event);
        } while (status == DatReturn.SUCCESS && !ia.handles.translate(event, this));
        return status;
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        if (!asyncEvdOfIa || event == null || !DatConstants.isValidTimeout(timeoutMicros)) {
            int status = u.await(timeoutMicros, threshold, event);
            while (status == DatReturn.SUCCESS && !ia.handles.translate(event, this)) {
                status = u.dequeue(event); // a dropped duplicate: hand over the next event, if any
                if (DatReturn.typeOf(status) == DatReturn.QUEUE_EMPTY) {
                    status = DatReturn.error(DatReturn.TIMEOUT_EXPIRED, DatReturn.NO_SUBTYPE);
                }
            }
            return status;
        }
        long deadline = timeoutMicros == DatConstants.TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        while (true) {
            DatEvent own = injected.poll();
            if (own != null) {
                event.copyFrom(own).setMoreEvents(0);
                return DatReturn.SUCCESS;
            }
            long remainingMicros = deadline == Long.MAX_VALUE ? ASYNC_SLICE_MICROS
                    : Math.max(0, TimeUnit.NANOSECONDS.toMicros(deadline - System.nanoTime()));
            int status = u.await(Math.min(ASYNC_SLICE_MICROS, remainingMicros), threshold, event);
            if (status == DatReturn.SUCCESS) {
                if (ia.handles.translate(event, this)) {
                    return status;
                }
                continue;
            }
            if (DatReturn.typeOf(status) != DatReturn.TIMEOUT_EXPIRED || remainingMicros <= ASYNC_SLICE_MICROS) {
                return status;
            }
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        if (handler == null || limit < 0) {
            return u.poll(handler, limit); // the underlying provider's own code for the bad argument
        }
        DatEvent event = POLL_EVENT.get();
        int handed = 0;
        while (handed < limit) {
            int status = dequeue(event);
            if (status == DatReturn.SUCCESS) {
                handler.onEvent(event);
                handed++;
            } else if (DatReturn.typeOf(status) == DatReturn.QUEUE_EMPTY || handed > 0) {
                break;
            } else {
                return status;
            }
        }
        return handed;
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        if (ia.failed()) {
            return Codes.INVALID_HANDLE;
        }
        return u.postSoftwareEvent(pointer);
    }

    @Override
    public EvdParams query(int evdParamMask) {
        checkUsable();
        EvdParams params = u.query(evdParamMask);
        return new EvdParams(ia.handles.ia(params.ia()), params.qlen(), params.state(), ia.handles.cno(params.cno()),
                params.flags());
    }

    @Override
    public void resize(int minQlen) {
        checkUsable();
        u.resize(minQlen);
    }

    @Override
    public void modifyCno(ConsumerNotificationObject cno) {
        checkUsable();
        u.modifyCno(Handles.u(cno));
    }

    @Override
    public void enable() {
        checkUsable();
        u.enable();
    }

    @Override
    public void disable() {
        checkUsable();
        u.disable();
    }

    @Override
    public void setUnwaitable() {
        checkUsable();
        u.setUnwaitable();
    }

    @Override
    public void clearUnwaitable() {
        checkUsable();
        u.clearUnwaitable();
    }
}
