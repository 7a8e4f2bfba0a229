package dat.provider.sim.internal.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;

/**
 * What a leak per connection or per frame would grow: the used heap and direct buffer memory
 * after collections have settled, the platform threads, the open file descriptors (-1 where
 * there is no /proc/self/fd to count them).
 */
record Footprint(long heap, long direct, int threads, long fds) {

    static Footprint measure() throws InterruptedException {
        long heap = Long.MAX_VALUE;
        long direct = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc(); // and the cleaners free the direct buffers of connections collected
            Thread.sleep(50);
            heap = Math.min(heap, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            direct = Math.min(direct, directMemory());
        }
        return new Footprint(heap, direct, ManagementFactory.getThreadMXBean().getThreadCount(), openFds());
    }

    private static long directMemory() {
        return ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(p -> p.getName().equals("direct")).mapToLong(java.lang.management.BufferPoolMXBean::getMemoryUsed)
                .sum();
    }

    private static long openFds() {
        java.nio.file.Path fds = java.nio.file.Path.of("/proc/self/fd");
        if (!java.nio.file.Files.isDirectory(fds)) {
            return -1;
        }
        try (java.util.stream.Stream<java.nio.file.Path> open = java.nio.file.Files.list(fds)) {
            return open.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Asserts that this footprint, measured before {@code what} with the good pair connected,
     * has not grown since; every hostile connection of {@code t} has ended.
     */
    void assertFlat(TcpTransport t, String what) throws InterruptedException {
        Footprint now = measure();
        // the transport's one I/O agent serves every connection: no thread per connection
        assertThat(t.threads()).as("transport threads after %s", what).isEqualTo(1);
        assertThat(now.threads).as("platform threads after %s", what).isLessThanOrEqualTo(threads);
        // thousands of connections leave nothing behind: a leak of even one small object per
        // frame would be several MiB
        assertThat(now.heap - heap).as("heap growth after %s, bytes", what).isLessThan(2L << 20);
        // each connection has a socket, closed when it ends: a leak of one per connection would
        // be thousands; the slack is
        // for descriptors the JVM opens lazily (class files, /proc)
        if (fds >= 0) {
            assertThat(now.fds - fds).as("open file descriptors added by %s", what).isLessThanOrEqualTo(16);
        }
        // a connection's direct buffers (an 8 KiB read-ahead, a 16 KiB scratch buffer once it
        // skips a payload, headers) go with it; the NIO's per-thread temporary buffers hold a few
        // KiB; one leaked read-ahead per connection would be tens of MiB
        assertThat(now.direct - direct).as("direct buffer memory added by %s, bytes", what).isLessThan(1L << 20);
    }
}
