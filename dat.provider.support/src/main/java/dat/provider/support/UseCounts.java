package dat.provider.support;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The count of the objects that use a handle (an EVD's Endpoints and Service Points, a PZ's LMRs),
 * which its free checks: a user that moves from one handle to another counts out of the first and
 * into the second.
 */
public final class UseCounts {

    private UseCounts() {
    }

    /**
     * Moves one use from {@code old} to {@code next} (either may be {@code null}; nothing changes
     * when they are the same handle).
     *
     * @param users a handle's count of users
     * @return {@code next}
     */
    public static <T> T swap(T old, T next, Function<T, AtomicInteger> users) {
        if (old != next) {
            if (next != null) {
                users.apply(next).incrementAndGet();
            }
            if (old != null) {
                users.apply(old).decrementAndGet();
            }
        }
        return next;
    }
}
