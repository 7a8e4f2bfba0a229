package dat.provider.ofi.internal;

import dat.api.DatEvent;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * The completion queues one DTO EVD reads: its own, and those of the SRQ Endpoints whose receive
 * EVD it is (an SRQ Endpoint's receives complete on a CQ of its own, which its receive EVD reads
 * beside its own). Every method but {@link #all}, {@link #hasAttached} and {@link #anyStalled}
 * is called with the EVD's lock held; the attached queues are replaced whole (copy on write), so
 * the event thread reads them without it.
 */
final class EvdQueues {

    private static final CompletionQueue[] NONE = new CompletionQueue[0];

    /** The EVD's own CQ. */
    final CompletionQueue own;
    private volatile CompletionQueue[] attached = NONE;

    EvdQueues(CompletionQueue own) {
        this.own = own;
    }

    /** Reads every CQ into its ring; the completions the rings hold. */
    int fill() {
        int completions = own.fill();
        for (CompletionQueue q : attached) {
            completions += q.fill();
        }
        return completions;
    }

    /** Whether a ring holds a notification event (read by {@link #fill} first). */
    boolean hasNotification() {
        return any(CompletionQueue::hasNotification);
    }

    /** How many completions the rings hold. */
    int queued() {
        int n = own.queued();
        for (CompletionQueue q : attached) {
            n += q.queued();
        }
        return n;
    }

    /** Moves the next completion of the rings, own CQ first, into {@code event}. */
    boolean take(DatEvent event, OfiEvd owner) {
        if (own.take(event, owner)) {
            return true;
        }
        for (CompletionQueue q : attached) {
            if (q.take(event, owner)) {
                return true;
            }
        }
        return false;
    }

    /** An SRQ Endpoint's CQ joins. */
    void attach(CompletionQueue queue) {
        CompletionQueue[] grown = Arrays.copyOf(attached, attached.length + 1);
        grown[grown.length - 1] = queue;
        attached = grown;
    }

    /** An SRQ Endpoint's CQ leaves. */
    void detach(CompletionQueue queue) {
        attached = Arrays.stream(attached).filter(q -> q != queue).toArray(CompletionQueue[]::new);
    }

    /** Whether SRQ Endpoints' CQs are read beside the own one. */
    boolean hasAttached() {
        return attached.length > 0;
    }

    /** Whether a ring is full while its CQ may hold more: the event thread leaves them alone. */
    boolean anyStalled() {
        return any(CompletionQueue::isStalled);
    }

    /** Whether a CQ answers {@code true}; a non-capturing method reference allocates nothing. */
    private boolean any(Predicate<CompletionQueue> answer) {
        if (answer.test(own)) {
            return true;
        }
        for (CompletionQueue q : attached) {
            if (answer.test(q)) {
                return true;
            }
        }
        return false;
    }

    /** Every CQ, the own one first: what the event thread watches. */
    CompletionQueue[] all() {
        CompletionQueue[] more = attached;
        CompletionQueue[] all = new CompletionQueue[more.length + 1];
        all[0] = own;
        System.arraycopy(more, 0, all, 1, more.length);
        return all;
    }
}
