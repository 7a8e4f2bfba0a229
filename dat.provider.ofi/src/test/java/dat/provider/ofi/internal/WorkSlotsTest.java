package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The count of DTOs libfabric holds that a request queue keeps in its CQ's counter
 * ({@link WorkSlots#countIn}): a CQ whose count is 0 is not read by a dequeue, so the count must
 * follow every way a DTO enters and leaves libfabric.
 */
class WorkSlotsTest {

    @Test
    void theCqCountFollowsPostsCompletionsAbandonsAndFlushes() {
        WorkSlots slots = new WorkSlots(8, 1, false, 0);
        AtomicInteger cq = new AtomicInteger();
        slots.countIn(cq);

        int a = slots.acquire();
        int b = slots.acquire();
        int c = slots.acquire();
        assertThat(cq.get()).as("three posted").isEqualTo(3);

        assertThat(slots.markQueued(slots.token(a))).isTrue();
        assertThat(cq.get()).as("a completion read: its DTO left libfabric").isEqualTo(2);
        assertThat(slots.markQueued(slots.token(a))).as("a duplicate").isFalse();
        assertThat(cq.get()).isEqualTo(2);
        assertThat(slots.release(slots.token(a))).isTrue();
        assertThat(cq.get()).as("releasing a queued slot").isEqualTo(2);

        slots.abandon(b);
        assertThat(cq.get()).as("a post libfabric refused").isEqualTo(1);

        assertThat(slots.release(slots.token(c))).as("a suppressed success, released as it is read").isTrue();
        assertThat(cq.get()).isZero();

        slots.acquire();
        slots.acquire();
        int[] out = new int[slots.capacity()];
        assertThat(slots.takePosted(out)).isEqualTo(2);
        assertThat(cq.get()).as("the teardown's flush").isZero();
    }

    @Test
    void aNewCqTakesOverThePostedCount() {
        WorkSlots slots = new WorkSlots(4, 1, false, 0);
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        slots.acquire();
        slots.countIn(first);
        assertThat(first.get()).as("a DTO posted before the count was attached").isEqualTo(1);
        slots.countIn(second);
        assertThat(first.get()).isZero();
        assertThat(second.get()).isEqualTo(1);
        slots.countIn(null);
        assertThat(second.get()).isZero();
        slots.acquire();
        assertThat(second.get()).as("no count attached").isZero();
        assertThat(slots.posted()).isEqualTo(2);
    }

    @Test
    void aConfirmingCompletionGivesBackTheSilentWritesBeforeItAndNoOthers() {
        WorkSlots slots = new WorkSlots(8, 1, false, 0);
        AtomicInteger cq = new AtomicInteger();
        slots.countIn(cq);
        int first = slots.acquire();
        slots.markSilent(first);
        int refused = slots.acquire();
        slots.markSilent(refused);
        int signalled = slots.acquire();
        int later = slots.acquire();
        slots.markSilent(later);
        assertThat(slots.maySilence()).as("three of eight silent").isTrue();
        assertThat(slots.markQueued(slots.token(refused))).as("the error completion of a silent write, read").isTrue();

        assertThat(slots.confirmBefore(signalled)).as("the silent write before it still posted").isEqualTo(1);
        assertThat(slots.lookup(slots.token(first))).isEqualTo(-1);
        assertThat(slots.lookup(slots.token(refused))).as("its error is still to report").isEqualTo(refused);
        assertThat(slots.lookup(slots.token(later))).as("posted after the confirming DTO").isEqualTo(later);
        assertThat(cq.get()).as("the signalled and the later write are in libfabric").isEqualTo(2);

        int[] out = new int[slots.capacity()];
        assertThat(slots.takePosted(out)).as("the teardown flushes the unconfirmed silent write").isEqualTo(2);
        for (int i = 0; i < 4; i++) {
            slots.markSilent(slots.acquire());
        }
        assertThat(slots.maySilence()).as("half the queue silent").isFalse();
    }

    @Test
    void renamedReceivesStayPostedInPostingOrder_andTheirOldTokensMatchNothing() {
        WorkSlots slots = new WorkSlots(4, 1, true, 1);
        AtomicInteger cq = new AtomicInteger();
        slots.countIn(cq);
        int first = slots.acquire();
        int second = slots.acquire();
        long[] old = {slots.token(first), slots.token(second)};
        int[] out = new int[slots.capacity()];

        assertThat(slots.renamePosted(out)).isEqualTo(2);
        assertThat(out[0]).as("posting order").isEqualTo(first);
        assertThat(out[1]).isEqualTo(second);
        assertThat(cq.get()).as("still posted").isEqualTo(2);
        assertThat(slots.lookup(old[0])).as("the cancelled endpoint's token").isEqualTo(-1);
        assertThat(slots.markQueued(old[1])).as("a late completion under the old token").isFalse();
        assertThat(slots.lookup(slots.token(first))).as("the new token").isEqualTo(first);
        assertThat(slots.markQueued(slots.token(second))).isTrue();
    }
}
