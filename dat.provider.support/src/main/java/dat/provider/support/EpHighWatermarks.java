package dat.provider.support;

import dat.api.DatConstants;
import dat.api.DatReturn;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * An Endpoint's soft and hard high watermarks on the receive buffers it holds
 * (dat_ep_set_watermark(3DAT)), and when each one fires: the soft one once per setting, as an
 * asynchronous event; the hard one whenever a connected Endpoint holds more, by breaking the
 * connection. What "held" counts, and how an event is posted or a connection broken, is the
 * {@link Holder}'s; it tells after each change that may cross one (a receive posted, a connection
 * established).
 */
public final class EpHighWatermarks {

    /** What the Endpoint counts and does. */
    public interface Holder {
        /** The receive buffers the Endpoint holds now. */
        int buffersHeld();

        /** Whether the Endpoint is open and connected, as its connection lock guards. */
        boolean isConnected();

        /** Posts the soft watermark's asynchronous event ({@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT}). */
        void postSoftWatermarkEvent();

        /** Breaks the connection for the hard watermark, with the connection lock held. */
        void breakForHardWatermark();
    }

    private final Holder ep;
    private final Lock connectionLock;
    private volatile int soft = DatConstants.WATERMARK_INFINITE;
    private volatile int hard = DatConstants.WATERMARK_INFINITE;
    private final AtomicBoolean softArmed = new AtomicBoolean();

    /**
     * @param ep the Endpoint whose buffers are counted
     * @param connectionLock the lock under which the Endpoint's connection changes state
     */
    public EpHighWatermarks(Holder ep, Lock connectionLock) {
        this.ep = ep;
        this.connectionLock = connectionLock;
    }

    /**
     * dat_ep_set_watermark(3DAT): checks and sets both watermarks, arms the soft one, and fires
     * either at once where the Endpoint holds more already (no lock held).
     *
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} ({@code DAT_INVALID_ARG2} or
     *     {@code DAT_INVALID_ARG3}) for a negative watermark other than {@code DAT_WATERMARK_INFINITE}
     */
    public void set(int softHighWatermark, int hardHighWatermark) {
        if (softHighWatermark < 0 && softHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG2, "softHighWatermark",
                    "negative watermark " + softHighWatermark);
        }
        if (hardHighWatermark < 0 && hardHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw ReturnCodes.invalidParameterException(DatReturn.INVALID_ARG3, "hardHighWatermark",
                    "negative watermark " + hardHighWatermark);
        }
        hard = hardHighWatermark;
        soft = softHighWatermark;
        softArmed.set(softHighWatermark != DatConstants.WATERMARK_INFINITE);
        check();
    }

    /** A receive was posted (no lock held): fires what it crossed; nothing to do while both are infinite. */
    public void received() {
        if (soft != DatConstants.WATERMARK_INFINITE || hard != DatConstants.WATERMARK_INFINITE) {
            check();
        }
    }

    private void check() {
        int held = ep.buffersHeld();
        if (softCrossed(held)) {
            ep.postSoftWatermarkEvent();
        }
        if (overHard(held) && ep.isConnected()) {
            connectionLock.lock();
            try {
                breakIfOverHard();
            } finally {
                connectionLock.unlock();
            }
        }
    }

    /**
     * Breaks a connected Endpoint holding more than the hard watermark, with the connection lock
     * held: after a setting or a post, and as the connection is established ("ready to generate a
     * connection broken event as soon as the connection is established").
     */
    public void breakIfOverHard() {
        if (overHard(ep.buffersHeld()) && ep.isConnected()) {
            ep.breakForHardWatermark();
        }
    }

    /** Whether {@code held} exceeds the armed soft watermark: {@code true} once per setting, however many threads ask. */
    boolean softCrossed(int held) {
        int limit = soft;
        return limit != DatConstants.WATERMARK_INFINITE && held > limit && softArmed.compareAndSet(true, false);
    }

    /** Whether {@code held} exceeds the hard watermark. */
    boolean overHard(int held) {
        int limit = hard;
        return limit != DatConstants.WATERMARK_INFINITE && held > limit;
    }
}
