package dat.provider.sim.internal.tcp;

/**
 * Whether a connection's peer shows life. Frames and writes read no clock for it: each read
 * that brings bytes, each write done and each write's progress bumps a mark, and the agent's
 * periodic check ({@link #check}) times the marks itself, so a break comes up to two periods of
 * the check after the timeout, never before it.
 *
 * <p>The rules, with {@code T} the IA's {@code tcp_timeout_ms}: a connection quiet for {@code T/3}
 * sends a NOP; one that reads nothing for {@code T} (a half-open connection, a peer that vanished
 * without FIN or RST, a peer that stopped writing), or whose output makes no progress for
 * {@code T} (a peer that stopped reading), breaks. An accepted socket whose connection request
 * has not come whole within {@code T} is closed; so is a connection whose peer, after this
 * side's last frame and FIN, neither closes nor sends anything for {@code T}, or has not closed
 * within {@code 2T} however much it sends.
 */
final class Liveness {

    /** What {@link #check} found. */
    enum Verdict { ALIVE, SEND_NOP, NO_REQUEST, NO_READS, NO_WRITE_PROGRESS, NOT_CLOSING }

    // the marks: written by the threads that read and write, read by the check
    private volatile long readMark;
    private volatile long writeMark;
    private volatile long progressMark;
    /** Output is waiting for the socket to take more (a write in progress). */
    private volatile boolean writing;
    // the check's own (the agent's thread): the marks it saw last, and when it saw each change
    private long seenRead;
    private long seenWrite;
    private long seenProgress;
    private long readSeenAt = System.nanoTime();
    private final long openedAt = readSeenAt;
    private long writeSeenAt = readSeenAt;
    private long progressSeenAt = readSeenAt;
    /** When the check first saw this side's FIN queued (0: not yet). */
    private long finSeenAt;

    /** Bytes were read: proof of life, mid-frame too (a frame may take longer than the timeout). */
    void read() {
        readMark++;
    }

    /** A write finished: the output was idle after it. */
    void wrote() {
        writeMark++;
    }

    /** A write call took bytes while output waited: the peer reads. */
    void progressed() {
        progressMark++;
    }

    /**
     * Output waits for the socket ({@code true}) or drained ({@code false}). Its start counts as
     * progress, before it shows as in progress, so that a wait seen in progress is timed from then.
     */
    void waiting(boolean waiting) {
        if (waiting) {
            progressMark++;
        } else if (writing) {
            writeMark++;
        }
        writing = waiting;
    }

    /** At the establishment: the connection's liveness counts from now. */
    void fromNow() {
        readMark++;
        writeMark++;
    }

    /**
     * The agent's periodic look.
     *
     * @param now the clock read for the round
     * @param timeout the timeout in nanoseconds
     * @param requested whether the connection carries an attempt or an Endpoint (else: an accepted
     *     socket whose request has not come)
     * @param established whether an Endpoint is on the connection
     * @param finQueued whether this side said its last (a DISCONNECT, a REJECT, a break)
     * @return what to do
     */
    Verdict check(long now, long timeout, boolean requested, boolean established, boolean finQueued) {
        // writing before the marks: a wait seen in progress has its start's progress seen too
        boolean busy = writing;
        long mark = readMark;
        if (mark != seenRead) {
            seenRead = mark;
            readSeenAt = System.nanoTime();
        }
        mark = writeMark;
        if (mark != seenWrite) {
            seenWrite = mark;
            writeSeenAt = System.nanoTime();
        }
        mark = progressMark;
        if (mark != seenProgress) {
            seenProgress = mark;
            progressSeenAt = System.nanoTime();
        }
        if (!requested && !established) {
            // a request trickling in a byte at a time is not proof enough: it must come whole
            return now - openedAt > timeout ? Verdict.NO_REQUEST : Verdict.ALIVE;
        }
        if (finQueued) {
            if (finSeenAt == 0) {
                finSeenAt = System.nanoTime();
            } else if (now - finSeenAt > timeout && (now - readSeenAt > timeout || now - finSeenAt > 2 * timeout)) {
                // a peer that keeps sending (NOPs) after this side's last frame holds the socket
                // for twice the timeout at most
                return Verdict.NOT_CLOSING;
            }
            return Verdict.ALIVE;
        }
        if (!established) {
            return Verdict.ALIVE; // the attempt's own timeout governs the setup
        }
        if (busy && now - progressSeenAt > timeout) {
            return Verdict.NO_WRITE_PROGRESS;
        }
        if (now - readSeenAt > timeout) {
            return Verdict.NO_READS;
        }
        if (now - writeSeenAt > timeout / 3 && !busy) {
            return Verdict.SEND_NOP;
        }
        return Verdict.ALIVE;
    }
}
