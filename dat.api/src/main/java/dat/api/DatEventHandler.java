package dat.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives the events of {@link EventDispatcher#poll}.
 */
@ConsumerType
@FunctionalInterface
public interface DatEventHandler {

    /**
     * Handles one event. The object is reused for the next event: copy what you keep.
     *
     * @param event the event just dequeued
     */
    void onEvent(DatEvent event);
}
