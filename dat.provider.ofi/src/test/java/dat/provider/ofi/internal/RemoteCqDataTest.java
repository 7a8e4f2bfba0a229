package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How remote CQ data of each kind carries a write's immediate value, an accept's confirmation and a send's solicited mark. */
class RemoteCqDataTest {

    @Test
    void dataThatConsumesAReceive_carriesTheImmediateValueInTheWriteItself() {
        RemoteCqData verbs = new RemoteCqData(4, true);
        assertThat(verbs.immediateData()).isTrue();
        assertThat(verbs.writesImmediateData()).isTrue();
        assertThat(verbs.confirmsAccepts()).as("a confirmation would take a receive of the consumer's").isFalse();
        assertThat(verbs.marksSolicited()).as("its 4 bytes are the consumer's immediate value").isFalse();
        assertThat(new RemoteCqData(8, true).confirmsAccepts()).isFalse();
        assertThat(new RemoteCqData(8, true).marksSolicited()).isFalse();
    }

    @Test
    void dataThatConsumesNoReceive_needsEightBytes_forTheMessageAfterTheWrite() {
        RemoteCqData tcp = new RemoteCqData(8, false);
        assertThat(tcp.immediateData()).isTrue();
        assertThat(tcp.writesImmediateData()).isFalse();
        assertThat(tcp.confirmsAccepts()).isTrue();
        assertThat(tcp.marksSolicited()).isTrue();
        RemoteCqData four = new RemoteCqData(4, false);
        assertThat(four.immediateData()).as("4 bytes hold the value but not the length").isFalse();
        assertThat(four.confirmsAccepts()).isFalse();
        assertThat(four.marksSolicited()).isFalse();
    }

    @Test
    void aMessagesCqData_tellsASolicitedSendFromTheMessageOfAWriteWithImmediateData_eitherMarkedSolicited() {
        long send = MessageCqData.solicitedSend();
        assertThat(MessageCqData.isSend(send)).isTrue();
        assertThat(MessageCqData.isSolicited(send)).isTrue();
        for (boolean solicited : new boolean[] {false, true}) {
            for (long written : new long[] {0, 1, 4096, 1L << 30}) {
                long write = MessageCqData.writeWithImmediateData(written, 0xFFFF_FFFF, solicited);
                assertThat(MessageCqData.isSend(write)).as("a write of %d bytes, solicited %s", written, solicited).isFalse();
                assertThat(MessageCqData.isSolicited(write)).isEqualTo(solicited);
                assertThat(MessageCqData.written(write)).isEqualTo(written);
                assertThat((int) write).isEqualTo(0xFFFF_FFFF);
            }
        }
    }

    @Test
    void withoutRemoteCqData_neither() {
        assertThat(RemoteCqData.NONE.immediateData()).isFalse();
        assertThat(new RemoteCqData(0, true).immediateData()).isFalse();
        assertThat(RemoteCqData.NONE.confirmsAccepts()).isFalse();
        assertThat(RemoteCqData.NONE.marksSolicited()).isFalse();
    }
}
