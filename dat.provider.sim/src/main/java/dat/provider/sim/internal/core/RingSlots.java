package dat.provider.sim.internal.core;

/**
 * The number of slots of a ring that holds up to a given number of entries: the power of two at
 * or above it, so that a sequence's slot is {@code sequence & (slots - 1)}. A division by a count
 * known only at run time takes tens of cycles, and the data path of one message finds several
 * slots in a row (the receive's, the completion's record twice), each waiting for the last: in one
 * JVM the remainder cost about a tenth of an 8-byte ping-pong's half round trip. The ring still
 * holds no more entries than asked for: its owner checks fullness against that count.
 */
final class RingSlots {

    private RingSlots() {
    }

    /** The power of two at or above {@code entries} (at least 1). */
    static int forEntries(int entries) {
        return entries <= 1 ? 1 : Integer.highestOneBit(entries - 1) << 1;
    }
}
