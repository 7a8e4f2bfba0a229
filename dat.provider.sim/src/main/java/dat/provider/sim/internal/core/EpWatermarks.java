package dat.provider.sim.internal.core;

import dat.api.AsyncErrorReason;
import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.EpState;
import dat.api.EventNumber;

/**
 * The receive-buffer watermarks of one Endpoint (dat_ep_set_watermark(3DAT)): the buffers it
 * holds are its posted receives, or the SRQ buffers it took. Crossing the soft high watermark
 * posts one asynchronous event per setting; holding more than the hard high watermark while
 * connected breaks the connection. State guarded by the Endpoint's lock (a post's soft check by
 * its receive ring's lock, which a change of the watermarks also holds; the SRQ buffers held by
 * the lock of the sender that takes them, a local peer's in one JVM, so a change holds both
 * Endpoints' locks); the watermarks themselves are volatile for the readers that do not take them.
 */
final class EpWatermarks {

    private final SimEndpoint ep;
    private volatile int soft;
    private volatile int hard = DatConstants.WATERMARK_INFINITE;
    private volatile boolean softArmed;
    /** SRQ buffers this Endpoint took and has not completed. */
    private int srqBuffersHeld;

    EpWatermarks(SimEndpoint ep, int soft) {
        this.ep = ep;
        this.soft = soft;
        this.softArmed = soft != DatConstants.WATERMARK_INFINITE;
    }

    /** Whether a hard watermark is set: a post then checks it under the Endpoint's lock. */
    boolean hardSet() {
        return hard != DatConstants.WATERMARK_INFINITE;
    }

    /** SRQ buffers held; with the lock of the sender into this Endpoint held. */
    int srqBuffersHeld() {
        return srqBuffersHeld;
    }

    /**
     * A receive was posted: whether the receives posted now cross the armed soft watermark (the
     * caller posts the event after the lock, once per setting). With the ring's lock held.
     */
    boolean softCrossed() {
        if (softArmed && ep.receives.postedCount() > soft) {
            softArmed = false;
            return true;
        }
        return false;
    }

    /**
     * An SRQ buffer was taken: counted, the soft watermark's event posted when it is crossed.
     *
     * @return whether the connection must break for the hard watermark
     */
    boolean srqBufferTaken() {
        srqBuffersHeld++;
        if (softArmed && srqBuffersHeld > soft) {
            softArmed = false;
            postSoftEvent();
        }
        return overHard();
    }

    /** An SRQ buffer this Endpoint held completed. With the lock held. */
    void srqBufferReleased() {
        srqBuffersHeld--;
    }

    /**
     * dat_ep_set_watermark(3DAT): sets both and arms the soft one; breaks the connection at once
     * when the hard one is exceeded already.
     */
    void set(int softHighWatermark, int hardHighWatermark) {
        if (softHighWatermark < 0 && softHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG2, "softHighWatermark", "negative watermark " + softHighWatermark);
        }
        if (hardHighWatermark < 0 && hardHighWatermark != DatConstants.WATERMARK_INFINITE) {
            throw SimHandle.invalidParameter(DatReturn.INVALID_ARG3, "hardHighWatermark", "negative watermark " + hardHighWatermark);
        }
        boolean softEvent;
        boolean breakNow;
        SimEndpoint peer = ep.lockConnection(); // a local peer's lock guards the SRQ buffers it takes here
        try {
            ep.receives.ringLock.lock(); // no post counts meanwhile
            try {
                hard = hardHighWatermark;
                softEvent = arm(softHighWatermark);
                breakNow = overHard();
            } finally {
                ep.receives.ringLock.unlock();
            }
            if (breakNow) {
                ep.breakConnection(); // without the ring's lock, which the flush of the receives takes
            }
        } finally {
            ep.unlockConnection(peer);
        }
        if (softEvent) {
            postSoftEvent();
        }
        if (breakNow) {
            ep.postBrokenEvent();
        }
    }

    /**
     * Sets and arms the soft high watermark, with the lock held.
     *
     * @return whether the buffers held exceed it already: the caller posts the event (once per setting)
     */
    boolean arm(int newSoft) {
        soft = newSoft;
        softArmed = newSoft != DatConstants.WATERMARK_INFINITE;
        if (softArmed && ep.recvBuffersHeld() > newSoft) {
            softArmed = false;
            return true;
        }
        return false;
    }

    /**
     * Whether the connection must break for the hard high watermark: connected, holding more
     * receive buffers than it. With the lock held.
     */
    private boolean overHard() {
        int h = hard;
        EpState s = ep.state;
        return h != DatConstants.WATERMARK_INFINITE && ep.recvBuffersHeld() > h
                && (s == EpState.CONNECTED || s == EpState.DISCONNECT_PENDING);
    }

    /** Breaks the connection when it is over the hard high watermark; with the lock held. */
    boolean breakIfOverHard() {
        if (!overHard()) {
            return false;
        }
        ep.breakConnection();
        return true;
    }

    /**
     * Just established: "the Provider is ready to generate a connection broken event as soon as
     * the connection is established" (dat_ep_set_watermark(3DAT)), so receives preposted beyond the
     * hard watermark break it now, after ESTABLISHED. Under the CM lock.
     */
    void checkEstablished() {
        if (hard == DatConstants.WATERMARK_INFINITE) {
            return;
        }
        boolean broke;
        SimEndpoint peer = ep.lockConnection(); // a local peer's lock guards the SRQ buffers it takes here
        try {
            ep.receives.ringLock.lock();
            try {
                broke = overHard();
            } finally {
                ep.receives.ringLock.unlock();
            }
            if (broke) {
                ep.breakConnection(); // without the ring's lock, which the flush of the receives takes
            }
        } finally {
            ep.unlockConnection(peer);
        }
        if (broke) {
            ep.postBrokenEvent();
        }
    }

    /** DAT 1.2 has no event number of its own for it: the reason tells it apart. */
    void postSoftEvent() {
        ep.ia().postAsync(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, ep, AsyncErrorReason.SRQ_SOFT_HIGH_WATERMARK_EVENT);
    }
}
