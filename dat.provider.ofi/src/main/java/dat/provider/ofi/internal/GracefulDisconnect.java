package dat.provider.ofi.internal;

import java.util.concurrent.TimeUnit;

/**
 * A graceful {@code dat_ep_disconnect}: the requests libfabric still holds complete before the
 * connection goes down (dat_ep_disconnect(3DAT): they "must try to be completed successfully
 * first"). The Endpoint stays {@code DISCONNECT_PENDING}, refusing new posts, while the IA's event
 * loop looks every millisecond, with the CM lock held, whether any is left; once none is, or after
 * {@link #LIMIT_NANOS} (a consumer that never dequeues leaves its completions unread), the
 * connection is shut down as an abrupt disconnect would. Silent writes (suppressed, asking for no
 * completion) are confirmed first by a zero-length delivery-complete write of the provider's own.
 */
final class GracefulDisconnect {

    /** The longest a graceful disconnect waits for the Endpoint's requests. */
    static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final OfiIa ia;
    private final EpConnection connection;
    private final long deadline;
    private EventLoop.Timer timer;

    private GracefulDisconnect(OfiIa ia, EpConnection connection) {
        this.ia = ia;
        this.connection = connection;
        this.deadline = System.nanoTime() + LIMIT_NANOS;
    }

    /** Begins the wait for the requests of {@code connection}'s Endpoint (ia.cmLock held; it is DISCONNECT_PENDING). */
    static GracefulDisconnect start(OfiIa ia, EpConnection connection) {
        GracefulDisconnect wait = new GracefulDisconnect(ia, connection);
        connection.confirmSilentWrites();
        wait.timer = ia.loop.schedule(LOOK_NANOS, wait::look);
        return wait;
    }

    private void look() {
        ia.cmLock.lock();
        try {
            timer = null;
            if (!connection.isSettling(this)) {
                return; // the connection ended meanwhile: the peer's disconnect, a break, an abrupt disconnect, a free
            }
            if (connection.requestsSettled() || System.nanoTime() - deadline >= 0) {
                connection.shutdownAndEnd();
                return;
            }
            timer = ia.loop.schedule(LOOK_NANOS, this::look);
        } finally {
            ia.cmLock.unlock();
        }
    }

    /**
     * Stops looking, the connection ending otherwise (ia.cmLock held).
     *
     * @param wait the Endpoint's graceful disconnect, or {@code null}
     * @return {@code null}, the Endpoint's next value of it
     */
    static GracefulDisconnect cancel(GracefulDisconnect wait) {
        if (wait != null && wait.timer != null) {
            wait.ia.loop.cancel(wait.timer);
            wait.timer = null;
        }
        return null;
    }
}
