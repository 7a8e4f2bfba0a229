package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An Event Dispatcher (EVD, {@code DAT_EVD_HANDLE}): the queue where a provider reports DTO and
 * RMR-bind completions, connection requests, connection events, asynchronous errors and software
 * events. Create one with {@link InterfaceAdapter#createEventDispatcher}.
 *
 * <p><b>Data path.</b> {@link #dequeue}, {@link #await}, {@link #poll} and
 * {@link #postSoftwareEvent} return a {@link DatReturn} code and allocate nothing; the event is
 * copied into a consumer-owned {@link DatEvent}. The usual busy-poll loop:
 * {@snippet :
 * DatEvent event = new DatEvent();          // once, reused
 * while (running) {
 *     if (evd.dequeue(event) == DatReturn.SUCCESS) {
 *         handle(event);
 *     }
 * }
 * }
 * Control-path methods throw {@link DatException}.
 *
 * <p>As with every EVD, the consumer synchronizes concurrent dequeues if the provider is not
 * thread safe.
 */
@ProviderType
public interface EventDispatcher extends DatHandle {

    /**
     * Passed to {@link DatRegistry#openIa} instead of an EVD to say that an async EVD for the IA
     * already exists elsewhere ({@code DAT_EVD_ASYNC_EXISTS}). Every operation on it answers
     * {@link DatReturn#INVALID_HANDLE}.
     */
    EventDispatcher ASYNC_EXISTS = new MarkerEventDispatcher("DAT_EVD_ASYNC_EXISTS");

    /**
     * Returned by {@link InterfaceAdapter#query} for an IA opened with {@link #ASYNC_EXISTS}: the
     * async EVD exists but is out of this consumer's scope ({@code DAT_EVD_OUT_OF_SCOPE}). Every
     * operation on it answers {@link DatReturn#INVALID_HANDLE}.
     */
    EventDispatcher OUT_OF_SCOPE = new MarkerEventDispatcher("DAT_EVD_OUT_OF_SCOPE");

    /**
     * Removes the first event of the queue into {@code event}: {@code dat_evd_dequeue(3DAT)}.
     * Never blocks; works on a disabled EVD too.
     *
     * @param event the consumer's event object, overwritten on success
     * @return {@link DatReturn#SUCCESS}; the error {@link DatReturn#QUEUE_EMPTY} when there is no
     *     event; {@link DatReturn#INVALID_STATE} while another thread waits on the EVD;
     *     {@link DatReturn#INVALID_HANDLE} for a freed EVD;
     *     {@link DatReturn#INVALID_PARAMETER} for a {@code null} event
     */
    int dequeue(DatEvent event);

    /**
     * Waits until at least {@code threshold} events are queued, or the timeout expires, then
     * removes the first event into {@code event}: {@code dat_evd_wait(3DAT)}. The number of events
     * left is {@link DatEvent#moreEvents()}.
     *
     * @param timeoutMicros the wait in microseconds, or {@link DatConstants#TIMEOUT_INFINITE}
     * @param threshold how many events to wait for, at least 1 and at most the queue length
     * @param event the consumer's event object, overwritten on success
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#TIMEOUT_EXPIRED} (then {@code event}
     *     holds no event, and the count of queued events is in {@link DatEvent#moreEvents()});
     *     {@link DatReturn#INTERRUPTED_CALL} when the waiting thread was interrupted;
     *     {@link DatReturn#ABORT} when the EVD was freed or its IA closed during the wait;
     *     {@link DatReturn#INVALID_STATE} when the EVD is unwaitable (or becomes so during the
     *     wait), has another waiter, or feeds a consumer-notified completion stream
     *     ({@code UNSIGNALLED} or {@code SOLICITED_WAIT}) and {@code threshold} is not 1;
     *     {@link DatReturn#INVALID_PARAMETER} for a bad timeout, or a threshold below 1 or above
     *     the queue length; a waiter preempts the EVD's CNO, which is not triggered meanwhile;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int await(long timeoutMicros, int threshold, DatEvent event);

    /**
     * Dequeues up to {@code limit} events, handing each to {@code handler}: a bounded batch of
     * {@link #dequeue} calls, the way Aeron polls. The same {@link DatEvent} object is passed each
     * time; copy what you keep.
     *
     * @param handler called once per event, on this thread
     * @param limit the most events to take
     * @return the number of events handed over (0 when the queue was empty), or a negative
     *     {@link DatReturn} error code ({@link DatReturn#INVALID_HANDLE},
     *     {@link DatReturn#INVALID_PARAMETER})
     */
    int poll(DatEventHandler handler, int limit);

    /**
     * Posts a software event: {@code dat_evd_post_se(3DAT)}. The event is
     * {@link EventNumber#SOFTWARE_EVENT} with the given pointer.
     *
     * @param pointer the consumer's object to carry, may be {@code null}
     * @return {@link DatReturn#SUCCESS}; {@link DatReturn#QUEUE_FULL} when the queue is full;
     *     {@link DatReturn#INVALID_PARAMETER} when the EVD does not take software events;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    int postSoftwareEvent(Object pointer);

    /**
     * The EVD parameters: {@code dat_evd_query(3DAT)}.
     *
     * @param evdParamMask the {@link EvdParamMask} bits wanted
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad mask;
     *     {@link DatReturn#INVALID_HANDLE}
     */
    EvdParams query(int evdParamMask);

    /**
     * All EVD parameters: {@code dat_evd_query} with {@link EvdParamMask#ALL}.
     *
     * @return the parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    default EvdParams query() {
        return query(EvdParamMask.ALL);
    }

    /**
     * Changes the queue length: {@code dat_evd_resize(3DAT)}.
     *
     * @param minQlen the new smallest queue length
     * @throws DatException {@link DatReturn#INVALID_STATE} when more events are queued than fit;
     *     {@link DatReturn#INVALID_PARAMETER}; {@link DatReturn#INSUFFICIENT_RESOURCES}
     */
    void resize(int minQlen);

    /**
     * Changes the CNO the EVD notifies: {@code dat_evd_modify_cno(3DAT)}.
     *
     * @param cno the new CNO, or {@code null} for none
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void modifyCno(ConsumerNotificationObject cno);

    /**
     * Enables the EVD: events are generated again: {@code dat_evd_enable(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void enable();

    /**
     * Disables the EVD: no CNO notification and no waiter wake-up, queued events stay:
     * {@code dat_evd_disable(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void disable();

    /**
     * Makes the EVD unwaitable: threads blocked in {@link #await} wake and return
     * {@link DatReturn#INVALID_STATE}, and new waits fail with {@link DatReturn#INVALID_STATE}:
     * {@code dat_evd_set_unwaitable(3DAT)}. Events still arrive, trigger the CNO and can be
     * dequeued.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void setUnwaitable();

    /**
     * Makes the EVD waitable again: {@code dat_evd_clear_unwaitable(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    void clearUnwaitable();

    /**
     * Frees the EVD: {@code dat_evd_free(3DAT)}.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} while an Endpoint, PSP or RSP still
     *     uses it
     */
    @Override
    void close();
}
