package dat.provider.ofi.internal;

import java.util.Arrays;

/**
 * The owners of one IA's work requests (its Endpoints and SRQs) by the id their DTO tokens carry
 * ({@link WorkSlots}), and the id a passive Endpoint names to its peer for the confirmation of an
 * accept. A completion reaped from a CQ finds its owner here without a lock and without allocating.
 *
 * <p><b>Ids.</b> An id is a 31-bit positive number: an index into the table in its low
 * {@value #INDEX_BITS} bits and that index's generation in the bits above. An owner that left
 * gives its index back, and a later owner takes it with the next generation, so the table holds
 * as many entries as owners live at once and not one per owner ever made. A lookup answers only to
 * the id of the owner that holds the index now: a late completion of a freed Endpoint's DTO, or a
 * confirmation meant for it, finds nothing. Indices are taken again oldest first, and only while
 * {@value #REUSE_AFTER} or more are free: at least that many owners are made between two owners
 * of one index, and an id comes back only after 512 times as many (unless the table is full).
 *
 * <p>Writers hold this table's monitor, which an IA takes under an EVD's lock (a completion's
 * reaping lets a freed owner go) and which takes no lock itself.
 */
final class OwnerTable {

    static final int INDEX_BITS = 22;
    private static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
    private static final int GENERATION_MASK = (1 << (31 - INDEX_BITS)) - 1;
    /** Indices are reused only while at least this many are free. */
    static final int REUSE_AFTER = 256;

    private record Entry(int id, Object owner) {
    }

    private volatile Entry[] entries = new Entry[64];
    /** The generation each index had last; guarded by this. */
    private int[] generations = new int[64];
    /** Index 0 is never used: a token of owner 0 names no DTO. */
    private int used = 1;
    /** The free indices, oldest first: a ring of {@code freeCount} from {@code freeHead}. */
    private int[] free = new int[64];
    private int freeHead;
    private int freeCount;

    /**
     * Enters an owner.
     *
     * @return its id, or -1 when the table holds as many owners as its ids can name
     */
    synchronized int add(Object owner) {
        int index;
        if (freeCount >= REUSE_AFTER || used > INDEX_MASK && freeCount > 0) {
            index = free[freeHead];
            freeHead = (freeHead + 1) % free.length;
            freeCount--;
        } else if (used <= INDEX_MASK) {
            index = used++;
            if (index == entries.length) {
                int length = Math.min(entries.length * 2, INDEX_MASK + 1);
                entries = Arrays.copyOf(entries, length);
                generations = Arrays.copyOf(generations, length);
            }
        } else {
            return -1;
        }
        int generation = (generations[index] + 1) & GENERATION_MASK;
        generations[index] = generation;
        int id = generation << INDEX_BITS | index;
        entries[index] = new Entry(id, owner);
        return id;
    }

    /** Takes {@code owner} out if it holds {@code id}, and frees its index; else does nothing. */
    synchronized void remove(int id, Object owner) {
        Entry[] table = entries;
        int index = id & INDEX_MASK;
        if (id <= 0 || index >= table.length) {
            return;
        }
        Entry entry = table[index];
        if (entry == null || entry.id != id || entry.owner != owner) {
            return;
        }
        table[index] = null;
        if (freeCount == free.length) {
            int[] grown = new int[free.length * 2];
            for (int i = 0; i < freeCount; i++) {
                grown[i] = free[(freeHead + i) % free.length];
            }
            free = grown;
            freeHead = 0;
        }
        free[(freeHead + freeCount) % free.length] = index;
        freeCount++;
    }

    /** The owner that holds {@code id} now, or {@code null}; without a lock. */
    Object get(int id) {
        Entry[] table = entries;
        int index = id & INDEX_MASK;
        if (id <= 0 || index >= table.length) {
            return null;
        }
        Entry entry = table[index];
        return entry != null && entry.id == id ? entry.owner : null;
    }

    /** How many indices the table has handed out: the most owners it held at once, and up to {@value #REUSE_AFTER} more. */
    synchronized int indices() {
        return used - 1;
    }
}
