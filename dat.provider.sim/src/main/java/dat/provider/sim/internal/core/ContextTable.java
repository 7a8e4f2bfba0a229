package dat.provider.sim.internal.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;

/**
 * The table of live LMR or RMR contexts of one provider: an open-addressing int-to-object map whose
 * lookups are lock-free and allocation-free, and whose changes (control-path operations) are
 * serialized by a lock. An entry is written value first, then key with release semantics; a lookup
 * reads the key with acquire semantics, so it never sees a key without its value. Removal leaves a
 * tombstone; the arrays are rebuilt (and republished) when they fill up.
 *
 * <p>New contexts come from {@link SecureRandom}, are never 0, and are never a context that is
 * still in the table, so a peer cannot guess a valid context from one it saw, and a context is not
 * reused while it is valid.
 *
 * @param <T> the registered object
 */
final class ContextTable<T> {

    private static final int EMPTY = 0;
    private static final int TOMBSTONE = Integer.MIN_VALUE;
    private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(int[].class);

    private record Table(int[] keys, Object[] values) {}

    private final SecureRandom random;
    private volatile Table table = new Table(new int[64], new Object[64]);
    private int live;
    private int used; // live + tombstones

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
        if (context == EMPTY || context == TOMBSTONE) {
            return null;
        }
        Table t = table;
        int[] keys = t.keys;
        int mask = keys.length - 1;
        for (int i = mix(context) & mask;; i = (i + 1) & mask) {
            int k = (int) KEYS.getAcquire(keys, i);
            if (k == context) {
                return (T) t.values[i];
            }
            if (k == EMPTY) {
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
        } while (context == EMPTY || context == TOMBSTONE || get(context) != null);
        if ((used + 1) * 2 > table.keys.length) {
            rebuild();
        }
        insert(table, context, value);
        live++;
        used++;
        return context;
    }

    /**
     * Removes a context; nothing happens if it is not there.
     *
     * @param context the context
     */
    synchronized void remove(int context) {
        if (context == EMPTY || context == TOMBSTONE) {
            return;
        }
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = mix(context) & mask;; i = (i + 1) & mask) {
            int k = t.keys[i];
            if (k == context) {
                KEYS.setRelease(t.keys, i, TOMBSTONE);
                t.values[i] = null;
                live--;
                return;
            }
            if (k == EMPTY) {
                return;
            }
        }
    }

    /**
     * The number of live contexts.
     *
     * @return the count
     */
    synchronized int size() {
        return live;
    }

    /** Copies the live entries into fresh arrays (twice as large when half full of live entries). */
    private void rebuild() {
        Table old = table;
        int capacity = old.keys.length;
        while ((live + 1) * 4 > capacity) {
            capacity *= 2;
        }
        Table fresh = new Table(new int[capacity], new Object[capacity]);
        for (int i = 0; i < old.keys.length; i++) {
            int k = old.keys[i];
            if (k != EMPTY && k != TOMBSTONE) {
                insert(fresh, k, old.values[i]);
            }
        }
        used = live;
        table = fresh;
    }

    private static void insert(Table t, int key, Object value) {
        int mask = t.keys.length - 1;
        int i = mix(key) & mask;
        while (t.keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        t.values[i] = value;
        KEYS.setRelease(t.keys, i, key);
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
