package dat.provider.sim.internal.shm;

import static org.assertj.core.api.Assertions.assertThat;

import dat.provider.sim.internal.core.SimEvd;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session's retirement unmaps its ring file only once no thread is inside it. Closing a mapping
 * under a reader would end the reader's access with an exception and set its interrupt status (the
 * JDK unwinds a scoped access that way): a consumer's thread polling the rings as a connection
 * ends would find itself interrupted by the provider.
 */
@Timeout(60)
class ShmSessionRetireTest {

    /** Sessions retired under a thread that touches their mapping without pause. */
    private static final int ROUNDS = 200;

    @Test
    void retiringUnderAThreadInsideTheMapping_neitherInterruptsNorFailsIt_andUnmapsOnceItLeaves() throws Exception {
        List<String> before = RingFiles.mapped();
        AtomicInteger interrupted = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        for (int round = 0; round < ROUNDS; round++) {
            ShmSession s = ShmSession.offer(new Control(), new SharedSources());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean inside = new AtomicBoolean();
            Thread user = Thread.ofPlatform().start(() -> {
                try {
                    byte[] notTheAnswer = new byte[ShmSession.ANSWER_BYTES];
                    for (int i = 0; !stop.get(); i++) {
                        s.wantDoorbell((i & 1) == 0);
                        s.confirm(notTheAnswer); // reads the file's passive nonce: a copy out of the mapping
                        inside.lazySet(true);
                    }
                } catch (RuntimeException e) {
                    failed.incrementAndGet();
                }
                if (Thread.interrupted()) {
                    interrupted.incrementAndGet();
                }
            });
            while (!inside.get()) {
                Thread.onSpinWait();
            }
            LockSupport.parkNanos(100_000L * (round % 10));
            s.retire();
            stop.set(true);
            user.join(10_000);
            assertThat(user.isAlive()).isFalse();
        }
        assertThat(List.of(failed.get(), interrupted.get())).as("rounds whose user met an exception, rounds whose user's thread was interrupted")
                .containsExactly(0, 0);
        RingFiles.assertMappedOnly(before);
    }

    /** What a session asks of its TCP connection: nothing happens here. */
    private static final class Control implements ShmControl {
        @Override
        public void ringDoorbell() {
        }

        @Override
        public void disconnect() {
        }

        @Override
        public void breakOff() {
        }

        @Override
        public void violation(String reason) {
        }

        @Override
        public void cut() {
        }

        @Override
        public void noteDriver(SimEvd evd) {
        }
    }
}
