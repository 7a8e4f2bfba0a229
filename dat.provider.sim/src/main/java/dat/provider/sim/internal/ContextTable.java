package dat.provider.sim.internal;

import java.security.SecureRandom;

/**
 * The table of live LMR or RMR contexts of one provider: an open-addressing int-to-object map whose
 * lookups are lock-free and allocation-free (they read an immutable snapshot), and whose changes,
 * which are control-path operations, copy the arrays under a lock.
 *
 * <p>New contexts come from {@link SecureRandom}, are never 0, and are never a context that is
 * still in the table, so a peer cannot guess a valid context from one it saw, and a context is not
 * reused while it is valid.
 *
 * @param <T> the registered object
 */
final class ContextTable<T> {

    private record Snapshot(int[] keys, Object[] values, int size) {}

    private final SecureRandom random;
    private volatile Snapshot snapshot = new Snapshot(new int[16], new Object[16], 0);

    ContextTable(SecureRandom random) {
        this.random = random;
    }

    /**
     * Looks a context up.
     *
     * @param context the context
     * @return the object, or {@code null}
     */
    @SuppressWarnings("unchecked")
    T get(int context) {
        if (context == 0) {
            return null;
        }
        Snapshot s = snapshot;
        int[] keys = s.keys;
        int mask = keys.length - 1;
        for (int i = mix(context) & mask;; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == context) {
                return (T) s.values[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    /**
     * Registers an object under a fresh random context.
     *
     * @param value the object
     * @return its new context
     */
    synchronized int register(T value) {
        int context;
        do {
            context = random.nextInt();
        } while (context == 0 || get(context) != null);
        put(context, value);
        return context;
    }

    /**
     * Removes a context; nothing happens if it is not there.
     *
     * @param context the context
     */
    synchronized void remove(int context) {
        if (context == 0 || get(context) == null) {
            return;
        }
        Snapshot s = snapshot;
        int[] keys = new int[s.keys.length];
        Object[] values = new Object[s.keys.length];
        for (int i = 0; i < s.keys.length; i++) {
            if (s.keys[i] != 0 && s.keys[i] != context) {
                insert(keys, values, s.keys[i], s.values[i]);
            }
        }
        snapshot = new Snapshot(keys, values, s.size - 1);
    }

    /**
     * The number of live contexts.
     *
     * @return the count
     */
    int size() {
        return snapshot.size;
    }

    private void put(int context, T value) {
        Snapshot s = snapshot;
        int capacity = s.keys.length;
        while ((s.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        int[] keys = new int[capacity];
        Object[] values = new Object[capacity];
        for (int i = 0; i < s.keys.length; i++) {
            if (s.keys[i] != 0) {
                insert(keys, values, s.keys[i], s.values[i]);
            }
        }
        insert(keys, values, context, value);
        snapshot = new Snapshot(keys, values, s.size + 1);
    }

    private static void insert(int[] keys, Object[] values, int key, Object value) {
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != 0) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
