package dat.provider.sim.internal.tcp;

/** Test hooks into a TCP connection's output. */
final class WireHooks {

    private WireHooks() {
    }

    /**
     * Holds {@code wire}'s output lock on a thread of its own until {@code release} counts down, so
     * that the requests posted meanwhile queue for the I/O agent; returns once it is held.
     */
    static Thread holdingTheWriteLock(TcpConnection wire, java.util.concurrent.CountDownLatch release) throws InterruptedException {
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            wire.output.lock.lock();
            try {
                held.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                wire.output.unlock(); // as a writer lets go: views a free marked stale meanwhile go
            }
        });
        held.await();
        return holder;
    }
}
