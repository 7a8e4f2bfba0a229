package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The table that maps the owner id of a DTO token to its Endpoint or SRQ ({@link OwnerTable}): it
 * stays as large as the owners live at once while owners come and go, and an id answers only while
 * the owner it was given to holds it.
 */
class OwnerTableTest {

    @Test
    void liveOwnersHaveDistinctIdsThatFindThem() {
        OwnerTable table = new OwnerTable();
        Object[] owners = new Object[1000];
        Set<Integer> ids = new HashSet<>();
        int[] idOf = new int[owners.length];
        for (int i = 0; i < owners.length; i++) {
            owners[i] = new Object();
            idOf[i] = table.add(owners[i]);
            assertThat(idOf[i]).as("an id is positive: a token of owner 0 names no DTO").isPositive();
            assertThat(ids.add(idOf[i])).as("ids of live owners differ").isTrue();
        }
        for (int i = 0; i < owners.length; i++) {
            assertThat(table.get(idOf[i])).isSameAs(owners[i]);
        }
        assertThat(table.get(0)).isNull();
        assertThat(table.get(-1)).isNull();
        assertThat(table.get(Integer.MAX_VALUE)).isNull();
    }

    @Test
    void removeTakesOutOnlyTheOwnerThatHoldsTheId() {
        OwnerTable table = new OwnerTable();
        Object owner = new Object();
        int id = table.add(owner);
        table.remove(id, new Object());
        assertThat(table.get(id)).as("another object under the same id").isSameAs(owner);
        table.remove(id + 1, owner);
        assertThat(table.get(id)).as("another id").isSameAs(owner);
        table.remove(id, owner);
        assertThat(table.get(id)).isNull();
        table.remove(id, owner); // twice: nothing happens
        assertThat(table.get(id)).isNull();
    }

    @Test
    void ownersComingAndGoingReuseIndicesUnderNewIds() {
        OwnerTable table = new OwnerTable();
        int live = 10;
        ArrayDeque<int[]> open = new ArrayDeque<>();
        Set<Integer> gone = new HashSet<>();
        // an index comes back about every 270 owners here, with the next of its 512 generations:
        // no id repeats within these rounds
        for (int round = 0; round < 120_000; round++) {
            Object owner = new Object();
            int id = table.add(owner);
            assertThat(gone.contains(id)).as("id %d given again while its earlier holder's tokens may be late", id).isFalse();
            assertThat(table.get(id)).isSameAs(owner);
            open.add(new int[] {id, System.identityHashCode(owner)});
            if (open.size() > live) {
                int[] oldest = open.poll();
                Object held = table.get(oldest[0]);
                assertThat(System.identityHashCode(held)).isEqualTo(oldest[1]);
                table.remove(oldest[0], held);
                assertThat(table.get(oldest[0])).as("a late token of a freed owner finds nothing").isNull();
                gone.add(oldest[0]);
            }
        }
        assertThat(table.indices()).as("indices handed out, for at most %d owners at once", live + 1)
                .isLessThanOrEqualTo(live + 1 + OwnerTable.REUSE_AFTER);
    }

    @Test
    void aFullTableRefusesAnotherOwner() {
        OwnerTable table = new OwnerTable();
        Object owner = new Object();
        int last = 0;
        for (int i = 1; i < 1 << OwnerTable.INDEX_BITS; i++) {
            last = table.add(owner);
            assertThat(last).isPositive();
        }
        assertThat(table.add(owner)).as("every index taken").isEqualTo(-1);
        table.remove(last, owner);
        int again = table.add(owner);
        assertThat(again).as("a freed index is taken again once the table is full").isPositive().isNotEqualTo(last);
        assertThat(table.get(again)).isSameAs(owner);
        assertThat(table.get(last)).isNull();
    }
}
