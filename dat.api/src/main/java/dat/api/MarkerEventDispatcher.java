package dat.api;

/**
 * The special EVD handles {@link EventDispatcher#ASYNC_EXISTS} and
 * {@link EventDispatcher#OUT_OF_SCOPE}: markers, not queues. Every operation answers
 * {@link DatReturn#INVALID_HANDLE}.
 */
final class MarkerEventDispatcher implements EventDispatcher {

    private static final int INVALID = DatReturn.error(DatReturn.INVALID_HANDLE, DatReturn.INVALID_HANDLE_EVD_ASYNC);

    private final String name;

    MarkerEventDispatcher(String name) {
        this.name = name;
    }

    private DatException invalid() {
        return new DatException(INVALID, name + " is a marker, not an Event Dispatcher");
    }

    @Override
    public HandleType handleType() {
        return HandleType.EVD;
    }

    @Override
    public Object consumerContext() {
        throw invalid();
    }

    @Override
    public void setConsumerContext(Object context) {
        throw invalid();
    }

    @Override
    public boolean isOpen() {
        return false;
    }

    @Override
    public int dequeue(DatEvent event) {
        return INVALID;
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        return INVALID;
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        return INVALID;
    }

    @Override
    public int postSoftwareEvent(Object pointer) {
        return INVALID;
    }

    @Override
    public EvdParams query(int evdParamMask) {
        throw invalid();
    }

    @Override
    public void resize(int minQlen) {
        throw invalid();
    }

    @Override
    public void modifyCno(ConsumerNotificationObject cno) {
        throw invalid();
    }

    @Override
    public void enable() {
        throw invalid();
    }

    @Override
    public void disable() {
        throw invalid();
    }

    @Override
    public void setUnwaitable() {
        throw invalid();
    }

    @Override
    public void clearUnwaitable() {
        throw invalid();
    }

    @Override
    public void close() {
        // a marker owns nothing
    }

    @Override
    public String toString() {
        return name;
    }
}
