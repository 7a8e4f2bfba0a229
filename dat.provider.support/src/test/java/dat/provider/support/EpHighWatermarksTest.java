package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class EpHighWatermarksTest {

    private static final int INFINITE = DatConstants.WATERMARK_INFINITE;

    /** An Endpoint that counts what the watermarks made it do, and checks the lock a break needs. */
    private static final class FakeEndpoint implements EpHighWatermarks.Holder {
        final ReentrantLock lock = new ReentrantLock();
        int held;
        boolean connected = true;
        int softEvents;
        int breaks;

        @Override
        public int buffersHeld() {
            return held;
        }

        @Override
        public boolean isConnected() {
            return connected;
        }

        @Override
        public void postSoftWatermarkEvent() {
            softEvents++;
        }

        @Override
        public void breakForHardWatermark() {
            assertThat(lock.isHeldByCurrentThread()).as("a break holds the connection lock").isTrue();
            breaks++;
            connected = false;
        }
    }

    private final FakeEndpoint ep = new FakeEndpoint();
    private final EpHighWatermarks watermarks = new EpHighWatermarks(ep, ep.lock);

    @Test
    void infiniteByDefaultSoNothingFires() {
        ep.held = 1000;
        watermarks.received();
        lockAndBreakIfOverHard();
        assertThat(ep.softEvents).isZero();
        assertThat(ep.breaks).isZero();
    }

    @Test
    void theSoftWatermarkFiresOncePerSetting() {
        watermarks.set(2, INFINITE);
        ep.held = 2;
        watermarks.received();
        assertThat(ep.softEvents).as("2 held does not exceed 2").isZero();
        ep.held = 3;
        watermarks.received();
        ep.held = 4;
        watermarks.received();
        assertThat(ep.softEvents).as("once per setting").isEqualTo(1);
        watermarks.set(2, INFINITE);
        assertThat(ep.softEvents).as("a new setting below the count fires at once").isEqualTo(2);
        assertThat(ep.breaks).isZero();
    }

    @Test
    void theHardWatermarkBreaksAConnectedEndpointOnly() {
        ep.held = 2;
        ep.connected = false;
        watermarks.set(INFINITE, 1);
        assertThat(ep.breaks).as("nothing to break before the connection").isZero();
        ep.connected = true;
        lockAndBreakIfOverHard();
        assertThat(ep.breaks).as("broken as the connection is established").isEqualTo(1);
        ep.connected = true;
        ep.held = 1;
        watermarks.received();
        assertThat(ep.breaks).isEqualTo(1);
        ep.held = 2;
        watermarks.received();
        assertThat(ep.breaks).isEqualTo(2);
        assertThat(ep.softEvents).isZero();
    }

    @Test
    void aNegativeWatermarkNamesItsArgumentAndChangesNothing() {
        assertThatThrownBy(() -> watermarks.set(-5, INFINITE)).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.type()).isEqualTo(DatReturn.INVALID_PARAMETER);
            assertThat(e.subtype()).isEqualTo(DatReturn.INVALID_ARG2);
        });
        assertThatThrownBy(() -> watermarks.set(INFINITE, -2)).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(e.type()).isEqualTo(DatReturn.INVALID_PARAMETER);
            assertThat(e.subtype()).isEqualTo(DatReturn.INVALID_ARG3);
        });
        ep.held = 1000;
        watermarks.received();
        assertThat(ep.softEvents + ep.breaks).isZero();
    }

    private void lockAndBreakIfOverHard() {
        ep.lock.lock();
        try {
            watermarks.breakIfOverHard();
        } finally {
            ep.lock.unlock();
        }
    }
}
