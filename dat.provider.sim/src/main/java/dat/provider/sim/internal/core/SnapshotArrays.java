package dat.provider.sim.internal.core;

import java.util.Arrays;

/**
 * Arrays that readers iterate without a lock while their owner replaces them whole under its
 * monitor (copy on write): a reader always sees one consistent snapshot.
 */
public final class SnapshotArrays {

    private SnapshotArrays() {
    }

    /** {@code array} without its first {@code element} (compared by identity), or {@code array} itself where absent. */
    public static <T> T[] without(T[] array, T element) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == element) {
                T[] smaller = Arrays.copyOf(array, array.length - 1);
                System.arraycopy(array, i + 1, smaller, i, array.length - i - 1);
                return smaller;
            }
        }
        return array;
    }
}
