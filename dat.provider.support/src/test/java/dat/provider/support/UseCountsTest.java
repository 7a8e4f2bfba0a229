package dat.provider.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class UseCountsTest {

    private record Handle(AtomicInteger users) {
        Handle() {
            this(new AtomicInteger(1));
        }
    }

    @Test
    void aUseMovesFromTheOldHandleToTheNew() {
        Handle old = new Handle();
        Handle next = new Handle();
        assertThat(UseCounts.swap(old, next, Handle::users)).isSameAs(next);
        assertThat(old.users().get()).isZero();
        assertThat(next.users().get()).isEqualTo(2);
    }

    @Test
    void theSameHandleOrNoneChangesNoCount() {
        Handle same = new Handle();
        assertThat(UseCounts.swap(same, same, Handle::users)).isSameAs(same);
        assertThat(same.users().get()).isEqualTo(1);
        assertThat(UseCounts.swap(null, same, Handle::users)).isSameAs(same);
        assertThat(same.users().get()).isEqualTo(2);
        assertThat(UseCounts.swap(same, null, Handle::users)).isNull();
        assertThat(same.users().get()).isEqualTo(1);
    }
}
