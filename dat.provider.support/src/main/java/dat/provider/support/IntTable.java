package dat.provider.support;

/**
 * A map from {@code int} keys to objects whose reads allocate nothing and take no lock: a
 * provider's data path looks up LMRs by their key and the owners of work requests or queue pairs
 * by their number through it. Writers (the control path) copy the arrays under the table's monitor
 * and publish them through a volatile field; open addressing with linear probing.
 *
 * @param <V> the value type
 */
public final class IntTable<V> {

    private record Snapshot(int[] keys, Object[] values, int size) {
    }

    private volatile Snapshot snapshot = new Snapshot(new int[16], new Object[16], 0);

    @SuppressWarnings("unchecked")
    public V get(int key) {
        Snapshot s = snapshot;
        int mask = s.keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            Object value = s.values[i];
            if (value == null) {
                return null;
            }
            if (s.keys[i] == key) {
                return (V) value;
            }
        }
    }

    public synchronized void put(int key, V value) {
        Snapshot s = snapshot;
        int capacity = s.keys.length;
        while ((s.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        int[] keys = new int[capacity];
        Object[] values = new Object[capacity];
        int size = 0;
        for (int i = 0; i < s.keys.length; i++) {
            if (s.values[i] != null && s.keys[i] != key) {
                insert(keys, values, s.keys[i], s.values[i]);
                size++;
            }
        }
        insert(keys, values, key, value);
        snapshot = new Snapshot(keys, values, size + 1);
    }

    public synchronized void remove(int key, V value) {
        Snapshot s = snapshot;
        int[] keys = new int[s.keys.length];
        Object[] values = new Object[s.keys.length];
        int size = 0;
        for (int i = 0; i < s.keys.length; i++) {
            if (s.values[i] != null && !(s.keys[i] == key && s.values[i] == value)) {
                insert(keys, values, s.keys[i], s.values[i]);
                size++;
            }
        }
        snapshot = new Snapshot(keys, values, size);
    }

    public synchronized void clear() {
        snapshot = new Snapshot(new int[16], new Object[16], 0);
    }

    private static void insert(int[] keys, Object[] values, int key, Object value) {
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (values[i] != null) {
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
