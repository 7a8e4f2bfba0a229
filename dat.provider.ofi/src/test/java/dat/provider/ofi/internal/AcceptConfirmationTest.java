package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The accept's confirmation: the passive side is established once both FI_CONNECTED and the confirmation came, in either order. */
class AcceptConfirmationTest {

    @Test
    void withRemoteCqData_thePassiveSideWaitsForBoth_inEitherOrder() {
        AcceptConfirmation c = new AcceptConfirmation(new RemoteCqData(8, false), 7);
        assertThat(c.owner()).isEqualTo(7);
        c.accepting(3);
        assertThat(c.connected()).as("FI_CONNECTED alone").isFalse();
        assertThat(c.confirmed(c.accepts())).as("then the confirmation").isTrue();
        c.accepting(3);
        assertThat(c.confirmed(c.accepts())).as("the confirmation alone").isFalse();
        assertThat(c.connected()).as("then FI_CONNECTED").isTrue();
    }

    @Test
    void aConfirmationReadUnderAnEarlierAccept_doesNotCountForALaterOne() {
        AcceptConfirmation c = new AcceptConfirmation(new RemoteCqData(8, false), 7);
        c.accepting(3);
        int first = c.accepts(); // the requester confirmed, then its connection ended
        c.accepting(4); // the Endpoint, reset, accepts another requester
        assertThat(c.confirmed(first)).as("the first requester's confirmation").isFalse();
        assertThat(c.connected()).as("FI_CONNECTED of the second, unconfirmed").isFalse();
        assertThat(c.confirmed(c.accepts())).as("the second requester's confirmation").isTrue();
    }

    @Test
    void aRequesterThatNamesNoOwner_isNotWaitedFor() {
        AcceptConfirmation c = new AcceptConfirmation(new RemoteCqData(8, false), 7);
        c.accepting(0);
        assertThat(c.connected()).isTrue();
        assertThat(c.sendsTo(0)).as("the active side confirms no accept whose Endpoint it does not know").isFalse();
        assertThat(c.sendsTo(9)).isTrue();
    }

    @Test
    void withoutRemoteCqData_nobodyConfirms_andNobodyWaits() {
        AcceptConfirmation c = new AcceptConfirmation(RemoteCqData.NONE, 7);
        assertThat(c.owner()).as("the owner id the private data carries").isZero();
        assertThat(c.sendsTo(9)).isFalse();
        c.accepting(3);
        assertThat(c.connected()).isTrue();
    }

    @Test
    void theConfirmationsRemoteCqData_namesTheOwner_andIsToldFromOtherData() {
        long data = AcceptConfirmation.data(0x8000_0001);
        assertThat(AcceptConfirmation.isConfirmation(data)).isTrue();
        assertThat((int) data).isEqualTo(0x8000_0001);
        assertThat(AcceptConfirmation.isConfirmation(0x1234_5678L)).isFalse();
    }
}
