package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How remote CQ data of each kind carries a write's immediate value and an accept's confirmation. */
class RemoteCqDataTest {

    @Test
    void dataThatConsumesAReceive_carriesTheImmediateValueInTheWriteItself() {
        RemoteCqData verbs = new RemoteCqData(4, true);
        assertThat(verbs.immediateData()).isTrue();
        assertThat(verbs.writesImmediateData()).isTrue();
        assertThat(verbs.confirmsAccepts()).as("a confirmation would take a receive of the consumer's").isFalse();
        assertThat(new RemoteCqData(8, true).confirmsAccepts()).isFalse();
    }

    @Test
    void dataThatConsumesNoReceive_needsEightBytes_forTheMessageAfterTheWrite() {
        RemoteCqData tcp = new RemoteCqData(8, false);
        assertThat(tcp.immediateData()).isTrue();
        assertThat(tcp.writesImmediateData()).isFalse();
        assertThat(tcp.confirmsAccepts()).isTrue();
        RemoteCqData four = new RemoteCqData(4, false);
        assertThat(four.immediateData()).as("4 bytes hold the value but not the length").isFalse();
        assertThat(four.confirmsAccepts()).isFalse();
    }

    @Test
    void withoutRemoteCqData_neither() {
        assertThat(RemoteCqData.NONE.immediateData()).isFalse();
        assertThat(new RemoteCqData(0, true).immediateData()).isFalse();
        assertThat(RemoteCqData.NONE.confirmsAccepts()).isFalse();
    }
}
